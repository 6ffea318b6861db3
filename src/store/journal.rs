//! Append-only JSONL journals (`_registry_events.jsonl`, `sessions/<id>/events.jsonl`): one
//! `write` per event on an O_APPEND file, so concurrent small appends land whole; a line the
//! disk had no room for is cut off again, so a reader never meets a torn line. The file is
//! opened without following links and created 0600 (see [`super::secure`]).

use super::StateDir;
use crate::error::{Error, Result};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Append one event (an object; `ts` is added when missing). Failures are logged, not
/// returned: this records what already happened (an action that must not run unaudited
/// writes its entry first, with [`try_append`]).
pub fn append(state: &StateDir, path: &Path, event: Value) {
    if let Err(e) = try_append(state, path, event) {
        tracing::warn!("cannot append to {}: {}", path.display(), e.message);
    }
}

/// Append one event (an object; `ts` is added when missing), whole or not at all.
pub fn try_append(state: &StateDir, path: &Path, mut event: Value) -> Result<()> {
    if let Some(obj) = event.as_object_mut() {
        obj.entry("ts")
            .or_insert_with(|| Value::String(super::now_rfc3339()));
    }
    let mut line = serde_json::to_vec(&event)
        .map_err(|e| Error::state(path, format!("cannot encode a journal event: {e}")))?;
    line.push(b'\n');
    append_line(state, path, &line)
}

/// Append `line` whole or not at all.
pub fn append_line(state: &StateDir, path: &Path, line: &[u8]) -> Result<()> {
    state.verify(path)?;
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
