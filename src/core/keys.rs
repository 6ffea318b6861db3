//! `send_keys`: named keys and chords (tmux's spelling, [`crate::keys`]) pressed in a
//! session as one write, after the dangerous-command check send_line's text passes: the
//! keys' bytes are what a line editor reads, so `Up Enter`, `C-c` or `BSpace Enter` are
//! judged with what earlier writes left on the line (by the holder) exactly as the same
//! bytes sent as escapes would be.

use super::io::{check_size, check_typed};
use super::kind::Session;
use super::{Ctx, sessions};
use crate::api::Params;
use crate::api::reply::{SendKeysReply, Success};
use crate::error::{Error, Result};
use crate::keys::{Encoded, KEY_HELP};
use crate::proto::WriteRequest;
use crate::safety::Opacity;
use serde_json::json;

/// Run `send_keys`.
pub fn send_keys(ctx: &Ctx, p: &Params) -> Result<SendKeysReply> {
    let keys = p.keys.clone().unwrap_or_default();
    if keys.is_empty() {
        return Err(Error::invalid(format!(
            "send_keys needs `keys`: the keys to press, e.g. [\"C-c\"] or [\"Up\", \"Enter\"]; {KEY_HELP}"
        )));
    }
    let literal = p.literal.unwrap_or(false);
    let encoded = crate::keys::encode(&keys, literal).map_err(|e| {
        Error::invalid(e.to_string()).with_details(json!({"key": e.key, "keys": keys}))
    })?;
    check_size("keys", &encoded.normal)?;
    check_size("keys", &encoded.app_cursor)?;
    check_typed(&encoded.normal, Opacity::Ignore)?;
    check_typed(&encoded.app_cursor, Opacity::Ignore)?;
    let (session_id, bytes_written) = match Session::of(sessions::target(ctx, p, false)?) {
        Session::Bridged(e) => {
            check_typed(&encoded.normal, Opacity::Strict)?;
            (
                e.session_id.clone(),
                crate::bridge::send_raw(&e, &encoded.normal)?,
            )
        }
        Session::Local(e) => {
            let written = write_local(ctx, &e, encoded)?;
            (e.session_id, written)
        }
    };
    Ok(SendKeysReply {
        ok: Success,
        session_id,
        keys,
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
    };
    Ok(sessions::call(ctx, e, req, sessions::SHORT_CALL)?.bytes_written as u64)
}
