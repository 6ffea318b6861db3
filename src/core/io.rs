//! `send_line`, `read` and the deprecated `write`: typing into a session and reading what it
//! printed. Input passes escape processing and dangerous-command blocking (on the lines the
//! shell's line editor would submit) before any byte reaches the terminal; reads of an ended
//! session come from its saved buffer.

use super::{Ctx, sessions};
use crate::api::{self, Params, SessionId};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::ring::Ring;
use crate::proto::{ReadBody, Request};
use crate::safety::Opacity;
use crate::store::Metadata;
use serde_json::{Value, json};
use std::time::Duration;

/// Block input whose lines, as the shell's line editor would submit them, match a
/// dangerous-command rule (`DANGEROUS_COMMAND_BLOCKED` naming the pattern and the line); with
/// [`Opacity::Strict`] (sessions behind a bridge, whose holder kpty does not run) also a line
/// edited after a key kpty cannot follow. Local sessions' holders check again, with what
/// earlier writes left on the line and whether a line editor is reading at all.
pub fn check_typed(text: &str, opacity: Opacity) -> Result<()> {
    Ok(crate::safety::check_typed(text, opacity)?)
}

/// Decode `\xNN`, `\r`, `\n`, `\t`, `\\` escapes in `what`; bytes that are not UTF-8 text are
/// `INVALID_PARAMS`.
pub fn unescape(what: &str, text: &str) -> Result<String> {
    crate::safety::process_escapes(text).map_err(|e| Error::invalid(format!("{what}: {e}")))
}

/// Refuse oversized input.
pub fn check_size(what: &str, text: &str) -> Result<()> {
    if text.len() > api::MAX_INPUT_BYTES {
        return Err(Error::invalid(format!(
            "{what} is {} bytes; the limit is {} bytes",
            text.len(),
            api::MAX_INPUT_BYTES
        )));
    }
    Ok(())
}

/// Run `send_line`.
pub fn send_line(ctx: &Ctx, p: &Params) -> Result<Value> {
    let data = p
        .data
        .as_deref()
        .ok_or_else(|| Error::invalid("send_line needs `data`: the text to type"))?;
    check_size("data", data)?;
    let line: String = unescape("data", data)?
        .chars()
        .filter(|c| *c != '\r' && *c != '\n')
        .collect();
    let submitted = format!("{line}\r");
    check_typed(&submitted, Opacity::Ignore)?;
    let e = sessions::target(ctx, p, false)?;
    if crate::bridge::is_remote(&e) {
        check_typed(&submitted, Opacity::Strict)?;
        return crate::bridge::send_line(&e, &line);
    }
    // One budget for both writes: a stopped holder costs the caller SHORT_CALL, not twice.
    let deadline = std::time::Instant::now() + sessions::SHORT_CALL;
    let left = || deadline.saturating_duration_since(std::time::Instant::now());
    let req = Request::Write {
        data: line.clone(),
        enter_follows: true,
    };
    let typed = sessions::call(ctx, &e, &req, left())?;
    let req = Request::Write {
        data: "\r".into(),
        enter_follows: false,
    };
    let enter = sessions::call(ctx, &e, &req, left())?;
    Ok(json!({
        "ok": true,
        "session_id": e.session_id,
        "typed": {"ok": true, "bytes_written": typed["bytes_written"]},
        "enter": {"ok": true, "bytes_written": enter["bytes_written"]},
    }))
}

/// Type raw `data` into a local session: no escape processing, no Enter appended (the
/// bridge API's `POST /pty/write`, e.g. Ctrl-C or a `y` answer). Dangerous-command blocking
/// still applies. The `write` action itself stays deprecated.
pub fn write_raw(ctx: &Ctx, session: &str, data: &str) -> Result<Value> {
    check_size("data", data)?;
    check_typed(data, Opacity::Ignore)?;
    let e = sessions::resolve(ctx, session)?;
    let req = Request::Write {
        data: data.into(),
        enter_follows: false,
    };
    let v = sessions::call(ctx, &e, &req, sessions::SHORT_CALL)?;
    Ok(json!({"ok": true, "session_id": e.session_id, "bytes_written": v["bytes_written"]}))
}

/// Run `read`.
pub fn read(ctx: &Ctx, p: &Params) -> Result<Value> {
    let max = p.max_bytes.unwrap_or(api::DEFAULT_READ_MAX_BYTES);
    if max == 0 || max > api::MAX_READ_BYTES {
        return Err(Error::invalid(format!(
            "max_bytes must be 1..={}",
            api::MAX_READ_BYTES
        )));
    }
    let timeout = p.timeout_ms.unwrap_or(api::DEFAULT_READ_TIMEOUT_MS);
    if timeout > api::MAX_TIMEOUT_MS {
        return Err(Error::invalid(format!(
            "timeout_ms must be at most {}",
            api::MAX_TIMEOUT_MS
        )));
    }
    let e = sessions::target(ctx, p, false)?;
    if crate::bridge::is_remote(&e) {
        return crate::bridge::read(&e, timeout, max, p.strip_ansi.unwrap_or(false));
    }
    let req = Request::Read {
        since: p.since,
        max_bytes: max,
        timeout_ms: timeout,
    };
    let body: ReadBody = match sessions::call(
        ctx,
        &e,
        &req,
        Duration::from_millis(timeout) + sessions::REPLY_MARGIN,
    ) {
        Ok(v) => serde_json::from_value(v).map_err(|err| {
            Error::new(
                ErrorCode::PtyReadFailed,
                format!("malformed read reply: {err}"),
            )
        })?,
        Err(err) if err.code == ErrorCode::PtyProcessExited => {
            saved_read(ctx, &e.session_id, p.since, max).ok_or(err)?
        }
        Err(err) => return Err(err),
    };
    let strip = |t: String| {
        if p.strip_ansi.unwrap_or(false) {
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
    Ok(json!({
        "ok": true,
        "session_id": e.session_id,
        "output": output,
        "bytes_read": body.bytes_read,
        "session_alive": body.alive,
        "start_offset": body.start_offset,
        "next_offset": body.next_offset,
        "dropped": body.dropped,
        "exit_code": body.exit_code,
        "screen": body.screen,
        "terminal_state": body.terminal_state,
    }))
}

/// Read from an ended session's `buffer.txt`.
fn saved_read(ctx: &Ctx, id: &str, since: Option<u64>, max: usize) -> Option<ReadBody> {
    let id = SessionId::parse(id).ok()?;
    let meta = Metadata::load(&ctx.state, &id).ok()??;
    let bytes = ctx
        .state
        .read_file(&ctx.state.session_dir(&id).join("buffer.txt"))
        .ok()??;
    let end = meta.output_offset.unwrap_or(bytes.len() as u64);
    let body = Ring::from_saved(&bytes, end).read_body(since, max, false);
    Some(ReadBody {
        exit_code: meta.exit_code,
        ..body
    })
}

/// `write` is deprecated, as in the seeds.
pub fn write_deprecated() -> Error {
    Error::new(
        ErrorCode::Deprecated,
        "write is deprecated: use send_line (type a line + Enter) or talk (run a command and wait)",
    )
}
