//! `send_line`, `read` and the deprecated `write`: typing into a session and reading what it
//! printed. Input passes escape processing and dangerous-command blocking (on the lines the
//! shell's line editor would submit) before any byte reaches the terminal; reads of an ended
//! session come from its saved buffer.

use super::handle::Place;
use super::typed::{check_size, check_typed};
use super::{Ctx, sessions, wire};
use crate::api::http::WindowReply;
use crate::api::reply::{ReadReply, SendLineReply, Success, WriteReply, Written};
use crate::api::request::{ReadArgs, SendLineArgs};
use crate::api::{self, Params};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::ring::Ring;
use crate::proto::{ReadBody, ReadRequest, WriteRequest};
use crate::safety::Opacity;
use crate::store::{Metadata, RegistryEntry};
use std::time::Duration;

/// Run `send_line` (the line checked by [`super::request::send_line`]).
pub fn send_line(ctx: &Ctx, a: &SendLineArgs) -> Result<SendLineReply> {
    let h = super::target::target(ctx, &a.target, false)?;
    let (typed, enter) = match h.place() {
        Place::Bridged => {
            check_typed(&format!("{}\r", a.line), Opacity::Strict)?;
            crate::bridge::send_line(&h, &a.line)?
        }
        Place::Local(_) => send_local(ctx, &h, a.line.clone())?,
    };
    Ok(SendLineReply {
        ok: Success,
        session_id: h.into_entry().session_id,
        typed: Written::new(typed),
        enter: Written::new(enter),
    })
}

/// The line, then Enter, into a local session's holder: the bytes each write reached the
/// terminal with.
fn send_local(ctx: &Ctx, e: &RegistryEntry, line: String) -> Result<(u64, u64)> {
    // One budget for both writes: a stopped holder costs the caller SHORT_CALL, not twice.
    let deadline = std::time::Instant::now() + sessions::SHORT_CALL;
    let left = || deadline.saturating_duration_since(std::time::Instant::now());
    let req = WriteRequest {
        data: line,
        enter_follows: true,
        app_cursor: None,
        by: Some(ctx.writer(None)),
    };
    let typed = sessions::call(ctx, e, req, left())?.bytes_written as u64;
    let req = WriteRequest {
        data: "\r".into(),
        enter_follows: false,
        app_cursor: None,
        by: Some(ctx.writer(None)),
    };
    let enter = sessions::call(ctx, e, req, left())?.bytes_written as u64;
    Ok((typed, enter))
}

/// Type raw `data` into a local session: no escape processing, no Enter appended (the
/// bridge API's `POST /pty/write`, e.g. Ctrl-C or a `y` answer). Dangerous-command blocking
/// still applies. The `write` action itself stays deprecated.
pub fn write_raw(ctx: &Ctx, session: &str, data: &str) -> Result<WriteReply> {
    check_size("data", data)?;
    check_typed(data, Opacity::Ignore)?;
    let e = sessions::resolve(ctx, session)?;
    let req = WriteRequest {
        data: data.into(),
        enter_follows: false,
        app_cursor: None,
        by: Some(ctx.writer(None)),
    };
    let w = sessions::call(ctx, &e, req, sessions::SHORT_CALL)?;
    Ok(WriteReply {
        ok: Success,
        session_id: e.into_entry().session_id,
        bytes_written: w.bytes_written as u64,
    })
}

/// Run `read`.
pub fn read(ctx: &Ctx, a: &ReadArgs) -> Result<ReadReply> {
    let (max, timeout, strip) = (a.max_bytes, a.timeout_ms, a.strip_ansi);
    let h = super::target::target(ctx, &a.target, false)?;
    match h.place() {
        Place::Bridged => {
            let r = crate::bridge::read(&h, timeout, max, strip)?;
            Ok(ReadReply {
                ok: Success,
                session_id: h.into_entry().session_id,
                output: r.output,
                bytes_read: r.bytes_read,
                session_alive: true,
                start_offset: None,
                next_offset: None,
                dropped: None,
                exit_code: None,
                screen: None,
                terminal_state: None,
            })
        }
        Place::Local(_) => read_local(ctx, &h, a.since, max, timeout, strip),
    }
}

/// `read` of a local session: from its holder, or its saved buffer once the shell ended.
fn read_local(
    ctx: &Ctx,
    e: &RegistryEntry,
    since: Option<u64>,
    max: usize,
    timeout: u64,
    strip_ansi: bool,
) -> Result<ReadReply> {
    let req = ReadRequest {
        since,
        max_bytes: max,
        timeout_ms: timeout,
        context: ctx.redact,
    };
    let body: ReadBody = match sessions::call(
        ctx,
        e,
        req,
        Duration::from_millis(timeout) + sessions::REPLY_MARGIN,
    ) {
        Ok(b) => b,
        Err(err) if err.code == ErrorCode::PtyProcessExited => {
            saved_read(ctx, &e.session_id, since, max).ok_or(err)?
        }
        Err(err) => return Err(err),
    };
    Ok(read_reply(ctx, &e.session_id, body, strip_ansi))
}

/// A holder's `Read` body as the `read` reply: ANSI stripped when asked, redacted (with the
/// window's context) on a redacting channel.
pub(super) fn read_reply(
    ctx: &Ctx,
    session_id: &str,
    body: ReadBody,
    strip_ansi: bool,
) -> ReadReply {
    let strip = |t: String| {
        if strip_ansi {
            crate::text::strip_ansi(t.as_bytes())
        } else {
            t
        }
    };
    let output = strip(body.text);
    let output = if ctx.redact {
        // Redacted with the window's context: a secret or private-key block cut by the
        // window's edges is still recognised (and the window's part of it replaced).
        let (before, after) = (strip(body.context_before), strip(body.context_after));
        crate::safety::redact_window(&before, &output, &after).into_owned()
    } else {
        output
    };
    ReadReply {
        ok: Success,
        session_id: session_id.to_string(),
        output,
        bytes_read: body.bytes_read as u64,
        session_alive: body.alive,
        start_offset: Some(body.start_offset),
        next_offset: Some(body.next_offset),
        dropped: Some(body.dropped),
        exit_code: body.exit_code,
        screen: Some(body.screen.map(wire::screen)),
        terminal_state: Some(wire::terminal_state_opt(body.terminal_state)),
    }
}

/// Everything a local session prints during the next `min(timeout_ms, window_max_ms)` ms (a
/// bridge's `POST /pty/read`), at most `api::MAX_READ_BYTES`: audited reads, each woken by
/// new output (no polling), ended early when the shell ends.
pub fn read_window(
    ctx: &Ctx,
    session_id: &str,
    timeout_ms: Option<u64>,
    window_max_ms: u64,
) -> Result<WindowReply> {
    let window = timeout_ms
        .unwrap_or(api::DEFAULT_READ_TIMEOUT_MS)
        .min(window_max_ms);
    let deadline = std::time::Instant::now() + Duration::from_millis(window);
    let mut p = Params {
        session_id: Some(session_id.to_string()),
        // Past the end: answers at once with the end of output as its offset.
        since: Some(u64::MAX),
        timeout_ms: Some(0),
        max_bytes: Some(api::MAX_READ_BYTES),
        ..Default::default()
    };
    let read = |p: &Params| {
        super::audited(ctx, crate::api::Action::Read, p, || {
            read(ctx, &super::request::read(p)?)
        })
    };
    let mut offset = read(&p)?.next_offset.unwrap_or(0);
    let mut output = String::new();
    loop {
        let left = deadline
            .saturating_duration_since(std::time::Instant::now())
            .as_millis() as u64;
        if left == 0 || output.len() >= api::MAX_READ_BYTES {
            break;
        }
        p.since = Some(offset);
        p.timeout_ms = Some(left);
        let r = read(&p)?;
        // As every reply on a redacted channel is ([`super::outgoing`]).
        if ctx.redact {
            output.push_str(&crate::safety::redact(&r.output));
        } else {
            output.push_str(&r.output);
        }
        offset = r.next_offset.unwrap_or(offset);
        if !r.session_alive {
            break;
        }
    }
    Ok(WindowReply {
        ok: Success,
        session_id: session_id.to_string(),
        bytes_read: output.len(),
        output,
    })
}

/// Read from an ended session's `buffer.txt`.
fn saved_read(ctx: &Ctx, id: &str, since: Option<u64>, max: usize) -> Option<ReadBody> {
    let id = super::handle::files_id(id)?;
    let meta = Metadata::load(&ctx.state, &id).ok()??;
    let bytes = ctx
        .state
        .read_file(&ctx.state.session_dir(&id).join("buffer.txt"))
        .ok()??;
    let end = meta.output_offset.unwrap_or(bytes.len() as u64);
    let body = Ring::from_saved(&bytes, end).read_body(since, max, false, ctx.redact);
    Some(ReadBody {
        exit_code: meta.exit_code,
        ..body
    })
}

/// `write` is deprecated, as in the seeds.
pub fn write_deprecated() -> Error {
    Error::new(ErrorCode::Deprecated, "write is deprecated")
        .with_hint(crate::error::Hint::UseSendLineOrTalk)
}
