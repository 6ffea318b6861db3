//! `talk` (alias `run`): run one command in a session and return its clean output, exit code
//! and duration. Completion is detected inside the holder from what the shell prints.

use super::{Ctx, config, io, sessions};
use crate::api::{self, Params, SessionId};
use crate::error::{Error, Result};
use crate::proto::{Request, TalkBody, TalkRequest};
use crate::store::journal;
use serde_json::{Value, json};
use std::time::Duration;

/// Check a caller-chosen sentinel: 4-64 chars of `[A-Za-z0-9_:.-]`.
pub fn check_sentinel(s: &str) -> Result<()> {
    let ok = (4..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_:.-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "sentinel {s:?} must be 4-64 characters of letters, digits, '_', ':', '.', '-'"
        )))
    }
}

/// Run `talk`.
pub fn talk(ctx: &Ctx, p: &Params) -> Result<Value> {
    let raw = p
        .command
        .as_deref()
        .ok_or_else(|| Error::invalid("talk needs `command`: the command to run"))?;
    io::check_size("command", raw)?;
    let command = crate::safety::process_escapes(raw);
    if command.trim().is_empty() {
        return Err(Error::invalid("talk needs a non-empty `command`"));
    }
    io::check_safe(&command)?;
    if let Some(s) = &p.sentinel {
        check_sentinel(s)?;
    }
    let timeout = p.timeout_ms.unwrap_or_else(config::talk_timeout_ms);
    if timeout == 0 || timeout > api::MAX_TIMEOUT_MS {
        return Err(Error::invalid(format!(
            "timeout_ms must be 1..={}",
            api::MAX_TIMEOUT_MS
        )));
    }
    let named = p
        .session_id
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty());
    let mut e = sessions::target(ctx, p.session_id.as_deref(), true)?;
    let req = Request::Talk(TalkRequest {
        command: command.clone(),
        sentinel: p.sentinel.clone(),
        timeout_ms: timeout,
    });
    let io_timeout = Duration::from_millis(timeout + 15_000);
    let mut res = sessions::call(ctx, &e, &req, io_timeout);
    if let Err(err) = &res {
        // The default session ended since it was last used: replace it and try once more.
        if !named && sessions::is_unreachable(err) {
            e = sessions::replace_default(ctx)?;
            res = sessions::call(ctx, &e, &req, io_timeout);
        }
    }
    let res = res.and_then(|v| {
        serde_json::from_value::<TalkBody>(v).map_err(|err| {
            Error::new(
                crate::error::ErrorCode::PtyReadFailed,
                format!("malformed talk reply: {err}"),
            )
        })
    });
    if let Ok(id) = SessionId::parse(&e.session_id) {
        let mut ev = json!({"action": "talk", "session_id": e.session_id, "command": crate::safety::redact(&command)});
        match &res {
            Ok(b) => {
                ev["success"] = json!(true);
                ev["exit_code"] = json!(b.exit_code);
                ev["duration_ms"] = json!(b.duration_ms);
            }
            Err(err) => {
                ev["success"] = json!(false);
                ev["error_code"] = json!(err.code);
            }
        }
        journal::append(&ctx.state.session_dir(&id).join("events.jsonl"), ev);
    }
    let b = res?;
    Ok(json!({
        "ok": true,
        "session_id": e.session_id,
        "output": crate::text::clean_text(b.output_raw.as_bytes()),
        "sentinel": b.sentinel,
        "raw_output": b.raw_output,
        "exit_code": b.exit_code,
        "duration_ms": b.duration_ms,
        "completion": b.completion,
        "truncated": b.truncated,
        "start_offset": b.start_offset,
        "end_offset": b.end_offset,
    }))
}
