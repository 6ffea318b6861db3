//! The replies of the actions that hand over what happened in a terminal: `recording` (a
//! session's recording, as text or asciicast v3) and `evidence` (a pack in
//! `evidence/<evidence_id>/`), and the requests they take.

use super::reply::Success;
use super::request::Target;
use serde::{Deserialize, Serialize};

/// How `recording` hands the recording over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecFormat {
    /// The output as text, every line as it was left (the default).
    #[default]
    Txt,
    /// asciicast v3 (segments joined).
    Cast,
}

impl RecFormat {
    /// Every format, as `format` names them.
    pub const NAMES: [&'static str; 2] = ["txt", "cast"];

    /// The name `format` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            RecFormat::Txt => "txt",
            RecFormat::Cast => "cast",
        }
    }

    /// The format `name` names.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "txt" => Some(RecFormat::Txt),
            "cast" => Some(RecFormat::Cast),
            _ => None,
        }
    }
}

/// `recording`.
#[derive(Debug, Clone)]
pub struct RecordingArgs {
    /// The session.
    pub target: Target,
    /// How to hand it over.
    pub format: RecFormat,
    /// Where to start: a marker's text or a time into the recording.
    pub from: Option<String>,
    /// Most characters returned (the end is kept).
    pub max_chars: Option<usize>,
}

/// A marker in a recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// Milliseconds from the recording's start.
    pub at_ms: u64,
    /// Its text (`talk by …: COMMAND`, `talk done: exit 0 in 12 ms`, `input from …`).
    pub text: String,
}

/// A `recording` reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordingReply {
    /// Always true.
    pub ok: Success,
    /// The PTY recorded.
    pub session_id: String,
    /// `txt` or `cast`.
    pub format: &'static str,
    /// Its segments on disk.
    pub segments: usize,
    /// Their size in bytes.
    pub bytes: u64,
    /// How long it lasts (from `from`, when given).
    pub duration_ms: u64,
    /// Its markers, in order (from `from`, when given; at most 500, the last kept).
    pub markers: Vec<Marker>,
    /// The recording: text, or asciicast v3 — redacted on agent channels.
    pub content: String,
    /// `max_chars` cut the start of `content`.
    pub truncated: bool,
    /// Characters cut.
    pub dropped_chars: u64,
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

/// One file of a pack, as its manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackFile {
    /// Its name in the pack's folder.
    pub name: String,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, hex.
    pub sha256: String,
}

/// A command a pack's range holds (from the recording's `talk` markers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackCommand {
    /// The command, redacted.
    pub command: String,
    /// Who ran it.
    pub by: String,
    /// Its exit code, when it finished with one.
    pub exit_code: Option<i32>,
    /// How long it took, when it finished.
    pub duration_ms: Option<u64>,
    /// Milliseconds into the recording when it was typed.
    pub at_ms: u64,
}

/// An `evidence` reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvidenceReply {
    /// Always true.
    pub ok: Success,
    /// The pack's id.
    pub evidence_id: String,
    /// The session it is about.
    pub session_id: String,
    /// Its folder.
    pub path: String,
    /// The range it covers (RFC 3339).
    pub from: String,
    /// The end of the range (RFC 3339).
    pub to: String,
    /// The commands in the range.
    pub commands: Vec<PackCommand>,
    /// Its files with their hashes.
    pub files: Vec<PackFile>,
    /// The SHA-256 of its manifest (kept in the audit trail: `kpty evidence verify` checks
    /// the manifest against it).
    pub manifest_sha256: String,
}
