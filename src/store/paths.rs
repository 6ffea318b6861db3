//! Where state lives: the state directory (`<project root>/ai/checkpoints/pty`, or
//! `--state-dir` / `KPTY_STATE_DIR`) and the private per-user runtime directory for sockets.

use super::secure;
use crate::api::SessionId;
use crate::error::{Error, ErrorCode, Result};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The state directory's path below a project root.
const STATE_SUBDIR: &str = "ai/checkpoints/pty";

/// The entries kpty keeps at the top of a state directory.
const TOP_FILES: &[&str] = &[
    "_registry.json",
    "_registry.lock",
    "_default.lock",
    "_registry_events.jsonl",
    "_bridge_secret",
    "_leaders.json",
    "_leaders.lock",
    "sessions",
];

/// The files kpty keeps in a session's folder.
pub const SESSION_FILES: &[&str] = &[
    "metadata.json",
    "buffer.txt",
    "events.jsonl",
    "holder.log",
    "starting.lock",
    "ptys",
];

/// [`SESSION_FILES`] but its journal, `events.jsonl`.
const SESSION_FILES_BUT_JOURNAL: &[&str] = &[
    "metadata.json",
    "buffer.txt",
    "holder.log",
    "starting.lock",
    "ptys",
];

/// A resolved, absolute state directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// Use `dir` as the state directory (created on first write).
    pub fn at(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        let abs = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir()
                .map_err(|e| {
                    Error::new(
                        ErrorCode::StateError,
                        format!("cannot read the working directory: {e}"),
                    )
                })?
                .join(dir)
        };
        Ok(Self { root: abs })
    }

    /// Discover the state directory from `cwd`: the nearest ancestor that has
    /// `ai/checkpoints/pty`, else the nearest with `.git`, else `cwd` itself.
    pub fn discover(cwd: &Path) -> Self {
        Self {
            root: project_root(cwd).join(STATE_SUBDIR),
        }
    }

    /// The project root this state directory belongs to (two levels above `ai/checkpoints/pty`),
    /// or the directory itself when it was given explicitly elsewhere.
    pub fn project_root(&self) -> PathBuf {
        if self.root.ends_with(STATE_SUBDIR) {
            self.root
                .ancestors()
                .nth(3)
                .map(Path::to_path_buf)
                .unwrap_or_else(|| self.root.clone())
        } else {
            std::env::current_dir().unwrap_or_else(|_| self.root.clone())
        }
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// `_registry.json`.
    pub fn registry_file(&self) -> PathBuf {
        self.root.join("_registry.json")
    }

    /// The lock file guarding registry read-modify-write (never renamed).
    pub fn registry_lock(&self) -> PathBuf {
        self.root.join("_registry.lock")
    }

    /// `_leaders.json`: the agents registered as leaders (`kpty serve`).
    pub fn leaders_file(&self) -> PathBuf {
        self.root.join("_leaders.json")
    }

    /// The lock file guarding the leaders' read-modify-write.
    pub fn leaders_lock(&self) -> PathBuf {
        self.root.join("_leaders.lock")
    }

    /// The lock file guarding "find or create the default session".
    pub fn default_lock(&self) -> PathBuf {
        self.root.join("_default.lock")
    }

    /// `sessions/<id>/starting.lock`: held by the `create` that starts the session until its
    /// holder is recorded, so a caller that names a starting session waits for it.
    pub fn starting_lock(&self, id: &SessionId) -> PathBuf {
        self.session_dir(id).join("starting.lock")
    }

    /// `_registry_events.jsonl`.
    pub fn registry_events(&self) -> PathBuf {
        self.root.join("_registry_events.jsonl")
    }

    /// `sessions/<id>/`; for a shell PTY's internal id `S.N`, `sessions/S/ptys/N/` (see
    /// [`crate::api::ids`]).
    pub fn session_dir(&self, id: &SessionId) -> PathBuf {
        match id.pty_parts() {
            Some((base, n)) => self.ptys_dir(&base).join(n.to_string()),
            None => self.root.join("sessions").join(id.as_str()),
        }
    }

    /// `sessions/<id>/ptys/`: the folders of a session's shell PTYs.
    pub fn ptys_dir(&self, id: &SessionId) -> PathBuf {
        self.root.join("sessions").join(id.as_str()).join("ptys")
    }

    /// Create the directory (and `sessions/`) if missing, 0700; refuse one that is a link,
    /// is owned by another user or is writable by group or others.
    pub fn ensure(&self) -> Result<()> {
        if !self.proven()? {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .recursive(true)
                .create(&self.root)
                .map_err(|e| {
                    Error::state(
                        &self.root,
                        format!("cannot create the state directory: {e}"),
                    )
                })?;
            self.check_root()?;
        }
        secure::ensure_dir(&self.root.join("sessions"))
    }

    /// Check the state directory itself (when it exists): not a link, owned by this user, not
    /// writable by group or others; for a discovered `ai/checkpoints/pty`, its `ai` and
    /// `ai/checkpoints` must not be links either (a cloned repository could aim them anywhere);
    /// and no directory above it may be writable by others ([`secure::check_ancestors`]).
    ///
    /// The state directory itself is looked at on every call; the walk above it (links,
    /// owners and modes up to `/`) is done again only when the directory is no longer the one
    /// proven (another device or inode at the path: a directory above it was swapped) or the
    /// proof is older than `PROOF_TTL` — one proof serves a CLI call's many state files.
    pub fn check_root(&self) -> Result<()> {
        self.proven().map(drop)
    }

    /// [`Self::check_root`]; `Ok(false)` when the state directory does not exist yet.
    fn proven(&self) -> Result<bool> {
        // Missing or refused: the full check says so, in its order.
        let Ok(Some(id)) = secure::dir_identity(&self.root) else {
            return self.prove_root();
        };
        if proofs::fresh(&self.root, id) {
            return Ok(true);
        }
        self.prove_root()?;
        proofs::remember(&self.root, id);
        Ok(true)
    }

    /// The full check of [`Self::check_root`], with no proof reused.
    fn prove_root(&self) -> Result<bool> {
        if self.root.ends_with(STATE_SUBDIR) {
            for up in self.root.ancestors().skip(1).take(2) {
                if std::fs::symlink_metadata(up).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(Error::state(
                        up,
                        "this directory above the state directory is a symbolic link; kpty \
                         never follows links in its state: remove it, or use --state-dir",
                    ));
                }
            }
        }
        let exists = secure::check_dir(&self.root)?;
        secure::check_ancestors(&self.root)?;
        Ok(exists)
    }

    /// Check every directory from the state directory down to `path`'s parent (see
    /// [`Self::check_root`]); `path` must lie inside the state directory.
    pub fn verify(&self, path: &Path) -> Result<()> {
        self.check_root()?;
        let parent = path.parent().unwrap_or(path);
        let rel = parent.strip_prefix(&self.root).map_err(|_| {
            Error::internal(format!(
                "{} is outside the state directory {}",
                path.display(),
                self.root.display()
            ))
        })?;
        let mut dir = self.root.clone();
        for c in rel.components() {
            match c {
                std::path::Component::Normal(name) => dir.push(name),
                _ => {
                    return Err(Error::internal(format!(
                        "unexpected path {}",
                        path.display()
                    )));
                }
            }
            if !secure::check_dir(&dir)? {
                break;
            }
        }
        Ok(())
    }

    /// [`secure::check_entries`] of `names` in `dir` (inside the state directory), unless
    /// this process did the same check less than `PROOF_TTL` ago under the same proven state
    /// directory. Folders are still walked on every call, and every file is still opened
    /// without following links and checked as opened (a link planted since is refused
    /// there, as a `STATE_ERROR` too); this only spares looking at each entry up front, at
    /// most once a second per folder.
    fn check_entries(&self, dir: &Path, names: &'static [&'static str]) -> Result<()> {
        let what = Below(names);
        if proofs::below(&self.root, dir, what) {
            return Ok(());
        }
        secure::check_entries(dir, names)?;
        proofs::remember_below(&self.root, dir, what);
        Ok(())
    }

    /// [`Self::check_journal`] with nothing this process proved before taken as read: for
    /// telling, after a write to `path` failed, a journal kpty may not trust (a
    /// `STATE_ERROR`) from a disk that cannot take the line.
    pub fn check_journal_afresh(&self, path: &Path) -> Result<()> {
        proofs::forget_below(&self.root);
        self.check_journal(path)
    }

    /// Check a journal's folders and the journal itself ([`Self::verify`], then
    /// [`secure::check_entries`]); `path` is a session's `events.jsonl` or the registry's
    /// `_registry_events.jsonl`.
    pub fn check_journal(&self, path: &Path) -> Result<()> {
        self.verify(path)?;
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(());
        };
        match name.to_str() {
            Some("events.jsonl") => self.check_entries(dir, &["events.jsonl"]),
            Some("_registry_events.jsonl") => self.check_entries(dir, &["_registry_events.jsonl"]),
            other => secure::check_entries(dir, &[other.unwrap_or_default()]),
        }
    }

    /// Check the state directory and the files kpty keeps at its top (see
    /// [`secure::check_entries`]).
    pub fn check_top(&self) -> Result<()> {
        self.check_root()?;
        self.check_entries(&self.root, TOP_FILES)
    }

    /// Check a session's folder and the files kpty keeps in it (see
    /// [`secure::check_entries`]).
    pub fn check_session(&self, id: &SessionId) -> Result<()> {
        let dir = self.session_dir(id);
        self.verify(&dir.join("metadata.json"))?;
        // The journal is looked at on every call: an action named by label writes its intent
        // elsewhere, and its result here only after it ran.
        secure::check_entries(&dir, &["events.jsonl"])?;
        self.check_entries(&dir, SESSION_FILES_BUT_JOURNAL)
    }

    /// Read a state file (verified, never through a link); `None` when missing.
    pub fn read_file(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        self.verify(path)?;
        secure::read(path)
    }

    /// Read a JSON state file (see [`super::atomic::read_json`]) after verifying its folders.
    pub fn read_json<T: serde::de::DeserializeOwned>(&self, path: &Path) -> Result<Option<T>> {
        self.verify(path)?;
        super::atomic::read_json(path)
    }

    /// Atomically replace a state file with `bytes` after verifying its folders.
    pub fn write_bytes(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.verify(path)?;
        super::atomic::write_bytes(path, bytes)
    }

    /// Atomically replace a state file with `value` as pretty JSON after verifying its folders.
    pub fn write_json<T: serde::Serialize>(&self, path: &Path, value: &T) -> Result<()> {
        self.verify(path)?;
        super::atomic::write_json(path, value)
    }

    /// Open (creating it 0600) a lock file in the state directory: only for
    /// [`super::lock::exclusive`], the one way kpty takes a lock.
    pub(super) fn open_lock(&self, path: &Path) -> Result<std::fs::File> {
        self.ensure()?;
        self.verify(path)?;
        secure::open_rw(path)
    }

    /// Create `sessions/<id>/` (0700) when missing, verified.
    pub fn ensure_session_dir(&self, id: &SessionId) -> Result<PathBuf> {
        self.ensure()?;
        let dir = self.session_dir(id);
        secure::ensure_dir(&dir)?;
        Ok(dir)
    }

    /// A short stable tag for this state directory, used to keep socket names of different
    /// state directories apart in the shared runtime directory.
    pub fn tag(&self) -> String {
        // FNV-1a: stable across Rust versions, unlike DefaultHasher.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.root.as_os_str().as_encoded_bytes() {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{:08x}", (h >> 32) as u32 ^ h as u32)
    }
}

/// How long a state directory's proven ancestors (and those of the private directory,
/// [`user_private_dir`]) stay proven in this process (see [`StateDir::check_root`]): a CLI
/// call is over well within it; a long-lived `kpty mcp`, `kpty serve` or holder walks them
/// again at most this often.
pub(crate) const PROOF_TTL: std::time::Duration = std::time::Duration::from_secs(1);

/// What was proven of a folder below a state directory: these entries of it
/// ([`secure::check_entries`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Below(&'static [&'static str]);

/// The directories this process proved recently (state directories, the private directory),
/// by path: the device and inode the proof saw, and when; and the entries of folders below
/// a state directory checked while that proof stood.
mod proofs {
    use super::Below;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;
    use std::time::Instant;

    type Proof = (PathBuf, (u64, u64), Instant);
    static PROVEN: Mutex<Vec<Proof>> = Mutex::new(Vec::new());
    /// A process serves a handful of state directories; more than this and the oldest goes.
    const KEEP: usize = 16;

    /// Proofs below a state directory: the state directory, the path, what, when.
    type Sub = (PathBuf, PathBuf, Below, Instant);
    static BELOW: Mutex<Vec<Sub>> = Mutex::new(Vec::new());
    /// A server talks to many sessions; each has a folder and its entries.
    const KEEP_BELOW: usize = 256;

    /// Whether `what` of `path` was proven less than a TTL ago, while `root`'s own proof (the
    /// one [`fresh`] accepts now) stood.
    pub(super) fn below(root: &Path, path: &Path, what: Below) -> bool {
        let Ok(sub) = BELOW.lock() else {
            return false;
        };
        sub.iter().any(|(r, p, w, at)| {
            *w == what && p == path && r == root && at.elapsed() < super::PROOF_TTL
        })
    }

    /// Remember that `what` of `path` below `root` was just proven.
    pub(super) fn remember_below(root: &Path, path: &Path, what: Below) {
        let Ok(mut sub) = BELOW.lock() else {
            return;
        };
        sub.retain(|(r, p, w, at)| {
            !(*w == what && p == path && r == root) && at.elapsed() < super::PROOF_TTL
        });
        if sub.len() >= KEEP_BELOW {
            sub.remove(0);
        }
        sub.push((root.to_path_buf(), path.to_path_buf(), what, Instant::now()));
    }

    /// Forget what was proven below `root` (its own proof is being made again, or a write
    /// below it failed).
    pub(super) fn forget_below(root: &Path) {
        if let Ok(mut sub) = BELOW.lock() {
            sub.retain(|(r, ..)| r != root);
        }
    }

    /// Whether `root`, now at device and inode `id`, was proven less than a TTL ago.
    pub(super) fn fresh(root: &Path, id: (u64, u64)) -> bool {
        let Ok(proven) = PROVEN.lock() else {
            return false;
        };
        proven
            .iter()
            .any(|(p, i, at)| *i == id && p == root && at.elapsed() < super::PROOF_TTL)
    }

    /// Remember that `root` (at device and inode `id`) was just proven.
    pub(super) fn remember(root: &Path, id: (u64, u64)) {
        let Ok(mut proven) = PROVEN.lock() else {
            return;
        };
        proven.retain(|(p, ..)| p != root);
        forget_below(root);
        if proven.len() >= KEEP {
            proven.remove(0);
        }
        proven.push((root.to_path_buf(), id, Instant::now()));
    }
}

/// The project root for `cwd` (see [`StateDir::discover`]).
pub fn project_root(cwd: &Path) -> PathBuf {
    if let Some(p) = cwd.ancestors().find(|p| p.join(STATE_SUBDIR).is_dir()) {
        return p.to_path_buf();
    }
    if let Some(p) = cwd.ancestors().find(|p| p.join(".git").exists()) {
        return p.to_path_buf();
    }
    cwd.to_path_buf()
}

/// The private runtime directory for holder sockets: `$XDG_RUNTIME_DIR/kpty`, else
/// `<tmp>/kpty-<uid>`; created 0700 and refused if another user owns it or others can enter it.
pub fn runtime_dir() -> Result<PathBuf> {
    if let Ok(dir) = std::env::var("KPTY_RUNTIME_DIR")
        && !dir.is_empty()
    {
        return ensure_private_dir(Path::new(&dir));
    }
    let uid = rustix::process::getuid().as_raw();
    // `dirs` knows the platform's per-user runtime directory ($XDG_RUNTIME_DIR on Linux).
    let base = match dirs::runtime_dir() {
        Some(d) if d.is_dir() => d.join("kpty"),
        _ => std::env::temp_dir().join(format!("kpty-{uid}")),
    };
    ensure_private_dir(&base)
}

/// Every runtime directory where kpty may keep sockets for this user: [`runtime_dir`] (made
/// if missing) and the defaults other environments would pick (`$XDG_RUNTIME_DIR/kpty`,
/// `/run/user/<uid>/kpty`, `<tmp>/kpty-<uid>`), made too when their parent exists, so a
/// sandboxed session cannot plant one; those that cannot be made private are left out (kpty
/// would refuse them as well).
pub fn runtime_dirs() -> Result<Vec<PathBuf>> {
    let mut out = vec![runtime_dir()?];
    let uid = rustix::process::getuid().as_raw();
    let defaults = [
        dirs::runtime_dir().map(|d| d.join("kpty")),
        // systemd's per-user directory, there for a login even where `XDG_RUNTIME_DIR` is
        // not set (`su`, cron, a container's exec).
        Some(PathBuf::from(format!("/run/user/{uid}/kpty"))),
        Some(std::env::temp_dir().join(format!("kpty-{uid}"))),
    ];
    for d in defaults.into_iter().flatten() {
        if d.parent().is_some_and(Path::is_dir)
            && !out.contains(&d)
            && let Ok(d) = ensure_private_dir(&d)
        {
            out.push(d);
        }
    }
    Ok(out)
}

/// Where [`user_private_dir`] is, not yet looked at: `$XDG_STATE_HOME/kpty` when absolute,
/// else `~/.local/state/kpty`.
pub fn user_private_path() -> Result<PathBuf> {
    // Unit tests never touch the real one: theirs lies in the build's own tree.
    #[cfg(test)]
    let base = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/tmp/unit-state"
    ));
    #[cfg(not(test))]
    let base = match std::env::var_os("XDG_STATE_HOME").map(PathBuf::from) {
        Some(d) if d.is_absolute() => d,
        _ => dirs::home_dir()
            .filter(|h| h.is_absolute())
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::StateError,
                    "cannot find your home directory for kpty's private keys: set HOME or \
                     XDG_STATE_HOME",
                )
            })?
            .join(".local/state"),
    };
    Ok(base.join("kpty"))
}

/// The private per-user directory for kpty's keys and secrets, which no repository can ship
/// into: `$XDG_STATE_HOME/kpty` (when absolute), else `~/.local/state/kpty`. Created 0700
/// when missing; refused unless it is a real directory (not a link) owned by this user that
/// nobody else may enter, below directories nobody else may write
/// ([`secure::check_ancestors`]). Sandboxed sessions are denied it.
pub fn user_private_dir() -> Result<PathBuf> {
    let dir = user_private_path()?;
    let md = match std::fs::symlink_metadata(&dir) {
        Ok(md) => md,
        Err(_) => {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .recursive(true)
                .create(&dir)
                .map_err(|e| {
                    Error::state(&dir, format!("cannot create kpty's private directory: {e}"))
                })?;
            std::fs::symlink_metadata(&dir).map_err(|e| Error::state(&dir, e))?
        }
    };
    let uid = secure::me();
    let why = if md.file_type().is_symlink() {
        Some("is a symbolic link".to_string())
    } else if !md.is_dir() {
        Some("is not a directory".to_string())
    } else if md.uid() != uid {
        Some(format!(
            "is owned by uid {}, not by you (uid {uid})",
            md.uid()
        ))
    } else if md.mode() & 0o077 != 0 {
        Some(format!(
            "is open to others (mode {:o}): run `chmod 700 {}`",
            md.mode() & 0o7777,
            dir.display()
        ))
    } else {
        None
    };
    if let Some(why) = why {
        return Err(Error::state(
            &dir,
            format!(
                "kpty's private directory (keys and secrets) {why}; kpty trusts only a 0700 directory of yours there"
            ),
        ));
    }
    // The directory itself is looked at on every call; the walk above it is proven as a
    // state directory's is (`StateDir::check_root`): again when another directory is found at
    // the path, or once the proof is older than `PROOF_TTL`.
    let id = (md.dev(), md.ino());
    if !proofs::fresh(&dir, id) {
        secure::check_ancestors(&dir)?;
        proofs::remember(&dir, id);
    }
    Ok(dir)
}

/// Where the holder writes the shell integration files (`<runtime dir>/shell-<version>`).
pub fn shell_integration_dir() -> Result<PathBuf> {
    Ok(runtime_dir()?.join(format!("shell-{}", env!("CARGO_PKG_VERSION"))))
}

/// Make `dir` a private directory of ours (created 0700, a loose mode tightened), or say why
/// it cannot be one. One `lstat` when it already is one (every socket path asks).
fn ensure_private_dir(dir: &Path) -> Result<PathBuf> {
    if std::fs::symlink_metadata(dir)
        .is_ok_and(|md| md.is_dir() && md.uid() == secure::me() && md.mode() & 0o077 == 0)
    {
        return Ok(dir.to_path_buf());
    }
    match std::fs::DirBuilder::new()
        .mode(0o700)
        .recursive(true)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) => {
            return Err(Error::state(
                dir,
                format!(
                    "cannot create the runtime directory for kpty's sockets: {e}; set \
                     KPTY_RUNTIME_DIR to a private directory of yours"
                ),
            ));
        }
    }
    let md = std::fs::symlink_metadata(dir).map_err(|e| Error::state(dir, e))?;
    let uid = rustix::process::getuid().as_raw();
    if !md.is_dir() || md.uid() != uid {
        return Err(Error::state(
            dir,
            format!(
                "the runtime directory for kpty's sockets is {}; another user may have \
                 squatted it: set KPTY_RUNTIME_DIR to a private directory of yours (or remove it)",
                if md.file_type().is_symlink() {
                    "a symbolic link".to_string()
                } else if !md.is_dir() {
                    "not a directory".to_string()
                } else {
                    format!("owned by uid {}, not by you (uid {uid})", md.uid())
                }
            ),
        ));
    }
    if md.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| {
            Error::state(
                dir,
                format!("cannot make the runtime directory private: {e}"),
            )
        })?;
    }
    Ok(dir.to_path_buf())
}

/// The socket path for a new holder of a session (in this process's runtime directory; a
/// holder's that may run already is [`holder_socket`]); errors when it would not fit in
/// `sun_path`.
pub fn socket_path(state: &StateDir, id: &SessionId) -> Result<PathBuf> {
    socket_path_in(&runtime_dir()?, state, id)
}

/// The socket of the holder of session `id`, which may have been started in another
/// environment than this process's: in this process's runtime directory when a socket is
/// there, else in the first of kpty's other runtime directories ([`runtime_dirs`]) that
/// holds one of this user's — a session made where `XDG_RUNTIME_DIR` was set is reached from
/// a login where it is not, and the other way round. Every place looked at is a private
/// directory kpty itself picks, never a path read from a file; when no socket is found, the
/// path in this process's directory.
pub fn holder_socket(state: &StateDir, id: &SessionId) -> Result<PathBuf> {
    holder_socket_in(&runtime_dir()?, state, id)
}

/// [`holder_socket`], `runtime` being this process's [`runtime_dir`] found once for many
/// sessions (`list`).
pub fn holder_socket_in(runtime: &Path, state: &StateDir, id: &SessionId) -> Result<PathBuf> {
    let here = socket_path_in(runtime, state, id)?;
    if std::fs::symlink_metadata(&here).is_ok() {
        return Ok(here);
    }
    let elsewhere = runtime_dirs()
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.as_path() != runtime)
        .filter_map(|d| socket_path_in(&d, state, id).ok())
        .find(|p| secure::is_own_socket(p));
    Ok(elsewhere.unwrap_or(here))
}

/// [`socket_path`] in `runtime`, a [`runtime_dir`] the caller has just found (one for many
/// sessions: `list`).
fn socket_path_in(runtime: &Path, state: &StateDir, id: &SessionId) -> Result<PathBuf> {
    let path = runtime.join(format!("{}-{}.sock", state.tag(), id));
    let len = path.as_os_str().len();
    if len >= 108 {
        return Err(Error::new(
            ErrorCode::PtySpawnFailed,
            format!(
                "socket path {} is {len} bytes, over the 107-byte Unix socket limit; set \
                 KPTY_RUNTIME_DIR to a shorter directory",
                path.display()
            ),
        ));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_prefers_existing_state_dir_then_git() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        let deep = root.join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(project_root(&deep), deep);
        std::fs::create_dir_all(root.join("a/.git")).unwrap();
        assert_eq!(project_root(&deep), root.join("a"));
        std::fs::create_dir_all(root.join(STATE_SUBDIR)).unwrap();
        assert_eq!(project_root(&deep), root.to_path_buf());
        let sd = StateDir::discover(&deep);
        assert_eq!(sd.path(), root.join(STATE_SUBDIR));
        assert_eq!(sd.project_root(), root.to_path_buf());
    }

    #[test]
    fn entries_checked_once_are_looked_at_again_in_a_directory_proven_anew() {
        // The top's entries were checked (and remembered); the state directory is then
        // swapped for another whose registry is a link: the new directory's proof forgets
        // what was checked in the old one.
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("state");
        std::fs::create_dir(&root).unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let s = StateDir::at(&root).unwrap();
        s.check_top().unwrap();
        s.check_top().unwrap();
        std::fs::rename(&root, t.path().join("old")).unwrap();
        std::fs::create_dir(&root).unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("_registry.json")).unwrap();
        let e = s.check_top().unwrap_err();
        assert!(e.message.contains("symbolic link"), "{e:?}");
    }

    #[test]
    fn a_proof_serves_only_the_directory_it_saw() {
        // Every kind of swap at the state directory's path after it was proven — a new
        // directory, a link, another user's mode on the directory itself — is looked at again;
        // so is a directory above it that others can write, once the path holds another
        // directory.
        use std::os::unix::fs::symlink;
        let private =
            |p: &Path| std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o700)).unwrap();
        for swap in ["new dir", "link", "loose mode", "loose ancestor"] {
            let t = tempfile::tempdir().unwrap();
            let up = t.path().join("up");
            let root = up.join("state");
            std::fs::create_dir_all(&root).unwrap();
            private(&up);
            private(&root);
            let s = StateDir::at(&root).unwrap();
            s.check_root().unwrap();
            s.check_top().unwrap();
            let old = up.join("old");
            match swap {
                "new dir" => {
                    std::fs::rename(&root, &old).unwrap();
                    std::fs::create_dir(&root).unwrap();
                    private(&root);
                    s.check_root().unwrap(); // still a sound directory: proven again
                    continue;
                }
                "link" => {
                    std::fs::rename(&root, &old).unwrap();
                    symlink(&old, &root).unwrap();
                }
                "loose mode" => {
                    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777))
                        .unwrap();
                }
                _ => {
                    std::fs::set_permissions(&up, std::fs::Permissions::from_mode(0o777)).unwrap();
                    std::fs::rename(&root, &old).unwrap();
                    std::fs::create_dir(&root).unwrap();
                    private(&root);
                }
            }
            let e = s.check_root().expect_err(swap);
            assert_eq!(e.code, ErrorCode::StateError, "{swap}: {}", e.message);
            assert!(s.ensure().is_err(), "{swap}");
            assert!(s.read_file(&s.registry_file()).is_err(), "{swap}");
        }
    }

    #[test]
    fn tags_differ_and_are_stable() {
        let a = StateDir::at("/x/a").unwrap();
        let b = StateDir::at("/x/b").unwrap();
        assert_ne!(a.tag(), b.tag());
        assert_eq!(a.tag(), StateDir::at("/x/a").unwrap().tag());
        assert_eq!(a.tag().len(), 8);
    }
}
