//! The one error type of kpty: a stable code from the seeds, a message that names the thing
//! and the fix, optional details, and the process exit code the CLI uses for it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use details::Details;
pub use hint::{Hint, Voice};

pub mod details;
pub mod hint;

/// Stable error codes (the seeds' names; kpty adds `PTY_BUSY`, `INVALID_PARAMS`,
/// `STATE_ERROR`, `CANCELLED`, `INTERNAL`, `BRIDGE_ERROR`, `BRIDGE_UNAVAILABLE`,
/// `SANDBOX_REQUIRED` and `HOST_UNREACHABLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// No session with that id (or prefix, or label).
    PtySessionNotFound,
    /// The shell or its holder could not be started.
    PtySpawnFailed,
    /// A `talk` or wait ran past its `timeout_ms`.
    PtyTimeout,
    /// The session's shell has exited.
    PtyProcessExited,
    /// Writing to the terminal failed.
    PtyWriteFailed,
    /// Reading from the terminal (or its holder) failed.
    PtyReadFailed,
    /// The terminal is busy: another talk, or a foreground program other than the shell.
    PtyBusy,
    /// The command matched a dangerous-command pattern; nothing was typed.
    DangerousCommandBlocked,
    /// A parameter is missing, malformed or out of range.
    InvalidParams,
    /// The action is deprecated (`write`).
    Deprecated,
    /// Owner identity matched no session.
    NotFound,
    /// A name matched several sessions.
    Ambiguous,
    /// The state directory or a registry file is unreadable or corrupt.
    StateError,
    /// The operation is refused for this session (a leader's terminal without `force`).
    PtyAccessDenied,
    /// The call was cancelled by its caller (MCP `notifications/cancelled`, Ctrl-C).
    Cancelled,
    /// A bug or an unexpected system failure.
    Internal,
    /// A desktop session's bridge answered with a failure status or an unreadable body.
    BridgeError,
    /// A desktop session's bridge could not be reached (refused, unknown host, timed out).
    BridgeUnavailable,
    /// Desktop terminals are resized in the desktop UI, not through kpty.
    DesktopResizeDisabled,
    /// `term_read` is turned off (`KPTY_TERM_READ=off`).
    TermReadDisabled,
    /// The input filter of an agent's terminal kept a sequence from the program (seed 002
    /// §8.4: Ctrl-D, Ctrl-\, `exit` + Enter …, a repeated Ctrl-C).
    InputBlocked,
    /// The action's audit entry could not be written (a full disk, an unwritable journal), so
    /// the action was not run (`KPTY_AUDIT_FAIL=open` runs it anyway, with a warning).
    AuditFailed,
    /// The operator's sandbox floor (`KPTY_SANDBOX`, `kpty mcp|serve --sandbox=required`)
    /// forbids what the request asked: an unsandboxed session, or a wider one.
    SandboxRequired,
    /// `--host` (MCP `host`): ssh could not reach the host, log in, or trust its key, or the
    /// connection dropped; ssh's own words say which.
    HostUnreachable,
}

impl ErrorCode {
    /// The code as it appears in JSON (`"PTY_TIMEOUT"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PtySessionNotFound => "PTY_SESSION_NOT_FOUND",
            Self::PtySpawnFailed => "PTY_SPAWN_FAILED",
            Self::PtyTimeout => "PTY_TIMEOUT",
            Self::PtyProcessExited => "PTY_PROCESS_EXITED",
            Self::PtyWriteFailed => "PTY_WRITE_FAILED",
            Self::PtyReadFailed => "PTY_READ_FAILED",
            Self::PtyBusy => "PTY_BUSY",
            Self::DangerousCommandBlocked => "DANGEROUS_COMMAND_BLOCKED",
            Self::InvalidParams => "INVALID_PARAMS",
            Self::Deprecated => "DEPRECATED",
            Self::NotFound => "NOT_FOUND",
            Self::Ambiguous => "AMBIGUOUS",
            Self::StateError => "STATE_ERROR",
            Self::PtyAccessDenied => "PTY_ACCESS_DENIED",
            Self::Cancelled => "CANCELLED",
            Self::Internal => "INTERNAL",
            Self::BridgeError => "BRIDGE_ERROR",
            Self::BridgeUnavailable => "BRIDGE_UNAVAILABLE",
            Self::DesktopResizeDisabled => "DESKTOP_RESIZE_DISABLED",
            Self::TermReadDisabled => "TERM_READ_DISABLED",
            Self::InputBlocked => "INPUT_BLOCKED",
            Self::AuditFailed => "AUDIT_FAILED",
            Self::SandboxRequired => "SANDBOX_REQUIRED",
            Self::HostUnreachable => "HOST_UNREACHABLE",
        }
    }

    /// The CLI's exit code for this failure (documented in README "Exit codes").
    /// They sit in 107..=125 (130 for a cancelled call, as for Ctrl-C) so that `kpty talk` can pass a command's own small codes through.
    pub fn exit_code(self) -> i32 {
        match self {
            Self::TermReadDisabled => 107,
            Self::BridgeError => 108,
            Self::BridgeUnavailable => 109,
            Self::DesktopResizeDisabled => 110,
            Self::Deprecated => 112,
            Self::PtyAccessDenied => 111,
            Self::StateError => 113,
            Self::Ambiguous => 114,
            Self::InvalidParams => 115,
            Self::DangerousCommandBlocked => 116,
            Self::PtyBusy => 117,
            Self::PtyProcessExited => 118,
            Self::PtySessionNotFound | Self::NotFound => 119,
            Self::PtySpawnFailed => 120,
            Self::PtyWriteFailed => 121,
            Self::PtyReadFailed => 122,
            Self::InputBlocked => 106,
            Self::AuditFailed => 104,
            Self::SandboxRequired => 105,
            Self::HostUnreachable => 103,
            Self::PtyTimeout => 124,
            Self::Internal => 125,
            Self::Cancelled => 130,
        }
    }

    /// Every code, for the help action and the docs.
    pub const ALL: [ErrorCode; 24] = [
        Self::PtySessionNotFound,
        Self::PtySpawnFailed,
        Self::PtyTimeout,
        Self::PtyProcessExited,
        Self::PtyWriteFailed,
        Self::PtyReadFailed,
        Self::PtyBusy,
        Self::DangerousCommandBlocked,
        Self::InvalidParams,
        Self::Deprecated,
        Self::NotFound,
        Self::Ambiguous,
        Self::StateError,
        Self::PtyAccessDenied,
        Self::Cancelled,
        Self::Internal,
        Self::BridgeError,
        Self::BridgeUnavailable,
        Self::DesktopResizeDisabled,
        Self::TermReadDisabled,
        Self::InputBlocked,
        Self::AuditFailed,
        Self::SandboxRequired,
        Self::HostUnreachable,
    ];
}

/// A code by its name (`HOST_UNREACHABLE`), as another build's kpty sends it.
impl std::str::FromStr for ErrorCode {
    type Err = ();

    fn from_str(s: &str) -> std::result::Result<Self, ()> {
        Self::ALL.into_iter().find(|c| c.as_str() == s).ok_or(())
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed action: code, human message, optional structured details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, naming the thing and the fix.
    pub message: String,
    /// Extra fields (e.g. `partial_output` for `PTY_TIMEOUT`, `matches` for `AMBIGUOUS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<Details>>,
    /// What code needs to tell apart where the code alone does not (never shown to users:
    /// [`Error::to_json`] leaves it out; on the holder wire a new holder sends it, older
    /// clients ignore it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// What to do about it, rendered into the message in the caller's vocabulary when the
    /// error leaves the core ([`Error::speak`]); carried on the holder wire until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Hint>,
}

/// A typed reason behind an [`Error`], for the code that decides on it (messages are for people).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The session's holder could not be reached at all: nothing was typed.
    Unreachable,
    /// The holder does not know the request (it was started by an older kpty).
    UnknownRequest,
    /// The shell ended while the call was under way (a talk's own `exit 3`), as opposed to a
    /// call refused because the session had already ended.
    EndedDuringCall,
    /// The session's shell had already ended when the call reached its holder (which was
    /// still winding down): nothing was typed.
    EndedBefore,
    /// A cause this build does not know (sent by a newer holder).
    #[serde(other)]
    Other,
}

impl Error {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
            cause: None,
            hint: None,
        }
    }

    /// Attach a suggestion, said in the caller's vocabulary when the error leaves the core.
    pub fn with_hint(mut self, hint: Hint) -> Self {
        self.hint = Some(hint);
        self
    }

    /// This error as `voice` says it: its hint rendered into the message, and, for the CLI,
    /// the parameter names a usage error gives spelled as flags (`max_bytes` →
    /// `--max-bytes`).
    pub fn speak(mut self, voice: Voice) -> Self {
        if let Some(h) = self.hint.take() {
            let sep = if self.message.ends_with('.') {
                " "
            } else {
                "; "
            };
            self.message = format!("{}{sep}{}", self.message, h.render(voice));
        }
        if voice == Voice::Cli
            && matches!(self.code, ErrorCode::InvalidParams | ErrorCode::Deprecated)
        {
            self.message = hint::cli_words(&self.message);
        }
        self
    }

    /// Attach a typed cause.
    pub fn with_cause(mut self, cause: Cause) -> Self {
        self.cause = Some(cause);
        self
    }

    /// Attach details.
    pub fn with_details(mut self, details: impl Into<Details>) -> Self {
        self.details = Some(Box::new(details.into()));
        self
    }

    /// Shorthand for `INVALID_PARAMS`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidParams, message)
    }

    /// Shorthand for `STATE_ERROR` about a path.
    pub fn state(path: &std::path::Path, err: impl std::fmt::Display) -> Self {
        Self::new(ErrorCode::StateError, format!("{}: {err}", path.display()))
    }

    /// `INPUT_BLOCKED`: the input filter kept `blocked` (printable names, `exit\r`) from the
    /// program; `warning` is the filter's text for the writer. Details: `{blocked, warning}`.
    pub fn input_blocked(blocked: &[String], warning: &str) -> Self {
        Self::new(
            ErrorCode::InputBlocked,
            format!(
                "the input filter kept {} from the program (nothing of it was typed; the rest \
                 of the write was): a remote writer may not end or interrupt this agent's \
                 program that way; a person can, from a local terminal (kpty attach)",
                blocked.join(", ")
            ),
        )
        .with_details(details::InputBlocked {
            blocked: blocked.to_vec(),
            warning: warning.to_string(),
            ctrl_c_debounced: None,
            forwarded_bytes: None,
            held_bytes: None,
        })
    }

    /// Shorthand for `INTERNAL`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    /// The action's JSON for this failure: `{ok:false, error_code, error, message, details?}`.
    /// `error` and `message` carry the same text: the seeds use both names.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "ok": false,
            "error_code": self.code.as_str(),
            "error": self.message,
            "message": self.message,
        });
        if let Some(d) = &self.details {
            let d = d.to_value();
            // AMBIGUOUS puts `matches` at the top level, as the seeds show.
            if self.code == ErrorCode::Ambiguous
                && let Some(m) = d.get("matches")
            {
                v["matches"] = m.clone();
            }
            v["details"] = d;
        }
        v
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::safety::Refusal> for Error {
    /// A refused write: `DANGEROUS_COMMAND_BLOCKED` (`INVALID_PARAMS` for an incomplete
    /// command) with the refusal's message and details.
    fn from(r: crate::safety::Refusal) -> Self {
        // An incomplete command is bad input, not a dangerous one.
        let code = match r {
            crate::safety::Refusal::Incomplete { .. } => ErrorCode::InvalidParams,
            _ => ErrorCode::DangerousCommandBlocked,
        };
        let e = Error::new(code, r.message());
        match r {
            crate::safety::Refusal::Dangerous { .. } => e.with_hint(Hint::ExplainBlock),
            _ => e,
        }
        .with_details(Details::from(&r))
    }
}
