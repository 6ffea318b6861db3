//! The replies that describe sessions: one session as `list`, `resolve`, `register` and
//! `update_ownership` show it ([`SessionView`]), `list`, `create`, and the routing and
//! registration replies. The registry entry's own shape belongs to the store: these types
//! are generic over it (`E`) and flatten it, so that `api` imports nothing of kpty's.

use crate::api::reply::{Screen, SendLineReply, Success};
use crate::api::{SessionState, ShellKind, TerminalState};
use serde::Serialize;

/// One session: its registry entry, its state, and what its holder said.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionView<E> {
    /// The registry entry (id, source, owner fields, label, shell …).
    #[serde(flatten)]
    pub entry: E,
    /// Its state as far as can be told.
    pub state: SessionState,
    /// What the probe learned, when it learned something.
    #[serde(flatten)]
    pub live: Option<Live>,
    /// An external entry this user's kpty did not seal: shown, never routed to.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untrusted: bool,
    /// A session with shells opened beside its program (`shell`): every PTY, PTY 0 first;
    /// absent for a session that never had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptys: Option<Vec<PtyView>>,
}

/// One PTY of a session as `list` shows it (seed 002 §8.2, §8.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PtyView {
    /// Its number: 0 for the session's shell or program, 1, 2 … for shells beside it.
    pub pty: u32,
    /// How to name it: `SESSION:N` (the session id for PTY 0).
    pub address: String,
    /// Its process's pid.
    pub pid: Option<u32>,
    /// `running`, `exited` (see `exit_code`) or `dead`.
    pub state: SessionState,
    /// Clients attached now (`kpty attach`).
    pub attached: usize,
    /// How it ended, once it has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The program it runs (`shell --command`), absent for a shell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// `shell`: a shell PTY opened beside a session's program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShellReply {
    /// Always true.
    pub ok: Success,
    /// The session it belongs to.
    pub session_id: String,
    /// Its number (1, 2 …).
    pub pty: u32,
    /// How to name it wherever a session is named: `SESSION:N`.
    pub address: String,
    /// The shell (or `command`'s program) started.
    pub shell: String,
    /// Its working directory: the session's.
    pub cwd: String,
    /// Its process's pid.
    pub pid: Option<u32>,
    /// Its holder's pid.
    pub holder_pid: Option<u32>,
    /// How completion is detected (`osc133` or `sentinel`).
    pub integration: Option<String>,
    /// The Landlock sandbox confining it: the session's, `null` for none.
    pub sandbox: Option<crate::launch::Policy>,
    /// The program run instead of a shell (`command`), absent for a shell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::launch::ProgramSpec>,
}

/// What a probe learned of a session beyond its state.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Live {
    /// The holder answered (its shell's pid goes into the entry).
    Running(Box<Running>),
    /// The shell ended.
    Exited {
        /// Its exit code, when known.
        exit_code: Option<i32>,
        /// The signal that ended it, when known.
        exit_signal: Option<String>,
    },
    /// The holder did not answer in time: why.
    Unresponsive {
        /// What went wrong.
        problem: String,
    },
}

/// A running session's terminal, as its holder reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Running {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// How completion is detected (`osc133` or `sentinel`).
    pub integration: String,
    /// The shell waits at its prompt.
    pub at_prompt: bool,
    /// A command or program runs.
    pub busy: bool,
    /// The foreground program, when not the shell.
    pub foreground_command: Option<String>,
    /// When the command running now started (RFC 3339; shells with integration only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_started_at: Option<String>,
    /// Bytes of output so far.
    pub output_offset: u64,
    /// People attached now (`kpty attach`).
    pub attached: usize,
    /// Talks waiting for the running one to end, to be let in (left out when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub waiting_talks: u64,
    /// The session's recording: `on`, `off` or `stopped: WHY` (absent from holders older
    /// than recordings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
    /// A program session's lifecycle (`create --command`): state, restart_count,
    /// last_exit_code; absent for a shell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessStatus>,
    /// The terminal's own state (left out when the holder has no screen model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_state: Option<TerminalState>,
    /// The screen (left out when the holder has no screen model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<Screen>,
}

/// Sessions counted by where they live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct BySource {
    /// Held by kpty holders here.
    pub local: usize,
    /// Registered desktop sessions.
    pub desktop: usize,
}

/// `list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListReply<E> {
    /// Always true.
    pub ok: Success,
    /// Every session, oldest first.
    pub sessions: Vec<SessionView<E>>,
    /// How many.
    pub count: usize,
    /// How many of each source.
    pub by_source: BySource,
    /// The state directory listed.
    pub state_dir: String,
}

/// `resolve`, `register` and `update_ownership`: the session acted on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolveReply<E> {
    /// Always true.
    pub ok: Success,
    /// The session's id.
    pub session_id: String,
    /// The session.
    pub session: SessionView<E>,
}

/// `send_line_to_agent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SendLineToAgentReply<E> {
    /// Always true.
    pub ok: Success,
    /// The session the identity resolved to.
    pub resolved_session_id: String,
    /// That session.
    pub resolved_session: SessionView<E>,
    /// The `send_line` reply.
    pub send_result: SendLineReply,
}

/// `unregister`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnregisterReply {
    /// Always true.
    pub ok: Success,
    /// The session named.
    pub session_id: String,
    /// False when it was not registered (any more).
    pub unregistered: bool,
}

/// `heartbeat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeartbeatReply {
    /// Always true.
    pub ok: Success,
    /// The session.
    pub session_id: String,
    /// The heartbeat recorded (RFC 3339).
    pub last_heartbeat: String,
}

/// A local session `prune` found ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ended {
    /// The session.
    pub session_id: String,
    /// `dead` or `exited`.
    pub state: SessionState,
    /// Its label.
    pub label: Option<String>,
}

/// `prune`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PruneReply {
    /// Always true.
    pub ok: Success,
    /// Registered sessions removed (no heartbeat for 7 days).
    pub pruned: Vec<String>,
    /// Ended local sessions removed (with `force`).
    pub pruned_local: Vec<String>,
    /// Ended local sessions found.
    pub ended_local: Vec<Ended>,
    /// Sessions whose folder (`sessions/<id>/`: buffer, events, metadata) was removed (with
    /// `force`): the pruned ended ones and earlier killed ones.
    pub removed_files: Vec<String>,
}

/// `create`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreateReply {
    /// Always true.
    pub ok: Success,
    /// The new session's id.
    pub session_id: String,
    /// The shell started.
    pub shell: String,
    /// Its working directory.
    pub cwd: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Lines of scrollback kept.
    pub scrollback: usize,
    /// The shell's pid.
    pub pid: Option<u32>,
    /// The holder's pid.
    pub holder_pid: Option<u32>,
    /// Its label.
    pub label: Option<String>,
    /// Always `local`.
    pub source: &'static str,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// How completion is detected (`osc133` or `sentinel`).
    pub integration: Option<String>,
    /// The kind of shell.
    pub shell_kind: Option<ShellKind>,
    /// The Landlock sandbox confining the session (`create --sandbox`), `null` for none.
    pub sandbox: Option<crate::launch::Policy>,
    /// The input filter on remote writes (`input_filter`), absent when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_filter: Option<crate::launch::FilterSpec>,
    /// The program run instead of a shell (`command`), absent for a shell session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::launch::ProgramSpec>,
}

/// A program's lifecycle (seed 002 §8.5) as `list` and `metadata.json` show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ProcessStatus {
    /// `running`, `restarting` (waiting its restart delay) or `dead` (ended for good).
    pub state: crate::api::Open<crate::api::ProcessState>,
    /// Times it was started again.
    pub restart_count: u32,
    /// How it last exited.
    pub last_exit_code: Option<i32>,
    /// The signal that last ended it.
    pub last_exit_signal: Option<String>,
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;

fn is_zero(n: &u64) -> bool {
    *n == 0
}
