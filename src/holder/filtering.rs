//! The input filter in the holder (seed 002 §8.4): every write from a remote writer (MCP, the
//! HTTP bridge, the CLI's write verbs) passes [`crate::filter::InputFilter`] before the PTY; a
//! person's keys from `kpty attach` pass it unfiltered (the automaton still reads them, so it
//! follows what the program receives). Held bytes of a partial match go out after
//! [`crate::filter::PARTIAL_TIMEOUT`] without new input, from the flusher thread.

use super::session::Shared;
use crate::error::Result;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the flusher sleeps at most before looking at the session again.
const RECHECK: Duration = Duration::from_secs(1);

impl Shared {
    /// Write `data` from a remote writer: through the filter when the session has one.
    /// Returns the bytes written now; a write that lost a sequence (or a debounced Ctrl-C) is
    /// `INPUT_BLOCKED` after the rest of it was written.
    pub(super) fn write_remote(&self, data: &[u8]) -> Result<usize> {
        let Some(filter) = self.filter.get() else {
            self.write_all(data)?;
            return Ok(data.len());
        };
        let mut f = filter.lock();
        let out = f.write(data, Instant::now());
        if !out.forward.is_empty() {
            self.write_all(&out.forward)?;
        }
        if out.held > 0 {
            filter.cv.notify_all();
        }
        drop(f);
        if let Some(e) = out.error() {
            tracing::info!("input filter: blocked {:?}", out.names());
            return Err(e);
        }
        Ok(out.forward.len())
    }

    /// Write a person's keys (`kpty attach`): never filtered.
    pub(super) fn write_local(&self, data: &[u8]) -> Result<()> {
        match self.filter.get() {
            Some(filter) => {
                let mut f = filter.lock();
                let bytes = f.local(data);
                self.write_all(&bytes)
            }
            None => self.write_all(data),
        }
    }

    /// The flusher thread: forward held bytes once their timeout passes, until the session
    /// ends.
    pub fn flusher(self: Arc<Self>) {
        let Some(filter) = self.filter.get() else {
            return;
        };
        let mut f = filter.lock();
        loop {
            if self.lock().exit.is_some() {
                return;
            }
            let now = Instant::now();
            if let Some(bytes) = f.flush_due(now) {
                if let Err(e) = self.write_all(&bytes) {
                    tracing::debug!("input filter flush: {e}");
                }
                continue;
            }
            let wake = f.deadline().unwrap_or(now + RECHECK).min(now + RECHECK);
            f = filter
                .cv
                .wait_timeout(f, wake.saturating_duration_since(now))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}
