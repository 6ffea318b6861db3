//! Cancellations that overtake their call. Over streamable HTTP a `tools/call` and the
//! `notifications/cancelled` that follows it are two requests of their own, and the second
//! can reach rmcp's loop first: rmcp then finds no such call and drops the cancel, and the
//! call runs as if never cancelled (a talk typed after its caller gave up on it). So the
//! server keeps its calls in flight by request id: a cancel for one of them stops it, a
//! cancel for none is kept a while, and a call whose cancel came first starts cancelled.

use rmcp::model::RequestId;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How long a cancel for a call not seen (yet) is kept.
const KEPT_FOR: Duration = Duration::from_secs(30);

/// Most such cancels kept (the oldest go first): a client sending cancels for calls it never
/// makes costs this much memory at most.
const KEPT_MAX: usize = 256;

/// One MCP session's calls in flight and the cancels that came before their call (cheap to
/// clone; clones share them).
#[derive(Clone, Default)]
pub struct Cancels(Arc<Mutex<Inner>>);

#[derive(Default)]
struct Inner {
    /// The calls in flight: what stops each.
    calls: HashMap<RequestId, CancellationToken>,
    /// Cancels for calls not in flight, oldest first, with when they came.
    early: VecDeque<(RequestId, Instant)>,
}

impl Cancels {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A call `id` starts, stopped by `ct`: cancelled at once when its cancel came first.
    /// The call is listed until the returned guard is dropped.
    pub fn start(&self, id: &RequestId, ct: &CancellationToken) -> InFlight {
        let mut inner = self.lock();
        inner.forget_old(Instant::now());
        if let Some(at) = inner.early.iter().position(|(e, _)| e == id) {
            inner.early.remove(at);
            ct.cancel();
        }
        inner.calls.insert(id.clone(), ct.clone());
        InFlight {
            of: self.clone(),
            id: id.clone(),
        }
    }

    /// The client cancelled call `id`: stop it if it is in flight, else keep the cancel for
    /// when it comes.
    pub fn cancelled(&self, id: RequestId) {
        let mut inner = self.lock();
        let now = Instant::now();
        inner.forget_old(now);
        if let Some(ct) = inner.calls.get(&id) {
            ct.cancel();
            return;
        }
        if inner.early.iter().any(|(e, _)| *e == id) {
            return;
        }
        if inner.early.len() >= KEPT_MAX {
            inner.early.pop_front();
        }
        inner.early.push_back((id, now));
    }
}

impl Inner {
    fn forget_old(&mut self, now: Instant) {
        while self
            .early
            .front()
            .is_some_and(|(_, at)| now.duration_since(*at) > KEPT_FOR)
        {
            self.early.pop_front();
        }
    }
}

/// A call in flight ([`Cancels::start`]); unlisted when dropped.
pub struct InFlight {
    of: Cancels,
    id: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.of.lock().calls.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What happens to the calls and cancels of a session.
    #[derive(Debug, Clone)]
    enum Step {
        /// Call `n` starts (and stays in flight until it ends).
        Start(u8),
        /// Call `n` ends.
        End(u8),
        /// The client cancels call `n`.
        Cancel(u8),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..6).prop_map(Step::Start),
            (0u8..6).prop_map(Step::End),
            (0u8..6).prop_map(Step::Cancel),
        ]
    }

    proptest! {
        /// Whatever the order: a call is cancelled exactly when its client cancelled it while
        /// it was in flight, or before it started and after its previous run ended (a cancel
        /// for a call that is over stays for the next call of that id — ids are not reused
        /// by a client within a session) — never a call the client did not cancel.
        #[test]
        fn a_call_is_cancelled_exactly_when_its_cancel_came(steps in proptest::collection::vec(step(), 0..40)) {
            let c = Cancels::default();
            let mut running: HashMap<u8, (CancellationToken, InFlight)> = HashMap::new();
            let mut pending: HashMap<u8, bool> = HashMap::new();
            for s in steps {
                match s {
                    Step::Start(n) if !running.contains_key(&n) => {
                        let ct = CancellationToken::new();
                        let f = c.start(&RequestId::Number(n.into()), &ct);
                        let early = pending.remove(&n).unwrap_or(false);
                        prop_assert_eq!(ct.is_cancelled(), early);
                        running.insert(n, (ct, f));
                    }
                    Step::End(n) => {
                        running.remove(&n);
                    }
                    Step::Cancel(n) => {
                        c.cancelled(RequestId::Number(n.into()));
                        match running.get(&n) {
                            Some((ct, _)) => prop_assert!(ct.is_cancelled()),
                            None => {
                                pending.insert(n, true);
                            }
                        }
                    }
                    Step::Start(_) => {}
                }
            }
        }
    }

    #[test]
    fn a_flood_of_cancels_for_calls_never_made_is_bounded() {
        let c = Cancels::default();
        for n in 0..10_000 {
            c.cancelled(RequestId::Number(n));
        }
        assert_eq!(c.lock().early.len(), KEPT_MAX);
        // The newest are kept.
        let ct = CancellationToken::new();
        let _f = c.start(&RequestId::Number(9_999), &ct);
        assert!(ct.is_cancelled());
        let ct = CancellationToken::new();
        let _f = c.start(&RequestId::Number(0), &ct);
        assert!(!ct.is_cancelled());
    }
}
