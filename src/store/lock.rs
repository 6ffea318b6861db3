//! Exclusive locks on state files with a deadline: a lock another process holds for too long
//! (a hung kpty, or someone else holding `_registry.lock` on purpose) ends in a clear
//! `STATE_ERROR` instead of a wait forever.

use super::StateDir;
use crate::error::{Error, Result};
use std::fs::{File, TryLockError};
use std::path::Path;
use std::time::Duration;

/// How long a registry lock is waited for unless `KPTY_LOCK_TIMEOUT_MS` says otherwise.
const DEFAULT_WAIT: Duration = Duration::from_secs(10);

/// The registry-lock wait in force (`KPTY_LOCK_TIMEOUT_MS`, else `DEFAULT_WAIT`).
pub fn default_wait() -> Duration {
    std::env::var("KPTY_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_WAIT, Duration::from_millis)
}

/// An exclusive lock, released when dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Lock `path` (created 0600 when missing, never through a link) exclusively, waiting at
/// most `wait`.
pub fn exclusive(state: &StateDir, path: &Path, wait: Duration) -> Result<Lock> {
    lock_file(state.open_lock(path)?, path, wait)
}

/// Whether another process holds the lock at `path` now (a missing file is not held). Never
/// creates the file and never waits.
pub fn is_held(path: &Path) -> bool {
    match super::secure::open_read(path) {
        Ok(Some(f)) => matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock)),
        _ => false,
    }
}

/// Wait until nobody holds the lock at `path` (a missing file is free), at most `wait`.
pub fn wait_free(path: &Path, wait: Duration) -> Result<()> {
    match super::secure::open_read(path)? {
        Some(f) => lock_file(f, path, wait).map(drop),
        None => Ok(()),
    }
}

/// Lock an open lock file (see [`exclusive`]) exclusively, waiting at most `wait`.
pub fn lock_file(file: File, path: &Path, wait: Duration) -> Result<Lock> {
    match file.try_lock() {
        Ok(()) => return Ok(Lock { _file: file }),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => {
            return Err(Error::state(path, format!("cannot lock: {e}")));
        }
    }
    // Contended: a helper thread blocks in flock(2) on a second descriptor of the same open
    // file, and we wait for it with a deadline. If we give up, the helper gets the lock later,
    // finds nobody waiting and drops its descriptor, which releases the lock again.
    let twin = file
        .try_clone()
        .map_err(|e| Error::state(path, format!("cannot lock: {e}")))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = twin.lock().map(|()| twin);
        // Nobody waits any more: let the lock go at once (the open file may have other
        // descriptors that stay open, a kept journal's).
        if let Err(std::sync::mpsc::SendError(Ok(twin))) = tx.send(r) {
            let _ = twin.unlock();
        }
    });
    match rx.recv_timeout(wait) {
        Ok(Ok(_twin)) => Ok(Lock { _file: file }),
        Ok(Err(e)) => Err(Error::state(path, format!("cannot lock: {e}"))),
        Err(_) => Err(Error::state(
            path,
            format!(
                "another process has held this lock for over {} ms; if no kpty is running, \
                 something else holds it (`fuser {}` names it); KPTY_LOCK_TIMEOUT_MS sets the wait",
                wait.as_millis(),
                path.display()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_held_lock_times_out_then_frees() {
        let t = tempfile::tempdir().unwrap();
        let sd = StateDir::at(t.path()).unwrap();
        let p = sd.registry_lock();
        let held = exclusive(&sd, &p, Duration::from_secs(1)).unwrap();
        let start = Instant::now();
        let e = exclusive(&sd, &p, Duration::from_millis(100)).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::StateError);
        assert!(e.message.contains("KPTY_LOCK_TIMEOUT_MS"), "{}", e.message);
        assert!(start.elapsed() < Duration::from_secs(5));
        drop(held);
        // The abandoned waiter takes and releases the lock; a new caller gets it.
        exclusive(&sd, &p, Duration::from_secs(10)).unwrap();
    }
}
