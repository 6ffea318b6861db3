//! The talks a server is running, by call (MCP `talk`, the bridge's `POST /pty/talk`): what
//! `kpty serve` and `kpty mcp` stop when they shut down.
//! A talk whose caller went away runs on in its session until its command ends (the holder
//! keeps it), holding the session busy; so at shutdown every talk still listed is cancelled
//! (Ctrl-C into its terminal) until its worker returns, within a deadline.

use crate::core::{self, Ctx};
use crate::store::RegistryEntry;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long to wait for a cancelled talk's worker to return before cancelling it again (a
/// cancel that reached the holder before the talk did finds nothing to stop).
const RECHECK: Duration = Duration::from_millis(100);

/// The running talks (cheap to clone; clones share them).
#[derive(Clone, Default)]
pub struct InFlight(Arc<Inner>);

#[derive(Default)]
struct Inner {
    next: AtomicU64,
    /// Call key → the session, once the talk has resolved it (`None` before).
    talks: Mutex<HashMap<u64, Option<RegistryEntry>>>,
    changed: Condvar,
}

/// One talk's place in the list; leaves it when dropped (also when the worker panics).
pub struct Ticket {
    key: u64,
    of: Arc<Inner>,
}

impl InFlight {
    /// List a talk that is starting.
    pub fn start(&self) -> Ticket {
        let key = self.0.next.fetch_add(1, Ordering::Relaxed);
        self.talks().insert(key, None);
        Ticket {
            key,
            of: self.0.clone(),
        }
    }

    fn talks(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Option<RegistryEntry>>> {
        self.0.talks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many talks are running.
    pub fn len(&self) -> usize {
        self.talks().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cancel every running talk (Ctrl-C into its terminal) and wait for their workers to
    /// return, until `deadline`; returns how many were still running then. Blocking.
    pub fn cancel_all(&self, ctx: &Ctx, deadline: Instant) -> usize {
        loop {
            let targets: Vec<RegistryEntry> = self.talks().values().flatten().cloned().collect();
            for t in &targets {
                if let Err(e) = core::talk::cancel(ctx, t, true) {
                    tracing::debug!(
                        "cancel of a talk on {} at shutdown: {}",
                        t.session_id,
                        e.message
                    );
                }
            }
            let now = Instant::now();
            let talks = self.talks();
            if talks.is_empty() || now >= deadline {
                return talks.len();
            }
            let wait = RECHECK.min(deadline - now);
            let (talks, _) = self
                .0
                .changed
                .wait_timeout_while(talks, wait, |t| !t.is_empty())
                .unwrap_or_else(|p| p.into_inner());
            if talks.is_empty() {
                return 0;
            }
        }
    }
}

impl Ticket {
    /// The talk has resolved its session.
    pub fn at(&self, entry: &RegistryEntry) {
        let mut talks = self.of.talks.lock().unwrap_or_else(|p| p.into_inner());
        talks.insert(self.key, Some(entry.clone()));
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut talks = self.of.talks.lock().unwrap_or_else(|p| p.into_inner());
        talks.remove(&self.key);
        drop(talks);
        self.of.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_leave_the_list_when_dropped_and_cancel_all_returns_when_empty() {
        let f = InFlight::default();
        let a = f.start();
        let b = f.start();
        assert_eq!(f.len(), 2);
        drop(a);
        assert_eq!(f.len(), 1);
        let f2 = f.clone();
        let t = std::thread::spawn(move || {
            // No session resolved yet: nothing to cancel; it returns once the ticket leaves.
            let dir = tempfile::tempdir().expect("tmp");
            let ctx = Ctx::new(crate::store::StateDir::at(dir.path()).expect("dir")).expect("ctx");
            f2.cancel_all(&ctx, Instant::now() + Duration::from_secs(20))
        });
        drop(b);
        assert_eq!(t.join().expect("join"), 0);
        assert!(f.is_empty());
    }
}
