//! The requests a client sends a holder: one struct per request, each naming the body its
//! reply carries ([`Call::Reply`]), and the [`Request`] enum they travel in
//! (`{"op": …, fields…}`). An op this build does not know decodes to [`Request::Unknown`], so
//! a holder answers a newer client's request with an "unknown request" error reply.

use super::attach::{AttachBody, AttachRequest};
use super::follow::FollowRequest;
use super::launch::HolderSpec;
use super::wait::{WaitForBody, WaitForRequest};
use super::{KillBody, ReadBody, StatusBody, TalkBody, TermReadBody, WriteBody};
use crate::api::queries::yes;

pub use crate::api::queries::TermReadRequest;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A request that names its reply: what the client decodes the holder's answer into.
pub trait Call {
    /// The reply's body.
    type Reply: DeserializeOwned;
    /// The request's `op`, as errors name it.
    const OP: &'static str;
    /// The request as it travels.
    fn into_request(self) -> Request;
    /// Whether the client closes its side of the connection for writing once the request is
    /// sent (`shutdown(SHUT_WR)`): the holder, having replied, then finds the end of the
    /// connection at once instead of sleeping until the client closes it — one wake-up
    /// fewer on each side, per call. Not for a request after which the client still writes
    /// (attach's keys) or whose hang-up the holder watches (`wait_for`, `follow`).
    const HALF_CLOSE: bool = true;
}

/// Requests a client may send to a holder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Liveness and state ([`StatusRequest`]).
    Status,
    /// Type bytes ([`WriteRequest`]).
    Write(WriteRequest),
    /// Read output ([`ReadRequest`]).
    Read(ReadRequest),
    /// Run a command and wait for completion.
    Talk(TalkRequest),
    /// Change the terminal size.
    Resize(ResizeRequest),
    /// Hang up the shell and end the holder.
    Kill(KillRequest),
    /// Stop the talk in progress.
    Cancel(CancelRequest),
    /// Read the terminal screen (`term_read`). Holders older than this variant answer an
    /// "unknown request" error.
    TermRead(TermReadRequest),
    /// Wait until output matches a pattern, goes quiet, or the shell is at its prompt
    /// (`wait_for`). Older holders answer an "unknown request" error.
    WaitFor(WaitForRequest),
    /// Join the terminal as a person's client: answered with an [`AttachBody`], then the
    /// connection carries [`super::attach::Frame`]s both ways. Older holders answer an
    /// "unknown request" error.
    Attach(AttachRequest),
    /// Stream the output as it arrives (a [`FollowRequest`]): the connection carries one
    /// reply frame per piece of output until the shell ends or the client leaves. Older
    /// holders answer an "unknown request" error.
    Follow(FollowRequest),
    /// The [`HolderSpec`] this holder was started with ([`SpecRequest`]). Older holders
    /// answer an "unknown request" error.
    Spec,
    /// The session's new label ([`SetLabelRequest`]). Older holders answer an "unknown
    /// request" error.
    SetLabel(SetLabelRequest),
    /// The visible screen with its colours ([`super::screen::ScreenRequest`]). Older holders
    /// answer an "unknown request" error.
    Screen(super::screen::ScreenRequest),
    /// Answered once what the session's recording had queued is on disk
    /// ([`RecordSyncRequest`]). Older holders answer an "unknown request" error.
    RecordSync(RecordSyncRequest),
    /// An op this build does not know (a newer client's): answered with an "unknown
    /// request" error. Never sent.
    #[serde(other)]
    Unknown,
}

/// `Status`: liveness and state.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StatusRequest;

/// `Spec`: the [`HolderSpec`] this holder was started with — the session's shell, cwd,
/// environment and sandbox — for opening a shell PTY beside it (`shell`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SpecRequest;

/// `Write`: type bytes (already escape-processed and checked by the core); the holder checks
/// them again against what earlier writes left on the line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WriteRequest {
    /// Text to write.
    pub data: String,
    /// Enter follows in a separate write (`send_line`): check the text as if submitted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enter_follows: bool,
    /// The same input as typed in application cursor-key mode (DECCKM), when it differs
    /// (`send_keys` with arrows, Home, End): the holder types it instead of `data` while a
    /// program has that mode set. Older holders ignore it and type `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_cursor: Option<String>,
    /// Who writes (`agent claude-1 via mcp`, `cli` …), for the recording's markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// `Read`: output from the ring.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadRequest {
    /// Absolute offset to read from; `None` = the most recent `max_bytes`.
    #[serde(default)]
    pub since: Option<u64>,
    /// Most bytes to return.
    pub max_bytes: usize,
    /// Wait this long for data when there is none yet.
    pub timeout_ms: u64,
    /// Also send the redaction context around the window (only a caller that redacts
    /// needs it; older clients never ask).
    #[serde(default)]
    pub context: bool,
}

/// `Resize`: change the terminal size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ResizeRequest {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// `Kill`: hang up the shell and end the holder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KillRequest {
    /// How long to wait after SIGHUP before SIGKILL.
    #[serde(default = "default_grace")]
    pub grace_ms: u64,
}

/// `Cancel`: stop the talk in progress (it answers `CANCELLED`); with `interrupt`, also type
/// Ctrl-C so the command itself stops and the session is free again. With `talk_id`, only the
/// talk of that id is stopped — running, or waiting for another talk to end (it then never
/// types) —, never another caller's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CancelRequest {
    /// Type Ctrl-C into the terminal too.
    #[serde(default)]
    pub interrupt: bool,
    /// With `interrupt`: wait up to this long for the prompt the interrupt brings before
    /// answering.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub settle_ms: u64,
    /// The talk to stop (its [`TalkRequest::talk_id`]); `None` (an older client): whichever
    /// talk runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub talk_id: Option<String>,
}

/// `SetLabel`: the session's new label (`rename`, `update_ownership`), for its
/// `metadata.json`: the registry is changed first, this keeps the holder's copy in step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetLabelRequest {
    /// The label; `None` clears it.
    pub label: Option<String>,
}

/// The `talk` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TalkRequest {
    /// The command (escape-processed, checked).
    pub command: String,
    /// Force the sentinel method with this marker.
    #[serde(default)]
    pub sentinel: Option<String>,
    /// Give up after this long.
    pub timeout_ms: u64,
    /// Send progress frames (the output so far) at most this often; none when absent.
    #[serde(default)]
    pub progress_ms: Option<u64>,
    /// Return `raw_output` (everything the terminal printed); false leaves it empty.
    #[serde(default = "yes")]
    pub raw: bool,
    /// Type even when another program holds the foreground (a nested shell), completing
    /// with a POSIX sentinel.
    #[serde(default)]
    pub force: bool,
    /// A file (a FIFO) the command reads as its standard input instead of the terminal: the
    /// CLI's piped stdin, as `ssh host CMD < file` forwards it. POSIX shells and fish only;
    /// ignored by other shells and forced (nested-shell) talks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Who talks, for the recording's markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The caller's name for this talk, unique to it (at most [`TALK_ID_MAX`] bytes): what
    /// its `Cancel` names, so that a cancel stops this talk and no other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub talk_id: Option<String>,
}

/// The longest [`TalkRequest::talk_id`] a holder takes.
pub const TALK_ID_MAX: usize = 64;

/// What `Resize` returns: the size the terminal really has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResizeBody {
    /// Columns (absent only from a holder that never said).
    pub cols: Option<u16>,
    /// Rows.
    pub rows: Option<u16>,
}

/// What `Cancel` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CancelBody {
    /// A talk was running and is cancelled (`false`: none was running yet).
    pub cancelled: bool,
    /// With `interrupt`: the shell is back at its prompt.
    pub at_prompt: bool,
    /// The talk had not typed its command yet: it never will, and no Ctrl-C was typed —
    /// nothing of it ran (`false` from holders that do not say).
    pub untyped: bool,
}

/// `RecordSync`: wait (up to `timeout_ms`) until the recording's queue, as it stands, is
/// written (an evidence pack reads the recording right after).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordSyncRequest {
    /// The longest wait.
    pub timeout_ms: u64,
}

/// What `SetLabel` returns: nothing but success (`{}`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Done {}

/// `Call` for a request struct carried by a newtype variant of [`Request`].
macro_rules! call {
    ($req:ty => $variant:ident, $reply:ty, $op:literal) => {
        call!($req => $variant, $reply, $op, true);
    };
    ($req:ty => $variant:ident, $reply:ty, $op:literal, $half_close:literal) => {
        impl Call for $req {
            type Reply = $reply;
            const OP: &'static str = $op;
            const HALF_CLOSE: bool = $half_close;
            fn into_request(self) -> Request {
                Request::$variant(self)
            }
        }
    };
}

call!(WriteRequest => Write, WriteBody, "write");
call!(ReadRequest => Read, ReadBody, "read");
call!(TalkRequest => Talk, TalkBody, "talk");
call!(ResizeRequest => Resize, ResizeBody, "resize");
call!(KillRequest => Kill, KillBody, "kill");
call!(CancelRequest => Cancel, CancelBody, "cancel");
call!(TermReadRequest => TermRead, TermReadBody, "term_read");
call!(WaitForRequest => WaitFor, WaitForBody, "wait_for", false);
call!(AttachRequest => Attach, AttachBody, "attach", false);
call!(FollowRequest => Follow, ReadBody, "follow", false);
call!(SetLabelRequest => SetLabel, Done, "set_label");
call!(super::screen::ScreenRequest => Screen, super::screen::ScreenBody, "screen");
call!(RecordSyncRequest => RecordSync, Done, "record_sync");

impl Call for StatusRequest {
    type Reply = StatusBody;
    const OP: &'static str = "status";
    fn into_request(self) -> Request {
        Request::Status
    }
}

impl Call for SpecRequest {
    type Reply = HolderSpec;
    const OP: &'static str = "spec";
    fn into_request(self) -> Request {
        Request::Spec
    }
}

fn default_grace() -> u64 {
    1000
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
