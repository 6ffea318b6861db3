//! The bridge secret: 64 hex characters kept in the private per-user directory
//! (`crate::store::paths::user_private_dir`), one file per state directory (named by a hash
//! of its real path), made by kpty (born 0600) on first start and never printed by `serve`;
//! and the constant-time check of what a request presents.
//!
//! The state directory lies in a repository, so a secret there could have been shipped by
//! someone else: a legacy `<state dir>/_bridge_secret` is never adopted, read or chmod-ed;
//! `serve` refuses to start beside one until a new secret is made (`kpty serve --new-secret`).
//! A secret file in the private directory that is open to others, a link or someone else's
//! is refused too, never repaired.

use crate::error::{Error, Result};
use crate::store::StateDir;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// Where a pre-0.2 kpty kept the secret (inside the state directory).
pub fn legacy_path(state: &StateDir) -> PathBuf {
    state.path().join("_bridge_secret")
}

/// The secret file of a state directory, in the private per-user directory.
pub fn path(state: &StateDir) -> Result<PathBuf> {
    private_file(state, "bridge", "secret")
}

/// `<private dir>/<kind>-<tag>.<ext>`: a file of this state directory's in kpty's private
/// per-user directory, `tag` a hash of the state directory's real path.
pub fn private_file(state: &StateDir, kind: &str, ext: &str) -> Result<PathBuf> {
    let root = std::fs::canonicalize(state.path()).unwrap_or_else(|_| state.path().to_path_buf());
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let tag = hex::encode(&digest[..12]);
    Ok(crate::store::paths::user_private_dir()?.join(format!("{kind}-{tag}.{ext}")))
}

/// Refuse to go on beside a legacy secret in the state directory (never read, never used).
fn refuse_legacy(state: &StateDir) -> Result<()> {
    let legacy = legacy_path(state);
    if std::fs::symlink_metadata(&legacy).is_ok() {
        return Err(Error::state(
            &legacy,
            "a bridge secret inside the state directory is not used: the state directory lies \
             in the repository, and a cloned one can ship a secret. Run `kpty serve \
             --new-secret` to make a new secret in your private directory, then remove this \
             file (clients need the new secret)",
        ));
    }
    Ok(())
}

/// Read the secret, creating it first when missing (concurrent first starts agree on one).
pub fn load_or_create(state: &StateDir) -> Result<String> {
    state.ensure()?;
    let file = path(state)?;
    let secret = match crate::store::secure::read_secret(&file)? {
        Some(s) => {
            let legacy = legacy_path(state);
            if std::fs::symlink_metadata(&legacy).is_ok() {
                tracing::warn!(
                    "{} is not used (the secret is {}); remove it",
                    legacy.display(),
                    file.display()
                );
            }
            s
        }
        None => {
            refuse_legacy(state)?;
            crate::store::secure::make_secret(&file, false)?
        }
    };
    if secret.len() < 32 {
        return Err(Error::state(
            &file,
            "the bridge secret is shorter than 32 characters; run `kpty serve --new-secret`",
        ));
    }
    Ok(secret)
}

/// Make a fresh secret for this state directory (replacing the old one); its file.
pub fn renew(state: &StateDir) -> Result<PathBuf> {
    state.ensure()?;
    let file = path(state)?;
    crate::store::secure::make_secret(&file, true)?;
    Ok(file)
}

/// Equal in time independent of where the inputs differ (the length is not secret).
pub fn matches(presented: &[u8], secret: &[u8]) -> bool {
    crate::store::trust::same(presented, secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_is_exact() {
        assert!(matches(b"abcd", b"abcd"));
        assert!(!matches(b"abce", b"abcd"));
        assert!(!matches(b"abc", b"abcd"));
        assert!(!matches(b"", b"abcd"));
    }
}
