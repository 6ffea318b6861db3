//! `create --sandbox`: a Landlock sandbox for a session's whole process tree.
//!
//! The creating process builds a [`Policy`] ([`Policy::build`]: probes the kernel's Landlock
//! ABI, resolves the paths), the holder starts the shell through `kpty __sandbox-exec`
//! ([`exec`]), which restricts itself ([`apply`]) and then execs the shell: the kernel then
//! confines the shell and everything it starts, for good.
//!
//! What a sandboxed session may do: write only under [`Policy::allow_write`] (the project root,
//! the session's cwd, `/tmp`, `$TMPDIR`, a few character devices, the PTY itself, and
//! `--allow-write` paths); read and execute everything else except [`Policy::deny_read`] (the
//! usual credential stores and `--deny-read` paths); optionally no TCP bind/connect; and (ABI
//! ≥ 6) no signals to, or abstract-socket connections with, processes outside the sandbox.
//!
//! Landlock only allows, per hierarchy: to hide `~/.ssh` while `~/.bashrc` stays readable,
//! `grants` grants read on each sibling along the path from `/` down to every hidden path,
//! one by one. Listing directories is granted everywhere (`ls ~` works; the names in
//! `~/.ssh` show, their contents do not); files created later directly in a directory on
//! those paths are not readable, and nothing can be created there.
//!
//! Landlock below ABI 9 does not govern `connect()` to path-named Unix sockets, and the state
//! directory lies in the writable project: so before Landlock, `__sandbox-exec` moves the
//! shell into its own mount namespace (`namespace`) where [`Policy::hidden`] (kpty's runtime
//! directories, with every holder's socket, and the state directory, with other sessions'
//! output and the bridge secret) are covered by an empty read-only tmpfs. Landlock then forbids
//! mount and umount, so the cover stays.

#[cfg(target_os = "linux")]
pub mod apply;
#[cfg(not(target_os = "linux"))]
#[path = "apply_none.rs"]
pub mod apply;
pub mod exec;
pub mod floor;
#[cfg(target_os = "linux")]
mod namespace;

use std::path::{Path, PathBuf};

/// The environment variable carrying the policy (JSON) from the holder to `__sandbox-exec`,
/// which removes it before it execs the shell.
pub const POLICY_ENV: &str = "KPTY_SANDBOX_POLICY";

/// The environment variable carrying the request's own environment for the shell (JSON, a
/// map) to `__sandbox-exec`, which sets it only after the sandbox is in force: set earlier,
/// `LD_PRELOAD` and its kin would run the request's code in kpty itself, unconfined.
pub const SESSION_ENV: &str = "KPTY_SANDBOX_ENV";

/// `__sandbox-exec`'s exit code when it refused to run the shell (no sandbox could be
/// enforced as asked): the holder reports the create as failed with this reason.
pub const REFUSED_EXIT_CODE: i32 = 99;

/// Credential stores hidden from every sandboxed session, relative to `$HOME`.
pub const DEFAULT_DENY_READ: [&str; 8] = [
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
];

/// Character devices every sandboxed session may write (besides its own PTY).
const WRITABLE_DEVICES: [&str; 8] = [
    "/dev/null",
    "/dev/tty",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/ptmx",
    "/dev/pts/ptmx",
];

/// What a sandboxed session may do (data in the leaf `crate::launch`; built here).
pub use crate::launch::Policy;

/// What the caller asked for, before paths are resolved.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The project root (writable).
    pub project_root: PathBuf,
    /// The session's working directory (writable).
    pub cwd: PathBuf,
    /// The home directory whose credential stores are hidden.
    pub home: Option<PathBuf>,
    /// `$TMPDIR`, when set (writable).
    pub tmpdir: Option<PathBuf>,
    /// Extra writable paths (must exist).
    pub allow_write: Vec<PathBuf>,
    /// Extra hidden paths.
    pub deny_read: Vec<PathBuf>,
    /// `false`: deny TCP bind/connect.
    pub network: bool,
    /// Directories to hide (missing ones are skipped).
    pub hidden: Vec<PathBuf>,
    /// Directories inside hidden ones to copy into the cover.
    pub revealed: Vec<PathBuf>,
}

/// Why a policy cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyError {
    /// The kernel cannot enforce it (no Landlock, or a feature missing); `reason` is a short
    /// machine word, `message` says why.
    Unsupported {
        /// `landlock_unavailable`, `network_unsupported` …
        reason: &'static str,
        /// For people.
        message: String,
    },
    /// A path given is unusable.
    BadPath(String),
}

impl Policy {
    /// Resolve `req` into a policy for the running kernel (`abi`: [`apply::kernel_abi`]).
    pub fn build(req: &Request, abi: Option<u32>) -> Result<Policy, PolicyError> {
        let abi = abi.ok_or_else(|| PolicyError::Unsupported {
            reason: "landlock_unavailable",
            message: "this kernel does not offer Landlock (not built in or not enabled at boot: \
                      check CONFIG_SECURITY_LANDLOCK and the lsm= boot parameter)"
                .into(),
        })?;
        if !req.network && abi < 4 {
            return Err(PolicyError::Unsupported {
                reason: "network_unsupported",
                message: format!(
                    "--no-network needs Landlock ABI 4 (Linux 6.7); this kernel has ABI {abi}"
                ),
            });
        }
        let mut deny_read: Vec<PathBuf> = Vec::new();
        if let Some(home) = &req.home {
            deny_read.extend(DEFAULT_DENY_READ.iter().map(|d| home.join(d)));
        }
        deny_read.extend(req.deny_read.iter().cloned());
        let deny_read = with_resolved(deny_read);
        let mut writable: Vec<PathBuf> = vec![req.project_root.clone(), req.cwd.clone()];
        writable.push(PathBuf::from("/tmp"));
        writable.extend(req.tmpdir.iter().cloned());
        let (hidden, revealed) = covers(&req.hidden, &req.revealed);
        let mut allow_write = Vec::new();
        for p in writable.iter().chain(&req.allow_write) {
            let real = p
                .canonicalize()
                .map_err(|e| PolicyError::BadPath(format!("{}: {e}", p.display())))?;
            if let Some(d) = deny_read
                .iter()
                .chain(&hidden)
                .find(|d| real.starts_with(d))
            {
                return Err(PolicyError::BadPath(format!(
                    "{} is writable but lies in the hidden {}",
                    real.display(),
                    d.display()
                )));
            }
            if !allow_write.contains(&real) {
                allow_write.push(real);
            }
        }
        allow_write.extend(
            WRITABLE_DEVICES
                .iter()
                .map(PathBuf::from)
                .filter(|d| d.exists()),
        );
        Ok(Policy {
            abi,
            allow_write,
            deny_read,
            network: req.network,
            hidden,
            revealed,
        })
    }
}

/// The directories to cover, symlinks resolved (missing ones skipped, duplicates and ones
/// inside another dropped), and the revealed ones moved along with the hidden one they lie
/// in (they need not exist yet: the holder writes them after the policy is built).
fn covers(hidden: &[PathBuf], revealed: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let pairs: Vec<(&PathBuf, PathBuf)> = hidden
        .iter()
        .filter_map(|h| Some((h, h.canonicalize().ok()?)))
        .collect();
    let mut out: Vec<PathBuf> = Vec::new();
    for (_, real) in &pairs {
        if !pairs.iter().any(|(_, o)| real != o && real.starts_with(o)) && !out.contains(real) {
            out.push(real.clone());
        }
    }
    let moved = revealed
        .iter()
        .filter_map(|r| {
            let (h, real) = pairs.iter().find(|(h, _)| r.starts_with(h))?;
            Some(real.join(r.strip_prefix(h).ok()?))
        })
        .collect();
    (out, moved)
}

/// Each path made absolute and normalized, plus its symlink-resolved form when that differs
/// (Landlock rules follow the real hierarchy); duplicates dropped.
fn with_resolved(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        let abs = std::path::absolute(&p).unwrap_or(p);
        let real = abs.canonicalize().ok();
        for q in std::iter::once(abs).chain(real) {
            if !out.contains(&q) {
                out.push(q);
            }
        }
    }
    out
}

/// The paths to grant so that all of `root` is reachable except `denied` (and everything under
/// them): `root` itself when no denied path lies strictly under it; nothing when it lies in a
/// denied path; else the same, recursively, for each entry `list` gives for `root` (full paths,
/// symlinks already resolved). A directory split this way gets no rule itself: it cannot be
/// listed, though its granted entries can be opened by path. Pure: the file system is only
/// seen through `list`.
fn grants(root: &Path, denied: &[PathBuf], list: &dyn Fn(&Path) -> Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut split = Vec::new();
    grants_into(root, denied, list, &mut split, &mut out);
    out
}

fn grants_into(
    root: &Path,
    denied: &[PathBuf],
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
    split: &mut Vec<PathBuf>,
    out: &mut Vec<PathBuf>,
) {
    if denied.iter().any(|d| root.starts_with(d)) {
        return;
    }
    if !denied.iter().any(|d| d.starts_with(root)) {
        if !out.iter().any(|o| root.starts_with(o)) {
            out.push(root.to_path_buf());
        }
        return;
    }
    // A symlink cycle (or two links to one directory) splits a directory only once.
    if split.iter().any(|s| s == root) {
        return;
    }
    split.push(root.to_path_buf());
    for child in list(root) {
        grants_into(&child, denied, list, split, out);
    }
}

/// The real lister for [`grants`] of read access: a directory's entries, symlinks resolved
/// (a granted link would grant its target's whole hierarchy); unreadable directories have
/// none.
fn list_dir(dir: &Path) -> Vec<PathBuf> {
    entries(dir, true)
}

/// The lister for [`grants`] of write access: a directory's entries without its symbolic
/// links. A link in a writable directory (anyone there can make one) must not carry a write
/// grant to its target: `ln -s / project/x` and a `deny_read` under the project would
/// otherwise make `/` writable.
fn list_dir_no_links(dir: &Path) -> Vec<PathBuf> {
    entries(dir, false)
}

fn entries(dir: &Path, follow: bool) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let is_link = e.file_type().is_ok_and(|t| t.is_symlink());
            match (is_link, follow) {
                (false, _) => Some(p),
                (true, true) => p.canonicalize().ok(),
                (true, false) => None,
            }
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests;
