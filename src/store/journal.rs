//! Append-only JSONL journals (`_registry_events.jsonl`, `sessions/<id>/events.jsonl`): one
//! `write` per event on an O_APPEND file, so concurrent small appends land whole; a line the
//! disk had no room for is cut off again, so a reader never meets a torn line. The file is
//! opened without following links and created 0600 (see [`super::secure`]).

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

/// Append `line` whole or not at all.
pub fn append_line(state: &StateDir, path: &Path, line: &[u8]) -> Result<()> {
    state.verify(path)?;
    write_line(path, line)
}

/// [`append_line`] once the folders are verified.
fn write_line(path: &Path, line: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        super::secure::ensure_dir(dir)?;
    }
    let mut f = super::secure::open_append(path)?;
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
