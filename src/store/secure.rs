//! Opening files in a state directory as untrusted input (a cloned repository can ship one):
//! never through a symbolic link (`O_NOFOLLOW`, directories checked with `lstat`), only files
//! and directories owned by this user and not writable by group or others (ssh's
//! `StrictModes`), new files created 0600 and new directories 0700.

use crate::error::{Error, Result};
use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// `O_NOFOLLOW | O_CLOEXEC`: a symlink in the last component fails with `ELOOP`.
fn nofollow() -> i32 {
    (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32
}

fn me() -> u32 {
    rustix::process::getuid().as_raw()
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
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
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
        None => Ok(true),
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
        let what = if md.is_dir() { "directory" } else { "file" };
        if let Some(e) = distrust(&path, &md, what) {
            return Err(e);
        }
    }
    Ok(())
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

/// Check an open file: a regular file owned by this user, not writable by group or others.
fn check_file(path: &Path, f: &File) -> Result<()> {
    let md = f.metadata().map_err(|e| Error::state(path, e))?;
    if !md.file_type().is_file() {
        return Err(Error::state(path, "expected a regular file here"));
    }
    match distrust(path, &md, "file") {
        Some(e) => Err(e),
        None => Ok(()),
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
    let f = match OpenOptions::new()
        .read(true)
        .custom_flags(nofollow())
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(open_error(path, e)),
    };
    check_file(path, &f)?;
    Ok(Some(f))
}

/// Read a whole state file; `Ok(None)` when it does not exist.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let Some(mut f) = open_read(path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| Error::state(path, e))?;
    Ok(Some(bytes))
}

/// Open (creating it 0600 when missing) a state file for appending.
pub fn open_append(path: &Path) -> Result<File> {
    open_created(path, OpenOptions::new().append(true))
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
        .map_err(|e| open_error(path, e))?;
    check_file(path, &f)?;
    Ok(f)
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
