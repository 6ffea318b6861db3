//! `wait_for`: wait until a session's output matches a pattern, goes quiet, or the shell is
//! back at its prompt. The holder waits (woken by each arrival of output); the core checks
//! the parameters, and turns a timeout or an ended shell into their errors.

use super::audit::Seen;
use super::running::{Finish, Running, cancelled_wait};
use super::{Ctx, sessions, wire};
use crate::api::WaitReason;
use crate::api::reply::Success;
use crate::api::request::WaitForArgs;
use crate::api::wait::WaitForReply;
use crate::api::{Action, Params};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::wait::{WaitForBody, WaitForRequest};
use std::time::Duration;

/// Run `wait_for`.
pub fn wait_for(ctx: &Ctx, a: &WaitForArgs) -> Result<WaitForReply> {
    waiting(ctx, a, &Running::new(), &mut Seen::default())
}

/// Run `wait_for` as a front end that cancels does (MCP's `notifications/cancelled`, a
/// server's shutdown): recorded in the audit trail; a cancel through `running` closes the
/// wait's connection, the holder stops waiting and the call ends as `CANCELLED` at once.
pub fn run_wait_for(ctx: &Ctx, p: &Params, running: &Running) -> Result<WaitForReply> {
    let _done = Finish(running);
    super::audited_seeing(ctx, Action::WaitFor, p, |seen| {
        waiting(ctx, &super::request::wait_for(p)?, running, seen)
    })
}

fn waiting(ctx: &Ctx, a: &WaitForArgs, running: &Running, seen: &mut Seen) -> Result<WaitForReply> {
    let req = &a.request;
    let e = super::target::target(ctx, &a.target, false)?;
    seen.saw(&e);
    if !e.is_local() {
        return Err(Error::invalid(
            "wait_for is not supported for bridged sessions",
        ));
    }
    let io_timeout = Duration::from_millis(req.timeout_ms) + sessions::REPLY_MARGIN;
    let watch = |s: &std::os::unix::net::UnixStream| running.waits_on(&e.session_id, s);
    let body = sessions::call_watched(ctx, &e, req.clone(), io_timeout, &watch, &mut |_| {}, None)
        .map_err(|err| {
            if running.is_cancelled() {
                cancelled_wait(&e.session_id)
            } else {
                err
            }
        })?;
    let output = output(ctx, a.strip_ansi, &body);
    let truncated = body.dropped > 0;
    match body.reason.known() {
        Some(WaitReason::Timeout | WaitReason::Exited) => {
            Err(ended(&e.session_id, req, body, output, truncated))
        }
        _ => Ok(WaitForReply {
            ok: Success,
            session_id: e.into_entry().session_id,
            matched: body.matched,
            reason: body.reason.to_string(),
            matched_text: body.matched_text,
            output,
            truncated,
            start_offset: body.start_offset,
            next_offset: body.next_offset,
            elapsed_ms: body.elapsed_ms,
            latency_us: body.latency_us,
            terminal_state: wire::terminal_state(&body.terminal_state),
        }),
    }
}

/// The output as the caller gets it: escape codes stripped (unless strip_ansi=false), and on
/// a redacted channel redacted with the window's context, as `read` does.
fn output(ctx: &Ctx, strip_ansi: bool, body: &WaitForBody) -> String {
    let strip = |t: &str| {
        if strip_ansi {
            crate::text::strip_ansi(t.as_bytes())
        } else {
            t.to_string()
        }
    };
    let output = strip(&body.text);
    if ctx.redact {
        let (before, after) = (strip(&body.context_before), strip(&body.context_after));
        crate::safety::redact_window(&before, &output, &after).into_owned()
    } else {
        output
    }
}

/// `PTY_TIMEOUT` (or `PTY_PROCESS_EXITED`) with the output so far and where to continue.
fn ended(
    session_id: &str,
    req: &WaitForRequest,
    body: WaitForBody,
    output: String,
    truncated: bool,
) -> Error {
    let details = crate::error::details::WaitStop {
        session_id: session_id.to_string(),
        output,
        truncated,
        start_offset: body.start_offset,
        next_offset: body.next_offset,
        elapsed_ms: body.elapsed_ms,
        terminal_state: body.terminal_state.to_string(),
        exit_code: body.exit_code.map(i64::from),
    };
    if body.reason == WaitReason::Exited.into() {
        return Error::new(
            ErrorCode::PtyProcessExited,
            format!("the shell of session {session_id} exited while wait_for waited"),
        )
        .with_details(details);
    }
    let what = match (&req.pattern, req.quiet_ms, req.prompt) {
        (Some(p), _, _) => format!("pattern {p:?}"),
        (None, Some(q), _) => format!("{q} ms of quiet"),
        _ => "the prompt".to_string(),
    };
    Error::new(
        ErrorCode::PtyTimeout,
        format!(
            "wait_for timed out after {} ms waiting for {what} in session {session_id}",
            req.timeout_ms
        ),
    )
    .with_details(details)
}
