//! A shell at its continuation prompt (PS2: an open quote, `if` without `fi`) waits for the
//! rest of a line. With shell integration that is evident: input was typed after the last
//! prompt marker, no command started (no output-start marker), the shell itself holds the
//! terminal and is blocked reading it, and nothing moved for a quiet window. A talk then
//! says the shell waits for input instead of hanging for its whole timeout: one that typed
//! the unfinished line returns `waiting_for_input` (see `input_wait`), and one that would
//! land in a continuation left by a raw write is refused before typing.

use super::input_wait::{QUIET, WAITING_INPUT, maybe_continuing};
use super::proc_tty::{Sleep, tty_reader};
use super::session::Shared;
use crate::error::{Error, ErrorCode, Result};
use std::time::Instant;

impl Shared {
    /// The shell itself holds the terminal and is blocked reading it.
    pub(super) fn shell_reading(&self) -> bool {
        if self.foreground_other().is_some() {
            return false;
        }
        matches!(tty_reader(self.pid()), Some((_, Sleep::Reading)))
    }

    /// Before a talk types: `PTY_BUSY` (waiting for input) when an unfinished line that a
    /// raw write submitted holds the shell at its continuation prompt.
    pub(super) fn refuse_continuation(&self, deadline: Instant) -> Result<()> {
        if !self.lock_typing().context().continuing() {
            return Ok(());
        }
        let mut st = self.lock();
        loop {
            if !maybe_continuing(&st) || st.exit.is_some() {
                return Ok(());
            }
            let quiet_at = st.last_output.max(st.last_input) + QUIET;
            if Instant::now() >= quiet_at {
                break;
            }
            if Instant::now() >= deadline {
                return Ok(());
            }
            st = self.wait_on(&self.cond, st, quiet_at.min(deadline)).0;
        }
        let prompt = st.screen.cursor_line_prefix();
        drop(st);
        if !self.shell_reading() {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} is at its continuation prompt (details.prompt): an unfinished line waits \
                 for its end; send the rest with send-line, or Ctrl-C (send-keys C-c) to drop it",
                self.session_id
            ),
        )
        .with_details(crate::error::details::Waiting {
            session_id: self.session_id.clone(),
            terminal_state: WAITING_INPUT.to_string(),
            waiting_for_input: true,
            prompt,
        }))
    }
}
