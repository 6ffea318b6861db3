//! The launch handshake between the core and a new holder: the [`HolderSpec`] the launcher
//! writes to the holder's stdin, the one [`Ready`] line the holder answers on its stdout, and
//! the allocator environment the launcher sets and the holder removes from its shell's.

use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Allocator settings for holders (glibc reads them at start; other allocators ignore them).
/// The holder removes them again from its shell's environment.
pub const HOLDER_MALLOC_ENV: [(&str, &str); 2] = [
    ("MALLOC_MMAP_THRESHOLD_", "131072"),
    ("MALLOC_ARENA_MAX", "2"),
];

/// What the launcher tells a new holder.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HolderSpec {
    /// Session id (validated by the launcher).
    pub session_id: String,
    /// Absolute state directory.
    pub state_dir: PathBuf,
    /// Socket path to bind.
    pub socket: PathBuf,
    /// Shell program as given.
    pub shell: String,
    /// Absolute working directory.
    pub cwd: PathBuf,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Caller's environment overrides (applied last).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Label.
    #[serde(default)]
    pub label: Option<String>,
    /// Ring-buffer size.
    pub buffer_size: usize,
    /// Screen scrollback lines (absent from older launchers: `KPTY_SCROLLBACK` or the default).
    #[serde(default)]
    pub scrollback: Option<usize>,
    /// How long to wait for the first prompt.
    pub ready_timeout_ms: u64,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// The Landlock sandbox to start the shell in (`create --sandbox`), `None` for none.
    #[serde(default)]
    pub sandbox: Option<crate::launch::Policy>,
    /// The input filter for remote writers (`create --input-filter`), `None` for none.
    #[serde(default)]
    pub input_filter: Option<crate::launch::FilterSpec>,
    /// A program to run instead of the interactive shell (`create --command`).
    #[serde(default)]
    pub program: Option<ProgramSpec>,
    /// `env` is the shell's whole environment, not overrides: the holder's own is not passed
    /// on (a shell PTY takes its session's environment, not its launcher's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub env_exact: bool,
    /// Record the session (asciicast v3 in its folder) under these caps; `None`: not
    /// recorded (`create --no-record`, `KPTY_RECORD=0`, or an older launcher).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordCaps>,
}

/// How much a session's recording may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordCaps {
    /// Bytes after which a segment rolls to the next.
    pub segment: u64,
    /// Bytes the state directory's recordings may take together.
    pub total: u64,
}

pub use crate::launch::{DEFAULT_RESTART_DELAY_MS, MAX_RESTART_DELAY_MS, ProgramSpec};

/// The ready line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ready {
    /// Success flag.
    pub ok: bool,
    /// The shell's pid.
    #[serde(default)]
    pub pid: Option<u32>,
    /// The holder's pid.
    #[serde(default)]
    pub holder_pid: Option<u32>,
    /// Completion method in force.
    #[serde(default)]
    pub integration: Option<crate::api::Open<crate::api::Integration>>,
    /// Shell family.
    #[serde(default)]
    pub shell_kind: Option<crate::api::Open<crate::api::ShellKind>>,
    /// The resolved shell path.
    #[serde(default)]
    pub shell: Option<String>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<Error>,
}

impl Ready {
    /// A failed start, reported by holder `holder_pid`.
    pub fn failed(e: Error, holder_pid: u32) -> Self {
        Self {
            ok: false,
            pid: None,
            holder_pid: Some(holder_pid),
            integration: None,
            shell_kind: None,
            shell: None,
            error: Some(e),
        }
    }
}
