//! How a session's process ended, and a program session's lifecycle: data only, read by the
//! session's state, the program's restarts and the talk's replies.

use crate::proto::ProcessStatus;

/// How the shell ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitInfo {
    /// Exit code (128+n style codes come through as the shell reported them).
    pub code: i32,
    /// Signal name when a signal ended it.
    pub signal: Option<String>,
    /// When the shell was seen to end (RFC 3339): `metadata.json`'s `exited_at`, so a caller
    /// can tell a shell that ended before its call from one that ended during it.
    pub at: String,
}

/// Where a program is in its lifecycle (seed 002 Table 8-1; `exited` lasts only until the
/// holder decides between a restart and the end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Phase {
    /// The program runs.
    #[default]
    Running,
    /// It exited and waits its restart delay.
    Restarting,
    /// It exited for good.
    Dead,
}

impl Phase {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Running => "running",
            Phase::Restarting => "restarting",
            Phase::Dead => "dead",
        }
    }
}

/// A program's lifecycle as the holder tracks it.
#[derive(Debug, Clone, Default)]
pub struct Lifecycle {
    /// Where it is.
    pub phase: Phase,
    /// Restarts so far.
    pub restarts: u32,
    /// How it last ended.
    pub last_exit: Option<ExitInfo>,
    /// The delay before the last restart.
    pub delay_ms: Option<u64>,
}

impl Lifecycle {
    /// A program just started.
    pub fn running() -> Self {
        Self::default()
    }

    /// As `status`, `list` and `metadata.json` show it.
    pub fn status(&self) -> ProcessStatus {
        ProcessStatus {
            state: self.phase.as_str().into(),
            restart_count: self.restarts,
            last_exit_code: self.last_exit.as_ref().map(|e| e.code),
            last_exit_signal: self.last_exit.as_ref().and_then(|e| e.signal.clone()),
        }
    }
}
