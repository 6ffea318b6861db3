//! `list`: every session in the registry with its honest state, holders probed in parallel
//! with a short deadline (a SIGKILLed or stopped holder never makes this hang).

use super::Ctx;
use super::sessions::{Liveness, probe};
use crate::error::Result;
use crate::store::{Registry, RegistryEntry};
use serde_json::{Value, json};

/// One session's JSON as `list` shows it.
pub fn session_json(e: &RegistryEntry, live: &Liveness) -> Value {
    let mut v = serde_json::to_value(e).unwrap_or_else(|_| json!({}));
    v["state"] = json!(live.name());
    match live {
        Liveness::Running(s) => {
            v["pid"] = json!(s.pid);
            v["cols"] = json!(s.cols);
            v["rows"] = json!(s.rows);
            v["integration"] = json!(s.integration);
            v["at_prompt"] = json!(s.at_prompt);
            v["busy"] = json!(s.talking || s.foreground_pid.is_some() || !s.at_prompt);
            v["foreground_command"] = json!(s.foreground_command);
            v["output_offset"] = json!(s.output_offset);
            // `state` keeps its meaning (running/exited/dead); the terminal's own state —
            // prompt, running or full_screen — is `terminal_state`.
            if let Some(t) = &s.terminal_state {
                v["terminal_state"] = json!(t);
            }
            if let Some(sc) = &s.screen {
                v["screen"] = json!(sc);
            }
        }
        Liveness::Exited {
            exit_code,
            exit_signal,
            ..
        } => {
            v["exit_code"] = json!(exit_code);
            v["exit_signal"] = json!(exit_signal);
        }
        Liveness::Dead | Liveness::Registered => {}
        Liveness::Unresponsive(why) => v["problem"] = json!(why),
    }
    v
}

/// Run `list`.
pub fn list(ctx: &Ctx) -> Result<Value> {
    let reg = Registry::load(&ctx.state)?;
    let mut entries: Vec<&RegistryEntry> = reg.sessions.values().collect();
    entries.sort_by(|a, b| {
        a.created_at
            .cmp(&b.created_at)
            .then(a.session_id.cmp(&b.session_id))
    });
    let lives: Vec<Liveness> = std::thread::scope(|s| {
        let handles: Vec<_> = entries.iter().map(|e| s.spawn(|| probe(ctx, e))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Liveness::Dead))
            .collect()
    });
    let sessions: Vec<Value> = entries
        .iter()
        .zip(&lives)
        .map(|(e, l)| session_json(e, l))
        .collect();
    let local = entries.iter().filter(|e| e.source == "local").count();
    let desktop = entries.iter().filter(|e| e.source == "desktop").count();
    Ok(json!({
        "ok": true,
        "sessions": sessions,
        "count": sessions.len(),
        "by_source": {"local": local, "desktop": desktop},
        "state_dir": ctx.state.path().display().to_string(),
    }))
}
