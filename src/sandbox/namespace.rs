//! The sandboxed shell's own mount namespace, entered by `__sandbox-exec` before Landlock:
//! every [`Policy::hidden`] directory is covered by an empty read-only tmpfs, so no holder's
//! socket (which Landlock below ABI 9 would let it `connect()` to), no other session's output
//! and no bridge secret can be reached by path. Mount propagation is made private first, so
//! nothing leaks back to the rest of the system; the holder stays outside.
//!
//! root enters a new mount namespace; anyone else a new user namespace too, mapping their own
//! uid and gid to themselves (files keep their owners, `setgroups` is denied). Landlock, applied
//! next, forbids mount, umount and pivot_root, so the covers cannot be lifted from inside.

use super::Policy;
use rustix::mount::{MountFlags, MountPropagationFlags};
use rustix::thread::UnshareFlags;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The most a revealed directory may hold (its files are copied into memory, then the cover).
const REVEAL_LIMIT: usize = 1 << 20;

/// Why the namespace could not be set up: a short machine word and a message.
type Failure = (&'static str, String);

/// Enter a private mount namespace and cover `policy.hidden` (copying `policy.revealed` into
/// the covers). Every failure is returned: the caller must then not run the shell.
pub fn enter(policy: &Policy) -> Result<(), Failure> {
    // A directory removed since the policy was made has nothing left to hide.
    let hidden: Vec<&PathBuf> = policy
        .hidden
        .iter()
        .filter(|h| std::fs::symlink_metadata(h).is_ok())
        .collect();
    for h in &hidden {
        plain_dir(h).map_err(|m| ("hidden_path_unsafe", m))?;
    }
    let mut copies = Vec::new();
    for r in &policy.revealed {
        copies.push((
            r.clone(),
            read_tree(r).map_err(|m| ("hidden_path_unsafe", m))?,
        ));
    }
    let unavailable = |m: String| ("mount_namespace_unavailable", m);
    unshare_mounts().map_err(unavailable)?;
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
    )
    .map_err(|e| unavailable(format!("cannot make the mounts private: {e}")))?;
    for h in hidden {
        let inside: Vec<&(PathBuf, Files)> =
            copies.iter().filter(|(r, _)| r.starts_with(h)).collect();
        match cover(h, &inside) {
            Ok(()) => {}
            // Removed in the meantime: nothing to hide there.
            Err(_) if std::fs::symlink_metadata(h).is_err() => {}
            Err(m) => return Err(unavailable(m)),
        }
    }
    Ok(())
}

/// `path` must be a directory reached without any symbolic link (it was resolved when the
/// session was created; a link there now could aim the cover elsewhere).
fn plain_dir(path: &Path) -> Result<(), String> {
    let md = std::fs::symlink_metadata(path)
        .map_err(|e| format!("cannot hide {}: {e}", path.display()))?;
    if !md.is_dir() || path.canonicalize().ok().as_deref() != Some(path) {
        return Err(format!(
            "{} is not a plain directory (a symbolic link, or behind one): refusing",
            path.display()
        ));
    }
    Ok(())
}

/// Files to copy: (path relative to their directory, contents).
type Files = Vec<(PathBuf, Vec<u8>)>;

/// The regular files under a directory. A missing directory has none; links and special
/// files are skipped; more than [`REVEAL_LIMIT`] bytes fail.
fn read_tree(dir: &Path) -> Result<Files, String> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    let mut total = 0;
    while let Some(rel) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for e in rd.flatten() {
            let (Ok(t), name) = (e.file_type(), rel.join(e.file_name())) else {
                continue;
            };
            if t.is_dir() {
                todo.push(name);
            } else if t.is_file() {
                let f = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(dir.join(&name));
                let bytes = f
                    .and_then(|mut f| {
                        let mut b = Vec::new();
                        std::io::Read::read_to_end(&mut f, &mut b).map(|_| b)
                    })
                    .map_err(|e| format!("cannot read {}: {e}", dir.join(&name).display()))?;
                total += bytes.len();
                if total > REVEAL_LIMIT {
                    return Err(format!("{} holds too much to copy", dir.display()));
                }
                out.push((name, bytes));
            }
        }
    }
    Ok(out)
}

/// A new mount namespace: directly for root, inside a new user namespace (own uid and gid
/// mapped to themselves) for anyone else, or for a root without the right to mount.
fn unshare_mounts() -> Result<(), String> {
    let (uid, gid) = (rustix::process::geteuid(), rustix::process::getegid());
    if uid.is_root() && crate::sys::unshare_namespaces(UnshareFlags::NEWNS).is_ok() {
        return Ok(());
    }
    crate::sys::unshare_namespaces(UnshareFlags::NEWUSER | UnshareFlags::NEWNS).map_err(|e| {
        format!(
            "cannot create a user and mount namespace ({e}): unprivileged user namespaces may \
             be disabled (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, \
             kernel.apparmor_restrict_unprivileged_userns); without one kpty's sockets and \
             state would be reachable from the sandbox"
        )
    })?;
    let write = |file: &str, text: String| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(Path::new("/proc/self").join(file))
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .map_err(|e| format!("cannot write /proc/self/{file}: {e}"))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("{0} {0} 1", uid.as_raw()))?;
    write("gid_map", format!("{0} {0} 1", gid.as_raw()))
}

/// Cover `dir` with an empty tmpfs (nosuid, nodev, noexec), copy the revealed files in, then
/// make it read-only (mode 0555) and check that it is.
fn cover(dir: &Path, copies: &[&(PathBuf, Files)]) -> Result<(), String> {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        format!("cannot hide {} ({what}): {e}", dir.display())
    };
    rustix::mount::mount(
        "kpty-hidden",
        dir,
        "tmpfs",
        flags,
        c"mode=0755,size=2m,nr_inodes=256",
    )
    .map_err(|e| fail("tmpfs", &e))?;
    for (root, files) in copies {
        for (rel, bytes) in files {
            let to = root.join(rel);
            if let Some(parent) = to.parent() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(parent)
                    .map_err(|e| fail("copy", &e))?;
            }
            std::fs::write(&to, bytes).map_err(|e| fail("copy", &e))?;
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o444))
                .map_err(|e| fail("copy", &e))?;
        }
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555))
        .map_err(|e| fail("chmod", &e))?;
    rustix::mount::mount_remount(dir, flags | MountFlags::RDONLY, "")
        .map_err(|e| fail("read-only", &e))?;
    let st = rustix::fs::statvfs(dir).map_err(|e| fail("statvfs", &e))?;
    if !st.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
        return Err(fail("read-only", &"the cover is still writable"));
    }
    Ok(())
}
