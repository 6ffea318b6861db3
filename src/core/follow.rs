//! Following a session's output (`kpty read --follow`): the recent tail (or everything after
//! `since`), then each new piece as it arrives, until the shell ends or the session is killed.
//! The first read is the one recorded in the audit trail; the waits after it are not recorded
//! one by one (a busy terminal would add an event per chunk of output).

use super::{Ctx, io};
use crate::api::reply::ReadReply;
use crate::api::{Action, Params};
use crate::error::{ErrorCode, Result};

/// How a follow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowEnd {
    /// The shell ended (the last reply said `session_alive: false`).
    Ended,
    /// The session was killed (and forgotten) while being followed.
    Gone,
}

/// The default wait of each read in a follow, in ms.
pub const FOLLOW_WAIT_MS: u64 = 30_000;

/// Follow the output of `p`'s session, handing each read's reply to `emit`.
pub fn follow(ctx: &Ctx, mut p: Params, emit: &mut dyn FnMut(&ReadReply)) -> Result<FollowEnd> {
    p.timeout_ms = Some(p.timeout_ms.unwrap_or(FOLLOW_WAIT_MS));
    // Without `since`: the recent tail at once, then what follows its end.
    let first = Params {
        timeout_ms: if p.since.is_none() {
            Some(0)
        } else {
            p.timeout_ms
        },
        ..p.clone()
    };
    let mut r = super::audited(ctx, Action::Read, &first, || io::read(ctx, &first))
        .map_err(|e| super::outgoing_error(ctx, e))?;
    if ctx.redact {
        // What [`super::outgoing`] does to an audited reply's strings.
        redact_strings(&mut r);
    }
    loop {
        emit(&r);
        if !r.session_alive {
            return Ok(FollowEnd::Ended);
        }
        p.since = r.next_offset;
        r = match io::read(ctx, &p) {
            Ok(r) => r,
            Err(e) if e.code == ErrorCode::PtySessionNotFound => return Ok(FollowEnd::Gone),
            Err(e) => return Err(e),
        };
    }
}

/// Redact the free-text fields of a read reply (its output and the screen's title).
fn redact_strings(r: &mut ReadReply) {
    let redact = |s: &mut String| {
        if let std::borrow::Cow::Owned(o) = crate::safety::redact(s) {
            *s = o;
        }
    };
    redact(&mut r.output);
    if let Some(Some(t)) = r
        .screen
        .as_mut()
        .map(|s| s.as_mut().and_then(|s| s.title.as_mut()))
    {
        redact(t);
    }
}
