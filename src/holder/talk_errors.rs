//! The errors a talk answers with: a busy terminal (full-screen or foreground program) and a
//! talk that stopped without completing (cancelled, timed out, the shell ended).

use super::session::Shared;
use super::talk::Stop;
use crate::error::{Error, ErrorCode, Hint};
use crate::proto::TalkRequest;
use serde_json::json;

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
        .with_details(json!({
            "session_id": self.session_id,
            "terminal_state": "full_screen",
            "foreground_pid": fg.as_ref().map(|f| f.0),
            "foreground_command": fg.and_then(|f| f.1),
        }))
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
        .with_details(json!({"session_id": self.session_id, "foreground_pid": pid, "foreground_command": name}))
    }

    /// The error of a talk that stopped without completing.
    pub(super) fn stop_error(
        &self,
        stop: Stop,
        req: &TalkRequest,
        details: serde_json::Value,
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
                let mut e = self
                    .exited_error(&exit)
                    .with_cause(crate::error::Cause::EndedDuringCall);
                let mut d = details;
                d["exit_code"] = json!(exit.code);
                e.details = Some(d);
                e
            }
        }
    }
}
