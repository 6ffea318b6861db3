//! Following a session's output (`kpty read --follow`): the recent tail (or everything after
//! `since`), then each new piece as it arrives, until the shell ends or the session is killed.
//! A local session's holder streams the pieces over one connection ([`crate::proto::follow`]);
//! a bridged session, or a holder older than the stream, is followed with waiting reads. The
//! first read is the one recorded in the audit trail; the pieces after it are not recorded one
//! by one (a busy terminal would add an event per chunk of output).

use super::{Ctx, io, sessions};
use crate::api::reply::ReadReply;
use crate::api::{Action, Params};
use crate::error::{Cause, Error, ErrorCode, Result};
use crate::proto::follow::FollowRequest;
use crate::proto::{ReadBody, Request, client};
use std::time::Duration;

/// How a follow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowEnd {
    /// The shell ended (the last reply said `session_alive: false`).
    Ended,
    /// The session was killed (and forgotten) while being followed.
    Gone,
}

/// The default wait of each read in a follow, in ms (on a stream: how long the holder may
/// stay silent before its heartbeat).
const FOLLOW_WAIT_MS: u64 = 30_000;

/// The most bytes in one piece of a streamed follow when the caller sets no `max_bytes`.
const STREAM_MAX_BYTES: usize = 64 * 1024;

/// Follow the output of `p`'s session, handing each piece (as a read reply) to `emit`.
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
    let mut r = super::audited(ctx, Action::Read, &first, || {
        super::request::read(&first).and_then(|a| io::read(ctx, &a))
    })
    .map_err(|e| super::outgoing_error(ctx, e))?;
    if ctx.redact {
        // What [`super::outgoing`] does to an audited reply's strings.
        redact_strings(&mut r);
    }
    emit(&r);
    if !r.session_alive {
        return Ok(FollowEnd::Ended);
    }
    // The session the first read found, by its id from here on (a label may move meanwhile).
    p.session_id = Some(r.session_id.clone());
    p.since = r.next_offset;
    if let Some(since) = r.next_offset
        && let Some(e) = Some(sessions::resolve(ctx, &r.session_id)?).filter(|h| h.is_local())
    {
        let opts = Stream {
            offsets_only: false,
            strip_ansi: p.strip_ansi.unwrap_or(false),
            max_bytes: p.max_bytes.unwrap_or(STREAM_MAX_BYTES),
            wait_ms: p.timeout_ms.unwrap_or(FOLLOW_WAIT_MS),
        };
        match stream(ctx, &e, since, &opts, emit)? {
            Streamed::Ended => return Ok(FollowEnd::Ended),
            // The holder is older than the stream, or the stream broke off: read on from
            // where it stopped (a killed session is then told apart from a lost connection).
            Streamed::Broken { at } => p.since = Some(at),
        }
    }
    poll(ctx, p, emit)
}

/// Follow with waiting reads from `p.since`: each read waits (up to `p.timeout_ms`) for output.
fn poll(ctx: &Ctx, mut p: Params, emit: &mut dyn FnMut(&ReadReply)) -> Result<FollowEnd> {
    loop {
        let r = match super::request::read(&p).and_then(|a| io::read(ctx, &a)) {
            Ok(r) => r,
            Err(e) if e.code == ErrorCode::PtySessionNotFound => return Ok(FollowEnd::Gone),
            Err(e) => return Err(e),
        };
        emit(&r);
        // After the shell's end, read on until what it printed last is all taken.
        if !r.session_alive && (r.bytes_read == 0 || r.next_offset == p.since) {
            return Ok(FollowEnd::Ended);
        }
        p.since = r.next_offset;
    }
}

/// How a streamed follow runs.
pub struct Stream {
    /// Only where the output ends (for a follower that redraws the screen): no text.
    pub offsets_only: bool,
    /// Strip ANSI escape sequences from each piece.
    pub strip_ansi: bool,
    /// The most bytes in one piece.
    pub max_bytes: usize,
    /// The holder's heartbeat interval (ms); each wait for a piece is bounded by it plus a
    /// margin, so a stopped holder ends the follow with `PTY_TIMEOUT`.
    pub wait_ms: u64,
}

/// How a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streamed {
    /// The shell ended and everything it printed was handed over.
    Ended,
    /// The connection ended first (the session was killed, the holder died, or the holder
    /// does not know the stream): `at` is where output was taken up to.
    Broken {
        /// The offset after the last piece handed over.
        at: u64,
    },
}

/// Stream local session `e`'s output from offset `since`, handing each piece to `emit` (a
/// heartbeat without text after `opts.wait_ms` without output).
pub fn stream(
    ctx: &Ctx,
    e: &crate::store::RegistryEntry,
    since: u64,
    opts: &Stream,
    emit: &mut dyn FnMut(&ReadReply),
) -> Result<Streamed> {
    if opts.max_bytes == 0 || opts.max_bytes > crate::api::MAX_READ_BYTES {
        return Err(Error::invalid(format!(
            "max_bytes must be 1..={}",
            crate::api::MAX_READ_BYTES
        )));
    }
    let req = FollowRequest {
        since,
        max_bytes: opts.max_bytes,
        wait_ms: opts.wait_ms,
        context: ctx.redact,
        offsets_only: opts.offsets_only,
    };
    let bound = Duration::from_millis(opts.wait_ms) + sessions::REPLY_MARGIN;
    let mut conn = sessions::connect(ctx, e, bound)?;
    client::send(&mut conn, &Request::Follow(req))?;
    let (mut at, mut alive) = (since, true);
    // The holder closes the stream after the last piece (so pieces after the shell's end,
    // `alive: false`, are all taken).
    while let Some(reply) = client::next_reply(&mut conn)? {
        let body: ReadBody = match client::into_result::<FollowRequest>(reply) {
            Ok(b) => b,
            Err(err) if err.cause == Some(Cause::UnknownRequest) => {
                return Ok(Streamed::Broken { at });
            }
            Err(err) => return Err(err),
        };
        at = body.next_offset;
        let mut r = io::read_reply(ctx, &e.session_id, body, opts.strip_ansi);
        if ctx.redact {
            redact_title(&mut r);
        }
        alive = r.session_alive;
        emit(&r);
    }
    Ok(if alive {
        Streamed::Broken { at }
    } else {
        Streamed::Ended
    })
}

/// Redact the free-text fields of a read reply (its output and the screen's title).
fn redact_strings(r: &mut ReadReply) {
    redact(&mut r.output);
    redact_title(r);
}

/// Redact the screen's title (a streamed piece's output is redacted with its window's
/// context as it is made, [`io::read_reply`]).
fn redact_title(r: &mut ReadReply) {
    if let Some(Some(t)) = r
        .screen
        .as_mut()
        .map(|s| s.as_mut().and_then(|s| s.title.as_mut()))
    {
        redact(t);
    }
}

fn redact(s: &mut String) {
    if let std::borrow::Cow::Owned(o) = crate::safety::redact(s) {
        *s = o;
    }
}
