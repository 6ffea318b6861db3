//! A session's input filter behind its lock, and the condvar its flusher thread waits on
//! (the writes through it are in `filtering.rs`).

use crate::filter::InputFilter;
use std::sync::{Condvar, Mutex, MutexGuard};

/// A session's filter and the condvar its flusher waits on.
pub struct Filter {
    inner: Mutex<InputFilter>,
    /// Signalled when bytes are held, for the flusher.
    pub(super) cv: Condvar,
}

impl Filter {
    /// Wrap a built filter.
    pub fn new(f: InputFilter) -> Self {
        Self {
            inner: Mutex::new(f),
            cv: Condvar::new(),
        }
    }

    /// The filter (a poisoned lock is taken over: the filter's state stays usable).
    pub(super) fn lock(&self) -> MutexGuard<'_, InputFilter> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}
