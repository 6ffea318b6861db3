//! `sessions/<id>/metadata.json`: what one session is and how it ended. Written by the
//! launcher before the holder starts and by the holder itself afterwards (single writer).

use super::StateDir;
use crate::api::SessionId;
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One session's metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Metadata {
    /// The id.
    pub session_id: String,
    /// Always `local` for holder sessions.
    pub source: String,
    /// Shell executable as resolved.
    pub shell: String,
    /// Shell arguments kpty added (integration).
    pub shell_args: Vec<String>,
    /// Working directory at start.
    pub cwd: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// The shell's pid.
    pub pid: Option<u32>,
    /// The holder's pid.
    pub holder_pid: Option<u32>,
    /// The holder's socket.
    pub socket: Option<String>,
    /// How `talk` detects completion: `osc133` or `sentinel`.
    pub integration: String,
    /// The shell family (`bash`, `zsh`, `fish`, `posix`, `pwsh`, `cmd`).
    pub shell_kind: String,
    /// `starting`, `running`, `exited`, `killed`.
    pub state: String,
    /// The shell's exit code once it ended.
    pub exit_code: Option<i32>,
    /// The signal that ended the shell, if any.
    pub exit_signal: Option<String>,
    /// Label.
    pub label: Option<String>,
    /// Start time.
    pub created_at: String,
    /// End time.
    pub exited_at: Option<String>,
    /// Holder protocol version.
    pub protocol_version: u32,
    /// kpty version that started the holder.
    pub kpty_version: String,
    /// Ring-buffer size in bytes.
    pub buffer_size: usize,
    /// Absolute output offset at the end of `buffer.txt` when it was last saved.
    pub output_offset: Option<u64>,
    /// Environment variables kpty set for the shell (names only, values may be secret).
    pub env_keys: Vec<String>,
    /// The Landlock sandbox confining the session (`create --sandbox`), `null` for none.
    pub sandbox: Option<crate::launch::Policy>,
    /// The input filter on remote writes (`create --input-filter`), absent when off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_filter: Option<crate::launch::FilterSpec>,
    /// The program run instead of a shell (`create --command`), absent for a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::launch::ProgramSpec>,
    /// That program's lifecycle: state, restarts, how it last exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<crate::api::sessions::ProcessStatus>,
    /// Fields written by newer versions.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Metadata {
    /// Path of the metadata file.
    pub fn path(state: &StateDir, id: &SessionId) -> std::path::PathBuf {
        state.session_dir(id).join("metadata.json")
    }

    /// Load, `None` when missing.
    pub fn load(state: &StateDir, id: &SessionId) -> Result<Option<Self>> {
        state.read_json(&Self::path(state, id))
    }

    /// Save atomically.
    pub fn save(&self, state: &StateDir, id: &SessionId) -> Result<()> {
        // A program's command line (in `program` and, run through a shell, `shell_args`) is
        // persisted with its secrets redacted; the holder was given the real one.
        if self.program.is_some() {
            let mut scrubbed = self.clone();
            super::registry::scrub_program(&mut scrubbed.program);
            for a in &mut scrubbed.shell_args {
                if let std::borrow::Cow::Owned(r) = crate::safety::redact(a) {
                    *a = r;
                }
            }
            return state.write_json(&Self::path(state, id), &scrubbed);
        }
        state.write_json(&Self::path(state, id), self)
    }
}
