//! Append-only JSONL journals (`_registry_events.jsonl`, `sessions/<id>/events.jsonl`): one
//! `write` per event on an O_APPEND file under the file's lock, each line chained to the one
//! before it ([`super::chain`]: its hash and this user's seal), so concurrent appends land
//! whole and in one chain; a line the disk had no room for is cut off again, so a reader
//! never meets a torn line. The file is opened without following links and created 0600 (see
//! [`super::secure`]).

use super::StateDir;
use crate::error::{Error, Result};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// Append one event (a struct with its own `ts`). Failures are logged, not returned: this
/// records what already happened (an action that must not run unaudited writes its entry
/// first, with [`try_append_verified`]).
pub fn append<T: Serialize>(state: &StateDir, path: &Path, event: &T) {
    if let Err(e) = try_append(state, path, event) {
        tracing::warn!("cannot append to {}: {}", path.display(), e.message);
    }
}

/// Append one event, whole or not at all.
fn try_append<T: Serialize>(state: &StateDir, path: &Path, event: &T) -> Result<()> {
    append_line(state, path, &encode(path, event)?)
}

/// [`try_append`] to a journal whose folders the caller has just verified
/// ([`StateDir::verify`]).
pub fn try_append_verified<T: Serialize>(path: &Path, event: &T) -> Result<()> {
    write_line(path, &encode(path, event)?)
}

/// One journal line: `event` as JSON and a newline.
fn encode<T: Serialize>(path: &Path, event: &T) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(event)
        .map_err(|e| Error::state(path, format!("cannot encode a journal event: {e}")))?;
    line.push(b'\n');
    Ok(line)
}

/// The journal's lock, held while its last line is read and the next one written (the wait
/// has the registry lock's deadline).
fn hold(f: &std::fs::File, path: &Path) -> Result<Option<super::lock::Lock>> {
    match f.try_lock() {
        Ok(()) => Ok(None),
        Err(std::fs::TryLockError::WouldBlock) => {
            let other = f.try_clone().map_err(|e| Error::state(path, e))?;
            super::lock::lock_file(other, path, super::lock::default_wait()).map(Some)
        }
        Err(std::fs::TryLockError::Error(e)) => {
            Err(Error::state(path, format!("cannot lock: {e}")))
        }
    }
}

/// Append `line` whole or not at all.
pub fn append_line(state: &StateDir, path: &Path, line: &[u8]) -> Result<()> {
    state.verify(path)?;
    write_line(path, line)
}

/// [`append_line`] once the folders are verified: under the file's lock, `line` chained to
/// the file's last line (a torn last line, left by a writer that died, is ended first).
fn write_line(path: &Path, line: &[u8]) -> Result<()> {
    use std::os::unix::fs::FileExt;
    if let Some(dir) = path.parent() {
        super::secure::ensure_dir(dir)?;
    }
    let mut f = super::secure::open_read_append(path)?;
    let _held = hold(&f, path)?;
    let len = f.metadata().map_err(|e| Error::state(path, e))?.len();
    let last = super::chain::last_line(len, |buf, at| f.read_at(buf, at))
        .map_err(|e| Error::state(path, e))?;
    let mut out = Vec::with_capacity(line.len() + 160);
    if let Some((_, true)) = last {
        out.push(b'\n');
    }
    let previous = last.map(|(l, _)| l);
    out.extend(super::chain::link(
        line,
        previous.as_deref(),
        super::trust::journal_seal,
    ));
    let line = &out[..];
    let n = match f.write(line) {
        Ok(n) => n,
        Err(e) => return Err(Error::state(path, e)),
    };
    if n == line.len() {
        return Ok(());
    }
    // A short write (the disk is full): remove the partial line, which is at the end.
    let cut = f
        .metadata()
        .and_then(|m| f.set_len(m.len().saturating_sub(n as u64)));
    Err(Error::state(
        path,
        format!(
            "the disk took only {n} of {} bytes; the partial line was {}",
            line.len(),
            if cut.is_ok() { "removed" } else { "left" }
        ),
    ))
}
