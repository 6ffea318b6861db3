//! The shell's input line just before a talk types its command.
//!
//! Two things go wrong when a command is typed onto a line that is not a fresh, drawn prompt:
//!
//! - typed before the shell drew its prompt (right after the previous command's finished
//!   marker), the terminal echoes the command once by itself and the line editor draws it
//!   again after the prompt: the screen shows it twice, and a talk that times out before the
//!   command started would report that echo as output. A talk therefore waits for the
//!   prompt's input-start marker (OSC 133 B) when the shell draws one.
//! - typed after text someone left on the line (a person in `kpty attach`, a `send-keys`
//!   without Enter), the shell runs the two glued together (`HUMANecho agent`). The line's
//!   text is what the screen shows between the input-start marker and the cursor, and what
//!   was typed since the prompt that the shell has not echoed yet ([`Typing::pending_line`]);
//!   when it is not empty the talk is `PTY_BUSY`, naming it (redacted). A forced talk clears
//!   it first — Ctrl-E Ctrl-U, as a person would (bash, zsh and fish kill the whole line with
//!   it; a shell without a line editor takes Ctrl-U as the terminal's kill character) — and
//!   types only once the screen shows the line empty.
//!
//! [`Typing::pending_line`]: crate::safety::Typing::pending_line

use super::session::{Shared, State};
use super::shell::Integration;
use crate::error::{Error, ErrorCode, Result};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

/// How long the line's text waits at most for the shell to answer keys typed just before
/// (their echo, or the redraw of a line they emptied).
const ECHO_SETTLE: Duration = Duration::from_millis(300);

/// How long a line submitted just before a talk waits at most for the shell's answer (its
/// output-start marker or a new prompt) before the Enter is taken as one the shell ignored
/// and the line is judged.
const ENTER_SETTLE: Duration = Duration::from_secs(3);

/// How long after its start a command typed just before a talk (an `exit`, a `cd` sent with
/// send-line) is given to end before the session is called busy: such commands end at once,
/// and the talk should not lose the race to their prompt.
const RUN_SETTLE: Duration = Duration::from_secs(1);

/// The keys that empty the input line: to its end, then kill back to its start.
const CLEAR_LINE: &str = "\x05\x15";

impl Shared {
    /// Before a talk types (not into a nested shell): wait for the prompt, then make sure the
    /// input line is empty — `PTY_BUSY` naming what is on it, or with `force` clear it.
    /// Returns what a forced talk cleared (redacted).
    pub(super) fn empty_input_line(
        &self,
        method: Integration,
        force: bool,
        deadline: Instant,
    ) -> Result<Option<String>> {
        self.wait_prompt_drawn(method, deadline)?;
        // Keys typed since that prompt may bring another (an Enter, a Ctrl-C): wait for the
        // shell to answer them, then for that prompt.
        if self.settle_input(method, deadline)? {
            self.wait_prompt_drawn(method, deadline)?;
        }
        let Some(text) = self.input_line_text() else {
            return Ok(None);
        };
        let shown = crate::safety::redact::redact(&text).into_owned();
        if !force {
            return Err(self.line_not_empty_error(&shown));
        }
        self.clear_input_line(deadline)?;
        tracing::info!("forced talk: cleared the input line first");
        Ok(Some(shown))
    }

    /// With shell integration, wait until the shell has drawn its prompt (its input-start
    /// marker since the last command) — when it ever drew one.
    fn wait_prompt_drawn(&self, method: Integration, deadline: Instant) -> Result<()> {
        if method != Integration::Osc133 {
            return Ok(());
        }
        let mut st = self.lock();
        // A cancel ends the wait: the talk then types nothing.
        while st.input_seen && st.input_ready.is_none() && st.exit.is_none() && !st.talk.cancelled()
        {
            if !st.at_prompt {
                // Keys typed before this talk started a command: it may end at once.
                let running;
                (st, running) = self.settle_running(st, deadline);
                if running {
                    return Err(self.running_error());
                }
                continue;
            }
            let (g, up) = self.wait_on(&self.events, st, deadline);
            st = g;
            if up && st.input_ready.is_none() {
                return Err(Error::new(
                    ErrorCode::PtyBusy,
                    format!(
                        "{} is busy: the shell has not drawn its prompt since its last command \
                         finished; try again, or read the screen (term-read)",
                        self.session_id
                    ),
                )
                .with_details(crate::error::details::Session::of(&self.session_id)));
            }
        }
        Ok(())
    }

    /// The text on the shell's input line, when there is any: what the screen shows from the
    /// prompt's end to the cursor (when the shell has answered the last key, an empty line
    /// there is empty), else what was typed since the prompt was drawn and the shell has
    /// not shown yet (without prompt markers: whatever the line editor holds).
    fn input_line_text(&self) -> Option<String> {
        let pending = self.lock_typing().pending_line();
        let st = self.lock();
        match on_screen(&st) {
            Some(shown) if !shown.is_empty() => return Some(shown),
            // The screen is current (the shell answered the last key) and shows the line
            // empty: trust it over the keys recorded (one a program took without Enter).
            Some(_) if st.last_output >= st.last_input => return None,
            _ => {}
        }
        let since_prompt = match st.input_ready {
            Some(drawn) => st.last_input >= drawn,
            None => !st.input_seen,
        };
        (since_prompt && !pending.trim().is_empty()).then(|| pending.trim().to_string())
    }

    /// A line submitted just before (an Enter typed since the shell last answered one) may
    /// still start its command: with shell integration, wait up to [`ENTER_SETTLE`] for the
    /// shell's answer — `PTY_BUSY` when that line's command started, or when `deadline` comes
    /// first; past [`ENTER_SETTLE`] the Enter is taken as one the shell ignored. Then keys
    /// typed since the prompt was drawn (or, without prompt markers, since the last output)
    /// get up to [`ECHO_SETTLE`] for the shell to answer them — their echo, or a new prompt,
    /// which ends the wait at once. Returns whether a new prompt started.
    fn settle_input(&self, method: Integration, deadline: Instant) -> Result<bool> {
        if method == Integration::Osc133 {
            self.await_answer(deadline)?;
        }
        let mut st = self.lock();
        let bound = deadline.min(Instant::now() + ECHO_SETTLE);
        loop {
            let unanswered = match st.input_ready {
                Some(drawn) => st.last_input > drawn,
                // A new prompt is on its way.
                None if st.input_seen => return Ok(true),
                None => st.last_input > st.last_output,
            };
            if !unanswered || st.exit.is_some() {
                return Ok(false);
            }
            let (g, up) = self.wait_on(&self.cond, st, bound);
            st = g;
            if up {
                return Ok(st.input_ready.is_none() && st.input_seen);
            }
        }
    }

    /// Wait for the shell to answer the line last submitted (see `submitted`): `PTY_BUSY`
    /// when its command runs, or when `deadline` passes first.
    fn await_answer(&self, deadline: Instant) -> Result<()> {
        let mut st = self.lock();
        let bound = deadline.min(Instant::now() + ENTER_SETTLE);
        while st.submitted.is_some() && st.exit.is_none() {
            let (g, up) = self.wait_on(&self.events, st, bound);
            st = g;
            if up && st.submitted.is_some() {
                if Instant::now() >= deadline {
                    return Err(self.unanswered_error());
                }
                // No answer at all (an Enter the line editor kept, as fish does on an
                // unfinished line): the line is judged as it is.
                st.submitted = None;
            }
        }
        if self.settle_running(st, deadline).1 {
            return Err(self.running_error());
        }
        Ok(())
    }

    /// The shell just left its prompt — a command started, or one finished and the prompt
    /// is not drawn yet (when this shell draws one) — less than [`RUN_SETTLE`] ago: give it
    /// the rest of that time (never past `deadline`) to come back to its prompt or exit.
    /// Returns the state, with `true` when a command still runs — at once for one that
    /// started earlier.
    pub(super) fn settle_running<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        deadline: Instant,
    ) -> (MutexGuard<'a, State>, bool) {
        while let Some(since) = away(&st) {
            let (g, up) = self.wait_on(&self.events, st, deadline.min(since + RUN_SETTLE));
            st = g;
            if up {
                break;
            }
        }
        let running = !st.at_prompt && st.exit.is_none();
        (st, running)
    }

    /// Type [`CLEAR_LINE`] and wait (until `deadline`) for the screen to show the line empty.
    fn clear_input_line(&self, deadline: Instant) -> Result<()> {
        {
            let mut typing = self.lock_typing();
            self.write_remote(CLEAR_LINE.as_bytes())?;
            typing.line_cleared(CLEAR_LINE);
        }
        let mut st = self.lock();
        loop {
            // A cancel ends the wait: the talk then types nothing.
            if st.exit.is_some()
                || st.talk.cancelled()
                || on_screen(&st).is_none_or(|t| t.is_empty())
            {
                return Ok(());
            }
            let (g, up) = self.wait_on(&self.cond, st, deadline);
            st = g;
            if up {
                let left = on_screen(&st).unwrap_or_default();
                let left = crate::safety::redact::redact(&left).into_owned();
                return Err(Error::new(
                    ErrorCode::PtyBusy,
                    format!(
                        "{}: the shell's input line still shows {left:?} after Ctrl-E Ctrl-U; \
                         nothing was typed (clear it with send-keys, or read the screen)",
                        self.session_id
                    ),
                )
                .with_details(crate::error::details::InputLine {
                    session_id: self.session_id.clone(),
                    line: left,
                    terminal_state: None,
                }));
            }
        }
    }

    fn unanswered_error(&self) -> Error {
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} is busy: the shell has not answered a line submitted just before this talk \
                 (no command started, no new prompt); nothing was typed",
                self.session_id
            ),
        )
        .with_hint(crate::error::Hint::ReadOrInterrupt {
            session: self.session_id.clone(),
        })
        .with_details(crate::error::details::Session::of(&self.session_id))
    }

    fn running_error(&self) -> Error {
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} is busy: a command typed just before this talk is running (the shell has \
                 not shown a prompt since it started)",
                self.session_id
            ),
        )
        .with_hint(crate::error::Hint::ReadOrInterrupt {
            session: self.session_id.clone(),
        })
        .with_details(crate::error::details::Session::of(&self.session_id))
    }

    fn line_not_empty_error(&self, text: &str) -> Error {
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{}: the shell's input line is not empty: {text:?} is typed there (by a person \
                 attached, or a send-keys without Enter), and the command would run glued to it; \
                 nothing was typed. Wait, clear the line (send-keys C-u), or talk with --force \
                 (force: true) to clear it first",
                self.session_id
            ),
        )
        .with_details(crate::error::details::InputLine {
            session_id: self.session_id.clone(),
            line: text.to_string(),
            terminal_state: Some("prompt".into()),
        })
    }
}

/// Since when the shell has been away from its prompt in a way that may end soon: a command
/// runs, or one finished and (in a shell that draws one after) its prompt is not drawn yet;
/// `None` at the prompt, or once the shell has exited.
pub(super) fn away(st: &State) -> Option<Instant> {
    let since = st.away_since.filter(|_| !st.at_prompt || st.prompt_follows);
    since.filter(|_| st.exit.is_none())
}

/// What the screen shows on the input line, from the prompt's end to the cursor (`None`
/// when the prompt's place is unknown).
fn on_screen(st: &State) -> Option<String> {
    st.input_ready?;
    st.input_at.and_then(|at| st.screen.text_since(at))
}
