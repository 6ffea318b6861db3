//! What restarting a program session's program needs (`--auto-restart`): the terminal's
//! slave side, the command, and where to record the lifecycle.

use crate::proto::launch::ProgramSpec;
use crate::store::{StateDir, journal};
use portable_pty::{Child, CommandBuilder, SlavePty};
use std::path::PathBuf;
use std::sync::Mutex;

/// What restarting a program needs: the terminal's slave side, the command, and where to
/// record the lifecycle.
pub struct Restarter {
    slave: Mutex<Box<dyn SlavePty + Send>>,
    cmd: CommandBuilder,
    /// What the program was started with (its restart delay).
    pub(super) spec: ProgramSpec,
    state: StateDir,
    events: PathBuf,
}

impl Restarter {
    /// Keep `slave` to start `cmd` on again.
    pub fn new(
        slave: Box<dyn SlavePty + Send>,
        cmd: CommandBuilder,
        spec: ProgramSpec,
        state: StateDir,
        events: PathBuf,
    ) -> Self {
        Self {
            slave: Mutex::new(slave),
            cmd,
            spec,
            state,
            events,
        }
    }

    /// Start the program again on the kept terminal.
    pub(super) fn spawn(&self) -> std::io::Result<Box<dyn Child + Send + Sync>> {
        self.slave
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .spawn_command(self.cmd.clone())
            .map_err(std::io::Error::other)
    }

    /// Append a lifecycle event to the session's journal.
    pub(super) fn record(&self, what: ProgramEvent) {
        let event = LifecycleEvent {
            ts: crate::store::now_rfc3339(),
            what,
        };
        journal::append(&self.state, &self.events, &event);
    }
}

/// A program session's lifecycle line in its journal (`kpty log` shows it with the traffic).
#[derive(serde::Serialize)]
struct LifecycleEvent {
    ts: String,
    #[serde(flatten)]
    what: ProgramEvent,
}

/// What happened to a session's program.
#[derive(serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(super) enum ProgramEvent {
    /// It exited (to be started again in `restarting_in_ms`, when it will be).
    ProcessExited {
        exit_code: i32,
        exit_signal: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        restarting_in_ms: Option<u64>,
    },
    /// It was started again.
    ProcessRestarted {
        pid: u32,
        restart_count: u32,
        delay_ms: u64,
    },
}
