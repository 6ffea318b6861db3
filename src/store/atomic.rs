//! Atomic file writes: write a temp file in the same folder, fsync, rename into place, so a
//! reader sees the old file or the new one, never a torn one. Neither ever goes through a
//! symbolic link (see [`super::secure`]).

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Atomically replace `path` with `bytes`.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::state(path, "no parent directory"))?;
    // The folder is created 0700 when missing and must not be a link, nor someone else's.
    super::secure::ensure_dir(dir)?;
    // The temp file is made 0600 with O_EXCL, and rename replaces a link at `path` rather
    // than writing through it.
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(|e| Error::state(dir, format!("cannot create a temp file: {e}")))?;
    tmp.write_all(bytes).map_err(|e| Error::state(path, e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::state(path, e))?;
    tmp.persist(path).map_err(|e| Error::state(path, e.error))?;
    Ok(())
}

/// Atomically replace `path` with `value` as pretty JSON.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| Error::state(path, e))?;
    bytes.push(b'\n');
    write_bytes(path, &bytes)
}

/// Read JSON from `path`: `Ok(None)` when the file does not exist, a clear `STATE_ERROR`
/// naming the file when it is unreadable or corrupt.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let Some(bytes) = super::secure::read(path)? else {
        return Ok(None);
    };
    parse_json(path, &bytes).map(Some)
}

/// Parse the JSON state file `path` read as `bytes`; a corrupt one is a clear `STATE_ERROR`.
pub fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::state(
            path,
            format!("corrupt JSON ({e}); fix or move the file away (kpty keeps no hidden copy)"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.json");
        assert_eq!(read_json::<serde_json::Value>(&p).unwrap(), None);
        write_json(&p, &serde_json::json!({"a": 1})).unwrap();
        assert_eq!(read_json::<serde_json::Value>(&p).unwrap().unwrap()["a"], 1);
        std::fs::write(&p, b"{not json").unwrap();
        let e = read_json::<serde_json::Value>(&p).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::StateError);
        assert!(e.message.contains("corrupt"), "{}", e.message);
        // no stray temp files
        let n = std::fs::read_dir(p.parent().unwrap()).unwrap().count();
        assert_eq!(n, 1);
    }
}
