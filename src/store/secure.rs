//! Opening files in a state directory as untrusted input (a cloned repository can ship one):
//! never through a symbolic link (`O_NOFOLLOW`, directories checked with `lstat`), never
//! blocking on a FIFO or device (`O_NONBLOCK`, then `fstat`: only regular files), only files
//! and directories owned by this user and not writable by group or others (ssh's
//! `StrictModes`), never more bytes than the file's kind may hold (`cap_for`, checked on
//! `fstat` and again while reading, for a file that grows under us), new files created 0600
//! and new directories 0700. The directories above a state directory must not be writable by
//! others either ([`check_ancestors`]).

use crate::error::{Error, Result};
use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`: a symlink in the last component fails with
/// `ELOOP`, and opening a FIFO or a device never waits (the `fstat` that follows refuses it).
fn nofollow() -> i32 {
    (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::CLOEXEC)
        .bits() as i32
}

/// The most bytes kpty reads of the state file `path`, by its name: each kind of file kpty
/// writes has a size it never comes near; anything larger was not written by kpty.
fn cap_for(path: &Path) -> u64 {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    match path.file_name().and_then(|n| n.to_str()).unwrap_or("") {
        "_registry.json" => 16 * MIB,
        "metadata.json" => MIB,
        "_leaders.json" => MIB,
        // The ring holds at most 64 MiB (KPTY_BUFFER_SIZE's cap).
        "buffer.txt" => 64 * MIB + 64 * KIB,
        "holder.log" => 4 * MIB,
        "state-dirs" => 256 * KIB,
        n if n.ends_with("secret") => 4 * KIB,
        n if n.ends_with(".lock") => KIB,
        // Journals are streamed line by line (see `crate::core::trail`), never read whole;
        // one past a GiB is refused rather than scanned (rotate it).
        n if n.ends_with(".jsonl") => 1 << 30,
        // Recordings are streamed too; a segment is at most its cap (≤ a few GiB).
        n if n.ends_with(".cast") => 16 << 30,
        _ => 4 * MIB,
    }
}

/// Refuse a file of `len` bytes at `path` above its cap.
fn check_size(path: &Path, len: u64, cap: u64) -> Result<()> {
    if len > cap {
        return Err(Error::state(
            path,
            format!(
                "this state file is {len} bytes, more than the {cap} bytes kpty ever writes \
                     there; it was not written by kpty: move it away"
            ),
        ));
    }
    Ok(())
}

/// This process's user (asked once: kpty never changes it).
pub(super) fn me() -> u32 {
    static UID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UID.get_or_init(|| rustix::process::getuid().as_raw())
}

/// Why `md` (of `path`) may not be trusted, if it may not.
fn distrust(path: &Path, md: &Metadata, what: &str) -> Option<Error> {
    let uid = me();
    if md.uid() != uid {
        return Some(Error::state(
            path,
            format!(
                "this {what} is owned by uid {}, not by you (uid {uid}); kpty refuses state it \
                 did not make (like ssh's StrictModes): remove it, or point --state-dir / \
                 KPTY_STATE_DIR elsewhere",
                md.uid()
            ),
        ));
    }
    if md.mode() & 0o022 != 0 {
        return Some(Error::state(
            path,
            format!(
                "this {what} is writable by group or others (mode {:o}); kpty refuses state \
                 others could have written (like ssh's StrictModes): run `chmod go-w {}`",
                md.mode() & 0o7777,
                path.display()
            ),
        ));
    }
    None
}

/// Check an existing directory: a real directory (not a link), owned by this user, not
/// writable by group or others. `Ok(false)` when it does not exist.
pub fn check_dir(path: &Path) -> Result<bool> {
    dir_identity(path).map(|id| id.is_some())
}

/// [`check_dir`], and the directory's device and inode: `Ok(None)` when it does not exist.
pub fn dir_identity(path: &Path) -> Result<Option<(u64, u64)>> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::state(path, e)),
    };
    if md.file_type().is_symlink() {
        return Err(Error::state(
            path,
            "this state directory is a symbolic link; kpty never follows links in its state: \
             remove the link (or point --state-dir / KPTY_STATE_DIR at the real directory)",
        ));
    }
    if !md.is_dir() {
        return Err(Error::state(path, "expected a directory here"));
    }
    match distrust(path, &md, "directory") {
        Some(e) => Err(e),
        None => Ok(Some((md.dev(), md.ino()))),
    }
}

/// Check the named entries of `dir` that exist: none may be a link, owned by another user or
/// writable by group or others. Refusing them up front gives a clear `STATE_ERROR` for a
/// tampered state directory, rather than a refused write discovered later.
pub fn check_entries(dir: &Path, names: &[&str]) -> Result<()> {
    for name in names {
        let path = dir.join(name);
        let md = match std::fs::symlink_metadata(&path) {
            Ok(md) => md,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::state(&path, e)),
        };
        if md.file_type().is_symlink() {
            return Err(Error::state(
                &path,
                "this state file is a symbolic link; kpty never follows links in its state \
                 directory: remove it",
            ));
        }
        let want_dir = *name == "sessions" || *name == "ptys";
        let kind_ok = if want_dir { md.is_dir() } else { md.is_file() };
        if !kind_ok {
            return Err(Error::state(
                &path,
                format!(
                    "expected a {} here, found {}; kpty reads only what it made: move it away",
                    if want_dir {
                        "directory"
                    } else {
                        "regular file"
                    },
                    describe(&md)
                ),
            ));
        }
        let what = if md.is_dir() { "directory" } else { "file" };
        if let Some(e) = distrust(&path, &md, what) {
            return Err(e);
        }
    }
    Ok(())
}

/// What kind of file `md` is, in words.
fn describe(md: &Metadata) -> &'static str {
    let t = md.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "an unknown kind of file"
    }
}

/// Create the directory `path` (mode 0700) when missing; its parent must exist. Then check it.
pub fn ensure_dir(path: &Path) -> Result<()> {
    if check_dir(path)? {
        return Ok(());
    }
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(Error::state(
                path,
                format!("cannot create the directory: {e}"),
            ));
        }
    }
    check_dir(path).map(drop)
}

/// Check an open file: a regular file owned by this user, not writable by group or others;
/// its metadata when it is one.
fn check_file(path: &Path, f: &File) -> Result<Metadata> {
    let md = f.metadata().map_err(|e| Error::state(path, e))?;
    if !md.file_type().is_file() {
        return Err(Error::state(
            path,
            format!(
                "expected a regular file here, found {}; kpty reads only what it made: move it away",
                describe(&md)
            ),
        ));
    }
    match distrust(path, &md, "file") {
        Some(e) => Err(e),
        None => Ok(md),
    }
}

/// Map an open error: `ELOOP` (the path is a symlink) gets a message that says so.
fn open_error(path: &Path, e: std::io::Error) -> Error {
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        Error::state(
            path,
            "this file is a symbolic link; kpty never follows links in its state directory: remove it",
        )
    } else {
        Error::state(path, e)
    }
}

/// Open an existing state file for reading; `Ok(None)` when it does not exist.
pub fn open_read(path: &Path) -> Result<Option<File>> {
    Ok(open_read_md(path)?.map(|(f, _)| f))
}

/// [`open_read`], with the file's metadata as checked.
fn open_read_md(path: &Path) -> Result<Option<(File, Metadata)>> {
    let f = match OpenOptions::new()
        .read(true)
        .custom_flags(nofollow())
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(open_error(path, e)),
    };
    let md = check_file(path, &f)?;
    check_size(path, md.len(), cap_for(path))?;
    Ok(Some((f, md)))
}

/// Read a whole state file, at most its kind's `cap_for` bytes (a file that grows past
/// it while being read is refused too); `Ok(None)` when it does not exist.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let Some((f, md)) = open_read_md(path)? else {
        return Ok(None);
    };
    let cap = cap_for(path);
    // Room for the whole file and the read that finds its end: one read, not a dozen.
    let mut bytes = Vec::with_capacity(md.len().min(cap) as usize + 1);
    f.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::state(path, e))?;
    check_size(path, bytes.len() as u64, cap)?;
    Ok(Some(bytes))
}

/// Read a secret: like [`read`], and the file must also be unreadable by group and others
/// (mode 0600 or stricter); it is never chmod-ed into shape. `Ok(None)` when missing.
pub fn read_secret(path: &Path) -> Result<Option<String>> {
    use std::io::Read;
    let Some((f, md)) = open_read_md(path)? else {
        return Ok(None);
    };
    let mode = md.mode();
    if mode & 0o077 != 0 {
        return Err(Error::state(
            path,
            format!(
                "this secret is open to group or others (mode {:o}); kpty never adopts a secret \
                 it did not make private itself: delete it and let kpty make a new one",
                mode & 0o7777
            ),
        ));
    }
    let cap = cap_for(path);
    let mut text = String::new();
    f.take(cap + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::state(path, e))?;
    check_size(path, text.len() as u64, cap)?;
    Ok(Some(text.trim().to_string()))
}

/// Make a new secret file (64 hex characters, born 0600 in `path`'s folder) and put it at
/// `path`: with `replace`, atomically over an old one; else only when none is there (a
/// concurrent maker's secret wins). Returns the secret now at `path`.
pub fn make_secret(path: &Path, replace: bool) -> Result<String> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = path
        .parent()
        .ok_or_else(|| Error::state(path, "no parent directory"))?;
    let fresh = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let mut tmp = tempfile::Builder::new()
        .prefix(".secret-")
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(|e| Error::state(dir, format!("cannot create a temp file: {e}")))?;
    tmp.write_all(fresh.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| Error::state(path, e))?;
    if replace {
        tmp.persist(path).map_err(|e| Error::state(path, e.error))?;
    } else if let Err(e) = tmp.persist_noclobber(path)
        && e.error.kind() != std::io::ErrorKind::AlreadyExists
    {
        return Err(Error::state(path, e.error));
    }
    read_secret(path)?.ok_or_else(|| Error::state(path, "the secret vanished"))
}

/// Open (creating it 0600 when missing) a state file for appending.
pub fn open_append(path: &Path) -> Result<File> {
    open_created(path, OpenOptions::new().append(true))
}

/// Open (creating it 0600 when missing) a journal to read its end and append to it.
pub fn open_read_append(path: &Path) -> Result<File> {
    open_created(path, OpenOptions::new().read(true).append(true))
}

/// Open (creating it 0600 when missing) a lock or data file for reading and writing.
pub fn open_rw(path: &Path) -> Result<File> {
    open_created(
        path,
        OpenOptions::new().read(true).write(true).truncate(false),
    )
}

/// Open with `opts`, creating the file 0600 when missing, never through a link, then check it.
fn open_created(path: &Path, opts: &mut OpenOptions) -> Result<File> {
    let f = opts
        .create(true)
        .mode(0o600)
        .custom_flags(nofollow())
        .open(path)
        .map_err(|e| match std::fs::symlink_metadata(path) {
            // A FIFO without a reader (ENXIO), a directory (EISDIR), a device …: say what it is.
            Ok(md) if !md.file_type().is_file() && !md.file_type().is_symlink() => Error::state(
                path,
                format!(
                    "expected a regular file here, found {}; kpty writes only to what it made: \
                     move it away",
                    describe(&md)
                ),
            ),
            _ => open_error(path, e),
        })?;
    check_file(path, &f)?;
    Ok(f)
}

/// The StrictModes rule for the directories above a state directory: from `dir` (or, when it
/// does not exist yet, its nearest existing ancestor), resolved through links, up to `/`,
/// each must be owned by this user or by root, and not writable by group or others unless it
/// is root's and sticky (like `/tmp`). Another user who can write a directory above the state
/// can replace the state with their own.
pub fn check_ancestors(dir: &Path) -> Result<()> {
    let Some(start) = dir.ancestors().find(|a| a.exists()) else {
        return Ok(());
    };
    let real = std::fs::canonicalize(start).map_err(|e| Error::state(start, e))?;
    let uid = me();
    for up in real.ancestors() {
        let md = std::fs::metadata(up).map_err(|e| Error::state(up, e))?;
        if md.uid() != uid && md.uid() != 0 {
            return Err(Error::state(
                up,
                format!(
                    "this directory above the state directory is owned by uid {}, neither you \
                     (uid {uid}) nor root; its owner could replace kpty's state (like ssh's \
                     StrictModes): keep the state under directories you own, or set \
                     --state-dir / KPTY_STATE_DIR",
                    md.uid()
                ),
            ));
        }
        let sticky_root = md.mode() & 0o1000 != 0 && md.uid() == 0;
        if md.mode() & 0o022 != 0 && !sticky_root {
            return Err(Error::state(
                up,
                format!(
                    "this directory above the state directory is writable by group or others \
                     (mode {:o}); they could replace kpty's state (like ssh's StrictModes): \
                     run `chmod go-w {}`",
                    md.mode() & 0o7777,
                    up.display()
                ),
            ));
        }
    }
    Ok(())
}

/// True when `path` is a Unix socket owned by this user (not a link, not a regular file): the
/// only kind of file kpty ever removes from its runtime directory.
pub fn is_own_socket(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|md| md.file_type().is_socket() && md.uid() == me())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn links_and_loose_modes_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("target.txt");
        std::fs::write(&target, "precious").unwrap();
        let link = t.path().join("events.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = open_append(&link).unwrap_err();
        assert_eq!(e.code, ErrorCode::StateError);
        assert!(e.message.contains("symbolic link"), "{}", e.message);
        assert!(open_read(&link).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");

        let loose = t.path().join("loose.json");
        std::fs::write(&loose, "{}").unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o666)).unwrap();
        let e = open_read(&loose).unwrap_err();
        assert!(e.message.contains("chmod go-w"), "{}", e.message);

        let dlink = t.path().join("dlink");
        std::os::unix::fs::symlink(t.path(), &dlink).unwrap();
        assert!(check_dir(&dlink).is_err());
        assert!(!check_dir(&t.path().join("missing")).unwrap());
    }

    #[test]
    fn fifos_devices_and_oversized_files_are_refused_without_waiting() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("_registry.json");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Without O_NONBLOCK this open would wait for a writer forever.
        let e = read(&fifo).unwrap_err();
        assert!(e.message.contains("FIFO"), "{}", e.message);
        assert!(open_rw(&fifo).is_err());
        let e = check_entries(t.path(), &["_registry.json"]).unwrap_err();
        assert!(e.message.contains("FIFO"), "{}", e.message);

        let huge = t.path().join("metadata.json");
        let f = std::fs::File::create(&huge).unwrap();
        f.set_len(3 << 30).unwrap(); // sparse: costs no disk
        let e = read(&huge).unwrap_err();
        assert!(e.message.contains("not written by kpty"), "{}", e.message);
        f.set_len(cap_for(&huge)).unwrap();
        assert_eq!(read(&huge).unwrap().unwrap().len() as u64, cap_for(&huge));
    }

    #[test]
    fn ancestors_writable_by_others_are_refused_unless_sticky_roots() {
        let t = tempfile::tempdir().unwrap();
        let ai = t.path().join("ai");
        let state = ai.join("checkpoints/pty");
        std::fs::create_dir_all(&state).unwrap();
        check_ancestors(&state).unwrap();
        std::fs::set_permissions(&ai, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = check_ancestors(&state).unwrap_err();
        assert!(e.message.contains("chmod go-w"), "{}", e.message);
        assert!(e.message.contains(&*ai.to_string_lossy()), "{}", e.message);
        // Not yet made: its nearest existing ancestor is checked.
        assert!(check_ancestors(&state.join("not/yet")).is_err());
        // Sticky and root's (like /tmp): accepted only when root owns it.
        std::fs::set_permissions(&ai, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(check_ancestors(&state).is_ok(), me() == 0);
    }

    #[test]
    fn every_mode_of_an_ancestor_follows_the_strict_modes_rule() {
        let t = tempfile::tempdir().unwrap();
        let up = t.path().join("ai");
        let state = up.join("checkpoints/pty");
        std::fs::create_dir_all(&state).unwrap();
        for mode in 0o700..=0o7777u32 {
            if mode & 0o700 != 0o700 {
                continue; // we must still be able to walk it
            }
            std::fs::set_permissions(&up, std::fs::Permissions::from_mode(mode)).unwrap();
            let others_write = mode & 0o022 != 0;
            let sticky_root = mode & 0o1000 != 0 && me() == 0;
            let refused = check_ancestors(&state).is_err();
            assert_eq!(refused, others_write && !sticky_root, "mode {mode:o}");
        }
    }

    #[test]
    fn created_private() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("d");
        ensure_dir(&d).unwrap();
        assert_eq!(std::fs::metadata(&d).unwrap().mode() & 0o777, 0o700);
        let f = d.join("x");
        drop(open_append(&f).unwrap());
        assert_eq!(std::fs::metadata(&f).unwrap().mode() & 0o777, 0o600);
        assert!(read(&d.join("nope")).unwrap().is_none());
        assert!(!is_own_socket(&f));
    }
}
