//! `resize` and `kill`, and forgetting a session that is gone.

use super::handle::Handle;
use super::{Ctx, sessions};
use crate::api::reply::{KillReply, ResizeReply, Success};
use crate::api::request::{ResizeArgs, Target};
use crate::error::{Error, Result};
use crate::proto::{KillBody, KillRequest, ResizeRequest};
use crate::store::RegistryEntry;

/// Run `resize`.
pub fn resize(ctx: &Ctx, a: &ResizeArgs) -> Result<ResizeReply> {
    let (cols, rows) = (a.cols, a.rows);
    let e = super::target::target(ctx, &a.target, false)?;
    if !e.is_local() {
        return Err(crate::bridge::resize_disabled(&e));
    }
    let got = sessions::call(ctx, &e, ResizeRequest { cols, rows }, sessions::SHORT_CALL)?;
    // The size the terminal really has (a holder says; an older one echoed the request).
    Ok(ResizeReply {
        ok: Success,
        session_id: e.into_entry().session_id,
        cols: got.cols.unwrap_or(cols),
        rows: got.rows.unwrap_or(rows),
    })
}

/// Run `kill`: hang up the shell (and everything it started), wait for it, forget the session.
pub fn kill(ctx: &Ctx, target: &Target) -> Result<KillReply> {
    let e = match target {
        Target::Owner(who) => Handle::of(super::owners::resolve_entry(ctx, who)?),
        t => super::target::target(ctx, t, false)?,
    };
    // (A named session is waited for while it is still starting.)
    // Killing a session ends all its PTYs: the shells beside PTY 0 first.
    let ended_ptys = match e.files_id() {
        Some(id) if id.pty_parts().is_none() => end_ptys(ctx, &e, id),
        _ => Vec::new(),
    };
    let before = sessions::probe(ctx, &e);
    let mut body = KillBody::default();
    match &before {
        sessions::Liveness::Running(_) => {
            match sessions::call(
                ctx,
                &e,
                KillRequest { grace_ms: 1000 },
                sessions::SHORT_CALL,
            ) {
                Ok(b) => body = b,
                Err(err) => {
                    tracing::warn!("kill via holder failed ({err}); signalling directly");
                    signal_proven(ctx, &e);
                }
            }
        }
        // Stopped or wedged: it will not answer a kill request either.
        sessions::Liveness::Unresponsive(_) => signal_proven(ctx, &e),
        sessions::Liveness::Exited {
            exit_code,
            exit_signal,
            ..
        } => {
            body = KillBody {
                exit_code: *exit_code,
                exit_signal: exit_signal.clone(),
            };
        }
        sessions::Liveness::Dead | sessions::Liveness::Registered => {}
        // Started again by another `create` since (a label reused): its `create` owns it.
        sessions::Liveness::Starting => {
            return Err(Error::new(
                crate::error::ErrorCode::PtyBusy,
                format!(
                    "session {} is still being created; try again when `kpty list` shows it running",
                    e.session_id
                ),
            ));
        }
    }
    let e = e.into_entry();
    sessions::forget(ctx, &e, "session_killed").map_err(|err| {
        Error::new(
            err.code,
            format!(
                "session {} was killed, but the registry could not be updated: {}",
                e.session_id, err.message
            ),
        )
    })?;
    Ok(KillReply {
        ok: Success,
        session_id: e.session_id,
        killed: true,
        state_before: before.state(),
        exit_code: body.exit_code,
        exit_signal: body.exit_signal,
        ended_ptys,
    })
}

/// End the shell PTYs of session `e` (id `id`); a stopped or wedged one's holder is killed
/// as PTY 0's would be ([`signal_proven`]). Their addresses.
fn end_ptys(ctx: &Ctx, e: &RegistryEntry, id: &crate::api::SessionId) -> Vec<String> {
    use crate::proto::ptys::Ended;
    crate::proto::ptys::end_all(&ctx.state, id, sessions::SHORT_CALL)
        .into_iter()
        .map(|ended| match ended {
            Ended::Killed(pty) => pty.address(),
            Ended::Unresponsive(pty) => {
                let n = pty.pty_parts().map_or(0, |(_, n)| n);
                if let Ok(entry) = super::sessions::entry(ctx, e, n) {
                    signal_proven(ctx, &entry);
                }
                pty.address()
            }
        })
        .collect()
}

/// Last resort when a holder does not answer: SIGKILL it and its shell's process group —
/// but only pids the kernel vouches for. The holder is the process listening on this
/// session's socket in the private runtime directory (`SO_PEERCRED`, same uid), or, when no
/// socket is found, the holder process with this session's own `holder.log` open as its
/// standard error ([`super::elsewhere`]); the shell is signalled only when it is that
/// holder's child. Pids written in state files are never trusted: a cloned repository could
/// name any process.
fn signal_proven(ctx: &Ctx, e: &RegistryEntry) {
    use rustix::process::{Signal, kill_process, kill_process_group};
    let by_socket = sessions::socket_of(ctx, e).and_then(|s| proven_holder(&s));
    // A holder whose socket is not where this kpty looks proves itself by the session's log.
    let by_log = || {
        let id = super::handle::files_id(&e.session_id)?;
        super::elsewhere::proven_holder(&ctx.state, &id, e.holder_pid)
    };
    let Some(holder) = by_socket.or_else(by_log) else {
        tracing::warn!(
            "session {}: no holder proves itself on its socket; nothing signalled",
            e.session_id
        );
        return;
    };
    if let Some(shell) = e.pid.and_then(|p| rustix::process::Pid::from_raw(p as i32))
        && parent_of(shell.as_raw_nonzero().get()) == Some(holder.as_raw_nonzero().get())
    {
        let _ = kill_process_group(shell, Signal::KILL);
    }
    let exited = watch_exit(holder);
    let _ = kill_process(holder, Signal::KILL);
    // Wait (briefly) for it to be gone, so its socket can be proven dead and removed.
    if let Some(fd) = exited {
        use rustix::event::{PollFd, PollFlags};
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        let _ = crate::eintr::poll_until(&mut fds, until);
    }
}

/// A descriptor that becomes readable when `pid` exits (Linux pidfd), if available.
fn watch_exit(pid: rustix::process::Pid) -> Option<rustix::fd::OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// The pid of the process listening on `sock`, when it runs as this user.
fn proven_holder(sock: &std::path::Path) -> Option<rustix::process::Pid> {
    if !crate::store::secure::is_own_socket(sock) {
        return None;
    }
    let stream = crate::proto::client::connect_within(sock, super::sessions::KNOCK_TIMEOUT).ok()?;
    let cred = rustix::net::sockopt::socket_peercred(&stream).ok()?;
    (cred.uid == rustix::process::getuid()).then_some(cred.pid)
}

/// The parent pid of `pid` from `/proc` (Linux), if it can be read.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses; the last ')' ends it.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}
