//! `list`: every session in the registry with its honest state, holders probed in parallel
//! with a short deadline (a SIGKILLed or stopped holder never makes this hang).

use super::kind::is_local;
use super::sessions::{Liveness, probe};
use super::{Ctx, wire};
use crate::api::SessionState;
use crate::api::http::{BridgeListReply, BridgeSession};
use crate::api::reply::Success;
use crate::api::sessions::{BySource, ListReply, Live, Running, SessionView};
use crate::error::Result;
use crate::store::{Registry, RegistryEntry};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

/// One session as `list` shows it.
pub fn session_view(e: &RegistryEntry, live: &Liveness) -> SessionView<RegistryEntry> {
    let mut entry = e.clone();
    let live_fields = match live {
        Liveness::Running(s) => {
            entry.pid = Some(s.pid);
            Some(Live::Running(Box::new(Running {
                cols: s.cols,
                rows: s.rows,
                integration: s.integration.to_string(),
                at_prompt: s.at_prompt,
                busy: s.talking || s.foreground_pid.is_some() || !s.at_prompt,
                foreground_command: s.foreground_command.clone(),
                output_offset: s.output_offset,
                attached: s.attached,
                process: s.process.clone(),
                // `state` keeps its meaning (running/exited/dead); the terminal's own state
                // — prompt, running, full_screen or waiting_input — is `terminal_state`.
                terminal_state: s.terminal_state.as_ref().map(wire::terminal_state),
                screen: s.screen.clone().map(wire::screen),
            })))
        }
        Liveness::Exited {
            exit_code,
            exit_signal,
            ..
        } => Some(Live::Exited {
            exit_code: *exit_code,
            exit_signal: exit_signal.clone(),
        }),
        Liveness::Dead | Liveness::Registered | Liveness::Starting => None,
        Liveness::Unresponsive(why) => Some(Live::Unresponsive {
            problem: why.clone(),
        }),
    };
    SessionView {
        entry,
        state: live.state(),
        live: live_fields,
        untrusted: false,
        ptys: None,
    }
}

/// One session's JSON as `list` shows it (for error details, an open shape).
pub fn session_json(e: &RegistryEntry, live: &Liveness) -> Value {
    serde_json::to_value(session_view(e, live)).unwrap_or_else(|_| json!({}))
}

/// Run `list`.
pub fn list(ctx: &Ctx) -> Result<ListReply<RegistryEntry>> {
    let reg = Registry::load(&ctx.state)?;
    let mut entries: Vec<&RegistryEntry> = reg.sessions.values().collect();
    entries.sort_by(|a, b| {
        a.created_at
            .cmp(&b.created_at)
            .then(a.session_id.cmp(&b.session_id))
    });
    let lives = probe_all(ctx, &entries);
    let sessions: Vec<SessionView<RegistryEntry>> = entries
        .iter()
        .zip(&lives)
        .map(|(e, l)| SessionView {
            // Reported, never used: an external entry this user's kpty did not seal.
            untrusted: !is_local(e) && !crate::store::trust::verified(&ctx.state, e),
            ptys: super::pty_views::views(ctx, e, l),
            ..session_view(e, l)
        })
        .collect();
    let local = entries.iter().filter(|e| is_local(e)).count();
    let desktop = entries.iter().filter(|e| e.source == "desktop").count();
    Ok(ListReply {
        ok: Success,
        count: sessions.len(),
        sessions,
        by_source: BySource { local, desktop },
        state_dir: ctx.state.path().display().to_string(),
    })
}

/// Holders probed at once by [`probe_all`] while they answer promptly.
const PROBERS: usize = 8;
/// How long [`probe_all`] lets its first probers work before it gives every session not yet
/// probed a prober of its own (stopped holders are taking their full timeout).
const PROBE_PATIENCE: Duration = Duration::from_millis(20);

/// Probe every session: [`PROBERS`] threads while the holders answer (a hundred threads
/// cost more to start than a hundred answers take), and, once [`PROBE_PATIENCE`] has passed
/// with sessions still unprobed, one thread for each of them — so the whole list never takes
/// much more than one probe's timeout, whatever number of holders hang. A prober that dies
/// leaves its session `Dead`.
fn probe_all(ctx: &Ctx, entries: &[&RegistryEntry]) -> Vec<Liveness> {
    let n = entries.len();
    let next = AtomicUsize::new(0);
    let slots: Vec<OnceLock<Liveness>> = (0..n).map(|_| OnceLock::new()).collect();
    let done = (Mutex::new(0usize), Condvar::new());
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(e) = entries.get(i) else { break };
            let _ = slots[i].set(probe(ctx, e));
            if let Ok(mut d) = done.0.lock() {
                *d += 1;
            }
            done.1.notify_all();
        }
    };
    std::thread::scope(|s| {
        let mut probers: Vec<_> = (0..n.min(PROBERS)).map(|_| s.spawn(work)).collect();
        let finished = done.0.lock().map(|d| {
            done.1
                .wait_timeout_while(d, PROBE_PATIENCE, |d| *d < n)
                .map(|(d, _)| *d >= n)
                .unwrap_or(false)
        });
        if !finished.unwrap_or(false) {
            let unclaimed = n.saturating_sub(next.load(Ordering::Relaxed));
            probers.extend((0..unclaimed).map(|_| s.spawn(work)));
        }
        for p in probers {
            let _ = p.join();
        }
    });
    slots
        .into_iter()
        .map(|s| s.into_inner().unwrap_or(Liveness::Dead))
        .collect()
}

/// The running local sessions, as a bridge lists them (`GET /pty/list`).
pub fn running_local(ctx: &Ctx) -> Result<BridgeListReply> {
    let sessions: Vec<BridgeSession> = list(ctx)?
        .sessions
        .into_iter()
        .filter(|s| is_local(&s.entry) && s.state == SessionState::Running)
        .map(|s| {
            let (cols, rows) = match &s.live {
                Some(Live::Running(r)) => (Some(r.cols), Some(r.rows)),
                _ => (None, None),
            };
            let e = s.entry;
            BridgeSession {
                internal_id: e.session_id.clone(),
                session_id: e.session_id,
                pid: e.pid,
                cols,
                rows,
                cwd: e.cwd,
                label: e.label,
            }
        })
        .collect();
    Ok(BridgeListReply {
        ok: Success,
        count: sessions.len(),
        sessions,
    })
}
