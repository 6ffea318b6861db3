//! `check`'s reply: the dangerous-command policy's verdict on a command, explained — the rule
//! that blocks it, the commands the policy saw and, after line-editing keys, the line the
//! shell would read. A blocked command is an answer here (`allowed: false`), not an error.

use crate::api::reply::Success;
use crate::api::{CheckVerdict, CheckedAs};
use serde::Serialize;

/// `check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReply {
    /// Always true (a blocked command is a verdict, not a failure).
    pub ok: Success,
    /// talk / send_line would type the command.
    pub allowed: bool,
    /// `allowed` or `blocked`.
    pub verdict: CheckVerdict,
    /// The blocking rule's id (the `pattern` of a `DANGEROUS_COMMAND_BLOCKED` error), or
    /// `null` when allowed.
    pub rule: Option<String>,
    /// The blocking rule's category (`destructive_file_ops`, `line_editing` …).
    pub category: Option<String>,
    /// What the blocking rule guards against.
    pub description: Option<String>,
    /// The command the blocking rule matched, as the policy normalised it (`rm -rf /` for
    /// `X=rm; $X -rf /`), or `null` when allowed.
    pub seen: Option<String>,
    /// The line parsed as shell (else the patterns judged its text).
    pub parsed: bool,
    /// The simple commands the policy saw, normalised (quotes removed, variables
    /// substituted, wrappers peeled), one string each.
    pub commands: Vec<String>,
    /// `shell` (parsed) or `patterns` (the line does not parse as shell).
    pub checked_as: CheckedAs,
    /// The line(s) the shell would read, newline-separated: the command with its escapes
    /// decoded and its line-editing keys applied.
    pub line: String,
    /// `line` differs from the command as given (editing keys were applied).
    pub edited: bool,
    /// The key whose effect kpty cannot follow (history, completion …) when that is why
    /// the command is blocked (`unverifiable_line_edit`), else `null`.
    pub key: Option<String>,
}
