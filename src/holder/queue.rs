//! The talks waiting to be let in while another runs (or the shell is not ready yet): each
//! with its number in this holder, its caller's id for it (what a `Cancel` names) and whether
//! it is to give up — its caller cancelled it, or hung up. The waiting itself, and the watch
//! of a caller's connection, are the talk's (`talk.rs`).

/// The waiting talks of a session.
#[derive(Debug, Default)]
pub struct Queue {
    waiting: Vec<Waiting>,
    /// The number the next talk to wait gets.
    next: u64,
}

#[derive(Debug)]
struct Waiting {
    ticket: u64,
    id: Option<String>,
    stopped: bool,
}

impl Queue {
    /// A talk (`id`: its caller's name for it) starts waiting: its ticket.
    pub fn join(&mut self, id: Option<&str>) -> u64 {
        let ticket = self.next;
        self.next += 1;
        self.waiting.push(Waiting {
            ticket,
            id: id.map(str::to_string),
            stopped: false,
        });
        ticket
    }

    /// The talk `ticket` no longer waits (let in, or given up).
    pub fn leave(&mut self, ticket: u64) {
        if let Some(at) = self.waiting.iter().position(|w| w.ticket == ticket) {
            self.waiting.swap_remove(at);
        }
    }

    /// The talk `ticket` is to give up; false when it no longer waits.
    pub fn stop(&mut self, ticket: u64) -> bool {
        let w = self.waiting.iter_mut().find(|w| w.ticket == ticket);
        w.map(|w| w.stopped = true).is_some()
    }

    /// The waiting talk its caller calls `id` is to give up; false when none waits.
    pub fn stop_id(&mut self, id: &str) -> bool {
        let w = self
            .waiting
            .iter_mut()
            .find(|w| w.id.as_deref() == Some(id));
        w.map(|w| w.stopped = true).is_some()
    }

    /// Whether the talk `ticket` is to give up.
    pub fn stopped(&self, ticket: u64) -> bool {
        self.waiting.iter().any(|w| w.ticket == ticket && w.stopped)
    }

    /// How many talks wait and are not giving up.
    pub fn len(&self) -> u64 {
        self.waiting.iter().filter(|w| !w.stopped).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Step {
        Join(Option<u8>),
        Leave(usize),
        Stop(usize),
        StopId(u8),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            proptest::option::of(0u8..4).prop_map(Step::Join),
            (0usize..8).prop_map(Step::Leave),
            (0usize..8).prop_map(Step::Stop),
            (0u8..4).prop_map(Step::StopId),
        ]
    }

    proptest! {
        /// Against a plain model: tickets are never reused, a stop reaches only the talk it
        /// names (by ticket, or the first waiting with that id), and the count is of the
        /// talks waiting that are not giving up.
        #[test]
        fn the_queue_stops_only_the_talk_named(steps in proptest::collection::vec(step(), 0..60)) {
            let mut q = Queue::default();
            // (ticket, id, stopped), in order of joining.
            let mut model: Vec<(u64, Option<u8>, bool)> = vec![];
            let mut issued = vec![];
            for s in steps {
                match s {
                    Step::Join(id) => {
                        let t = q.join(id.map(|i| i.to_string()).as_deref());
                        prop_assert!(!issued.contains(&t));
                        issued.push(t);
                        model.push((t, id, false));
                    }
                    Step::Leave(i) => {
                        if let Some(&t) = issued.get(i) {
                            q.leave(t);
                            model.retain(|m| m.0 != t);
                        }
                    }
                    Step::Stop(i) => {
                        if let Some(&t) = issued.get(i) {
                            let there = model.iter_mut().find(|m| m.0 == t);
                            let expect = there.map(|m| m.2 = true).is_some();
                            prop_assert_eq!(q.stop(t), expect);
                        }
                    }
                    Step::StopId(id) => {
                        let found = q.stop_id(&id.to_string());
                        // Which entry it stopped is the queue's choice among equals: any
                        // one waiting with that id, and no other.
                        let with_id: Vec<_> = model.iter().filter(|m| m.1 == Some(id)).collect();
                        prop_assert_eq!(found, !with_id.is_empty());
                        let stopped_now: Vec<u64> = model.iter().filter(|m| m.1 == Some(id) && !m.2)
                            .map(|m| m.0).filter(|t| q.stopped(*t)).collect();
                        for m in model.iter_mut() {
                            if stopped_now.contains(&m.0) {
                                m.2 = true;
                            }
                        }
                    }
                }
                for m in &model {
                    prop_assert_eq!(q.stopped(m.0), m.2, "ticket {}", m.0);
                }
                prop_assert_eq!(q.len(), model.iter().filter(|m| !m.2).count() as u64);
            }
        }
    }
}
