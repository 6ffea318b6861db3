//! `_registry.json` (schema `pty_registry_v1`): every known session. Read-modify-write happens
//! under an exclusive lock on a separate, never-renamed lock file, and the file is replaced
//! atomically, so concurrent CLI processes never lose an entry.

use super::StateDir;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The schema tag written into the file.
pub const SCHEMA: &str = "pty_registry_v1";

/// The registry file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Registry {
    /// Always `pty_registry_v1`.
    pub schema: String,
    /// When the file was last written.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// Sessions by id.
    #[serde(default)]
    pub sessions: BTreeMap<String, RegistryEntry>,
}

impl Default for Registry {
    fn default() -> Self {
        Self {
            schema: SCHEMA.into(),
            updated_at: None,
            sessions: BTreeMap::new(),
        }
    }
}

/// One session as the registry knows it (the seeds' `RegisteredSession` plus kpty's fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RegistryEntry {
    /// The id.
    pub session_id: String,
    /// `local` (a kpty holder) or `desktop` (registered, reached through a bridge).
    pub source: String,
    /// The kind of program (e.g. `bash`).
    pub cli_type: Option<String>,
    /// The shell's pid.
    pub pid: Option<u32>,
    /// Owner agent id (primary routing key).
    pub owner_agent_id: Option<String>,
    /// Owner session id.
    pub owner_session_id: Option<String>,
    /// The Claude Code session linked to this terminal (seed 000's registry field); a
    /// routing key of `resolve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_session_id: Option<String>,
    /// `leader` or `worker`.
    pub owner_role: Option<String>,
    /// Human label.
    pub label: Option<String>,
    /// Creation time.
    pub created_at: Option<String>,
    /// Last heartbeat.
    pub last_heartbeat: Option<String>,
    /// Shell executable.
    pub shell: Option<String>,
    /// Working directory at start.
    pub cwd: Option<String>,
    /// The holder's socket.
    pub socket: Option<String>,
    /// The holder's pid.
    pub holder_pid: Option<u32>,
    /// The Landlock sandbox confining the session (`create --sandbox`), `null` for none.
    pub sandbox: Option<crate::launch::Policy>,
    /// The input filter on remote writes (`create --input-filter`), absent when off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_filter: Option<crate::launch::FilterSpec>,
    /// The program run instead of a shell (`create --command`), absent for a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::launch::ProgramSpec>,
    /// The seal of this user's kpty on an external entry it registered
    /// ([`super::trust`]): without a valid one, the entry routes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kpty_seal: Option<String>,
    /// Fields written by newer versions, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Registry {
    /// Read the registry without locking (the file is only ever replaced atomically).
    /// A missing file is an empty registry; a corrupt one is a clear `STATE_ERROR`.
    ///
    /// The file is read and checked on every call; only its parsing is remembered, keyed by
    /// the exact bytes read (a long-running `kpty serve` or `kpty mcp` reads the same
    /// registry for every call, and parsing it was a fifth of the server's time per talk).
    pub fn load(state: &StateDir) -> Result<Self> {
        state.check_top()?;
        let path = state.registry_file();
        let Some(bytes) = state.read_file(&path)? else {
            return Ok(Self::default());
        };
        if let Some(r) = parsed::recall(&path, &bytes) {
            return Ok(r);
        }
        let r: Registry = super::atomic::parse_json(&path, &bytes)?;
        if r.schema != SCHEMA {
            return Err(Error::state(
                &path,
                format!("unknown registry schema {:?} (expected {SCHEMA})", r.schema),
            ));
        }
        parsed::remember(&path, bytes, &r);
        Ok(r)
    }

    /// Read-modify-write under the exclusive registry lock. `f` may fail, in which case
    /// nothing is written.
    pub fn update<T>(state: &StateDir, f: impl FnOnce(&mut Registry) -> Result<T>) -> Result<T> {
        let lock =
            super::lock::exclusive(state, &state.registry_lock(), super::lock::default_wait())?;
        let mut reg = Self::load(state)?;
        let out = f(&mut reg)?;
        for e in reg.sessions.values_mut() {
            scrub_program(&mut e.program);
        }
        reg.updated_at = Some(super::now_rfc3339());
        state.write_json(&state.registry_file(), &reg)?;
        drop(lock);
        Ok(out)
    }
}

/// A program's command line as it is persisted: its secrets redacted (the holder was given
/// the real one; the state directory lies in a repository).
pub fn scrub_program(p: &mut Option<crate::launch::ProgramSpec>) {
    let Some(p) = p else { return };
    let red = |s: &mut String| {
        if let std::borrow::Cow::Owned(r) = crate::safety::redact(s) {
            *s = r;
        }
    };
    red(&mut p.command);
    p.argv.iter_mut().for_each(red);
}

/// The last registry parsed in this process, by its path and the bytes it was parsed from.
mod parsed {
    use super::Registry;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    struct Parsed {
        path: PathBuf,
        bytes: Vec<u8>,
        registry: Registry,
    }

    static LAST: Mutex<Option<Parsed>> = Mutex::new(None);

    /// The registry parsed from exactly `bytes` at `path`, if it is the last one parsed.
    pub(super) fn recall(path: &Path, bytes: &[u8]) -> Option<Registry> {
        let last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        last.as_ref()
            .filter(|p| p.path == path && p.bytes == bytes)
            .map(|p| p.registry.clone())
    }

    pub(super) fn remember(path: &Path, bytes: Vec<u8>, registry: &Registry) {
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        *last = Some(Parsed {
            path: path.to_path_buf(),
            bytes,
            registry: registry.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_keeps_unknown_fields_and_entries() {
        let t = tempfile::tempdir().unwrap();
        let sd = StateDir::at(t.path()).unwrap();
        Registry::update(&sd, |r| {
            let mut e = RegistryEntry {
                session_id: "pty_00000001".into(),
                ..Default::default()
            };
            e.extra.insert("future".into(), Value::from(7));
            r.sessions.insert(e.session_id.clone(), e);
            Ok(())
        })
        .unwrap();
        let r = Registry::load(&sd).unwrap();
        assert_eq!(r.schema, SCHEMA);
        assert_eq!(r.sessions["pty_00000001"].extra["future"], 7);
        let txt = std::fs::read_to_string(sd.registry_file()).unwrap();
        assert!(txt.contains("\"future\": 7"));
    }

    #[test]
    fn a_change_of_the_same_size_is_seen_and_corruption_is_not_remembered_away() {
        let t = tempfile::tempdir().unwrap();
        let sd = StateDir::at(t.path()).unwrap();
        let label = |l: &str| {
            Registry::update(&sd, |r| {
                let e = RegistryEntry {
                    session_id: "pty_00000001".into(),
                    label: Some(l.into()),
                    ..Default::default()
                };
                r.sessions.insert(e.session_id.clone(), e);
                Ok(())
            })
            .unwrap();
        };
        label("aaaa");
        let first = Registry::load(&sd).unwrap();
        assert_eq!(
            first.sessions["pty_00000001"].label.as_deref(),
            Some("aaaa")
        );
        // Rewritten in place by someone else, to the same length, within the same instant.
        let path = sd.registry_file();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"aaaa\"", "\"bbbb\"")).unwrap();
        let again = Registry::load(&sd).unwrap();
        assert_eq!(
            again.sessions["pty_00000001"].label.as_deref(),
            Some("bbbb")
        );
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        let e = Registry::load(&sd).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::StateError);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(Registry::load(&sd).unwrap().sessions.len(), 1);
    }
}
