//! The action contract shared by both front ends: the action names, one flat parameter struct
//! (the shape of the MCP tool's input and of the CLI's flags), the closed sets as enums, one
//! typed reply per action, defaults and caps, session ids.
//! Below `store`, `proto` and `core`: of kpty it imports only `error` and the leaves
//! `launch` and `keys`.

pub mod batch;
pub mod check;
pub mod config;
pub mod evidence;
pub mod help;
pub mod http;
pub mod ids;
pub mod kinds;
pub mod open;
pub mod params;
pub mod queries;
pub mod reply;
pub mod request;
pub mod sessions;
pub mod suggest;
pub mod wait;

pub use ids::SessionId;
pub use kinds::{
    BufferType, CheckVerdict, CheckedAs, Completion, Integration, OwnerRole, ProcessState,
    SessionState, ShellKind, TermMode, TerminalState, UnknownValue, WaitReason,
};
pub use open::Open;
pub use params::{Action, Params};

/// Default terminal width (`KPTY_COLS`).
pub const DEFAULT_COLS: u16 = 120;
/// The widest terminal accepted.
pub const MAX_COLS: u16 = 1000;
/// The tallest terminal accepted.
pub const MAX_ROWS: u16 = 1000;
/// Default terminal height (`KPTY_ROWS`).
pub const DEFAULT_ROWS: u16 = 30;
/// Default `talk` timeout in ms (`KPTY_TIMEOUT_MS`).
const DEFAULT_TALK_TIMEOUT_MS: u64 = 30_000;
/// Default `read` wait in ms.
pub const DEFAULT_READ_TIMEOUT_MS: u64 = 5_000;
/// Default `read` size.
pub const DEFAULT_READ_MAX_BYTES: usize = 4096;
/// Largest `read` size.
pub const MAX_READ_BYTES: usize = 1 << 20;
/// Default ring-buffer size in bytes (`KPTY_BUFFER_SIZE`).
const DEFAULT_BUFFER_SIZE: usize = 102_400;
/// Default screen scrollback in lines (`KPTY_SCROLLBACK`, or `create`'s `scrollback`).
const DEFAULT_SCROLLBACK: usize = 10_000;
/// Largest screen scrollback accepted.
pub const MAX_SCROLLBACK: usize = 1_000_000;
/// Largest accepted command or line, in bytes.
pub const MAX_INPUT_BYTES: usize = 1 << 20;
/// Largest timeout accepted (1 hour).
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
