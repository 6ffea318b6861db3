//! The bounded queries `term_read` and `wait_for` make of a holder, as the action validated
//! them (caps and defaults applied): plain data the typed request carries and the wire sends
//! as is (`proto` names them in its `Call`s).

use super::{Open, TermMode};
use serde::{Deserialize, Serialize};

/// The `term_read` request (validated and capped by the core).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermReadRequest {
    /// `tail`, `viewport` or `delta`.
    pub mode: Open<TermMode>,
    /// Most lines.
    pub max_lines: usize,
    /// Most characters of text.
    pub max_chars: usize,
    /// Join soft-wrapped rows.
    #[serde(default = "yes")]
    pub merge_wrapped: bool,
    /// Delta: the previous call's marker.
    #[serde(default)]
    pub marker_id: Option<u64>,
}

/// The `wait_for` request (validated and capped by the core; the holder compiles the pattern
/// again and answers `INVALID_PARAMS` for a bad one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WaitForRequest {
    /// A regex to find in the output since `since` (ANSI escapes stripped), or on the screen.
    pub pattern: Option<String>,
    /// Match `pattern` against the rendered visible screen instead of the output stream.
    pub screen: bool,
    /// Done once no output arrived for this many ms (counted from the call at the earliest).
    pub quiet_ms: Option<u64>,
    /// Done once the shell is back at its prompt.
    pub prompt: bool,
    /// Output from this absolute offset counts; `None` = the end of output when kpty last
    /// typed into the session (output that input caused counts, older output does not).
    pub since: Option<u64>,
    /// Give up after this many ms.
    pub timeout_ms: u64,
    /// Most bytes of output returned (the end kept).
    pub max_bytes: usize,
    /// Also send the redaction context around the output window.
    pub context: bool,
}

/// `true`, for a field that defaults to on.
pub(crate) fn yes() -> bool {
    true
}
