//! The session's hooks into its recording ([`super::record`]): what the request handlers
//! call to record input and markers, and what `status` and `RecordSync` ask of it.

use super::record::Recorder;
use super::session::Shared;
use std::time::Duration;

impl Shared {
    /// Record `by`'s input (when the session records).
    pub(super) fn record_input(&self, data: &[u8], by: &str) {
        if let Some(r) = self.recorder.get() {
            r.input(data, by, self.echo_off());
        }
    }

    /// Record a marker (when the session records).
    pub(super) fn record_mark(&self, text: &str) {
        if let Some(r) = self.recorder.get() {
            r.mark(text);
        }
    }

    /// `RecordSync`: wait up to `within` until the recording's queue is written. A session
    /// that does not record has nothing to wait for; a recording that stopped is an error.
    pub(super) fn record_sync(&self, within: Duration) -> crate::error::Result<()> {
        let Some(r) = self.recorder.get() else {
            return Ok(());
        };
        if r.sync(within) {
            return Ok(());
        }
        Err(crate::error::Error::new(
            crate::error::ErrorCode::PtyTimeout,
            format!(
                "the recording was not written within {} ms",
                within.as_millis()
            ),
        ))
    }

    /// The recording's state for `status`: `off`, `on` or `stopped: WHY`.
    pub(super) fn recording_state(&self) -> String {
        self.recorder
            .get()
            .map_or_else(|| "off".into(), Recorder::state)
    }
}
