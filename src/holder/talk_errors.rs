//! The errors a talk answers with: a busy terminal (full-screen or foreground program) and a
//! talk that stopped without completing (cancelled, timed out, the shell ended).

use super::session::Shared;
use super::talk::Stop;
use crate::error::{Error, ErrorCode, Hint};
use crate::proto::TalkRequest;

impl Shared {
    /// `PTY_BUSY`: a full-screen program owns the screen (typing would edit its buffer).
    pub(super) fn full_screen_error(&self, fg: Option<(u32, Option<String>)>) -> Error {
        let what = match &fg {
            Some((_, Some(name))) => format!("`{name}`"),
            Some((pid, None)) => format!("pid {pid}"),
            None => "a full-screen program".into(),
        };
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} is busy: {what} is running full-screen (alternate screen); talk would type \
                 into it",
                self.session_id
            ),
        )
        .with_hint(Hint::FullScreen {
            session: self.session_id.clone(),
        })
        .with_details(crate::error::details::Foreground {
            session_id: self.session_id.clone(),
            terminal_state: Some("full_screen".into()),
            foreground_pid: fg.as_ref().map(|f| f.0),
            foreground_command: fg.and_then(|f| f.1),
        })
    }

    /// `PTY_BUSY`: another program holds the foreground.
    pub(super) fn foreground_error(&self, pid: u32, name: Option<String>) -> Error {
        let what = name.clone().unwrap_or_else(|| format!("pid {pid}"));
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} is busy: `{what}` is running in the foreground, not the shell",
                self.session_id
            ),
        )
        .with_hint(Hint::Foreground {
            session: self.session_id.clone(),
        })
        .with_details(crate::error::details::Foreground {
            session_id: self.session_id.clone(),
            terminal_state: None,
            foreground_pid: Some(pid),
            foreground_command: name,
        })
    }

    /// `PTY_BUSY`: a cancel's Ctrl-C reached the shell's line editor, and the shell has not
    /// drawn its new prompt within the talk's timeout.
    pub(super) fn not_redrawn(&self, req: &TalkRequest) -> Error {
        Error::new(
            ErrorCode::PtyBusy,
            format!(
                "{} has not drawn its prompt again within {} ms since a cancel's Ctrl-C reached \
                 its line editor (is the shell stopped?); try again later",
                self.session_id, req.timeout_ms
            ),
        )
        .with_details(crate::error::details::Session::of(&self.session_id))
    }

    /// The error of a talk whose caller cancelled it while it waited to be let in.
    pub(super) fn cancelled_queued(&self) -> Error {
        Error::new(
            ErrorCode::Cancelled,
            format!(
                "the talk on {} was cancelled by its caller while it waited for the session: \
                 nothing of it ran",
                self.session_id
            ),
        )
        .with_details(crate::error::details::Session::of(&self.session_id))
    }

    /// The error of a talk that stopped without completing.
    pub(super) fn stop_error(
        &self,
        stop: Stop,
        req: &TalkRequest,
        details: crate::error::details::TalkStop,
    ) -> Error {
        match stop {
            Stop::Cancelled | Stop::ClientGone => Error::new(
                ErrorCode::Cancelled,
                format!(
                    "the talk on {} was cancelled by its caller",
                    self.session_id
                ),
            )
            .with_details(details),
            Stop::CancelledUntyped => Error::new(
                ErrorCode::Cancelled,
                format!(
                    "the talk on {} was cancelled by its caller before its command was typed: \
                     nothing of it ran",
                    self.session_id
                ),
            )
            .with_details(details),
            Stop::Timeout => Error::new(
                ErrorCode::PtyTimeout,
                format!("Command timed out after {}ms", req.timeout_ms),
            )
            .with_hint(Hint::TalkTimedOut {
                session: self.session_id.clone(),
            })
            .with_details(details),
            Stop::Waiting => Error::internal("a waiting talk has its own reply"),
            Stop::Exited(exit) => {
                // The exit's own details give way to the talk's, with its code.
                self.exited_error(&exit)
                    .with_cause(crate::error::Cause::EndedDuringCall)
                    .with_details(crate::error::details::TalkStop {
                        exit_code: Some(exit.code.into()),
                        ..details
                    })
            }
        }
    }
}
