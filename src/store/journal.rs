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
/// ([`StateDir::verify`]); the journal stays open for a later line of the same action
/// ([`Open::append`]).
pub fn try_append_verified<T: Serialize>(path: &Path, event: &T) -> Result<Open> {
    let mut j = match kept::take(path) {
        Some(j) if j.still_at_path() => j,
        _ => Open::at(path)?,
    };
    j.write(&encode(path, event)?)?;
    Ok(j)
}

/// Journals kept open between actions: the next action's intent line costs neither an open
/// (and its folder's walk) nor a read of the file's last line when nothing was appended since
/// this process's own. Each is taken by one action at a time (a concurrent action on the
/// same journal opens its own), and is used again only while it is still linked (a journal
/// whose file is no longer the one its path names — removed, or moved away and replaced —
/// is opened afresh by path, after its folders were verified, as they are before every
/// intent).
mod kept {
    use super::Open;
    use std::path::Path;
    use std::sync::Mutex;

    /// The most journals kept (the sessions a server acts on most recently).
    const KEEP: usize = 16;

    static KEPT: Mutex<Vec<Open>> = Mutex::new(Vec::new());

    fn kept() -> std::sync::MutexGuard<'static, Vec<Open>> {
        KEPT.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The kept journal at `path`, taken out.
    pub(super) fn take(path: &Path) -> Option<Open> {
        let mut k = kept();
        let i = k.iter().position(|j| j.path == path)?;
        Some(k.swap_remove(i))
    }

    /// Keep `j` for a later action (the oldest kept goes when there are too many).
    pub(super) fn put(j: Open) {
        let mut k = kept();
        if k.len() >= KEEP {
            k.remove(0);
        }
        k.push(j);
    }
}

/// A journal kept open between the lines one action writes (its intent, then its result),
/// so the second line costs neither a second open nor a second walk of its folders — nor a
/// read of the file's last line when nothing was appended since its own.
pub struct Open {
    path: std::path::PathBuf,
    file: std::fs::File,
    /// The file's length after this handle's last line, and that line (without its newline).
    wrote: Option<(u64, Vec<u8>)>,
    /// The file's device and inode.
    id: (u32, u32, u64),
}

impl Open {
    /// Open the journal at `path` (its folders verified by the caller), creating it 0600.
    fn at(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            super::secure::ensure_dir(dir)?;
        }
        let file = super::secure::open_read_append(path)?;
        let id = identity(&file, "", rustix::fs::AtFlags::EMPTY_PATH)
            .map_err(|e| Error::state(path, e))?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            wrote: None,
            id,
        })
    }

    /// Whether the file its path names (never through a link) is still this one.
    fn still_at_path(&self) -> bool {
        identity(
            rustix::fs::CWD,
            &self.path,
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .is_ok_and(|id| id == self.id)
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one event, as [`append`] does; a journal removed since it was opened (its
    /// session's folder cleaned away) is opened again by path, after `state` verified it.
    /// Once written, the journal is kept open for a later action ([`kept`]).
    pub fn append<T: Serialize>(mut self, state: &StateDir, event: &T) {
        if self.linked() {
            match encode(&self.path, event).and_then(|line| self.write(&line)) {
                Ok(()) => kept::put(self),
                Err(e) => {
                    tracing::warn!("cannot append to {}: {}", self.path.display(), e.message)
                }
            }
            return;
        }
        append(state, &self.path, event);
    }

    /// Whether the file is still linked (not removed since it was opened).
    fn linked(&self) -> bool {
        use rustix::fs::{AtFlags, StatxFlags, statx};
        statx(&self.file, "", AtFlags::EMPTY_PATH, StatxFlags::NLINK).is_ok_and(|s| s.stx_nlink > 0)
    }

    /// Append `line` whole or not at all: under the file's lock, chained to the file's last
    /// line (a torn last line, left by a writer that died, is ended first).
    fn write(&mut self, line: &[u8]) -> Result<()> {
        self.wrote = write_open(&self.file, &self.path, line, self.wrote.take())?;
        Ok(())
    }
}

/// The device and inode of the file at `path` from `dir` (no times asked for: see [`size`]).
fn identity<Fd: rustix::fd::AsFd, P: rustix::path::Arg>(
    dir: Fd,
    path: P,
    flags: rustix::fs::AtFlags,
) -> std::io::Result<(u32, u32, u64)> {
    use rustix::fs::{StatxFlags, statx};
    let s = statx(dir, path, flags, StatxFlags::INO)?;
    Ok((s.stx_dev_major, s.stx_dev_minor, s.stx_ino))
}

/// The file's length. Only the size is asked for: a look at a file's times makes the kernel
/// (multigrain timestamps) give its next write a fine-grained time, and with it a metadata
/// write to the filesystem's log, on every append.
fn size(f: &std::fs::File) -> std::io::Result<u64> {
    use rustix::fs::{AtFlags, StatxFlags, statx};
    Ok(statx(f, "", AtFlags::EMPTY_PATH, StatxFlags::SIZE)?.stx_size)
}

/// One journal line: `event` as JSON and a newline.
fn encode<T: Serialize>(path: &Path, event: &T) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(event)
        .map_err(|e| Error::state(path, format!("cannot encode a journal event: {e}")))?;
    line.push(b'\n');
    Ok(line)
}

/// The journal's lock, held while its last line is read and the next one written (the wait
/// has the registry lock's deadline), and let go when the guard drops: the journal itself
/// may stay open ([`Open`]), so closing a descriptor is not what releases it.
fn hold<'f>(f: &'f std::fs::File, path: &Path) -> Result<Held<'f>> {
    match f.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let other = f.try_clone().map_err(|e| Error::state(path, e))?;
            drop(super::lock::lock_file(
                other,
                path,
                super::lock::default_wait(),
            )?);
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(Error::state(path, format!("cannot lock: {e}")));
        }
    }
    Ok(Held(f))
}

/// A journal's lock, held until dropped.
struct Held<'f>(&'f std::fs::File);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Append `line` whole or not at all.
pub fn append_line(state: &StateDir, path: &Path, line: &[u8]) -> Result<()> {
    state.verify(path)?;
    write_line(path, line)
}

/// [`append_line`] once the folders are verified.
fn write_line(path: &Path, line: &[u8]) -> Result<()> {
    Open::at(path)?.write(line)
}

/// [`Open::write`] on the journal `f` at `path`.
/// `wrote`: the file's length after a line this process wrote last, and that line: when the
/// file still ends there, the line before the new one is known without reading it. Returns
/// the same for the line written now (`None` if it did not end with a newline).
fn write_open(
    mut f: &std::fs::File,
    path: &Path,
    line: &[u8],
    wrote: Option<(u64, Vec<u8>)>,
) -> Result<Option<(u64, Vec<u8>)>> {
    use std::os::unix::fs::FileExt;
    let _held = hold(f, path)?;
    let len = size(f).map_err(|e| Error::state(path, e))?;
    let last = match wrote {
        // Nothing appended since (appends only grow the file, under this lock).
        Some((end, own)) if end == len => Some((own, false)),
        _ => super::chain::last_line(len, |buf, at| f.read_at(buf, at))
            .map_err(|e| Error::state(path, e))?,
    };
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
        // The line as the next one's `prev` sees it: without its newlines (a whole line only).
        let own = line.strip_suffix(b"\n");
        let own = own.map(|l| l.strip_prefix(b"\n").unwrap_or(l).to_vec());
        return Ok(own.map(|l| (len + n as u64, l)));
    }
    // A short write (the disk is full): remove the partial line, which is at the end.
    let cut = size(f).and_then(|len| f.set_len(len.saturating_sub(n as u64)));
    Err(Error::state(
        path,
        format!(
            "the disk took only {n} of {} bytes; the partial line was {}",
            line.len(),
            if cut.is_ok() { "removed" } else { "left" }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One journal line of the test.
    #[derive(Serialize)]
    struct Line {
        n: u32,
    }

    #[test]
    fn a_journal_kept_open_lets_its_lock_go_after_each_line() {
        // An action keeps its journal open from its intent to its result; between the two
        // lines (and after), every other writer gets the journal's lock at once.
        let t = tempfile::tempdir().unwrap();
        let state = StateDir::at(t.path()).unwrap();
        state.ensure().unwrap();
        let path = state.registry_events();
        let kept = try_append_verified(&path, &Line { n: 1 }).unwrap();
        let other = std::fs::File::open(&path).unwrap();
        other.try_lock().expect("free between the two lines");
        other.unlock().unwrap();
        append(&state, &path, &Line { n: 2 });
        kept.append(&state, &Line { n: 3 });
        other.try_lock().expect("free after the last line");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
    }

    #[test]
    fn a_kept_journal_is_used_again_only_while_its_path_names_it() {
        // Two actions' lines go to one kept journal; once the file is moved away (and
        // another put in its place) or removed, the next action writes to the file its path
        // names, never to the one kept.
        let t = tempfile::tempdir().unwrap();
        let state = StateDir::at(t.path()).unwrap();
        state.ensure().unwrap();
        let path = state.registry_events();
        let action = |n: u32| {
            try_append_verified(&path, &Line { n })
                .unwrap()
                .append(&state, &Line { n: n + 1 })
        };
        let lines = |p: &Path| std::fs::read_to_string(p).map_or(0, |t| t.lines().count());
        action(0);
        action(2);
        assert_eq!(lines(&path), 4);
        let moved = t.path().join("moved.jsonl");
        std::fs::rename(&path, &moved).unwrap();
        std::fs::write(&path, "").unwrap();
        action(4);
        assert_eq!((lines(&moved), lines(&path)), (4, 2));
        std::fs::remove_file(&path).unwrap();
        action(6);
        assert_eq!(lines(&path), 2);
        let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        let checked = crate::store::chain::check(f, None).unwrap();
        assert!(checked.broken.is_none(), "{:?}", checked.broken);
    }

    proptest::proptest! {
        /// However actions' two lines interleave with each other and with one-off lines, the
        /// chain holds: a handle reuses the line it wrote as the next `prev` only while the
        /// file still ends with it.
        #[test]
        fn interleaved_writers_keep_the_chain(
            steps in proptest::collection::vec((0u8..3, 0u8..3), 1..24),
        ) {
            let t = tempfile::tempdir().unwrap();
            let state = StateDir::at(t.path()).unwrap();
            state.ensure().unwrap();
            let path = state.registry_events();
            let mut open: Vec<Option<Open>> = vec![None, None, None];
            for (n, (what, who)) in steps.into_iter().enumerate() {
                let (n, who) = (n as u32, who as usize);
                match what {
                    0 => open[who] = try_append_verified(&path, &Line { n }).ok(),
                    1 => {
                        if let Some(j) = open[who].take() {
                            j.append(&state, &Line { n });
                        }
                    }
                    _ => append(&state, &path, &Line { n }),
                }
            }
            for j in open.into_iter().flatten() {
                j.append(&state, &Line { n: 99 });
            }
            append(&state, &path, &Line { n: 100 });
            let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            let checked = crate::store::chain::check(f, None).unwrap();
            proptest::prop_assert!(checked.broken.is_none(), "{:?}", checked.broken);
        }
    }
}
