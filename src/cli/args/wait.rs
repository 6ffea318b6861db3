//! `wait-for`: wait until a session's output matches a pattern, goes quiet, or the shell is
//! back at its prompt.

use super::SessionArg;
use clap::Args;

// `wait-for`.
#[derive(Debug, Args)]
pub struct WaitForArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// A regex to wait for in the output since kpty last typed into the session (or since
    /// --since), escape codes stripped; ^ and $ match at line ends.
    #[arg(allow_hyphen_values = true, value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Done once no output came for this many milliseconds.
    #[arg(long, value_name = "MS")]
    pub quiet_ms: Option<u64>,
    /// Done once the shell is back at its prompt.
    #[arg(long)]
    pub prompt: bool,
    /// Match PATTERN against the visible screen instead of the output.
    #[arg(long, requires = "pattern")]
    pub screen: bool,
    /// Count output from this absolute offset (next_offset of an earlier reply) instead of
    /// from the last input.
    #[arg(long, value_name = "OFFSET")]
    pub since: Option<u64>,
    /// Give up after this many milliseconds, exit 124 (default: 30000,
    /// KPTY_TIMEOUT_MS).
    #[arg(long, short = 't', value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Most bytes of output to return, the end kept (default: 65536; at most 1048576).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<usize>,
    /// Keep ANSI escape sequences in the output.
    #[arg(long)]
    pub no_strip_ansi: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
