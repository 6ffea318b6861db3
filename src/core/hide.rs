//! What a sandboxed session's mount namespace covers with an empty read-only tmpfs: every
//! directory through which it could reach an unconfined kpty. That is this state directory,
//! every state directory in the index (other projects' sessions, output and secrets), every
//! runtime directory kpty may use (each holder's socket: Landlock below ABI 9 does not govern
//! `connect()` to a path-named socket) — the defaults, `KPTY_RUNTIME_DIR`, those recorded by
//! other kpty instances, and those the indexed registries' sockets lie in — and the per-user
//! private directory (`$XDG_STATE_HOME/kpty`, else `~/.local/state/kpty`) where secrets live.
//!
//! Other instances (another `KPTY_RUNTIME_DIR`) are learned of through a record in the
//! private directory, `runtime-dirs`, that every `create` adds its runtime directory to.
//! Everything read from files is untrusted: a path is hidden only when it is absolute, a
//! real directory reached without a link, owned by this user and not writable by others.

use crate::error::Result;
use crate::store::{Registry, StateDir, secure};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The record of runtime directories, in the private directory.
const RECORD: &str = "runtime-dirs";
/// Most bytes of the record read, and most entries kept.
const MAX_BYTES: u64 = 64 * 1024;
const MAX_ENTRIES: usize = 256;

/// The per-user private directories secrets may live in (both spellings: the environment of
/// whoever started another kpty may differ), made 0700 when missing so a sandbox can never
/// find one it was not hidden from.
fn private_dirs() -> Vec<PathBuf> {
    // The one kpty uses now (checked and made by the store), then the spelling another
    // environment (no XDG_STATE_HOME) would give.
    let primary = crate::store::paths::user_private_dir().ok();
    let fallback = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(dirs::home_dir)
        .map(|h| h.join(".local/state/kpty"));
    let mut out = Vec::new();
    for d in [primary, fallback].into_iter().flatten() {
        let made = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&d);
        if made.is_ok() && trusted(&d) && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// Whether `dir` may be covered: absolute, a real directory reached without any link, owned
/// by this user, not writable by group or others.
fn trusted(dir: &Path) -> bool {
    let Ok(md) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    dir.is_absolute()
        && md.is_dir()
        && md.uid() == rustix::process::getuid().as_raw()
        && md.mode() & 0o022 == 0
        && dir.canonicalize().ok().as_deref() == Some(dir)
}

/// Add `runtime` to the record of runtime directories (best effort: a session is created
/// either way), dropping entries that are gone.
pub fn remember(runtime: &Path) {
    let Some(private) = private_dirs().into_iter().next() else {
        return;
    };
    let path = private.join(RECORD);
    let lock_path = private.join("runtime-dirs.lock");
    let Ok(file) = secure::open_rw(&lock_path) else {
        return;
    };
    let Ok(_lock) =
        crate::store::lock::lock_file(file, &lock_path, crate::store::lock::default_wait())
    else {
        return;
    };
    let mut dirs: Vec<PathBuf> = read_record(&path)
        .into_iter()
        .filter(|d| trusted(d))
        .collect();
    if dirs.iter().any(|d| d == runtime) {
        return;
    }
    dirs.insert(0, runtime.to_path_buf());
    dirs.truncate(MAX_ENTRIES);
    let text: String = dirs.iter().map(|d| format!("{}\n", d.display())).collect();
    if let Err(e) = crate::store::atomic::write_bytes(&path, text.as_bytes()) {
        tracing::warn!("cannot record the runtime directory: {e}");
    }
}

/// The absolute, clean UTF-8 paths in the record (at most [`MAX_BYTES`] of it, never through
/// a link).
fn read_record(path: &Path) -> Vec<PathBuf> {
    use std::io::Read;
    let Ok(Some(f)) = secure::open_read(path) else {
        return Vec::new();
    };
    let mut buf = Vec::new();
    if f.take(MAX_BYTES).read_to_end(&mut buf).is_err() {
        return Vec::new();
    }
    String::from_utf8_lossy(&buf)
        .lines()
        .map(Path::new)
        .filter(|p| {
            p.is_absolute()
                && p.components().all(|c| {
                    matches!(
                        c,
                        std::path::Component::RootDir | std::path::Component::Normal(_)
                    )
                })
        })
        .take(MAX_ENTRIES)
        .map(Path::to_path_buf)
        .collect()
}

/// Every directory a sandboxed session created in `state` must not see (see the module
/// docs); the ones that fail `trusted` are left out (and are no kpty directory this user
/// would use either).
pub fn dirs(state: &StateDir) -> Result<Vec<PathBuf>> {
    let mut out = crate::store::paths::runtime_dirs()?;
    out.push(state.path().to_path_buf());
    let mut found: Vec<PathBuf> = Vec::new();
    match crate::store::index::state_dirs() {
        Ok(indexed) => {
            for other in indexed {
                found.push(other.path().to_path_buf());
                if let Ok(reg) = Registry::load(&other) {
                    found.extend(reg.sessions.values().filter_map(|e| {
                        Some(Path::new(e.socket.as_deref()?).parent()?.to_path_buf())
                    }));
                }
            }
        }
        Err(e) => tracing::warn!("the index of state directories cannot be read: {e}"),
    }
    let private = private_dirs();
    for p in &private {
        found.extend(read_record(&p.join(RECORD)));
    }
    found.extend(private);
    for d in found {
        if !out.contains(&d) && trusted(&d) {
            out.push(d);
        }
    }
    Ok(out)
}
