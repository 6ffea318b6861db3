//! A command that waits for input says so. When the foreground job is blocked reading the
//! terminal (`proc_tty`) and nothing was printed or typed for [`QUIET`], a talk returns
//! early (`waiting_for_input`) with the output so far and the prompt line; the talk is left
//! ([`TalkState::Left`]) with its command still watched, so the next talk starts after it
//! and its completion markers cannot end that one. `terminal_state` says `waiting_input`.

use super::completion::{Capture, Detector, TalkState};
use super::proc_tty;
use super::requests::screen_state;
use super::session::{Shared, State};
use super::shell::Integration;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::TalkBody;
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

/// How long output and typing must be still before a tty read counts as waiting.
pub(super) const QUIET: Duration = Duration::from_millis(300);
/// The first re-check of a quiet command that is not reading the terminal …
const RECHECK_MIN: Duration = Duration::from_millis(250);
/// … and the longest gap between re-checks (it doubles up to this).
const RECHECK_MAX: Duration = Duration::from_secs(2);
/// How long a new talk waits for a left talk's command to finish while a program other
/// than the shell holds the terminal (then the usual foreground check answers).
const LEFT_GRACE: Duration = Duration::from_secs(5);

/// When to look at `/proc` next for a talk: after [`QUIET`], then on a backing-off timer.
pub(super) struct QuietWatch {
    /// The last output or input when last looked.
    mark: Option<Instant>,
    /// Not before this (after a look that found no reader).
    next: Option<Instant>,
    /// The gap to the next re-check.
    every: Duration,
}

/// What a [`QuietWatch`] says now.
pub(super) enum Look {
    /// Look now.
    Now,
    /// Wake at this time to ask again.
    At(Instant),
}

impl QuietWatch {
    pub(super) fn new() -> Self {
        Self {
            mark: None,
            next: None,
            every: RECHECK_MIN,
        }
    }

    /// With the state locked: look now, or when.
    pub(super) fn due(&mut self, st: &State) -> Look {
        let last = quiet_since(st);
        if self.mark != Some(last) {
            self.mark = Some(last);
            self.next = None;
            self.every = RECHECK_MIN;
        }
        let at = (last + QUIET).max(self.next.unwrap_or(last));
        if Instant::now() >= at {
            Look::Now
        } else {
            Look::At(at)
        }
    }

    /// A look found no reader: the next one later.
    pub(super) fn looked(&mut self) {
        self.next = Some(Instant::now() + self.every);
        self.every = (self.every * 2).min(RECHECK_MAX);
    }
}

/// The later of the last output and the last typing.
fn quiet_since(st: &State) -> Instant {
    st.last_output.max(st.last_input)
}

/// The shell runs a command (so its own tty read is a `read` builtin, not its prompt).
fn shell_busy(st: &State) -> bool {
    match st.integration {
        Integration::Osc133 => st.prompt_seen && !st.at_prompt,
        Integration::Sentinel => {
            matches!(st.talk, TalkState::Running { .. } | TalkState::Left { .. })
        }
    }
}

impl Shared {
    /// A process of the foreground job blocked reading the terminal; the shell itself only
    /// counts when `shell_busy` (it runs a command).
    pub(super) fn input_reader(&self, shell_busy: bool) -> Option<u32> {
        let fg = self
            .master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .process_group_leader()?;
        let fg = u32::try_from(fg).ok().filter(|&p| p != 0)?;
        if fg == self.pid() && !shell_busy {
            return None;
        }
        match proc_tty::tty_reader(fg)? {
            (pid, proc_tty::Sleep::Reading) => Some(pid),
            // A hidden sleeper (setuid sudo, su) with the terminal in line mode and echo
            // off: a password prompt.
            (pid, _) => self.echo_off().then_some(pid),
        }
    }

    /// Is the terminal waiting for input now (for `terminal_state`)?
    pub(super) fn waiting_now(&self) -> bool {
        // An unfinished line submitted: the shell's own read is its continuation prompt.
        let continuing = self.lock_typing().context().continuing();
        let busy = {
            let st = self.lock();
            shell_busy(&st) || (continuing && maybe_continuing(&st))
        };
        self.input_reader(busy).is_some()
    }

    /// The terminal's ECHO is off in line mode: a password prompt (a line editor — a REPL's
    /// readline — turns ICANON off too and echoes by itself).
    pub(super) fn echo_off(&self) -> bool {
        self.master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_termios()
            .is_some_and(|t| {
                use rustix::termios::LocalModes;
                let flags = t.local_flags.bits();
                flags & LocalModes::ECHO.bits() == 0 && flags & LocalModes::ICANON.bits() != 0
            })
    }

    /// With the state locked and the talk's command started: a reader blocked after a quiet
    /// window (`Ok`), or when to ask again (`Err`). The lock is let go while `/proc` is read.
    pub(super) fn quiet_reader<'a>(
        &'a self,
        st: MutexGuard<'a, State>,
        watch: &mut QuietWatch,
    ) -> (
        MutexGuard<'a, State>,
        std::result::Result<u32, Option<Instant>>,
    ) {
        if let Look::At(at) = watch.due(&st) {
            return (st, Err(Some(at)));
        }
        let mark = quiet_since(&st);
        // The shell's own tty read counts only once it runs the command: with OSC 133, a shell
        // that has not yet taken the typed line in (a loaded machine can hold it back longer
        // than the quiet window) is still at its prompt, not waiting for input.
        let busy = shell_busy(&st);
        drop(st);
        let reader = self.input_reader(busy);
        let st = self.lock();
        watch.looked();
        match reader {
            // Nothing new came while /proc was read.
            Some(pid) if quiet_since(&st) == mark => (st, Ok(pid)),
            _ => (st, Err(None)),
        }
    }

    /// Leave the running talk waiting for input: its reply (`waiting_for_input`, the output
    /// so far, the prompt line), its command still watched as [`TalkState::Left`].
    pub(super) fn leave_waiting(
        &self,
        mut st: MutexGuard<'_, State>,
        detector: Detector,
        left: Left<'_>,
    ) -> Result<TalkBody> {
        let capture: Capture = match std::mem::take(&mut st.talk) {
            TalkState::Running { capture, .. } => capture,
            other => {
                st.talk = other;
                return Err(Error::internal("talk capture vanished"));
            }
        };
        let from = detector.output_from(&capture);
        let region = &capture.bytes[capture.idx(from)..];
        let output_raw = String::from_utf8_lossy(region).into_owned();
        let mut prompt = st.screen.cursor_line_prefix();
        if prompt.trim().is_empty() {
            let clean = crate::text::clean_text(region);
            prompt = clean
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .into();
        }
        let (screen, state) = screen_state(&st, true);
        let body = TalkBody {
            output_raw,
            raw_output: if left.raw {
                String::from_utf8_lossy(&capture.bytes).into_owned()
            } else {
                String::new()
            },
            exit_code: None,
            completion: left.completion.into(),
            sentinel: left.sentinel.into(),
            duration_ms: left.started.elapsed().as_millis() as u64,
            truncated: capture.truncated || capture.base > from,
            start_offset: left.begin,
            end_offset: st.ring.end(),
            screen: Some(screen),
            // A full-screen program reading its keys stays `full_screen`.
            terminal_state: Some(super::requests::waiting_state(state, true).into()),
            waiting_for_input: true,
            prompt: Some(prompt),
            echo_off: false,
            cleared_line: None,
        };
        st.talk = TalkState::Left {
            capture,
            detector: Box::new(detector),
        };
        drop(st);
        self.notify();
        Ok(TalkBody {
            echo_off: self.echo_off(),
            ..body
        })
    }

    /// Before a new talk: wait for a left talk's command to complete. `PTY_BUSY` at once
    /// when it waits for input again; when a program other than the shell holds the terminal
    /// the wait is short (the foreground check answers after it). With `force` the left
    /// talk is dropped (the caller types into whatever reads). Ends early when the waiting
    /// talk (`ticket`) is to give up.
    pub(super) fn settle_left<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        force: bool,
        ticket: u64,
        deadline: Instant,
    ) -> Result<MutexGuard<'a, State>> {
        if force && matches!(st.talk, TalkState::Left { .. }) {
            st.talk = TalkState::Idle;
        }
        let until = deadline.min(Instant::now() + LEFT_GRACE);
        let mut watch = QuietWatch::new();
        while st.talk.left_pending() && st.exit.is_none() && !st.queued.stopped(ticket) {
            let (g, look) = self.quiet_reader(st, &mut watch);
            st = g;
            let wake = match look {
                Ok(_) => return Err(self.waiting_error(&st)),
                Err(None) => continue,
                Err(Some(at)) => at,
            };
            // (The master's lock is never held while the state's is taken: no cycle.)
            let end = if self.foreground_other().is_some() {
                until
            } else {
                deadline
            };
            if Instant::now() >= end {
                break;
            }
            let (g, _) = self.wait_on(&self.cond, st, wake.min(end));
            st = g;
        }
        Ok(st)
    }

    /// `PTY_BUSY`: the last talk's command waits for input.
    fn waiting_error(&self, st: &State) -> Error {
        let prompt = st.screen.cursor_line_prefix();
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} is waiting for input (details.prompt): the last talk's command reads the \
                 terminal",
                self.session_id,
            ),
        )
        .with_hint(crate::error::Hint::Foreground {
            session: self.session_id.clone(),
        })
        .with_details(crate::error::details::Waiting {
            session_id: self.session_id.clone(),
            terminal_state: WAITING_INPUT.to_string(),
            waiting_for_input: true,
            prompt,
        })
    }

    /// Ctrl-C typed while a talk is left waiting: its command (and the rest of its typed
    /// line, the sentinel's done line too) is abandoned; new talks wait for the prompt —
    /// unless it came already (a prompt since `sent`, when the Ctrl-C went out).
    pub(super) fn interrupt_left(&self, sent: Instant) {
        let mut st = self.lock();
        let redrawn = st.prompt_since(sent);
        if matches!(st.talk, TalkState::Left { .. }) && !redrawn {
            st.talk = TalkState::Interrupted(sent);
        }
    }
}

/// Typed after the last prompt marker, with integration: the shell may be reading the rest
/// (at its continuation prompt, see `continuation`).
pub(super) fn maybe_continuing(st: &State) -> bool {
    st.integration == Integration::Osc133
        && st.prompt_seen
        && st.prompt_at.is_some_and(|p| p < st.last_input)
}

/// `terminal_state` of a foreground job blocked reading the terminal.
pub(super) const WAITING_INPUT: &str = "waiting_input";

/// What a left talk's reply needs from the talk.
pub(super) struct Left<'a> {
    /// Keep the raw output.
    pub raw: bool,
    /// The completion method's name.
    pub completion: &'a str,
    /// The talk's sentinel.
    pub sentinel: &'a str,
    /// Absolute offset where the talk began.
    pub begin: u64,
    /// When the talk started.
    pub started: Instant,
}
