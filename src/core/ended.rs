//! Ended local sessions and their files: which ones `prune` may remove, and removing them.
//!
//! A session is removable only when provably over: its shell exited or its holder is gone,
//! and its holder process no longer exists (a holder that is still saving the shell's exit
//! is left for the next prune). A session still starting (reserved in the registry, holder
//! not yet recorded) is never taken for dead. Folders under `sessions/` that no registry entry
//! names (killed sessions, failed starts) and that hold only kpty's files are removed under the registry lock, so a `create`
//! reserving its id at that moment is never caught.

use super::Ctx;
use super::kind::is_local;
use super::sessions::{Liveness, probe};
use crate::api::SessionId;
use crate::api::sessions::Ended;
use crate::error::Result;
use crate::store::{Registry, RegistryEntry, secure};

/// The local sessions of `reg` that have ended, probed now.
pub fn find(ctx: &Ctx, reg: &Registry) -> Vec<Ended> {
    let local: Vec<&RegistryEntry> = reg.sessions.values().filter(|e| is_local(e)).collect();
    let lives: Vec<Liveness> = std::thread::scope(|s| {
        let handles: Vec<_> = local.iter().map(|e| s.spawn(|| probe(ctx, e))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Liveness::Dead))
            .collect()
    });
    local
        .iter()
        .zip(lives)
        // A session still starting probes as `Starting` (its `create` holds the lock).
        .filter(|(_, live)| matches!(live, Liveness::Dead | Liveness::Exited { .. }))
        .map(|(e, live)| Ended {
            session_id: e.session_id.clone(),
            state: live.state(),
            label: e.label.clone(),
        })
        .collect()
}

/// Whether the holder process of `e` may still exist.
fn holder_running(e: &RegistryEntry) -> bool {
    let Some(pid) = e
        .holder_pid
        .and_then(|p| rustix::process::Pid::from_raw(p as i32))
    else {
        return false;
    };
    rustix::process::test_kill_process(pid).is_ok()
}

/// Whether a holder still answers on the socket of session `id` (it may still write there).
fn holder_listening(ctx: &Ctx, id: &SessionId) -> bool {
    crate::store::paths::holder_socket(&ctx.state, id).is_ok_and(|sock| {
        // A full backlog (a stopped holder) is someone listening too.
        match crate::proto::client::connect_within(&sock, super::sessions::KNOCK_TIMEOUT) {
            Ok(_) => true,
            Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
        }
    })
}

/// Forget the ended sessions `ids` (as [`find`] reported them) and remove the folders of
/// sessions no longer in the registry: theirs and those of sessions killed earlier. Returns
/// (forgotten ids, removed folders). A folder whose holder still runs or listens (a shell
/// that exited this moment, its holder saving the end) stays for the next prune.
pub fn remove(ctx: &Ctx, ids: &[String]) -> Result<(Vec<String>, Vec<String>)> {
    let mut forgotten = Vec::new();
    let mut busy = Vec::new();
    let mut folders = Vec::new();
    Registry::update(&ctx.state, |reg| {
        for id in ids {
            if let Some(e) = reg.sessions.remove(id) {
                if holder_running(&e) {
                    busy.push(id.clone());
                }
                forgotten.push(id.clone());
            }
        }
        // Under the lock: no create can reserve an id (and then make its folder) meanwhile.
        for id in session_folders(ctx) {
            if !reg.sessions.contains_key(id.as_str())
                && !busy.iter().any(|b| b == id.as_str())
                && !holder_listening(ctx, &id)
                // A shell PTY beside it still runs (and writes in the folder).
                && !crate::proto::ptys::ids(&ctx.state, &id)
                    .iter()
                    .any(|pty| crate::proto::ptys::listening(&ctx.state, pty))
                && remove_folder(ctx, &id)
            {
                folders.push(id.to_string());
            }
        }
        Ok(())
    })?;
    folders.sort();
    Ok((forgotten, folders))
}

/// The session folders kpty made under `sessions/`: named as `create` names sessions
/// (`pty_` and 8 hex digits; links skipped).
fn session_folders(ctx: &Ctx) -> Vec<SessionId> {
    let Ok(rd) = std::fs::read_dir(ctx.state.path().join("sessions")) else {
        return vec![];
    };
    rd.flatten()
        .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|d| d.file_name().into_string().ok())
        .filter(|n| {
            n.strip_prefix("pty_").is_some_and(|h| {
                h.len() == 8
                    && h.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            })
        })
        .filter_map(|n| SessionId::parse(&n).ok())
        .collect()
}

/// Remove a session's folder when it is a real directory of ours (never through a link:
/// `remove_dir_all` does not follow one inside, and the folder itself is checked), holding
/// only kpty's files, and no `create` is making it.
pub fn remove_folder(ctx: &Ctx, id: &SessionId) -> bool {
    let dir = ctx.state.session_dir(id);
    if ctx.state.check_root().is_err() || !secure::check_dir(&dir).unwrap_or(false) {
        return false;
    }
    // A `create` holds this while it makes the session, before the registry names it.
    if crate::store::lock::is_held(&ctx.state.starting_lock(id)) {
        return false;
    }
    // Only kpty's own files: a folder someone put anything else in is not ours to delete.
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return false;
    };
    let names: Vec<_> = rd.flatten().map(|d| d.file_name()).collect();
    if !names.iter().all(|n| {
        crate::store::paths::SESSION_FILES.iter().any(|f| n == f)
            || n.to_str()
                .and_then(crate::store::recordings::segment_number)
                .is_some()
    }) {
        return false;
    }
    std::fs::remove_dir_all(&dir).is_ok()
}
