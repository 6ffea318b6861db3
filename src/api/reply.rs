//! One typed reply per action's success object. Their serde attributes produce the JSON the
//! seeds and the snapshots hold: field names, `null` where a value is unknown, and a field
//! left out (`Option<Option<_>>`, outer `None`) where the side that served the call cannot
//! know it (a bridge reports no screen). The JSON object itself is made only at the edges.

use crate::api::{BufferType, Completion, SessionState, TermMode, TerminalState};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// The `ok: true` of every success object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Success;

impl Serialize for Success {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }
}

/// Skip a field that is left out (outer `None`), keep a `null` (inner `None`).
fn absent<T>(v: &Option<T>) -> bool {
    v.is_none()
}

/// The cursor on the screen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Cursor {
    /// Line (0-based, from the top of the screen).
    pub line: u64,
    /// Column (0-based).
    pub col: u64,
}

/// What the screen looks like now (`screen` in `read`, `talk`, `list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Screen {
    /// Normal or alternate screen.
    pub buffer_type: BufferType,
    /// The window title a program set, if any.
    pub title: Option<String>,
    /// The cursor.
    pub cursor: Cursor,
}

/// One write's count in `send_line`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Written {
    /// Always true.
    pub ok: Success,
    /// Bytes that reached the terminal.
    pub bytes_written: u64,
}

impl Written {
    /// A write of `bytes_written` bytes.
    pub fn new(bytes_written: u64) -> Self {
        Self {
            ok: Success,
            bytes_written,
        }
    }
}

/// `send_line`: the line, then Enter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SendLineReply {
    /// Always true.
    pub ok: Success,
    /// The session typed into.
    pub session_id: String,
    /// The line's write.
    pub typed: Written,
    /// Enter's write.
    pub enter: Written,
}

/// `send_keys`: the keys pressed, as one write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SendKeysReply {
    /// Always true.
    pub ok: Success,
    /// The session typed into.
    pub session_id: String,
    /// The keys as given (with `literal`, the text).
    pub keys: Vec<String>,
    /// Bytes that reached the terminal.
    pub bytes_written: u64,
}

/// `POST /pty/write` (raw data, no Enter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteReply {
    /// Always true.
    pub ok: Success,
    /// The session typed into.
    pub session_id: String,
    /// Bytes that reached the terminal.
    pub bytes_written: u64,
}

/// `read`: raw output. Offsets are `null` when the session is bridged (a bridge has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadReply {
    /// Always true.
    pub ok: Success,
    /// The session read.
    pub session_id: String,
    /// The output (escape codes kept unless stripped).
    pub output: String,
    /// Bytes read.
    pub bytes_read: u64,
    /// False once the shell has ended.
    pub session_alive: bool,
    /// Absolute offset of the first byte returned.
    pub start_offset: Option<u64>,
    /// Where the next `read --since` continues.
    pub next_offset: Option<u64>,
    /// Bytes lost to the ring buffer before `since`.
    pub dropped: Option<u64>,
    /// The shell's exit code once it ended.
    pub exit_code: Option<i32>,
    /// The screen (left out for a bridged session).
    #[serde(skip_serializing_if = "absent")]
    pub screen: Option<Option<Screen>>,
    /// The terminal's state (left out for a bridged session).
    #[serde(skip_serializing_if = "absent")]
    pub terminal_state: Option<Option<TerminalState>>,
}

/// `talk` / `run`: one command's clean output, exit code and duration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TalkReply {
    /// Always true.
    pub ok: Success,
    /// The session it ran in.
    pub session_id: String,
    /// The clean output (the end kept when capped).
    pub output: String,
    /// The completion marker used.
    pub sentinel: String,
    /// The output as the terminal printed it (left out for a lean caller).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<String>,
    /// The command's exit code, when known.
    pub exit_code: Option<i64>,
    /// How long it ran.
    pub duration_ms: u64,
    /// How completion was detected.
    pub completion: Completion,
    /// True when output was cut (by the holder or by `max_chars`).
    pub truncated: bool,
    /// Absolute offset where the command's output starts (`null` through a bridge).
    pub start_offset: Option<u64>,
    /// Absolute offset where it ends (`null` through a bridge).
    pub end_offset: Option<u64>,
    /// The screen afterwards (left out for a bridged session).
    #[serde(skip_serializing_if = "absent")]
    pub screen: Option<Option<Screen>>,
    /// The terminal's state afterwards (left out for a bridged session).
    #[serde(skip_serializing_if = "absent")]
    pub terminal_state: Option<Option<TerminalState>>,
    /// Characters of `output` cut by `max_chars`.
    pub dropped_chars: u64,
    /// False when the talk returned before its command completed (it waits for input).
    pub completed: bool,
    /// The command is blocked reading the terminal: answer it with `send_line`, then
    /// `wait_for` or `read` its output.
    pub waiting_for_input: bool,
    /// With `waiting_for_input`: the line the program printed before reading (`name? `).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// With `waiting_for_input`: true when the terminal's echo is off (a password prompt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_off: Option<bool>,
    /// A forced talk found this text (redacted) on the shell's input line and cleared it
    /// (Ctrl-E Ctrl-U) before typing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleared_line: Option<String>,
    /// The evidence pack made around the command (`evidence: true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<String>,
    /// That pack: its folder, range, commands and files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Box<EvidenceReply>>,
}

/// `term_read`: the rendered screen. The common fields are typed; the rest depends on who
/// rendered it ([`TermView`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermReadReply {
    /// Always true.
    pub ok: Success,
    /// The session read.
    pub session_id: String,
    /// The mode used.
    pub mode: TermMode,
    /// The lines joined with `\n`.
    pub text: String,
    /// The lines.
    pub lines: Vec<String>,
    /// True when lines or characters were cut.
    pub truncated: bool,
    /// Characters cut.
    pub dropped_chars: u64,
    /// Cursor, marker and screen fields.
    #[serde(flatten)]
    pub view: TermView,
}

/// A `screenshot` reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScreenshotReply {
    /// Always true.
    pub ok: Success,
    /// The session.
    pub session_id: String,
    /// `svg`, `png` or `txt`.
    pub format: &'static str,
    /// The screen's size.
    pub cols: u16,
    pub rows: u16,
    /// The window title the program set.
    pub title: Option<String>,
    /// The image: an SVG document, a PNG image (in base64), or the screen's text.
    pub image: String,
    /// `base64` when `image` is binary (a PNG) written in base64; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<&'static str>,
}

/// The rest of a `term_read` reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TermView {
    /// Rendered by a local holder's screen model.
    Local(LocalView),
    /// What a bridge answered (an open shape: its own fields are passed on), with the
    /// fields kpty promises filled in (`null`, `normal`, `false`).
    Bridged(Map<String, Value>),
}

/// A local session's screen fields in `term_read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocalView {
    /// Cursor line.
    pub cursor_line: u64,
    /// Cursor column.
    pub cursor_col: u64,
    /// First visible line.
    pub viewport_y: u64,
    /// Terminal rows.
    pub rows: u64,
    /// Terminal columns.
    pub cols: u64,
    /// Normal or alternate screen.
    pub buffer_type: BufferType,
    /// Absolute number of the first line returned.
    pub first_line: u64,
    /// The marker for the next `delta`.
    pub marker_id: u64,
    /// The line the marker stands at.
    pub marker_line: u64,
    /// True when the previous marker was no longer known.
    pub marker_disposed: bool,
    /// The window title.
    pub title: Option<String>,
    /// The terminal's state.
    pub terminal_state: TerminalState,
    /// Lines of scrollback kept.
    pub scrollback: u64,
    /// `delta` only: lines that scrolled out before they could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_lost: Option<u64>,
    /// `delta` only: more lines wait beyond `max_lines`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<bool>,
}

/// `resize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResizeReply {
    /// Always true.
    pub ok: Success,
    /// The session resized.
    pub session_id: String,
    /// Columns the terminal now has (read back from the PTY).
    pub cols: u16,
    /// Rows the terminal now has (read back from the PTY).
    pub rows: u16,
}

/// `kill`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KillReply {
    /// Always true.
    pub ok: Success,
    /// The session ended.
    pub session_id: String,
    /// Always true.
    pub killed: bool,
    /// Its state before the kill.
    pub state_before: SessionState,
    /// The shell's exit code, when known.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when known.
    pub exit_signal: Option<String>,
    /// The shell PTYs (`SESSION:N`) ended with the session, absent when it had none running.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ended_ptys: Vec<String>,
}

#[cfg(test)]
#[path = "reply_tests.rs"]
mod tests;

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
    pub markers: Vec<super::evidence::Marker>,
    /// The recording: text, or asciicast v3 — redacted on agent channels.
    pub content: String,
    /// `max_chars` cut the start of `content`.
    pub truncated: bool,
    /// Characters cut.
    pub dropped_chars: u64,
}

/// An `evidence` reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    pub commands: Vec<super::evidence::PackCommand>,
    /// Its files with their hashes.
    pub files: Vec<super::evidence::PackFile>,
    /// The SHA-256 of its manifest (kept in the audit trail: `kpty evidence verify` checks
    /// the manifest against it).
    pub manifest_sha256: String,
}
