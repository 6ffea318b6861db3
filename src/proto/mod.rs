//! The holder wire protocol: versioned, length-framed JSON messages over a Unix socket.
//! Wire types and framing here (no sockets); the blocking client in `client.rs`.
//!
//! Frame: 4-byte big-endian length, then that many bytes of JSON. Lengths above
//! `MAX_FRAME` are refused before the body is read. Every request and reply carries `v`
//! (the protocol version); unknown fields are ignored, unknown requests get an error reply.

pub mod attach;
pub mod client;
pub mod follow;
pub mod frame;
pub mod launch;
pub mod ptys;
pub mod request;
pub mod ring;
pub mod screen;
pub mod status_all;
pub mod wait;

pub use crate::api::Open;
pub use crate::api::sessions::ProcessStatus;
pub use request::{
    Call, CancelBody, CancelRequest, Done, KillRequest, ReadRequest, Request, ResizeBody,
    ResizeRequest, SetLabelRequest, SpecRequest, StatusRequest, TALK_ID_MAX, TalkRequest,
    TermReadRequest, WriteRequest,
};

use crate::api::{BufferType, Completion, Integration, ShellKind, TerminalState};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Protocol version spoken by this build.
pub const PROTOCOL_VERSION: u32 = 1;
/// Largest frame accepted in either direction (64 MiB).
const MAX_FRAME: usize = 64 << 20;

/// A request envelope: `{"v": 1, "req": {"op": …}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Envelope<R = Request> {
    /// Protocol version of the sender.
    pub v: u32,
    /// The request itself (an unknown op decodes to [`Request::Unknown`]).
    pub req: R,
}

/// The screen's state as `list`, `read` and `talk` report it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScreenInfo {
    /// `normal` or `alternate`.
    pub buffer_type: Open<BufferType>,
    /// The last OSC 0/2 title.
    pub title: Option<String>,
    /// The cursor: visible row (0-based) and column.
    pub cursor: CursorPos,
}

/// A cursor position on the visible screen (0-based).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CursorPos {
    /// Row.
    pub line: u64,
    /// Column.
    pub col: u64,
}

/// What `TermRead` returns (the core adds redaction and the final caps).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TermReadBody {
    /// The lines (soft wraps joined unless asked otherwise; trailing blanks trimmed).
    pub lines: Vec<String>,
    /// The character cap cut something.
    pub truncated: bool,
    /// Characters cut by the cap.
    pub dropped_chars: u64,
    /// Absolute line of the cursor (row on the alternate screen).
    pub cursor_line: u64,
    /// Cursor column.
    pub cursor_col: u64,
    /// Absolute line of the top visible row (0 on the alternate screen).
    pub viewport_y: u64,
    /// Rows.
    pub rows: u64,
    /// Columns.
    pub cols: u64,
    /// `normal` or `alternate`.
    pub buffer_type: Open<BufferType>,
    /// Absolute line of the first returned line.
    pub first_line: u64,
    /// The new marker.
    pub marker_id: u64,
    /// The absolute line it points at.
    pub marker_line: u64,
    /// The given marker's line had left the scrollback.
    pub marker_disposed: bool,
    /// Lines lost to the scrollback limit since the given marker.
    pub lines_lost: u64,
    /// Delta: more lines wait past the caps.
    pub more: bool,
    /// The last OSC 0/2 title.
    pub title: Option<String>,
    /// `prompt`, `running`, `full_screen` or `waiting_input`.
    pub terminal_state: Open<TerminalState>,
    /// Lines of scrollback the holder keeps.
    pub scrollback: u64,
    /// Redaction context: the text before the window that a secret or private-key block
    /// cut by the window's start spans (see [`crate::safety::redact::context_before`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_before: String,
    /// Redaction context: the rest of the line after the window's end.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_after: String,
    /// With `merge_wrapped: false`: for each line, true when the terminal soft-wrapped it
    /// into the next (redaction then reads them as one logical line). Empty from older
    /// holders and for merged reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wraps: Vec<bool>,
}

/// Hex digits in a holder's sentinel.
pub const SENTINEL_HEX: usize = 8;

/// A fresh `__KR_DONE_<hex>__` sentinel with `hex_digits` (at most 32) random hex digits:
/// the holder's and the bridge's completion marker.
pub fn new_sentinel(hex_digits: usize) -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("__KR_DONE_{}__", &hex[..hex_digits.min(hex.len())])
}

/// A progress frame's body during a `talk`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProgressBody {
    /// The output new since the previous progress frame, as clean text (the last 8 KiB of it
    /// at most; `skipped` says how many bytes before it were left out).
    pub output: String,
    /// Bytes of output so far.
    pub bytes: u64,
    /// Where `output` starts, in bytes of the command's output.
    pub offset: u64,
    /// New bytes left out before `output` (more than 8 KiB arrived since the last frame).
    pub skipped: u64,
    /// Time since the command was typed.
    pub elapsed_ms: u64,
    /// Redaction context: the output before `output` that a secret or private-key block
    /// cut by its start spans.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_before: String,
}

/// A reply envelope: `{v, ok: true, body}` or `{v, ok: false, error}`. The holder sends a
/// typed body (`Reply<StatusBody>` …); the client reads the body as raw JSON
/// (`Reply<Box<RawValue>>`, the default) and decodes it once into its call's reply type
/// (see [`client::into_result`]), or into a [`ProgressBody`] for a progress frame.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reply<B = Box<RawValue>> {
    /// Protocol version of the holder.
    pub v: u32,
    /// Success flag.
    pub ok: bool,
    /// The body on success (`null` in an error reply).
    #[serde(default = "none")]
    pub body: Option<B>,
    /// The error on failure.
    #[serde(default)]
    pub error: Option<Error>,
    /// True on an intermediate progress frame (the final reply follows).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub progress: bool,
}

fn none<B>() -> Option<B> {
    None
}

impl<B> Reply<B> {
    /// A success reply.
    pub fn ok(body: B) -> Self {
        Self {
            v: PROTOCOL_VERSION,
            ok: true,
            body: Some(body),
            error: None,
            progress: false,
        }
    }

    /// A failure reply.
    pub fn err(error: Error) -> Self {
        Self {
            v: PROTOCOL_VERSION,
            ok: false,
            body: None,
            error: Some(error),
            progress: false,
        }
    }
}

impl<'a> Reply<&'a ProgressBody> {
    /// An intermediate progress frame.
    pub fn progress(body: &'a ProgressBody) -> Self {
        Self {
            progress: true,
            ..Self::ok(body)
        }
    }
}

/// What `Status` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StatusBody {
    /// The shell's pid.
    pub pid: u32,
    /// The holder's pid.
    pub holder_pid: u32,
    /// True while the shell runs.
    pub alive: bool,
    /// Exit code once it ended.
    pub exit_code: Option<i32>,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// `osc133` or `sentinel`.
    pub integration: Open<Integration>,
    /// Shell family.
    pub shell_kind: Open<ShellKind>,
    /// Foreground process group leader, when it is not the shell.
    pub foreground_pid: Option<u32>,
    /// Its command name.
    pub foreground_command: Option<String>,
    /// True when the shell sits at a prompt (as far as its markers tell).
    pub at_prompt: bool,
    /// When the command running now started (RFC 3339), as the shell's markers tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_started_at: Option<String>,
    /// A `talk` is in progress.
    pub talking: bool,
    /// Talks waiting behind it to be let in (0 from older holders).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waiting_talks: u64,
    /// Absolute offset of the end of output.
    pub output_offset: u64,
    /// Holder protocol version.
    pub protocol_version: u32,
    /// kpty version of the holder.
    pub kpty_version: String,
    /// The screen (absent from holders without a screen model).
    pub screen: Option<ScreenInfo>,
    /// `prompt`, `running`, `full_screen` or `waiting_input` (absent from older holders).
    pub terminal_state: Option<Open<TerminalState>>,
    /// Clients attached now (`kpty attach`; 0 from older holders).
    #[serde(default)]
    pub attached: usize,
    /// The session's recording: `on`, `off`, or `stopped: WHY` (absent from older
    /// holders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
    /// A program session's lifecycle (`create --command`); absent for a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessStatus>,
    /// The id the holder serves (absent from older holders): a caller proves with it that
    /// the holder on a derived socket is the one it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// What `Write` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WriteBody {
    /// Bytes written.
    pub bytes_written: usize,
}

/// What `Read` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReadBody {
    /// The bytes as text (invalid UTF-8 → U+FFFD; never splits a character at the end).
    pub text: String,
    /// Absolute offset of the first returned byte.
    pub start_offset: u64,
    /// Offset to pass as `since` next time.
    pub next_offset: u64,
    /// Bytes requested with `since` that had already left the ring.
    pub dropped: u64,
    /// Bytes returned.
    pub bytes_read: usize,
    /// True while the shell runs.
    pub alive: bool,
    /// Exit code once it ended.
    pub exit_code: Option<i32>,
    /// The screen (absent from older holders).
    pub screen: Option<ScreenInfo>,
    /// `prompt`, `running`, `full_screen` or `waiting_input` (absent from older holders).
    pub terminal_state: Option<Open<TerminalState>>,
    /// Redaction context: the text before the window that a secret or private-key block
    /// cut by the window's start spans (see [`crate::safety::redact::context_before`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_before: String,
    /// Redaction context: the rest of the line after the window's end.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_after: String,
}

/// What `Talk` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TalkBody {
    /// The command's own output bytes (between the start and end markers), as text.
    pub output_raw: String,
    /// Everything the terminal printed during the talk, as text.
    pub raw_output: String,
    /// The command's exit status.
    pub exit_code: Option<i32>,
    /// `osc133` or `sentinel`.
    pub completion: Open<Completion>,
    /// The sentinel (typed for the sentinel method; the talk's id otherwise).
    pub sentinel: String,
    /// Wall time from typing to completion.
    pub duration_ms: u64,
    /// Output past the capture cap was dropped.
    pub truncated: bool,
    /// Absolute offset where the talk's output starts in the session stream.
    pub start_offset: u64,
    /// Absolute offset after the talk.
    pub end_offset: u64,
    /// The screen after the talk (absent from older holders).
    pub screen: Option<ScreenInfo>,
    /// `prompt`, `running`, `full_screen` or `waiting_input` after the talk (absent from
    /// older holders).
    pub terminal_state: Option<Open<TerminalState>>,
    /// The talk returned before its command completed: the command waits for input.
    pub waiting_for_input: bool,
    /// With `waiting_for_input`: the line the program printed before reading.
    pub prompt: Option<String>,
    /// With `waiting_for_input`: the terminal's echo is off (a password prompt).
    pub echo_off: bool,
    /// A forced talk found text on the shell's input line and cleared it before typing:
    /// that text (redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleared_line: Option<String>,
}

/// What `Kill` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KillBody {
    /// The shell's exit code.
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub exit_signal: Option<String>,
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod wire_tests;

fn is_zero(n: &u64) -> bool {
    *n == 0
}
