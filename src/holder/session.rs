//! The live session inside a holder: shared state behind one mutex and condvar, the reader
//! thread that drains the PTY (ring buffer, markers, talk capture), the waiter thread that
//! records the exit status, and every request's logic but `talk` (in [`super::talk`]). Waits
//! are on the condvar with a deadline, woken by new output or exit — never a poll loop.

use super::completion::TalkState;
use super::markers::{MarkKind, MarkerScanner};
use super::screen::{self, Screen};
use super::shell::{Integration, ShellKind};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::ring::Ring;
use crate::proto::{
    CursorPos, KillBody, ReadBody, ScreenInfo, StatusBody, TermReadBody, TermReadRequest, WriteBody,
};
use crate::safety::{Opacity, Typing};
use portable_pty::{MasterPty, PtySize};
use serde_json::json;
use std::io::{Read, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub use super::completion::TALK_CAPTURE_MAX;
pub use super::talk::Progress;

/// How the shell ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitInfo {
    /// Exit code (128+n style codes come through as the shell reported them).
    pub code: i32,
    /// Signal name when a signal ended it.
    pub signal: Option<String>,
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
    /// The talk in progress, if any (or an interrupted one's aftermath).
    pub(super) talk: TalkState,
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
    /// Client connections being served right now.
    pub open_connections: usize,
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
    master: Mutex<Box<dyn MasterPty + Send>>,
    /// The shell's pid (also its process group).
    pub pid: u32,
    /// The shell family.
    pub kind: ShellKind,
    /// The session id (for messages).
    pub session_id: String,
    /// The shell edits its input line with readline-style keys (not dash's bare tty).
    pub line_editor: bool,
    /// What earlier writes left on the shell's line, for checking the next write. Taken
    /// before (never while holding) [`Self::state`]; the reader thread never takes it.
    pub(super) typing: Mutex<Typing>,
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
                talk: TalkState::Idle,
                exit: None,
                eof: false,
                cols,
                rows,
                dirty: false,
                killed: false,
                open_connections: 0,
            }),
            cond: Condvar::new(),
            events: Condvar::new(),
            ended: Condvar::new(),
            writer: Mutex::new(writer),
            master: Mutex::new(master),
            pid,
            kind,
            session_id,
            line_editor,
            typing: Mutex::new(Typing::new()),
        })
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

    /// Feed output into ring, markers and capture.
    fn ingest(&self, chunk: &[u8]) {
        let mut st = self.lock();
        let st = &mut *st;
        let off = st.ring.end();
        st.ring.push(chunk);
        st.screen.feed(chunk);
        if let Some(c) = st.talk.capture_mut() {
            c.push(chunk);
        }
        let marks = st.scanner.feed(chunk, off);
        let marked = !marks.is_empty();
        for m in marks {
            match m.kind {
                MarkKind::PromptStart => {
                    st.at_prompt = true;
                    st.prompt_seen = true;
                    st.talk.prompt_seen();
                }
                MarkKind::InputStart => {
                    st.at_prompt = true;
                    st.prompt_seen = true;
                    st.input_seen = true;
                }
                MarkKind::OutputStart => {
                    st.at_prompt = false;
                    if let Some(c) = st.talk.capture_mut()
                        && m.start >= c.begin
                        && c.out_start.is_none()
                        && c.finished.is_none()
                    {
                        c.out_start = Some(m.end);
                    }
                }
                MarkKind::Finished(code) => {
                    st.at_prompt = true;
                    if let Some(c) = st.talk.capture_mut()
                        && m.start >= c.begin
                        && c.finished.is_none()
                    {
                        c.finished = Some((m.start, code));
                    }
                }
            }
        }
        st.output_seen = true;
        st.last_output = Instant::now();
        st.dirty = true;
        self.cond.notify_all();
        if marked {
            self.events.notify_all();
        }
    }

    /// The waiter thread body: wait for the child, let the reader catch up, record the exit.
    pub fn waiter(self: &Arc<Self>, mut child: Box<dyn portable_pty::Child + Send + Sync>) {
        let status = child.wait();
        let info = match status {
            Ok(s) => ExitInfo {
                code: i32::try_from(s.exit_code()).unwrap_or(i32::MAX),
                signal: s.signal().map(str::to_string),
            },
            Err(e) => {
                tracing::warn!("waiting for the shell failed: {e}");
                ExitInfo {
                    code: -1,
                    signal: None,
                }
            }
        };
        // Give the reader a moment to drain what the shell printed last (EOF comes right
        // after exit unless a background job still holds the terminal).
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut st = self.lock();
        while !st.eof {
            let (g, up) = self.wait_until(st, deadline);
            st = g;
            if up {
                break;
            }
        }
        tracing::info!("shell exited: code {} signal {:?}", info.code, info.signal);
        st.exit = Some(info);
        st.dirty = true;
        drop(st);
        self.notify();
        self.ended.notify_all();
    }

    /// The foreground process group leader when it is not the shell: (pid, command name).
    pub fn foreground_other(&self) -> Option<(u32, Option<String>)> {
        let fg = self
            .master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .process_group_leader()?;
        let fg = u32::try_from(fg).ok()?;
        if fg == self.pid || fg == 0 {
            return None;
        }
        let name = std::fs::read_to_string(format!("/proc/{fg}/comm"))
            .ok()
            .map(|s| s.trim().to_string());
        Some((fg, name))
    }

    pub(super) fn write_all(&self, data: &[u8]) -> Result<()> {
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
            format!("the shell of session {} has exited (code {}); create a new session", self.session_id, exit.code),
        )
        .with_details(json!({"session_id": self.session_id, "exit_code": exit.code, "exit_signal": exit.signal}))
    }

    /// `Status`.
    pub fn status(&self) -> StatusBody {
        let fg = self.foreground_other();
        let st = self.lock();
        let (screen, terminal_state) = screen_state(&st, fg.is_some());
        StatusBody {
            screen: Some(screen),
            terminal_state: Some(terminal_state.into()),
            pid: self.pid,
            holder_pid: std::process::id(),
            alive: st.exit.is_none(),
            exit_code: st.exit.as_ref().map(|e| e.code),
            cols: st.cols,
            rows: st.rows,
            integration: st.integration.as_str().into(),
            shell_kind: self.kind.as_str().into(),
            foreground_pid: fg.as_ref().map(|f| f.0),
            foreground_command: fg.and_then(|f| f.1),
            at_prompt: st.at_prompt,
            talking: st.talk.running(),
            output_offset: st.ring.end(),
            protocol_version: crate::proto::PROTOCOL_VERSION,
            kpty_version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// The typing lock (a poisoned lock is recovered: the state is replaced whole).
    pub(super) fn lock_typing(&self) -> MutexGuard<'_, Typing> {
        self.typing.lock().unwrap_or_else(|p| p.into_inner())
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

    /// `Write`: refused (nothing typed) when the lines the shell would submit, with what
    /// earlier writes left on the line, are blocked; with `enter_follows`, checked as if Enter
    /// followed.
    pub fn write(&self, data: &str, enter_follows: bool) -> Result<WriteBody> {
        let mut typing = self.lock_typing();
        let foreground = self.foreground_other().is_some();
        let opacity = {
            let st = self.lock();
            if let Some(exit) = st.exit.clone() {
                return Err(self.exited_error(&exit));
            }
            self.opacity(&st, foreground)
        };
        let next = typing.after(data, opacity, enter_follows)?;
        self.write_all(data.as_bytes())?;
        *typing = next;
        Ok(WriteBody {
            bytes_written: data.len(),
        })
    }

    /// `Read`: wait up to `timeout_ms` for data (past `since` when given), then return it.
    pub fn read(&self, since: Option<u64>, max_bytes: usize, timeout_ms: u64) -> ReadBody {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let fg = self.foreground_other().is_some();
        let mut st = self.lock();
        loop {
            let has = match since {
                Some(s) => st.ring.end() > s,
                None => !st.ring.is_empty(),
            };
            if has || st.exit.is_some() {
                break;
            }
            let (g, up) = self.wait_until(st, deadline);
            st = g;
            if up {
                break;
            }
        }
        let (screen, terminal_state) = screen_state(&st, fg);
        ReadBody {
            exit_code: st.exit.as_ref().map(|e| e.code),
            screen: Some(screen),
            terminal_state: Some(terminal_state.into()),
            ..st.ring.read_body(since, max_bytes, st.exit.is_none())
        }
    }

    /// `TermRead`: render the screen model (no history replay; cost ∝ lines returned).
    pub fn term_read(&self, req: &TermReadRequest) -> Result<TermReadBody> {
        let mode = screen::Mode::parse(&req.mode).ok_or_else(|| {
            Error::invalid(format!(
                "mode {:?} must be tail, viewport or delta",
                req.mode
            ))
        })?;
        let fg = self.foreground_other().is_some();
        let mut st = self.lock();
        let q = screen::Query {
            mode,
            max_lines: req.max_lines.max(1),
            max_chars: req.max_chars.max(1),
            merge_wrapped: req.merge_wrapped,
            marker_id: req.marker_id,
        };
        let v = st.screen.read(&q).map_err(|screen::UnknownMarker(id)| {
            Error::invalid(format!(
                "marker_id {id} is unknown to session {} (markers live in its holder and only \
                 the newest {} are kept); call term_read mode=delta without marker_id to start over",
                self.session_id,
                screen::MAX_MARKERS
            ))
            .with_details(json!({"session_id": self.session_id, "marker_id": id}))
        })?;
        let (info, state) = screen_state(&st, fg);
        Ok(TermReadBody {
            lines: v.lines,
            truncated: v.truncated,
            dropped_chars: v.dropped_chars as u64,
            cursor_line: v.cursor_line,
            cursor_col: v.cursor_col as u64,
            viewport_y: v.viewport_y,
            rows: v.rows as u64,
            cols: v.cols as u64,
            buffer_type: info.buffer_type,
            first_line: v.first_line,
            marker_id: v.marker_id,
            marker_line: v.marker_line,
            marker_disposed: v.marker_disposed,
            lines_lost: v.lines_lost,
            more: v.more,
            title: info.title,
            terminal_state: state.into(),
            scrollback: st.scrollback as u64,
            context_before: v.context_before,
            context_after: v.context_after,
        })
    }

    /// `Resize`.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<()> {
        self.master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| Error::new(ErrorCode::PtyWriteFailed, format!("resize failed: {e}")))?;
        let mut st = self.lock();
        st.cols = cols;
        st.rows = rows;
        st.screen.resize(cols, rows);
        st.dirty = true;
        Ok(())
    }

    /// `Kill`: SIGHUP the shell's process group (and the foreground job's), SIGKILL after
    /// `grace_ms`, and wait for the exit to be recorded.
    pub fn kill(&self, grace_ms: u64) -> KillBody {
        use rustix::process::{Pid, Signal, kill_process_group};
        let groups: Vec<u32> = std::iter::once(self.pid)
            .chain(self.foreground_other().map(|f| f.0))
            .collect();
        let signal_all = |sig: Signal| {
            for g in &groups {
                if let Some(pid) = Pid::from_raw(*g as i32) {
                    let _ = kill_process_group(pid, sig);
                }
            }
        };
        self.lock().killed = true;
        signal_all(Signal::HUP);
        signal_all(Signal::CONT);
        let mut st = self.lock();
        for (sig, wait) in [(None, grace_ms), (Some(Signal::KILL), 3000)] {
            if let Some(sig) = sig
                && st.exit.is_none()
            {
                drop(st);
                signal_all(sig);
                st = self.lock();
            }
            let deadline = Instant::now() + Duration::from_millis(wait);
            while st.exit.is_none() {
                let (g, up) = self.wait_until(st, deadline);
                st = g;
                if up {
                    break;
                }
            }
        }
        KillBody {
            exit_code: st.exit.as_ref().map(|e| e.code),
            exit_signal: st.exit.as_ref().and_then(|e| e.signal.clone()),
        }
    }
}

/// The screen summary and the terminal state (`prompt` | `running` | `full_screen`);
/// `foreground` says a program other than the shell holds the terminal.
pub(super) fn screen_state(st: &State, foreground: bool) -> (ScreenInfo, &'static str) {
    let alternate = st.screen.alternate();
    let (line, col) = st.screen.cursor();
    let info = ScreenInfo {
        buffer_type: if alternate { "alternate" } else { "normal" }.into(),
        title: st.screen.title().map(str::to_string),
        cursor: CursorPos {
            line: line as u64,
            col: col as u64,
        },
    };
    let at_prompt = match st.integration {
        // Shell integration says where the prompt is; the sentinel method cannot tell.
        Integration::Osc133 => st.at_prompt,
        Integration::Sentinel => true,
    };
    let state = if alternate {
        "full_screen"
    } else if at_prompt && !foreground && !st.talk.running() {
        "prompt"
    } else {
        "running"
    };
    (info, state)
}
