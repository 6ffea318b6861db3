//! A request body as `kpty serve` hands it to the router: it must arrive whole before its
//! deadline (then it fails, and the request ends: 408 from `JsonBody`, an error from any
//! other reader), and while it is still arriving its connection counts as *receiving*, which
//! the accept loop may close to make room at the connection cap (`conns.rs`): a client that
//! sends a body a byte at a time holds no place a real request needs.

use axum::body::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

/// The error of a body that did not arrive before its deadline (a reader maps it to 408).
#[derive(Debug)]
pub struct TimedOut;

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time")
    }
}

impl std::error::Error for TimedOut {}

/// Whether `e`, or an error behind it, is [`TimedOut`].
pub fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(e) = cur {
        if e.is::<TimedOut>() {
            return true;
        }
        cur = e.source();
    }
    false
}

/// Counts a body as still arriving on its connection while it lives.
struct Receiving(Arc<AtomicUsize>);

impl Drop for Receiving {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The body of one request, with its deadline.
pub struct Tracked {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    /// `Some` until the body has arrived, failed or run out of time.
    receiving: Option<Receiving>,
    expired: bool,
}

impl Tracked {
    /// `inner`, counted in `receiving` until it has arrived, failing after `limit`.
    pub fn new(inner: Incoming, receiving: &Arc<AtomicUsize>, limit: Duration) -> Self {
        let counted = (!inner.is_end_stream()).then(|| {
            receiving.fetch_add(1, Ordering::AcqRel);
            Receiving(receiving.clone())
        });
        Self {
            inner,
            deadline: Box::pin(tokio::time::sleep(limit)),
            receiving: counted,
            expired: false,
        }
    }
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if this.expired {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(f))) => {
                if this.inner.is_end_stream() {
                    this.receiving = None;
                }
                Poll::Ready(Some(Ok(f)))
            }
            Poll::Ready(other) => {
                this.receiving = None;
                Poll::Ready(other.map(|r| r.map_err(Into::into)))
            }
            Poll::Pending if this.receiving.is_some() => {
                if this.deadline.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.receiving = None;
                this.expired = true;
                Poll::Ready(Some(Err(Box::new(TimedOut))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.expired || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
