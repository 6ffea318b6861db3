//! What the actions that hand over what happened in a terminal speak of: `recording` (a
//! session's recording, as text or asciicast v3: its format, its markers) and `evidence` (a
//! pack in `evidence/<evidence_id>/`: its files, its commands). Their requests are in
//! [`super::request`], their replies in [`super::reply`].

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

/// A marker in a recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// Milliseconds from the recording's start.
    pub at_ms: u64,
    /// Its text (`talk by …: COMMAND`, `talk done: exit 0 in 12 ms`, `input from …`).
    pub text: String,
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
