//! How a `talk` reaches its session and waits for the answer. The talk's flow
//! ([`super::talk::run_talk_with`]: audit, policy, the default session replaced, redaction,
//! caps) is one `async fn`; only the waiting differs by front end:
//! - [`Blocking`] waits on the calling thread (the CLI, `kpty serve`'s workers, a host
//!   answering a remote caller), its future ready when first polled ([`block_now`]);
//! - `kpty mcp` waits on its own event loop, so a talk costs its server no hand-off to another
//!   thread and back (`crate::mcp::talking`).

use super::running::Running;
use super::{Ctx, sessions};
use crate::bridge::Talked;
use crate::error::Result;
use crate::proto::{ProgressBody, TalkBody, TalkRequest};
use crate::store::RegistryEntry;
use std::future::Future;
use std::time::Duration;

/// Where a talk's progress goes: each frame's output so far.
pub(crate) type Sink<'a> = &'a mut (dyn FnMut(ProgressBody) + Send);

/// How a talk reaches its session and waits for the answer.
pub(crate) trait Converse: Sync {
    /// Send `req` to the holder of local session `e` and wait (at most `io_timeout`) for its
    /// answer, handing progress frames to `sink`; the errors of
    /// [`sessions::call_watched`] (a holder that went away while its shell exited says so).
    fn local<'a>(
        &'a self,
        ctx: &'a Ctx,
        e: &'a RegistryEntry,
        req: TalkRequest,
        io_timeout: Duration,
        sink: Sink<'a>,
        running: &'a Running,
    ) -> impl Future<Output = Result<TalkBody>> + Send + 'a;

    /// The same talk in a session of the desktop bridge.
    fn bridged<'a>(
        &'a self,
        e: &'a RegistryEntry,
        req: &'a TalkRequest,
    ) -> impl Future<Output = Result<Talked>> + Send + 'a;
}

/// Waiting on the calling thread: every future is ready when first polled.
pub(crate) struct Blocking;

impl Converse for Blocking {
    fn local<'a>(
        &'a self,
        ctx: &'a Ctx,
        e: &'a RegistryEntry,
        req: TalkRequest,
        io_timeout: Duration,
        sink: Sink<'a>,
        running: &'a Running,
    ) -> impl Future<Output = Result<TalkBody>> + Send + 'a {
        std::future::ready(running.with_wake(|wake| {
            let none = &|_: &std::os::unix::net::UnixStream| Ok(());
            sessions::call_watched(ctx, e, req, io_timeout, none, sink, wake)
        }))
    }

    fn bridged<'a>(
        &'a self,
        e: &'a RegistryEntry,
        req: &'a TalkRequest,
    ) -> impl Future<Output = Result<Talked>> + Send + 'a {
        std::future::ready(crate::bridge::talk(e, req))
    }
}

/// Run `f` to its end on this thread. With [`Blocking`] its futures are ready at once, so this
/// polls once; anything else parks the thread until woken (a plain executor of one future).
pub(crate) fn block_now<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::sync::Arc::new(Unpark(std::thread::current())).into();
    let mut cx = std::task::Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}
