//! `list`: every session in the registry with its honest state, holders probed all at once
//! with a short deadline (a SIGKILLed or stopped holder never makes this hang).

use super::kind::is_local;
use super::sessions::{Liveness, PROBE_TIMEOUT, judge, probe_socket_in};
use super::{Ctx, wire};
use crate::api::SessionState;
use crate::api::http::{BridgeListReply, BridgeSession};
use crate::api::reply::Success;
use crate::api::sessions::{BySource, ListReply, Live, Running, SessionView};
use crate::error::Result;
use crate::proto::status_all::status_all;
use crate::store::{Registry, RegistryEntry};
use std::path::{Path, PathBuf};

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
                command_started_at: s.command_started_at.clone(),
                output_offset: s.output_offset,
                attached: s.attached,
                waiting_talks: s.waiting_talks,
                recording: s.recording.clone(),
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

/// Probe every session at once, on this thread ([`status_all`]): every holder asked, the
/// answers read as they come, one [`PROBE_TIMEOUT`] for them all — so a hung holder holds
/// the list up no longer than that, whatever number of holders hang. Each answer is judged
/// as [`super::sessions::probe`] judges it (the holder proves the id it serves).
fn probe_all(ctx: &Ctx, entries: &[&RegistryEntry]) -> Vec<Liveness> {
    // One runtime directory for them all: found (and checked) once, not per session.
    let runtime = crate::store::paths::runtime_dir().ok();
    let targets: Vec<_> = entries
        .iter()
        .map(|e| probe_socket_in(ctx, e, runtime.as_deref()))
        .collect();
    let sockets: Vec<&Path> = targets
        .iter()
        .filter_map(|t| t.as_ref().ok().map(PathBuf::as_path))
        .collect();
    let mut answers = status_all(&sockets, PROBE_TIMEOUT).into_iter();
    entries
        .iter()
        .zip(targets)
        // Only the sessions with a socket were asked: their answers come in their order.
        .map(|(e, target)| match target {
            Ok(sock) => answers
                .next()
                .map_or(Liveness::Dead, |answer| judge(ctx, e, &sock, answer)),
            Err(known) => known,
        })
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
