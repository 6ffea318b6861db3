//! `send_keys`: named keys and chords (tmux's spelling, [`crate::keys`]) pressed in a
//! session as one write, after the dangerous-command check send_line's text passes: the
//! keys' bytes are what a line editor reads, so `Up Enter`, `C-c` or `BSpace Enter` are
//! judged with what earlier writes left on the line (by the holder) exactly as the same
//! bytes sent as escapes would be.

use super::handle::Place;
use super::typed::check_typed;
use super::{Ctx, sessions};
use crate::api::reply::{SendKeysReply, Success};
use crate::api::request::SendKeysArgs;
use crate::error::Result;
use crate::keys::Encoded;
use crate::proto::WriteRequest;
use crate::safety::Opacity;

/// Run `send_keys` (the keys encoded and checked by [`super::request`]).
pub fn send_keys(ctx: &Ctx, a: &SendKeysArgs) -> Result<SendKeysReply> {
    let h = super::target::target(ctx, &a.target, false)?;
    let bytes_written = match h.place() {
        Place::Bridged => {
            check_typed(&a.encoded.normal, Opacity::Strict)?;
            crate::bridge::send_raw(&h, &a.encoded.normal)?
        }
        Place::Local(_) => write_local(ctx, &h, a.encoded.clone())?,
    };
    Ok(SendKeysReply {
        ok: Success,
        session_id: h.into_entry().session_id,
        keys: a.keys.clone(),
        bytes_written,
    })
}

/// The keys into a local session's holder, which types the application-cursor spelling when
/// a program has set that mode, and checks them with what the line already holds.
fn write_local(ctx: &Ctx, e: &crate::store::RegistryEntry, encoded: Encoded) -> Result<u64> {
    let app_cursor = (encoded.app_cursor != encoded.normal).then_some(encoded.app_cursor);
    let req = WriteRequest {
        data: encoded.normal,
        enter_follows: false,
        app_cursor,
        by: Some(ctx.writer(None)),
    };
    Ok(sessions::call(ctx, e, req, sessions::SHORT_CALL)?.bytes_written as u64)
}
