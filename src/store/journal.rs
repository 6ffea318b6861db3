//! Append-only JSONL journals (`_registry_events.jsonl`, `sessions/<id>/events.jsonl`): one
//! `write_all` per event on an O_APPEND file, so concurrent small appends land whole.

use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Append one event (an object; `ts` is added when missing). Failures are logged, not
/// returned: an audit line never fails the action it records.
pub fn append(path: &Path, mut event: Value) {
    if let Some(obj) = event.as_object_mut() {
        obj.entry("ts")
            .or_insert_with(|| Value::String(super::now_rfc3339()));
    }
    let mut line = match serde_json::to_vec(&event) {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!("cannot encode journal event: {e}");
            return;
        }
    };
    line.push(b'\n');
    let res = (|| {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        f.write_all(&line)
    })();
    if let Err(e) = res {
        tracing::warn!("cannot append to {}: {e}", path.display());
    }
}
