//! The live session inside a holder: shared state behind one mutex and condvar, the reader
//! thread that drains the PTY (ring buffer, markers, talk capture), the waiter thread that
//! records the exit status (the requests' answers are in `requests.rs` and `talk.rs`). Waits
//! are on the condvar with a deadline, woken by new output or exit — never a poll loop.

use super::completion::TalkState;
use super::exit::ExitInfo;
use super::exit::Lifecycle;
use super::filter_cell::Filter;
use super::markers::{MarkKind, MarkerScanner};
use super::restarter::Restarter;
use super::screen::Screen;
use super::shell::{Integration, ShellKind};
use super::submitted::Submitted;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::ring::Ring;
use crate::safety::{Opacity, Typing};
use portable_pty::MasterPty;
use std::io::{Read, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Feed `chunk` (at absolute offset `off`) to `screen`, answering the terminal queries in it
/// with `answer`; returns, for each input-start marker among `marks` that ends in the chunk,
/// its end offset and where the cursor was just after it (where the input line starts).
fn feed_screen(
    screen: &mut Screen,
    chunk: &[u8],
    off: u64,
    marks: &[super::markers::Mark],
    answer: impl Fn(Vec<u8>),
) -> Vec<(u64, Option<(u64, usize)>)> {
    let mut answers = Vec::new();
    let mut at = 0;
    let mut inputs = Vec::new();
    for m in marks.iter().filter(|m| m.kind == MarkKind::InputStart) {
        let Some(end) = m.end.checked_sub(off).and_then(|e| usize::try_from(e).ok()) else {
            continue;
        };
        let end = end.min(chunk.len());
        screen.feed_answering(&chunk[at.min(end)..end], &mut answers);
        at = end;
        inputs.push((m.end, screen.cursor_point()));
    }
    screen.feed_answering(&chunk[at.min(chunk.len())..], &mut answers);
    if !answers.is_empty() {
        answer(answers);
    }
    inputs
}

/// A notice one attached client asked the holder to show the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Its number.
    pub seq: u64,
    /// The client that sent it.
    pub from: u64,
    /// The text (no control characters, at most 200: [`crate::proto::attach::notice_text`]).
    pub text: String,
}

/// An attached client's terminal size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientSize {
    /// The client's id (unique in this holder).
    pub id: u64,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Whether its size counts toward the terminal's (a web client's counts only once it sent
    /// one).
    pub sized: bool,
}

/// Mutable state, behind [`Shared::state`].
#[derive(Debug)]
pub struct State {
    /// The output ring.
    pub ring: Ring,
    /// The terminal-emulator screen, fed the same bytes as the ring.
    pub screen: Screen,
    /// Lines of scrollback the screen keeps.
    pub scrollback: usize,
    scanner: MarkerScanner,
    /// Completion method in force.
    pub integration: Integration,
    /// A prompt marker has been seen since the last output-start marker.
    pub at_prompt: bool,
    /// Any prompt marker was ever seen.
    pub prompt_seen: bool,
    /// An input-start marker (end of prompt) was ever seen.
    pub input_seen: bool,
    /// Any output was ever seen.
    pub output_seen: bool,
    /// When output last arrived.
    pub last_output: Instant,
    /// When kpty last typed into the terminal.
    pub last_input: Instant,
    /// The line kpty last submitted (typed an Enter into), until the shell answers it.
    pub(super) submitted: Option<Submitted>,
    /// The end of output when kpty last typed into the terminal: where `wait_for` looks
    /// from by default, so output caused by that input counts however fast it came.
    pub input_offset: u64,
    /// When the last prompt (or command-finished) marker arrived (`wait_for` prompt).
    pub prompt_at: Option<Instant>,
    /// When the command running now started (its output-start marker); `None` at the prompt
    /// and without shell integration.
    pub command_since: Option<std::time::SystemTime>,
    /// Since when the shell has been away from a drawn prompt: a command started (C), or one
    /// finished (D) and its prompt (A or B) is not drawn yet; `None` at the prompt.
    pub(super) away_since: Option<Instant>,
    /// This shell draws a prompt after a command finished (an A or B came after a D), so a
    /// D without its prompt yet means the prompt is on its way (or the shell is exiting).
    pub(super) prompt_follows: bool,
    /// The prompt is drawn and the shell reads its input line: when the input-start marker
    /// (B) arrived, cleared by the next prompt-start, output-start or finished marker.
    pub input_ready: Option<Instant>,
    /// Where that input line starts on the screen (absolute line, column), while
    /// [`Self::input_ready`] and the screen has not been resized since.
    pub input_at: Option<(u64, usize)>,
    /// The talk in progress, if any (or an interrupted one's aftermath).
    pub(super) talk: TalkState,
    /// The talks that wait to be let in (another runs, or the shell is not ready yet).
    pub(super) queued: super::queue::Queue,
    /// The shell ended.
    pub exit: Option<ExitInfo>,
    /// The PTY reader hit EOF.
    pub eof: bool,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Output not yet persisted.
    pub dirty: bool,
    /// A kill was requested.
    pub killed: bool,
    /// Connections with a request being served, or a first one still to come (see
    /// `server::handle`): what an exiting holder waits for.
    pub open_connections: usize,
    /// Connections waiting for a next request (kept by a client between its calls), by
    /// number, with a handle to end them when the holder stops listening.
    pub idle_connections: Vec<(u64, std::sync::Arc<std::os::unix::net::UnixStream>)>,
    /// The number the next connection gets.
    pub next_connection: u64,
    /// The size `create` or `resize` set (the terminal's size when nobody is attached).
    pub base_size: (u16, u16),
    /// The size a `resize` asked for while clients were attached: it wins over theirs until a
    /// client resizes, attaches or leaves.
    pub asked_size: Option<(u16, u16)>,
    /// The attached clients' sizes (`kpty attach`).
    pub clients: Vec<ClientSize>,
    /// The last attached client's id.
    pub next_client: u64,
    /// Notices for the people attached ([`crate::proto::attach::Frame::Notice`]): the last
    /// few, numbered, with the client that sent each (it is not sent its own).
    pub notices: std::collections::VecDeque<Notice>,
    /// The number of the last notice.
    pub notice_seq: u64,
    /// The last redraw made for a client that was resynchronised (a flood), shared with the
    /// others for a moment (`holder::attach`).
    pub redrawn: Option<Redrawn>,
    /// A program session's lifecycle (`create --command`); `None` for a shell.
    pub program: Option<Lifecycle>,
    /// The label set since the start (`rename`), for metadata.json; `None`: unchanged.
    pub label: Option<Option<String>>,
}

/// A redraw of the screen as it stood at an output offset.
#[derive(Debug)]
pub struct Redrawn {
    /// The output offset the screen stood at.
    pub at: u64,
    /// When it was made.
    pub made: Instant,
    /// The redraw.
    pub bytes: std::sync::Arc<[u8]>,
}

/// How much a session keeps.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Ring-buffer bytes.
    pub buffer_size: usize,
    /// Screen scrollback lines.
    pub scrollback: usize,
}

/// Everything the holder's threads share.
pub struct Shared {
    /// The state.
    pub state: Mutex<State>,
    /// Signalled on output, markers, exit, talk end.
    pub cond: Condvar,
    /// Signalled on everything [`Self::cond`] is except plain output (markers, exit, talk
    /// end, cancel): a talk that waits for its completion marker sleeps through a burst of
    /// output instead of waking once per chunk.
    pub events: Condvar,
    /// Signalled only when the shell has exited: for threads that wait for nothing else
    /// (the main thread, the debounced saver), so a burst of output does not wake them
    /// once per chunk.
    pub ended: Condvar,
    writer: Mutex<Box<dyn Write + Send>>,
    /// The PTY master (its size, its foreground process group).
    pub(super) master: Mutex<Box<dyn MasterPty + Send>>,
    /// The shell's (or program's) pid, also its process group; it changes when a program
    /// is restarted (see [`Shared::pid`]).
    pid: std::sync::atomic::AtomicU32,
    /// The shell family.
    pub kind: ShellKind,
    /// The session id (for messages).
    pub session_id: String,
    /// The shell edits its input line with readline-style keys (not dash's bare tty).
    pub line_editor: bool,
    /// What earlier writes left on the shell's line, for checking the next write. Taken
    /// before (never while holding) [`Self::state`]; the reader thread never takes it.
    pub(super) typing: Mutex<Typing>,
    /// The typed text judged lately, by the typing state it was judged in (taken after
    /// `typing`, never before it).
    pub(super) judged: Mutex<crate::safety::Judged>,
    /// Held while the terminal's size is worked out and set, so concurrent changes (a
    /// `resize`, clients attaching and leaving) apply in one order.
    pub(super) sizing: Mutex<()>,
    /// The input filter on remote writes, when the session has one (set once, at start).
    pub filter: std::sync::OnceLock<Filter>,
    /// How to start a program session's program again (`--auto-restart`; set once).
    pub restarter: std::sync::OnceLock<Restarter>,
    /// Where the reader thread hands the answers to terminal queries (set once, at start).
    pub answers: std::sync::OnceLock<std::sync::mpsc::SyncSender<Vec<u8>>>,
    /// What the holder was started with, for shells opened beside it (set once, at start).
    pub spec: std::sync::OnceLock<crate::proto::launch::HolderSpec>,
    /// The shell's `/proc` folder, opened once it was proven this holder's child (see
    /// `shell_state.rs`).
    pub(super) proc_dir: Mutex<Option<super::proc_dir::ProcDir>>,
    /// The session's recording, when it records (set once, at start).
    pub(super) recorder: std::sync::OnceLock<super::record::Recorder>,
}

impl Shared {
    /// Wrap a freshly spawned PTY; `(kind, line_editor)` describe its shell.
    pub fn new(
        master: Box<dyn MasterPty + Send>,
        writer: Box<dyn Write + Send>,
        pid: u32,
        (kind, line_editor): (ShellKind, bool),
        session_id: String,
        limits: Limits,
        (cols, rows): (u16, u16),
    ) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                ring: Ring::new(limits.buffer_size),
                screen: Screen::new(cols, rows, limits.scrollback),
                scrollback: limits.scrollback,
                scanner: MarkerScanner::new(),
                integration: kind.integration(),
                at_prompt: false,
                prompt_seen: false,
                input_seen: false,
                output_seen: false,
                last_output: Instant::now(),
                last_input: Instant::now(),
                submitted: None,
                input_offset: 0,
                prompt_at: None,
                command_since: None,
                away_since: None,
                prompt_follows: false,
                input_ready: None,
                input_at: None,
                talk: TalkState::Idle,
                queued: super::queue::Queue::default(),
                exit: None,
                eof: false,
                cols,
                rows,
                dirty: false,
                killed: false,
                open_connections: 0,
                idle_connections: Vec::new(),
                next_connection: 0,
                base_size: (cols, rows),
                asked_size: None,
                clients: Vec::new(),
                next_client: 0,
                notices: std::collections::VecDeque::new(),
                notice_seq: 0,
                redrawn: None,
                program: None,
                label: None,
            }),
            cond: Condvar::new(),
            events: Condvar::new(),
            ended: Condvar::new(),
            writer: Mutex::new(writer),
            master: Mutex::new(master),
            pid: std::sync::atomic::AtomicU32::new(pid),
            kind,
            session_id,
            line_editor,
            typing: Mutex::new(Typing::new()),
            judged: Mutex::new(crate::safety::Judged::default()),
            sizing: Mutex::new(()),
            filter: std::sync::OnceLock::new(),
            restarter: std::sync::OnceLock::new(),
            answers: std::sync::OnceLock::new(),
            spec: std::sync::OnceLock::new(),
            proc_dir: Mutex::new(None),
            recorder: std::sync::OnceLock::new(),
        })
    }

    /// The pid of the shell (or program) running now.
    pub fn pid(&self) -> u32 {
        self.pid.load(std::sync::atomic::Ordering::Acquire)
    }

    /// A restarted program's pid.
    pub(super) fn set_pid(&self, pid: u32) {
        self.pid.store(pid, std::sync::atomic::Ordering::Release);
    }

    /// Lock the state (a poisoned lock is recovered: the state stays consistent per field).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait on [`Self::cond`] until `deadline`; returns the guard and whether time is up.
    pub fn wait_until<'a>(
        &self,
        g: MutexGuard<'a, State>,
        deadline: Instant,
    ) -> (MutexGuard<'a, State>, bool) {
        self.wait_on(&self.cond, g, deadline)
    }

    /// Wait on one of this holder's condvars (`cond`, `events`, `ended`) until `deadline`;
    /// returns the guard and whether time is up.
    pub fn wait_on<'a>(
        &self,
        cond: &Condvar,
        g: MutexGuard<'a, State>,
        deadline: Instant,
    ) -> (MutexGuard<'a, State>, bool) {
        let now = Instant::now();
        if now >= deadline {
            return (g, true);
        }
        let (g, _) = cond
            .wait_timeout(g, deadline - now)
            .unwrap_or_else(|p| p.into_inner());
        (g, Instant::now() >= deadline)
    }

    /// Wake the waiters of [`Self::cond`] and [`Self::events`] (a state change other than
    /// plain output).
    pub fn notify(&self) {
        self.cond.notify_all();
        self.events.notify_all();
    }

    /// The reader thread body: drain the PTY until EOF.
    pub fn reader_loop(self: &Arc<Self>, mut reader: Box<dyn Read + Send>) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::debug!("pty read ended: {e}");
                    break;
                }
            };
            self.ingest(&buf[..n]);
        }
        let mut st = self.lock();
        st.eof = true;
        drop(st);
        self.notify();
    }

    /// Feed the PTY's output into ring, markers, screen and a talk's capture.
    pub(super) fn ingest(&self, chunk: &[u8]) {
        self.take_in(chunk, true);
    }

    /// Feed one of kpty's own notices (`[process exited (code N)]` …) into the stream every
    /// client sees — ring, screen, followers — but not into a talk's capture: a command's
    /// output never holds kpty's words.
    pub(super) fn announce(&self, notice: &[u8]) {
        self.take_in(notice, false);
    }

    fn take_in(&self, chunk: &[u8], from_pty: bool) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let now = Instant::now();
        if let Some(r) = self.recorder.get() {
            // Before the screen takes the chunk: a new segment's snapshot is the screen the
            // chunk found.
            r.output(now, chunk, || (st.screen.redraw(), (st.cols, st.rows)));
        }
        let off = st.ring.end();
        st.ring.push(chunk);
        let marks = st.scanner.feed(chunk, off);
        let inputs = feed_screen(&mut st.screen, chunk, off, &marks, |a| self.answer(a));
        if from_pty && let Some(c) = st.talk.capture_mut() {
            c.push(chunk);
        }
        let marked = !marks.is_empty();
        if from_pty
            && let Some(s) = st.submitted.as_mut()
            && s.answered(chunk, off, &marks)
        {
            st.submitted = None;
        }
        for m in marks {
            st.take_mark(&m, &inputs);
        }
        st.output_seen = true;
        st.last_output = now;
        st.dirty = true;
        // Woken after the lock is let go: a waiter then takes it at once, not after a second
        // sleep on the lock.
        drop(guard);
        self.cond.notify_all();
        if marked {
            self.events.notify_all();
        }
    }

    /// The waiter thread body: wait for the child, let the reader catch up, record the exit.
    pub fn waiter(self: &Arc<Self>, mut child: Box<dyn portable_pty::Child + Send + Sync>) {
        let info = loop {
            let started = Instant::now();
            let info = exit_info(child.wait());
            match self.restart(&info, started.elapsed()) {
                Some(next) => child = next,
                None => break info,
            }
        };
        // Give the reader a moment to drain what the shell printed last (EOF comes right
        // after exit unless a background job still holds the terminal).
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut st = self.lock();
        while !st.eof && self.restarter.get().is_none() {
            let (g, up) = self.wait_until(st, deadline);
            st = g;
            if up {
                break;
            }
        }
        drop(st);
        self.program_ended(&info);
        let mut st = self.lock();
        tracing::info!("shell exited: code {} signal {:?}", info.code, info.signal);
        if let Some(r) = self.recorder.get() {
            r.exit(info.code);
        }
        st.exit = Some(info);
        st.dirty = true;
        drop(st);
        self.notify();
        self.ended.notify_all();
    }
}

impl State {
    /// Whether the shell began a prompt at `t` or since.
    pub fn prompt_since(&self, t: Instant) -> bool {
        self.prompt_at.is_some_and(|p| p >= t)
    }

    /// Take one shell-integration marker: where the shell is (prompt, input line, command),
    /// since when, and a running talk's capture bounds.
    fn take_mark(&mut self, m: &super::markers::Mark, inputs: &[(u64, Option<(u64, usize)>)]) {
        if m.kind != MarkKind::InputStart {
            (self.input_ready, self.input_at) = (None, None);
        }
        match m.kind {
            MarkKind::PromptStart => {
                self.prompt_follows |= self.away_since.is_some() && self.at_prompt;
                self.away_since = None;
                self.at_prompt = true;
                self.command_since = None;
                self.prompt_at = Some(Instant::now());
                self.prompt_seen = true;
                self.talk.prompt_seen();
            }
            MarkKind::InputStart => {
                self.prompt_follows |= self.away_since.is_some() && self.at_prompt;
                self.away_since = None;
                self.at_prompt = true;
                self.prompt_seen = true;
                self.input_seen = true;
                self.input_ready = Some(Instant::now());
                self.input_at = inputs
                    .iter()
                    .find(|(end, _)| *end == m.end)
                    .and_then(|(_, at)| *at);
            }
            MarkKind::OutputStart => {
                self.away_since = Some(Instant::now());
                self.at_prompt = false;
                self.command_since = Some(std::time::SystemTime::now());
                if let Some(c) = self.talk.capture_mut()
                    && m.start >= c.begin
                    && c.out_start.is_none()
                    && c.finished.is_none()
                {
                    c.out_start = Some(m.end);
                }
            }
            MarkKind::Finished(code) => {
                self.away_since = Some(Instant::now());
                self.at_prompt = true;
                self.command_since = None;
                self.prompt_at = Some(Instant::now());
                if let Some(c) = self.talk.capture_mut()
                    && m.start >= c.begin
                    && c.finished.is_none()
                {
                    c.finished = Some((m.start, code));
                }
            }
        }
    }
}

/// How a wait for the child ended.
fn exit_info(status: std::io::Result<portable_pty::ExitStatus>) -> ExitInfo {
    let at = crate::store::now_rfc3339();
    match status {
        Ok(s) => ExitInfo {
            code: i32::try_from(s.exit_code()).unwrap_or(i32::MAX),
            signal: s.signal().map(str::to_string),
            at,
        },
        Err(e) => {
            tracing::warn!("waiting for the shell failed: {e}");
            ExitInfo {
                code: -1,
                signal: None,
                at,
            }
        }
    }
}

impl Shared {
    /// The foreground process group leader when it is not the shell: (pid, command name).
    pub fn foreground_other(&self) -> Option<(u32, Option<String>)> {
        let fg = u32::try_from(self.foreground_group()?).ok()?;
        if fg == self.pid() {
            return None;
        }
        let name = std::fs::read_to_string(format!("/proc/{fg}/comm"))
            .ok()
            .map(|s| s.trim().to_string());
        Some((fg, name))
    }

    pub(super) fn write_all(&self, data: &[u8]) -> Result<()> {
        {
            let mut st = self.lock();
            st.last_input = Instant::now();
            if data.iter().any(|&b| b == b'\r' || b == b'\n') {
                st.submitted = Some(Submitted::at(st.ring.end()));
            }
            st.input_offset = st.ring.end();
        }
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(data).and_then(|_| w.flush()).map_err(|e| {
            Error::new(
                ErrorCode::PtyWriteFailed,
                format!("writing to the terminal of {} failed: {e}", self.session_id),
            )
        })
    }

    pub(super) fn exited_error(&self, exit: &ExitInfo) -> Error {
        Error::new(
            ErrorCode::PtyProcessExited,
            format!(
                "the shell of session {} has exited (code {}): the session has ended",
                self.session_id, exit.code
            ),
        )
        .with_hint(crate::error::Hint::CreateAnother)
        .with_details(crate::error::details::Exited {
            session_id: self.session_id.clone(),
            state: None,
            exit_code: Some(exit.code.into()),
            exit_signal: exit.signal.clone(),
            unreachable: None,
        })
    }

    /// [`Self::exited_error`] for a request that came after the shell had ended: nothing of
    /// it was typed (a default session is then replaced and the request tried there).
    pub(super) fn ended_before(&self, exit: &ExitInfo) -> Error {
        self.exited_error(exit)
            .with_cause(crate::error::Cause::EndedBefore)
    }

    /// The typing lock (a poisoned lock is recovered: the state is replaced whole).
    pub(super) fn lock_typing(&self) -> MutexGuard<'_, Typing> {
        self.typing.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `typing.after(…)` (see [`crate::safety::Judged`]); `typing` is this session's, locked.
    pub(super) fn judge_typed(
        &self,
        typing: &Typing,
        text: &str,
        opacity: crate::safety::Opacity,
        enter_follows: bool,
    ) -> std::result::Result<Typing, crate::safety::Refusal> {
        let mut judged = self.judged.lock().unwrap_or_else(|p| p.into_inner());
        judged.after(typing, text, opacity, enter_follows)
    }

    /// Which opaque lines a write must not submit: none when no line editor reads the input
    /// (a shell without one, or a full-screen program on the alternate screen); only those a
    /// single write makes opaque, edits and submits while another program holds the
    /// foreground (a REPL, an agent's TUI, ssh …); otherwise, at the shell's own prompt, any.
    pub(super) fn opacity(&self, st: &State, foreground: bool) -> Opacity {
        if !self.line_editor || st.screen.alternate() {
            Opacity::Ignore
        } else if foreground {
            Opacity::PerWrite
        } else {
            Opacity::OnSubmit
        }
    }
}
