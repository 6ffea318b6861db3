//! The bridge secret: 64 hex characters in `<state dir>/_bridge_secret` (mode 0600), made on
//! first start and never printed, and the constant-time check of what a request presents.

use crate::error::{Error, Result};
use crate::store::StateDir;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// The secret file of a state directory.
pub fn path(state: &StateDir) -> PathBuf {
    state.path().join("_bridge_secret")
}

/// Read the secret, creating it first when missing. A concurrent first start cannot tear it:
/// the file is written whole under a temporary name and linked into place without clobbering.
pub fn load_or_create(state: &StateDir) -> Result<String> {
    state.ensure()?;
    let file = path(state);
    if std::fs::symlink_metadata(&file).is_err() {
        let fresh = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let mut tmp = tempfile::Builder::new()
            .prefix("._bridge_secret")
            .permissions(std::fs::Permissions::from_mode(0o600))
            .tempfile_in(state.path())
            .map_err(|e| Error::state(state.path(), e))?;
        tmp.write_all(fresh.as_bytes())
            .and_then(|_| tmp.as_file().sync_all())
            .map_err(|e| Error::state(&file, e))?;
        if let Err(e) = tmp.persist_noclobber(&file)
            && e.error.kind() != std::io::ErrorKind::AlreadyExists
        {
            return Err(Error::state(&file, e.error));
        }
    }
    state.verify(&file)?;
    // Never through a link (a planted `_bridge_secret -> ~/.bashrc` must not be read, let
    // alone chmodded); tightened through the open descriptor, not the path.
    let mut f = crate::store::secure::open_read(&file)?
        .ok_or_else(|| Error::state(&file, "the secret file vanished"))?;
    let mode = f
        .metadata()
        .map_err(|e| Error::state(&file, e))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        f.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::state(&file, format!("cannot make the secret private: {e}")))?;
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut f, &mut text).map_err(|e| Error::state(&file, e))?;
    let secret = text.trim().to_string();
    if secret.len() < 32 {
        return Err(Error::state(
            &file,
            "the bridge secret is shorter than 32 characters; delete the file to make a new one",
        ));
    }
    Ok(secret)
}

/// Equal in time independent of where the inputs differ (the length is not secret).
pub fn matches(presented: &[u8], secret: &[u8]) -> bool {
    if presented.len() != secret.len() {
        return false;
    }
    let diff = presented
        .iter()
        .zip(secret)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(diff) == 0
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

    #[test]
    fn made_once_private_and_kept() {
        let t = tempfile::tempdir().unwrap();
        let sd = StateDir::at(t.path()).unwrap();
        let a = load_or_create(&sd).unwrap();
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        let mode = std::fs::metadata(path(&sd)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(load_or_create(&sd).unwrap(), a);
    }
}
