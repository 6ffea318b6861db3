//! `wait_for`'s reply.

use crate::api::TerminalState;
use crate::api::reply::Success;
use serde::Serialize;

/// `wait_for`: the condition met, what matched, and the output since `since`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitForReply {
    /// Always true (a timeout is `PTY_TIMEOUT`, an ended shell `PTY_PROCESS_EXITED`).
    pub ok: Success,
    /// The session waited on.
    pub session_id: String,
    /// Always true in a success.
    pub matched: bool,
    /// What ended the wait: `pattern`, `quiet` or `prompt`.
    pub reason: String,
    /// The text the pattern matched (escape codes stripped); `null` for quiet and prompt.
    #[serde(rename = "match")]
    pub matched_text: Option<String>,
    /// The output since `since` (its end, at most max_bytes; escape codes stripped unless
    /// strip_ansi=false).
    pub output: String,
    /// Output since `since` left out (cut by max_bytes or gone from the buffer).
    pub truncated: bool,
    /// Absolute offset of the output's first byte.
    pub start_offset: u64,
    /// Absolute offset after the output: pass it as `since` to the next wait_for or read.
    pub next_offset: u64,
    /// How long the wait took.
    pub elapsed_ms: u64,
    /// µs in the holder from the output (or the quiet period's end) that decided the wait
    /// to its reply.
    pub latency_us: u64,
    /// What the terminal was doing when the wait ended.
    pub terminal_state: TerminalState,
}
