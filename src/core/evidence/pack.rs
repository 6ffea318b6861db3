//! An evidence pack on disk: `evidence/<evidence_id>/`, a folder kpty makes (0700) with files
//! it creates (0600, never through a link), and `manifest.json` last — every file with its
//! SHA-256, sealed with this user's key so that `kpty evidence verify` names any file, or
//! the manifest itself, changed since.

use crate::api::evidence::{PackCommand, PackFile};
use crate::error::{Error, Result};
use crate::store::StateDir;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";
/// The seal's domain.
const SEAL_DOMAIN: &str = "kpty-evidence-manifest-v1";

/// What a pack holds, and its hashes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The pack's id.
    pub evidence_id: String,
    /// The session it is about.
    pub session_id: String,
    /// Who asked for it (`agent_id`, or the channel).
    pub made_by: String,
    /// The session's owner agent, when it has one.
    pub owner_agent_id: Option<String>,
    /// The range it covers (RFC 3339).
    pub from: String,
    /// The end of the range.
    pub to: String,
    /// When it was made.
    pub created_at: String,
    /// The kpty that made it.
    pub kpty_version: String,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The note given, redacted.
    pub note: Option<String>,
    /// The commands in the range.
    pub commands: Vec<PackCommand>,
    /// Every other file of the pack.
    pub files: Vec<PackFile>,
    /// This user's seal over the manifest with `seal` empty.
    #[serde(default)]
    pub seal: String,
}

impl Manifest {
    /// The bytes the seal covers.
    fn covered(&self) -> Vec<u8> {
        let unsealed = Manifest {
            seal: String::new(),
            ..self.clone()
        };
        serde_json::to_vec_pretty(&unsealed).unwrap_or_default()
    }

    /// Seal it with this user's key.
    pub fn seal(&mut self, state: &StateDir) -> Result<()> {
        self.seal = crate::store::trust::seal_bytes(state, SEAL_DOMAIN, &self.covered())?;
        Ok(())
    }

    /// Whether its seal is this user's.
    pub fn sealed_here(&self, state: &StateDir) -> bool {
        crate::store::trust::verify_bytes(state, SEAL_DOMAIN, &self.covered(), &self.seal)
    }
}

/// The folder of evidence packs.
pub fn root(state: &StateDir) -> PathBuf {
    state.path().join("evidence")
}

/// An evidence id as kpty makes them: `ev_` then the time and 8 hex digits.
pub fn valid_id(id: &str) -> bool {
    id.len() <= 64
        && id.strip_prefix("ev_").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
}

/// A new pack's id: `ev_YYYYMMDDTHHMMSSZ_` and 8 random hex digits (sortable by time).
pub fn new_id() -> String {
    let now = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ");
    let r = uuid::Uuid::new_v4().simple().to_string();
    format!("ev_{now}_{}", &r[..8])
}

/// A pack being written.
pub struct Writer {
    dir: PathBuf,
    files: Vec<PackFile>,
}

impl Writer {
    /// Make the pack's folder (a new one: an id taken is an error).
    pub fn create(state: &StateDir, id: &str) -> Result<Self> {
        let root = root(state);
        crate::store::secure::ensure_dir(&root)?;
        let dir = root.join(id);
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| Error::state(&dir, e))?;
        Ok(Self {
            dir,
            files: Vec::new(),
        })
    }

    /// The pack's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Add file `name` holding `bytes`.
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        write_new(&self.dir.join(name), bytes)?;
        self.files.push(PackFile {
            name: name.to_string(),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(bytes),
        });
        Ok(())
    }

    /// Write the manifest (sealed) last; returns it and its SHA-256.
    pub fn finish(self, state: &StateDir, mut m: Manifest) -> Result<(Manifest, String)> {
        m.files = self.files;
        m.seal(state)?;
        let bytes = serde_json::to_vec_pretty(&m).map_err(|e| Error::internal(e.to_string()))?;
        write_new(&self.dir.join(MANIFEST), &bytes)?;
        Ok((m, sha256_hex(&bytes)))
    }
}

use std::os::unix::fs::DirBuilderExt;

/// Create `path` (0600, not there before, never through a link) holding `bytes`.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
        .map_err(|e| Error::state(path, e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::state(path, e))
}

/// SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
