//! A session's shell PTYs (seed 002 §8.2.2) as their holders are found: each is a holder of
//! its own under the internal id `S.N` (`crate::api::ids`), its folder
//! `sessions/S/ptys/N/`, its socket derived from that id in the private runtime directory —
//! never read from a file. Listing them and ending them all (`kill S`, PTY 0's end).

use super::client;
use crate::api::SessionId;
use crate::store::{StateDir, secure};
use std::time::Duration;

/// The internal ids of the shell PTYs session `id` has had, in number order: the folders
/// under `sessions/S/ptys/` named by a canonical PTY number (links and anything else
/// skipped; a `ptys` that is not a real directory of ours yields none).
pub fn ids(state: &StateDir, id: &SessionId) -> Vec<SessionId> {
    let dir = state.ptys_dir(id);
    if !secure::check_dir(&dir).unwrap_or(false) {
        return Vec::new();
    }
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(u32, SessionId)> = rd
        .flatten()
        // `file_type` does not follow links: a link is never taken for a folder.
        .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|d| d.file_name().into_string().ok())
        .filter_map(|n| {
            let n: u32 = n.parse().ok().filter(|v: &u32| v.to_string() == n)?;
            Some((n, id.pty(n)?))
        })
        .collect();
    out.sort();
    out.into_iter().map(|(_, id)| id).collect()
}

/// Whether a holder still listens on the socket of `id` (a full backlog counts: a stopped
/// holder is still there).
pub fn listening(state: &StateDir, id: &SessionId) -> bool {
    crate::store::paths::holder_socket(state, id).is_ok_and(|sock| {
        match client::connect_within(&sock, Duration::from_millis(250)) {
            Ok(_) => true,
            Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
        }
    })
}

/// What became of one shell PTY when its session's PTYs were ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Its shell ran and was hung up.
    Killed(SessionId),
    /// Its holder listens but answered nothing within the deadline (stopped or wedged).
    Unresponsive(SessionId),
}

/// Hang up every shell PTY of session `id` whose shell still runs, in parallel, each call
/// bounded by `timeout`. PTYs already over (no socket, or a holder only finishing) are left
/// out.
pub fn end_all(state: &StateDir, id: &SessionId, timeout: Duration) -> Vec<Ended> {
    let ids = ids(state, id);
    std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .iter()
            .map(|pty| s.spawn(move || end_one(state, pty, timeout)))
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().ok().flatten())
            .collect()
    })
}

/// Hang up shell PTY `pty` if its shell still runs.
fn end_one(state: &StateDir, pty: &SessionId, timeout: Duration) -> Option<Ended> {
    let sock = crate::store::paths::holder_socket(state, pty).ok()?;
    if !sock.exists() {
        return None;
    }
    let unresponsive = || listening(state, pty).then(|| Ended::Unresponsive(pty.clone()));
    // A holder only finishing (its shell ended) has nothing left to end.
    let status = match client::call(&sock, super::StatusRequest, timeout) {
        Ok(v) => v,
        Err(client::Unreachable::Gone(_)) => return None,
        Err(client::Unreachable::Other(_)) => return unresponsive(),
    };
    if !status.alive {
        return None;
    }
    match client::call(&sock, super::KillRequest { grace_ms: 1000 }, timeout) {
        Ok(_) => Some(Ended::Killed(pty.clone())),
        Err(client::Unreachable::Gone(_)) => None,
        Err(client::Unreachable::Other(_)) => unresponsive(),
    }
}
