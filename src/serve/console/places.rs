//! A cap on the console's open WebSockets of one kind (the overview's, the terminal views'):
//! upgraded connections leave the server's connection table, so they are counted here; one
//! over the cap is answered 503 `TOO_MANY_STREAMS`, and a socket that ends frees its place.

use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The places of one kind of socket: at most `max` open at once.
pub(super) struct Places {
    open: Arc<AtomicUsize>,
    max: usize,
    /// What the sockets are, for the refusal (`console pages`, `console terminals`).
    what: &'static str,
}

/// One open socket's place, given back when it drops.
pub(super) struct Place(Arc<AtomicUsize>);

impl Places {
    pub(super) fn new(max: usize, what: &'static str) -> Self {
        Places {
            open: Arc::default(),
            max,
            what,
        }
    }

    /// A free place, or the 503 answer when there is none.
    pub(super) fn take(&self) -> Result<Place, Box<Response>> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .map(|_| Place(self.open.clone()))
            .map_err(|_| {
                Box::new(super::super::fail(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "TOO_MANY_STREAMS",
                    &format!("{} {} are open already: close one", self.max, self.what),
                ))
            })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
