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
    pub(super) fn record(&self, event: serde_json::Value) {
        journal::append(&self.state, &self.events, event);
    }
}
