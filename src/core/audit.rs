//! The audit trail: every action that touches a session is recorded with the seeds' traffic
//! event fields in that session's `events.jsonl` (actions without a session go to
//! `_registry_events.jsonl`), commands and responses capped at 10 KB and redacted. With
//! `KURORYUU_GATEWAY_URL` set, the same event is also POSTed fire-and-forget to
//! `/v1/pty-traffic/emit` (2 s timeout): a dead gateway never fails or slows the action.

use super::Ctx;
use crate::api::{Action, Params, SessionId};
use crate::error::{ErrorCode, Result};
use crate::store::{Registry, journal};
use serde_json::{Value, json};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Largest `command` / `response` kept in an event.
pub const FIELD_CAP: usize = 10 * 1024;

/// Gateway posts still in flight (waited for, with a short cap, before a CLI process exits).
static IN_FLIGHT: Mutex<usize> = Mutex::new(0);
static DONE: Condvar = Condvar::new();

/// Actions worth an audit line (`help` and `list` only look).
pub fn audited(a: Action) -> bool {
    !matches!(a, Action::Help | Action::List)
}

fn cap(s: &str) -> String {
    let red = crate::safety::redact(s);
    if red.len() <= FIELD_CAP {
        return red.into_owned();
    }
    let mut end = FIELD_CAP;
    while !red.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[truncated {} bytes]", &red[..end], red.len() - end)
}

/// Build and record the event for one finished action.
pub fn record(ctx: &Ctx, action: Action, p: &Params, result: &Result<Value>, started: Instant) {
    if !audited(action) {
        return;
    }
    let (ok_value, err) = match result {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    let session_id = ok_value
        .and_then(|v| {
            v["session_id"]
                .as_str()
                .or(v["resolved_session_id"].as_str())
                .map(str::to_string)
        })
        .or_else(|| {
            err.and_then(|e| {
                e.details.as_ref()?["session_id"]
                    .as_str()
                    .map(str::to_string)
            })
        })
        .or_else(|| p.session_id.clone());
    let entry = session_id
        .as_deref()
        .and_then(|id| Registry::load(&ctx.state).ok()?.sessions.get(id).cloned());
    let command = p.command.as_deref().or(p.data.as_deref()).map(cap);
    let response = match result {
        Ok(v) => cap(&v.to_string()),
        Err(e) => cap(&e.to_json().to_string()),
    };
    let blocked = err.is_some_and(|e| e.code == ErrorCode::DangerousCommandBlocked);
    let agent_id = p
        .agent_id
        .clone()
        .or_else(|| std::env::var("KURORYUU_AGENT_ID").ok());
    let event = json!({
        "ts": crate::store::now_rfc3339(),
        "action": action.as_str(),
        "session_id": session_id,
        "agent_id": agent_id,
        "owner_session_id": entry.as_ref().and_then(|e| e.owner_session_id.clone()).or(p.owner_session_id.clone()),
        "command": command,
        "response": response,
        "duration_ms": started.elapsed().as_millis() as u64,
        "success": err.is_none(),
        "blocked": blocked,
        "blocked_pattern": err.filter(|_| blocked).and_then(|e| e.details.as_ref()?["pattern"].as_str().map(str::to_string)),
        "error_code": err.map(|e| e.code.as_str()),
        "label": entry.as_ref().and_then(|e| e.label.clone()),
        "cli_type": entry.as_ref().and_then(|e| e.cli_type.clone()),
    });
    let path = match session_id.as_deref().map(SessionId::parse) {
        Some(Ok(id)) if entry.is_some() || ctx.state.session_dir(&id).is_dir() => {
            ctx.state.session_dir(&id).join("events.jsonl")
        }
        _ => ctx.state.registry_events(),
    };
    let mut line = event.clone();
    if path == ctx.state.registry_events() {
        line["event"] = json!("traffic");
    }
    journal::append(&path, line);
    emit(event);
}

/// POST the event to the gateway in the background, when one is configured.
fn emit(event: Value) {
    let Ok(base) = std::env::var("KURORYUU_GATEWAY_URL") else {
        return;
    };
    if base.trim().is_empty() {
        return;
    }
    let url = format!("{}/v1/pty-traffic/emit", base.trim_end_matches('/'));
    if let Ok(mut n) = IN_FLIGHT.lock() {
        *n += 1;
    }
    std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(2)))
            .http_status_as_error(false)
            .build()
            .into();
        if let Err(e) = agent.post(&url).send_json(&event) {
            tracing::debug!("gateway emit to {url} failed: {e}");
        }
        if let Ok(mut n) = IN_FLIGHT.lock() {
            *n = n.saturating_sub(1);
        }
        DONE.notify_all();
    });
}

/// Wait (at most `cap`) for gateway posts still in flight; a short-lived CLI calls this
/// before exiting so that a live gateway gets its events.
pub fn flush(cap: Duration) {
    if let Ok(n) = IN_FLIGHT.lock() {
        let _ = DONE.wait_timeout_while(n, cap, |n| *n > 0);
    }
}
