//! `help`'s reply: the seeds' shape (`{ok, data: {tool, description, actions,
//! pywinpty_available, term_buffer_access}}`) plus kpty's configuration in force.

use crate::api::reply::Success;
use serde::Serialize;
use std::collections::BTreeMap;

/// `help`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HelpReply {
    /// Always true.
    pub ok: Success,
    /// What help tells.
    pub data: HelpData,
}

/// The body of `help`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HelpData {
    /// The tool's name (`k_pty`).
    pub tool: &'static str,
    /// One line on what kpty is.
    pub description: &'static str,
    /// kpty's version.
    pub version: &'static str,
    /// Each action's name and summary.
    pub actions: BTreeMap<&'static str, &'static str>,
    /// The seeds' flag ("a PTY backend is available"); kpty's holder always is.
    pub pywinpty_available: bool,
    /// The backend (`kpty-holder`).
    pub backend: &'static str,
    /// Whether `term_read` is allowed, and the variable that says so.
    pub term_buffer_access: TermBufferAccess,
    /// The state directory in use.
    pub state_dir: String,
    /// The defaults in force.
    pub defaults: Defaults,
    /// Each error code's process exit code.
    pub exit_codes: BTreeMap<&'static str, i32>,
    /// What `create --sandbox` can do on this machine.
    pub sandbox: SandboxSupport,
    /// Whether new sessions are recorded, and the recordings' caps.
    pub recording: RecordingDefaults,
}

/// `help`'s `recording`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordingDefaults {
    /// New sessions are recorded (`KPTY_RECORD`; `create`'s `record` overrides it).
    pub default: bool,
    /// Bytes a segment reaches before the next starts (`KPTY_RECORD_SEGMENT`).
    pub segment_bytes: u64,
    /// Bytes the state directory's recordings may take (`KPTY_RECORD_TOTAL`).
    pub total_bytes: u64,
    /// The variable that sets the default.
    pub env: &'static str,
}

/// `help`'s `sandbox`: Landlock on this kernel, and the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxSupport {
    /// The kernel's Landlock ABI, `null` without Landlock (then `--sandbox` fails).
    pub landlock_abi: Option<u32>,
    /// Whether `create` sandboxes by default.
    pub default: bool,
    /// The operator's floor: `required` (every session sandboxed; requests may only
    /// tighten it, else `SANDBOX_REQUIRED`), `default` or `off`.
    pub floor: &'static str,
    /// The variable that sets the default.
    pub env: &'static str,
}

/// `help`'s `term_buffer_access`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TermBufferAccess {
    /// `on` or `off`.
    pub mode: &'static str,
    /// The variable that sets it.
    pub env: &'static str,
}

/// The defaults in force (environment applied).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Defaults {
    /// The shell `create` starts.
    pub shell: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Ring-buffer bytes.
    pub buffer_size: usize,
    /// Scrollback lines.
    pub scrollback: usize,
    /// `talk` timeout.
    pub talk_timeout_ms: u64,
    /// `read` size.
    pub read_max_bytes: usize,
    /// `read` wait.
    pub read_timeout_ms: u64,
}
