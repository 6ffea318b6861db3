//! The frames a host's channel ([`super::mux`]) holds for ssh while ssh is busy, kept per
//! caller and given out in turn — one frame of each caller with frames waiting, then round
//! again — so a caller's small request waits behind at most one frame of each other caller,
//! never behind the whole of another caller's bulk stdin. Each caller's frames keep their
//! order, and every frame goes out whole (frames of different callers never interleave).

use std::collections::{HashMap, VecDeque};

/// The frames waiting, by caller id.
#[derive(Default)]
pub struct FairQueue {
    waiting: HashMap<u32, Waiting>,
    /// The callers with frames waiting, in the order of their turns.
    turns: VecDeque<u32>,
    /// Bytes waiting in all.
    total: usize,
}

#[derive(Default)]
struct Waiting {
    frames: VecDeque<Vec<u8>>,
    bytes: usize,
}

impl FairQueue {
    /// Queue an encoded frame of caller `id` behind its earlier ones.
    pub fn push(&mut self, id: u32, frame: Vec<u8>) {
        let w = self.waiting.entry(id).or_default();
        if w.frames.is_empty() {
            self.turns.push_back(id);
        }
        w.bytes += frame.len();
        self.total += frame.len();
        w.frames.push_back(frame);
    }

    /// The next frame to go out: the first of the caller whose turn it is (who then waits for
    /// its next turn behind every other caller with frames waiting).
    pub fn pop(&mut self) -> Option<(u32, Vec<u8>)> {
        let id = self.turns.pop_front()?;
        let w = self.waiting.get_mut(&id)?;
        let frame = w.frames.pop_front()?;
        w.bytes -= frame.len();
        self.total -= frame.len();
        if w.frames.is_empty() {
            self.waiting.remove(&id);
        } else {
            self.turns.push_back(id);
        }
        Some((id, frame))
    }

    /// Drop what caller `id` still has waiting (it is gone: nothing of its request needs to
    /// reach the host but the cancel that follows).
    pub fn forget(&mut self, id: u32) {
        if let Some(w) = self.waiting.remove(&id) {
            self.total -= w.bytes;
            self.turns.retain(|t| *t != id);
        }
    }

    /// Bytes caller `id` has waiting.
    pub fn waiting(&self, id: u32) -> usize {
        self.waiting.get(&id).map_or(0, |w| w.bytes)
    }

    /// Bytes waiting in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Nothing waits.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A frame that names its caller and its place: (caller, n-th frame of that caller).
    fn frame(id: u32, n: usize, len: usize) -> Vec<u8> {
        let mut f = format!("{id}:{n}:").into_bytes();
        f.resize(f.len() + len, b'.');
        f
    }

    fn parse(f: &[u8]) -> (u32, usize) {
        let s = String::from_utf8_lossy(f);
        let mut it = s.split(':');
        let id = it.next().unwrap().parse().unwrap();
        let n = it.next().unwrap().parse().unwrap();
        (id, n)
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push { caller: u32, len: usize },
        Pop,
        Forget { caller: u32 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u32..5, 0usize..300).prop_map(|(caller, len)| Op::Push { caller, len }),
            3 => Just(Op::Pop),
            1 => (0u32..5).prop_map(|caller| Op::Forget { caller }),
        ]
    }

    proptest! {
        /// Whatever callers push, pop and leave: each caller's frames come out whole and in
        /// its order (after a forget, only its newer ones), the byte counts stay true, and a
        /// caller with frames waiting gets a turn before any other caller gets two.
        #[test]
        fn frames_go_out_whole_in_order_and_in_turn(ops in prop::collection::vec(op(), 0..300)) {
            let mut q = FairQueue::default();
            let mut pushed: HashMap<u32, VecDeque<(usize, usize)>> = HashMap::new();
            let mut next_n: HashMap<u32, usize> = HashMap::new();
            // Frames each caller got out since another caller's waiting frames were passed over.
            let mut out_since: HashMap<u32, HashMap<u32, usize>> = HashMap::new();
            for op in ops {
                match op {
                    Op::Push { caller, len } => {
                        let n = *next_n.entry(caller).and_modify(|n| *n += 1).or_insert(0);
                        let f = frame(caller, n, len);
                        pushed.entry(caller).or_default().push_back((n, f.len()));
                        q.push(caller, f);
                    }
                    Op::Forget { caller } => {
                        q.forget(caller);
                        pushed.remove(&caller);
                        out_since.remove(&caller);
                    }
                    Op::Pop => {
                        let Some((id, f)) = q.pop() else {
                            prop_assert!(pushed.values().all(VecDeque::is_empty));
                            continue;
                        };
                        let (caller, n) = parse(&f);
                        prop_assert_eq!(caller, id);
                        let (want_n, want_len) = pushed.get_mut(&id).and_then(VecDeque::pop_front).unwrap();
                        prop_assert_eq!((n, f.len()), (want_n, want_len));
                        // Every other caller still waiting saw `id` go once more; none may see
                        // it twice before its own turn.
                        for (other, frames) in &pushed {
                            if *other != id && !frames.is_empty() {
                                let seen = out_since.entry(*other).or_default().entry(id).or_insert(0);
                                *seen += 1;
                                prop_assert!(*seen <= 1, "caller {id} went twice while {other} waited");
                            }
                        }
                        out_since.remove(&id);
                    }
                }
                let total: usize = pushed.values().flatten().map(|(_, l)| l).sum();
                prop_assert_eq!(q.total(), total);
                for (id, frames) in &pushed {
                    prop_assert_eq!(q.waiting(*id), frames.iter().map(|(_, l)| l).sum::<usize>());
                }
                prop_assert_eq!(q.is_empty(), total == 0 && pushed.values().all(VecDeque::is_empty));
            }
        }
    }
}
