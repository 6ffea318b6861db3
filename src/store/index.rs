//! The index of state directories this user has used, `<runtime dir>/state-dirs`: one absolute
//! path a line, added to when a session is created, read by `kpty list --all`, and pruned of
//! directories that are gone or hold no session.
//!
//! The file lives in the private runtime directory, but is read as untrusted input all the
//! same: bounded in size and entries, lines that are not absolute UTF-8 paths skipped, and a
//! path used only when it is a state directory kpty would accept — a real directory (not a
//! link) owned by this user, not writable by others, with a `_registry.json` that is a
//! regular file. Writes are atomic (temp file + rename, 0600) under an exclusive lock on
//! `state-dirs.lock`, opened without following links.

use super::{Registry, StateDir, secure};
use crate::error::Result;
use std::path::{Path, PathBuf};

/// Most bytes of the index read.
const MAX_BYTES: usize = 256 * 1024;
/// Most entries kept.
const MAX_ENTRIES: usize = 1024;

fn index_file(runtime: &Path) -> PathBuf {
    runtime.join("state-dirs")
}

/// Add `state` to the index (first, as the most recently used), dropping entries that are
/// no longer state directories with sessions.
pub fn record(state: &StateDir) -> Result<()> {
    update(|dirs| {
        dirs.retain(|d| d != state.path());
        dirs.insert(0, state.path().to_path_buf());
    })
}

/// The indexed state directories that are usable now (each validated), pruning the index of
/// the others.
pub fn state_dirs() -> Result<Vec<StateDir>> {
    let mut kept = Vec::new();
    update(|dirs| kept = dirs.clone())?;
    Ok(kept
        .into_iter()
        .filter_map(|d| StateDir::at(d).ok())
        .collect())
}

/// Read-modify-write the index under its lock; entries that fail [`usable`] are dropped
/// before `f` sees them (`f` may add one: it is kept as given).
fn update(f: impl FnOnce(&mut Vec<PathBuf>)) -> Result<()> {
    let runtime = super::paths::runtime_dir()?;
    let path = index_file(&runtime);
    let lock_path = runtime.join("state-dirs.lock");
    let _lock = super::lock::lock_file(
        secure::open_rw(&lock_path)?,
        &lock_path,
        super::lock::default_wait(),
    )?;
    let text = read_bounded(&path)?;
    let mut dirs: Vec<PathBuf> = parse(&text).into_iter().filter(|d| usable(d)).collect();
    f(&mut dirs);
    dirs.truncate(MAX_ENTRIES);
    let mut fresh = String::new();
    for d in &dirs {
        fresh.push_str(&d.to_string_lossy());
        fresh.push('\n');
    }
    if fresh != text {
        super::atomic::write_bytes(&path, fresh.as_bytes())?;
    }
    Ok(())
}

/// The index's text, at most [`MAX_BYTES`] of it (never through a link); empty when missing.
fn read_bounded(path: &Path) -> Result<String> {
    use std::io::Read;
    let Some(f) = secure::open_read(path)? else {
        return Ok(String::new());
    };
    let mut buf = Vec::new();
    f.take(MAX_BYTES as u64)
        .read_to_end(&mut buf)
        .map_err(|e| crate::error::Error::state(path, e))?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The absolute, clean paths among `text`'s lines (duplicates dropped).
fn parse(text: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for line in text.lines() {
        let p = Path::new(line);
        let clean = p.is_absolute()
            && !line.chars().any(char::is_control)
            && !line.contains('\u{FFFD}')
            && p.components().all(|c| {
                matches!(
                    c,
                    std::path::Component::RootDir | std::path::Component::Normal(_)
                )
            });
        if clean && !out.iter().any(|o| o == p) && out.len() < MAX_ENTRIES {
            out.push(p.components().collect());
        }
    }
    out
}

/// Whether `dir` is a state directory kpty would use, with at least one session.
fn usable(dir: &Path) -> bool {
    let Ok(state) = StateDir::at(dir) else {
        return false;
    };
    // check_root: not a link, ours, not writable by others (and no linked ai/checkpoints).
    if state.check_root().is_err() || !secure::check_dir(dir).unwrap_or(false) {
        return false;
    }
    let registry = state.registry_file();
    let is_file = std::fs::symlink_metadata(&registry).is_ok_and(|m| m.file_type().is_file());
    is_file && Registry::load(&state).is_ok_and(|r| !r.sessions.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_clean_lines_are_read() {
        let text = "/a/b\nrelative\n/a/../etc\n/a/b\n\n/x\u{1b}y\n/c/./d\n/ok/too\n";
        assert_eq!(
            parse(text),
            vec![
                PathBuf::from("/a/b"),
                PathBuf::from("/c/d"),
                PathBuf::from("/ok/too")
            ]
        );
    }
}
