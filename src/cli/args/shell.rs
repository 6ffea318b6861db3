//! `shell`'s arguments: open a shell PTY beside a session's program.

use super::SessionArg;
use clap::Args;

// `shell`.
#[derive(Debug, Args)]
pub struct ShellArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Run this program on the new PTY instead of the session's shell (split as a POSIX
    /// shell would; never restarted, not filtered).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Wait at most this long for the shell's first prompt (default: KPTY_READY_TIMEOUT_MS
    /// or 10000).
    #[arg(long, short = 't', value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Terminal columns (2-1000; default: the session's size at its start).
    #[arg(long)]
    pub cols: Option<u16>,
    /// Terminal rows (1-1000; default: the session's size at its start).
    #[arg(long)]
    pub rows: Option<u16>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
