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
    pub sandbox: Option<crate::sandbox::Policy>,
    /// The input filter on remote writes (`create --input-filter`), absent when off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_filter: Option<crate::filter::FilterSpec>,
    /// The program run instead of a shell (`create --command`), absent for a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::proto::launch::ProgramSpec>,
    /// Fields written by newer versions, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Registry {
    /// Read the registry without locking (the file is only ever replaced atomically).
    /// A missing file is an empty registry; a corrupt one is a clear `STATE_ERROR`.
    pub fn load(state: &StateDir) -> Result<Self> {
        state.check_top()?;
        let path = state.registry_file();
        match state.read_json::<Registry>(&path)? {
            None => Ok(Self::default()),
            Some(r) if r.schema == SCHEMA => Ok(r),
            Some(r) => Err(Error::state(
                &path,
                format!("unknown registry schema {:?} (expected {SCHEMA})", r.schema),
            )),
        }
    }

    /// Read-modify-write under the exclusive registry lock. `f` may fail, in which case
    /// nothing is written.
    pub fn update<T>(state: &StateDir, f: impl FnOnce(&mut Registry) -> Result<T>) -> Result<T> {
        let lock =
            super::lock::exclusive(state, &state.registry_lock(), super::lock::default_wait())?;
        let mut reg = Self::load(state)?;
        let out = f(&mut reg)?;
        reg.updated_at = Some(super::now_rfc3339());
        state.write_json(&state.registry_file(), &reg)?;
        drop(lock);
        Ok(out)
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
}
