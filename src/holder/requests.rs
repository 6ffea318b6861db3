//! The holder's answers to every request but `talk` (in `talk.rs`): status, write, read,
//! term_read, resize and kill, and the screen summary they report.

use super::completion::TalkState;
use super::screen;
use super::session::{Shared, State};
use super::shell::{Integration, ShellKind};
use crate::api::{BufferType, TerminalState};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::{
    CursorPos, KillBody, ReadBody, ScreenInfo, StatusBody, TermReadBody, TermReadRequest, WriteBody,
};
use portable_pty::PtySize;
use std::time::{Duration, Instant};

impl Shared {
    /// `Status`.
    pub fn status(&self) -> StatusBody {
        let fg = self.foreground_other();
        let waiting = self.waiting_now();
        let st = self.lock();
        let (screen, terminal_state) = screen_state(&st, fg.is_some());
        let terminal_state = waiting_state(terminal_state, waiting);
        StatusBody {
            screen: Some(screen),
            terminal_state: Some(terminal_state.into()),
            attached: st.clients.len(),
            process: st.program.as_ref().map(|p| p.status()),
            session_id: Some(self.session_id.clone()),
            pid: self.pid(),
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
            command_started_at: st
                .command_since
                .and_then(|t| jiff::Timestamp::try_from(t).ok())
                .map(|t| format!("{t:.3}")),
            talking: st.talk.running(),
            // The running talk left the queue as it was let in: every talk listed waits.
            waiting_talks: match st.talk {
                super::completion::TalkState::Idle => 0,
                _ => st.queued.len(),
            },
            recording: Some(self.recording_state()),
            output_offset: st.ring.end(),
            protocol_version: crate::proto::PROTOCOL_VERSION,
            kpty_version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// `Write`: refused (nothing typed) when the lines the shell would submit, with what
    /// earlier writes left on the line, are blocked; with `enter_follows`, checked as if Enter
    /// followed. `app_cursor` replaces `data` while the terminal is in application cursor-key
    /// mode.
    pub fn write(&self, req: &crate::proto::WriteRequest) -> Result<WriteBody> {
        let (data, enter_follows, app_cursor) =
            (&req.data, req.enter_follows, req.app_cursor.as_deref());
        let mut typing = self.lock_typing();
        self.observe_shell(&mut typing);
        let foreground = self.foreground_other().is_some();
        let (opacity, data) = {
            let st = self.lock();
            if let Some(exit) = st.exit.clone() {
                return Err(self.ended_before(&exit));
            }
            let data = match app_cursor {
                Some(app) if st.screen.cursor_key_app_mode() => app,
                _ => data.as_str(),
            };
            (self.opacity(&st, foreground), data)
        };
        let next = self.judge_typed(&typing, data, opacity, enter_follows)?;
        // A line submitted to the shell itself must be a whole command, or the shell waits
        // at its continuation prompt and the next write lands inside it.
        if enter_follows && !foreground && self.kind.posix_syntax() {
            typing.complete(data, true)?;
        }
        self.record_input(
            data.as_bytes(),
            super::record::writer_name(req.by.as_deref()),
        );
        // When it went out: a prompt since then is the one a Ctrl-C in it brings.
        let sent = Instant::now();
        match self.write_remote(data.as_bytes()) {
            Ok(_) => *typing = next,
            Err(e) => {
                // The filter kept part of it from the program: the line holds what went out.
                if e.code == ErrorCode::InputBlocked {
                    typing.reset_line();
                    self.record_mark(&format!("input filter: {}", e.message));
                }
                return Err(e);
            }
        }
        if data.contains('\x03') {
            self.interrupt_left(sent);
        }
        if data.contains('\x03') && !foreground {
            self.interrupted_at_prompt(sent);
        }
        Ok(WriteBody {
            bytes_written: data.len(),
        })
    }

    /// Ctrl-C reached the shell itself: bash acts on it (SIGINT) only when it next runs, and
    /// text typed before then can be eaten with the abandoned line. The next talk waits
    /// for the prompt the interrupt brings, as after a cancelled talk — unless it came
    /// already (a prompt since `sent`, when the Ctrl-C went out).
    fn interrupted_at_prompt(&self, sent: Instant) {
        if !matches!(
            self.kind,
            ShellKind::Bash | ShellKind::Zsh | ShellKind::Posix
        ) {
            return;
        }
        let mut st = self.lock();
        let redrawn = st.prompt_since(sent);
        if !st.talk.running() && st.exit.is_none() && !redrawn {
            st.talk = TalkState::Interrupted(sent);
        }
    }

    /// `Read`: wait up to `timeout_ms` for data (past `since` when given), then return it.
    pub fn read(
        &self,
        since: Option<u64>,
        max_bytes: usize,
        timeout_ms: u64,
        context: bool,
    ) -> ReadBody {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let fg = self.foreground_other().is_some();
        let waiting = self.waiting_now();
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
        read_body(&st, since, max_bytes, context, (fg, waiting))
    }

    /// `Screen`: the visible screen, styled (a screenshot).
    pub fn screen_cells(&self) -> crate::proto::screen::ScreenBody {
        self.lock().screen.cells()
    }

    /// `TermRead`: render the screen model (no history replay; cost ∝ lines returned).
    pub fn term_read(&self, req: &TermReadRequest) -> Result<TermReadBody> {
        let mode = screen::Mode::parse(req.mode.as_str()).ok_or_else(|| {
            Error::invalid(format!(
                "mode {:?} must be tail, viewport or delta",
                req.mode.as_str()
            ))
        })?;
        let fg = self.foreground_other().is_some();
        let waiting = self.waiting_now();
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
                 the newest {} are kept)",
                self.session_id,
                screen::MAX_MARKERS
            ))
            .with_hint(crate::error::Hint::RestartDelta {
                session: self.session_id.clone(),
            })
            .with_details(crate::error::details::Marker {
                session_id: self.session_id.clone(),
                marker_id: id,
            })
        })?;
        let (info, state) = screen_state(&st, fg);
        let state = waiting_state(state, waiting);
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
            wraps: v.wraps,
        })
    }

    /// `SetLabel`: saved with the next metadata write (made soon: marked dirty). The core
    /// checked it; a label no `create --label` could give (blank, over 64 characters, control
    /// characters) is refused here too, whoever sent it.
    pub fn set_label(&self, label: Option<String>) -> Result<()> {
        if let Some(l) = label
            .as_deref()
            .filter(|l| !crate::api::ids::is_valid_label(l))
        {
            return Err(Error::new(
                ErrorCode::InvalidParams,
                format!("label {l:?} must be 1-64 printable characters"),
            ));
        }
        let mut st = self.lock();
        st.label = Some(label);
        st.dirty = true;
        drop(st);
        self.cond.notify_all();
        Ok(())
    }

    /// `Resize`.
    /// The size the `resize` asked for wins over the attached clients' (the last resize wins,
    /// seed 002 §8.3) until a client resizes (or attaches, or leaves); the answer is the
    /// size the terminal really has (`TIOCGWINSZ` on the PTY), whatever was asked.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<(u16, u16)> {
        {
            let mut st = self.lock();
            st.base_size = (cols, rows);
            st.asked_size = (!st.clients.is_empty()).then_some((cols, rows));
        }
        self.apply_size()?;
        Ok(self.real_size())
    }

    /// The PTY's own size (`TIOCGWINSZ`), or the one last set when the PTY cannot say.
    fn real_size(&self) -> (u16, u16) {
        let asked = self
            .master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_size();
        match asked {
            Ok(s) => (s.cols, s.rows),
            Err(_) => {
                let st = self.lock();
                (st.cols, st.rows)
            }
        }
    }

    /// Give the terminal the size in force (the smallest attached client's, else the set one) when it has
    /// another.
    pub fn apply_size(&self) -> Result<()> {
        let _one_at_a_time = self.sizing.lock().unwrap_or_else(|p| p.into_inner());
        let (cols, rows) = {
            let st = self.lock();
            let want = super::attach::effective_size(&st);
            if want == (st.cols, st.rows) {
                return Ok(());
            }
            want
        };
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
        if let Some(r) = self.recorder.get() {
            r.resize((cols, rows));
        }
        // A redraw made before is of the old size.
        st.redrawn = None;
        // The reflow moved the input line: its place is known again at the next prompt.
        st.input_at = None;
        st.dirty = true;
        drop(st);
        // Attached clients are told the new size.
        self.notify();
        Ok(())
    }

    /// `Kill`: SIGHUP the shell's process group (and the foreground job's), SIGKILL after
    /// `grace_ms`, and wait for the exit to be recorded.
    pub fn kill(&self, grace_ms: u64) -> KillBody {
        use rustix::process::{Pid, Signal, kill_process_group};
        let groups: Vec<u32> = std::iter::once(self.pid())
            .chain(self.foreground_other().map(|f| f.0))
            .collect();
        let signal_all = |sig: Signal| {
            for g in &groups {
                if let Some(pid) = Pid::from_raw(*g as i32) {
                    let _ = kill_process_group(pid, sig);
                }
            }
        };
        let restarting = {
            let mut st = self.lock();
            st.killed = true;
            st.program
                .as_ref()
                .is_some_and(|p| p.phase == super::program::Phase::Restarting)
        };
        // A program waiting to be restarted ends now; its old pid is not signalled (it was
        // reaped and may belong to another process by now).
        self.notify();
        if !restarting {
            signal_all(Signal::HUP);
            signal_all(Signal::CONT);
        }
        let mut st = self.lock();
        for (sig, wait) in [(None, grace_ms), (Some(Signal::KILL), 3000)] {
            if let Some(sig) = sig
                && st.exit.is_none()
                && !restarting
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

/// `waiting_input` instead of `running` (or `prompt`) when the foreground job is blocked
/// reading the terminal (a full-screen program stays `full_screen`).
/// The `Read` window of `st` from `since` (see [`crate::proto::ring::Ring::read_body`]) with
/// the session's state; `(foreground, waiting)` as [`screen_state`] and [`waiting_state`]
/// take them.
pub(super) fn read_body(
    st: &State,
    since: Option<u64>,
    max_bytes: usize,
    context: bool,
    (foreground, waiting): (bool, bool),
) -> ReadBody {
    let (screen, terminal_state) = screen_state(st, foreground);
    let terminal_state = waiting_state(terminal_state, waiting);
    ReadBody {
        exit_code: st.exit.as_ref().map(|e| e.code),
        screen: Some(screen),
        terminal_state: Some(terminal_state.into()),
        ..st.ring
            .read_body(since, max_bytes, st.exit.is_none(), context)
    }
}

pub(super) fn waiting_state(state: TerminalState, waiting: bool) -> TerminalState {
    if waiting && state != TerminalState::FullScreen {
        TerminalState::WaitingInput
    } else {
        state
    }
}

/// The screen summary and the terminal state (`prompt` | `running` | `full_screen`;
/// `waiting_input` comes from [`waiting_state`]);
/// `foreground` says a program other than the shell holds the terminal.
pub(super) fn screen_state(st: &State, foreground: bool) -> (ScreenInfo, TerminalState) {
    let alternate = st.screen.alternate();
    let (line, col) = st.screen.cursor();
    let info = ScreenInfo {
        buffer_type: if alternate {
            BufferType::Alternate
        } else {
            BufferType::Normal
        }
        .into(),
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
        TerminalState::FullScreen
    } else if at_prompt && !foreground && !st.talk.running() {
        TerminalState::Prompt
    } else {
        TerminalState::Running
    };
    (info, state)
}
