//! The `WaitFor` request and its body: wait until a session's output matches a pattern, goes
//! quiet, or the shell is back at its prompt.

use super::Open;
pub use crate::api::queries::WaitForRequest;
use crate::api::{TerminalState, WaitReason};
use serde::{Deserialize, Serialize};

/// What `WaitFor` returns, matched or not (the core turns `timeout` and `exited` into errors).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WaitForBody {
    /// A condition was met.
    pub matched: bool,
    /// `pattern`, `quiet`, `prompt`, `timeout` or `exited`.
    pub reason: Open<WaitReason>,
    /// The text the pattern matched (ANSI escapes stripped).
    #[serde(rename = "match")]
    pub matched_text: Option<String>,
    /// The raw output since `since` (the end of it, at most `max_bytes`).
    pub text: String,
    /// The output window's start (absolute offset).
    pub start_offset: u64,
    /// Where the next call continues (absolute offset after the output returned).
    pub next_offset: u64,
    /// Output since `since` left out (dropped from the ring or cut by `max_bytes`).
    pub dropped: u64,
    /// The ms the wait took.
    pub elapsed_ms: u64,
    /// µs from the arrival of the output that decided the wait to the reply.
    pub latency_us: u64,
    /// The terminal state when the wait ended.
    pub terminal_state: Open<TerminalState>,
    /// The shell's exit code, when it ended.
    pub exit_code: Option<i32>,
    /// Redaction context before the window.
    pub context_before: String,
    /// Redaction context after the window.
    pub context_after: String,
}

/// Longest pattern accepted, in characters.
const MAX_PATTERN_CHARS: usize = 4096;
/// Most output (bytes, from the end) a pattern is matched against.
pub const MATCH_WINDOW: usize = 1 << 20;

/// Compile a `wait_for` pattern: multi-line (`^` and `$` match at line ends), with bounded
/// compiled size; the error says what is wrong with it.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    let n = pattern.chars().count();
    if n == 0 {
        return Err("pattern is empty".into());
    }
    if n > MAX_PATTERN_CHARS {
        return Err(format!(
            "pattern is {n} characters; the limit is {MAX_PATTERN_CHARS}"
        ));
    }
    regex::RegexBuilder::new(pattern)
        .multi_line(true)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .map_err(|e| format!("pattern {pattern:?} is not a valid regex: {e}"))
}
