//! `resize` and `kill`, and forgetting a session that is gone.

use super::{Ctx, create, sessions};
use crate::api::Params;
use crate::error::{Error, Result};
use crate::proto::{KillBody, Request};
use crate::store::{Registry, RegistryEntry, journal};
use serde_json::{Value, json};
use std::time::Duration;

/// Run `resize`.
pub fn resize(ctx: &Ctx, p: &Params) -> Result<Value> {
    let (Some(cols), Some(rows)) = (p.cols, p.rows) else {
        return Err(Error::invalid("resize needs `cols` and `rows`"));
    };
    create::check_size(cols, rows)?;
    let e = sessions::target(ctx, p, false)?;
    if crate::bridge::is_remote(&e) {
        return Err(crate::bridge::resize_disabled(&e));
    }
    sessions::call(
        ctx,
        &e,
        &Request::Resize { cols, rows },
        Duration::from_secs(5),
    )?;
    Ok(json!({"ok": true, "session_id": e.session_id, "cols": cols, "rows": rows}))
}

/// Run `kill`: hang up the shell (and everything it started), wait for it, forget the session.
pub fn kill(ctx: &Ctx, p: &Params) -> Result<Value> {
    let e = match p.session_id.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(r) => sessions::resolve(ctx, r)?,
        None if super::routing::has_identity(p) => super::routing::resolve_entry(ctx, p)?,
        None => {
            return Err(Error::invalid(
                "kill needs `session_id` (an id, unique prefix, or label) or an owner identity",
            ));
        }
    };
    let before = sessions::probe(ctx, &e);
    let mut body = KillBody::default();
    if let sessions::Liveness::Running(_) | sessions::Liveness::Unresponsive(_) = before {
        match sessions::call(
            ctx,
            &e,
            &Request::Kill { grace_ms: 1000 },
            Duration::from_secs(10),
        ) {
            Ok(v) => body = serde_json::from_value(v).unwrap_or_default(),
            Err(err) => {
                tracing::warn!("kill via holder failed ({err}); signalling directly");
                signal_direct(&e);
            }
        }
    } else if let sessions::Liveness::Exited {
        exit_code,
        exit_signal,
        ..
    } = &before
    {
        body = KillBody {
            exit_code: *exit_code,
            exit_signal: exit_signal.clone(),
        };
    }
    forget(ctx, &e, "session_killed");
    Ok(json!({
        "ok": true,
        "session_id": e.session_id,
        "killed": true,
        "state_before": before.name(),
        "exit_code": body.exit_code,
        "exit_signal": body.exit_signal,
    }))
}

/// Last resort when a holder does not answer: SIGKILL its pid and the shell's process group.
fn signal_direct(e: &RegistryEntry) {
    use rustix::process::{Pid, Signal, kill_process, kill_process_group};
    if let Some(pid) = e.pid.and_then(|p| Pid::from_raw(p as i32)) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    if let Some(pid) = e.holder_pid.and_then(|p| Pid::from_raw(p as i32)) {
        let _ = kill_process(pid, Signal::KILL);
    }
}

/// Remove a session from the registry and clean its socket; its folder stays as a record.
pub fn forget(ctx: &Ctx, e: &RegistryEntry, event: &str) {
    let _ = Registry::update(&ctx.state, |reg| {
        reg.sessions.remove(&e.session_id);
        Ok(())
    });
    if let Some(sock) = sessions::socket_of(ctx, e)
        && std::os::unix::net::UnixStream::connect(&sock).is_err()
    {
        let _ = std::fs::remove_file(sock);
    }
    journal::append(
        &ctx.state.registry_events(),
        json!({"event": event, "session_id": e.session_id, "label": e.label}),
    );
}
