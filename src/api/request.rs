//! One typed request per action, built from the flat [`Params`] (the MCP tool's input and
//! the wire shape, which stay as the seeds have them) by the core's one validating function
//! (`core::request::parse`): closed sets parsed into their types, caps and defaults applied,
//! the session named once as a [`Target`]. The core's action functions take these, never
//! the bag.
//!
//! Where an action has always checked a parameter only after finding its session (`shell`'s
//! program, `send_line_to_agent`'s line), the check is still made here, once, and its error
//! kept ([`Deferred`]) for the action to raise at the same step as before.

use super::Params;
use super::queries::{TermReadRequest, WaitForRequest};
use crate::error::Error;
use crate::keys::Encoded;
use crate::launch::ProgramSpec;
use std::collections::BTreeMap;

/// A value checked in [`crate::core::request::parse`] whose error the action raises later.
pub type Deferred<T> = std::result::Result<T, Error>;

/// The session a request acts on, as named (resolved to a handle by the core, once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `session_id`: an id, unique id prefix, label, or `SESSION:N` address.
    Named(String),
    /// No `session_id`, but an owner identity that routes to one session.
    Owner(Identity),
    /// Neither: the state directory's default session.
    Default,
}

/// The routing keys of `resolve` (and of a call naming no session but an owner).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The owner agent id (primary key).
    pub agent_id: Option<String>,
    /// The owner session id.
    pub owner_session_id: Option<String>,
    /// The Claude Code session linked to the terminal.
    pub claude_code_session_id: Option<String>,
    /// The session's label.
    pub label: Option<String>,
}

impl Identity {
    /// The keys `p` gives.
    pub fn of(p: &Params) -> Self {
        Self {
            agent_id: p.agent_id.clone(),
            owner_session_id: p.owner_session_id.clone(),
            claude_code_session_id: p.claude_code_session_id.clone(),
            label: p.label.clone(),
        }
    }

    /// True when at least one key is given (not blank).
    pub fn is_given(&self) -> bool {
        [
            &self.agent_id,
            &self.owner_session_id,
            &self.claude_code_session_id,
            &self.label,
        ]
        .iter()
        .any(|v| v.as_deref().is_some_and(|s| !s.trim().is_empty()))
    }
}

impl Target {
    /// The session `p` names: `session_id` when not blank, else an owner identity, else
    /// the default session.
    pub fn of(p: &Params) -> Self {
        match p.session_id.as_deref() {
            Some(r) if !r.trim().is_empty() => Target::Named(r.to_string()),
            _ => {
                let who = Identity::of(p);
                if who.is_given() {
                    Target::Owner(who)
                } else {
                    Target::Default
                }
            }
        }
    }

    /// True when the caller named the session (`session_id`).
    pub fn is_named(&self) -> bool {
        matches!(self, Target::Named(_))
    }
}

/// The owner fields a session carries (`create`, `register`, `update_ownership`, `rename`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owner {
    /// `owner_agent_id`.
    pub owner_agent_id: Option<String>,
    /// `owner_session_id`.
    pub owner_session_id: Option<String>,
    /// `claude_code_session_id`.
    pub claude_code_session_id: Option<String>,
    /// `owner_role` (checked: `leader` or `worker`).
    pub owner_role: Option<String>,
    /// `label` (checked: 1-64 printable characters, not secret-looking).
    pub label: Option<String>,
    /// `cli_type`.
    pub cli_type: Option<String>,
}

impl Owner {
    /// The owner fields `p` gives.
    pub fn of(p: &Params) -> Self {
        Self {
            owner_agent_id: p.owner_agent_id.clone(),
            owner_session_id: p.owner_session_id.clone(),
            claude_code_session_id: p.claude_code_session_id.clone(),
            owner_role: p.owner_role.clone(),
            label: p.label.clone(),
            cli_type: p.cli_type.clone(),
        }
    }
}

/// One action's request, validated.
#[derive(Debug, Clone)]
pub enum Request {
    /// `help`.
    Help,
    /// `list`.
    List,
    /// `list` with `all`: every state directory this user has used.
    ListAll,
    /// `create`.
    Create(Box<CreateArgs>),
    /// `send_line`.
    SendLine(SendLineArgs),
    /// `read`.
    Read(ReadArgs),
    /// `term_read`.
    TermRead(TermReadArgs),
    /// `screenshot`.
    Screenshot(ScreenshotArgs),
    /// `recording`.
    Recording(RecordingArgs),
    /// `evidence`.
    Evidence(EvidenceArgs),
    /// `talk` and its alias `run`.
    Talk(TalkArgs),
    /// `check`.
    Check(CheckArgs),
    /// `resize`.
    Resize(ResizeArgs),
    /// `kill`.
    Kill(Target),
    /// `kill` with `all`: every local session of the state directory.
    KillAll,
    /// `write` (deprecated).
    Write,
    /// `resolve`.
    Resolve(Identity),
    /// `send_line_to_agent`.
    SendLineToAgent(ToAgentArgs),
    /// `register`.
    Register(Box<RegisterArgs>),
    /// `unregister`.
    Unregister(UnregisterArgs),
    /// `heartbeat`: the session named.
    Heartbeat(String),
    /// `update_ownership`.
    UpdateOwnership(OwnershipArgs),
    /// `rename` (only the label changes).
    Rename(OwnershipArgs),
    /// `prune`: `force` also removes dead and exited local sessions.
    Prune {
        /// `force`.
        force: bool,
    },
    /// `send_keys`.
    SendKeys(SendKeysArgs),
    /// `wait_for`.
    WaitFor(WaitForArgs),
    /// `shell`.
    Shell(ShellArgs),
}

/// `create`, its simple options checked and defaulted; the launch options (cwd, sandbox,
/// program, input filter) are judged by the core against the file system and the operator's
/// floor, from `params`.
#[derive(Debug, Clone)]
pub struct CreateArgs {
    /// The shell executable (`shell`, else the configured default).
    pub shell: String,
    /// Terminal columns.
    pub cols: u16,
    /// Terminal rows.
    pub rows: u16,
    /// The extra environment (names checked).
    pub env: BTreeMap<String, String>,
    /// How long to wait for the first prompt.
    pub ready_timeout_ms: u64,
    /// Lines of scrollback (default applied).
    pub scrollback: usize,
    /// The owner fields and label (the environment's identity filled in where the call names
    /// none).
    pub owner: Owner,
    /// The call's parameters with the environment's identity filled in: the launch options.
    pub params: Params,
}

/// `send_line`.
#[derive(Debug, Clone)]
pub struct SendLineArgs {
    /// The session.
    pub target: Target,
    /// The line to type (escapes processed, CR/LF stripped; Enter follows).
    pub line: String,
}

/// `read`.
#[derive(Debug, Clone)]
pub struct ReadArgs {
    /// The session.
    pub target: Target,
    /// Absolute offset to read from.
    pub since: Option<u64>,
    /// Most bytes (1..=1 MiB).
    pub max_bytes: usize,
    /// How long to wait for new data.
    pub timeout_ms: u64,
    /// Remove escape sequences.
    pub strip_ansi: bool,
}

/// `screenshot`.
#[derive(Debug, Clone)]
pub struct ScreenshotArgs {
    /// The session.
    pub target: Target,
    /// The image's format.
    pub format: ShotFormat,
}

/// A screenshot's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShotFormat {
    /// An SVG image (the default).
    #[default]
    Svg,
    /// The screen's text.
    Txt,
    /// A PNG image: the SVG drawn with kpty's own fonts (base64 in JSON).
    Png,
}

impl ShotFormat {
    /// Every format, as `format` names them.
    pub const NAMES: [&'static str; 3] = ["svg", "png", "txt"];

    /// The name `format` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            ShotFormat::Svg => "svg",
            ShotFormat::Txt => "txt",
            ShotFormat::Png => "png",
        }
    }

    /// The format `name` names.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "svg" => Some(ShotFormat::Svg),
            "png" => Some(ShotFormat::Png),
            "txt" | "text" => Some(ShotFormat::Txt),
            _ => None,
        }
    }
}

/// `term_read`.
#[derive(Debug, Clone)]
pub struct TermReadArgs {
    /// The session.
    pub target: Target,
    /// The holder request (caps applied).
    pub request: TermReadRequest,
}

/// `talk`.
#[derive(Debug, Clone)]
pub struct TalkArgs {
    /// The session (the default one is created on first use).
    pub target: Target,
    /// The command (escapes processed, not blank).
    pub command: String,
    /// A caller-chosen sentinel (checked).
    pub sentinel: Option<String>,
    /// Give up after this many ms (1..=1 h).
    pub timeout_ms: u64,
    /// Most characters of output returned (at least 1), when the call sets it.
    pub max_chars: Option<usize>,
    /// `include_raw`.
    pub include_raw: Option<bool>,
    /// `force`.
    pub force: bool,
    /// The calling agent (`agent_id`), for the recording's markers.
    pub agent_id: Option<String>,
    /// Make an evidence pack around the command.
    pub evidence: bool,
}

/// `check`.
#[derive(Debug, Clone)]
pub struct CheckArgs {
    /// The command to judge (escapes processed, not blank).
    pub command: String,
}

/// `resize`.
#[derive(Debug, Clone)]
pub struct ResizeArgs {
    /// The session.
    pub target: Target,
    /// Columns (2..=1000).
    pub cols: u16,
    /// Rows (1..=1000).
    pub rows: u16,
}

/// `send_line_to_agent`.
#[derive(Debug, Clone)]
pub struct ToAgentArgs {
    /// Whose session.
    pub identity: Identity,
    /// The line to type, checked as `send_line` checks it (raised once the session is found).
    pub line: Deferred<String>,
}

/// `register`.
#[derive(Debug, Clone)]
pub struct RegisterArgs {
    /// The external session's id (never a local PTY's form).
    pub session_id: crate::api::SessionId,
    /// Where it lives (`desktop` by default; never `local`).
    pub source: String,
    /// Its bridge (required for `desktop`; allowed by the operator).
    pub desktop_url: Option<String>,
    /// Owner fields (the environment's identity filled in where the call names none).
    pub owner: Owner,
    /// The program's pid.
    pub pid: Option<u32>,
    /// Its working directory.
    pub cwd: Option<String>,
}

/// `unregister`.
#[derive(Debug, Clone)]
pub struct UnregisterArgs {
    /// The external session's id.
    pub session_id: crate::api::SessionId,
    /// Also remove a leader's.
    pub force: bool,
}

/// `update_ownership` and `rename`.
#[derive(Debug, Clone)]
pub struct OwnershipArgs {
    /// The session named.
    pub session: String,
    /// The fields to change (a `Some("")` clears one).
    pub owner: Owner,
}

/// `send_keys`.
#[derive(Debug, Clone)]
pub struct SendKeysArgs {
    /// The session.
    pub target: Target,
    /// The keys as given.
    pub keys: Vec<String>,
    /// Their bytes, in both cursor-key modes (checked like typed text).
    pub encoded: Encoded,
}

/// `wait_for`.
#[derive(Debug, Clone)]
pub struct WaitForArgs {
    /// The session.
    pub target: Target,
    /// The holder request (condition, pattern compiled once to check it, bounds).
    pub request: WaitForRequest,
    /// Strip escape codes from the output returned (default true).
    pub strip_ansi: bool,
}

/// `shell`: its checks are made here, and raised after the session is found, as always.
#[derive(Debug, Clone)]
pub struct ShellArgs {
    /// The session (a `SESSION:N` names its session).
    pub target: Target,
    /// The program to run instead of the session's shell.
    pub program: Deferred<Option<ProgramSpec>>,
    /// `cols` and `rows` when both are given (checked).
    pub size: Deferred<(Option<u16>, Option<u16>)>,
    /// How long to wait for the first prompt, when given (checked).
    pub ready_timeout_ms: Deferred<Option<u64>>,
}

/// `recording`.
#[derive(Debug, Clone)]
pub struct RecordingArgs {
    /// The session.
    pub target: Target,
    /// How to hand it over.
    pub format: super::evidence::RecFormat,
    /// Where to start: a marker's text or a time into the recording.
    pub from: Option<String>,
    /// Most characters returned (the end is kept).
    pub max_chars: Option<usize>,
}

/// `evidence`.
#[derive(Debug, Clone)]
pub struct EvidenceArgs {
    /// The session.
    pub target: Target,
    /// Where the pack's range starts: a marker's text or a time into the recording
    /// (default: the recording's start).
    pub from: Option<String>,
    /// A note kept in the manifest.
    pub note: Option<String>,
    /// The calling agent.
    pub agent_id: Option<String>,
}
