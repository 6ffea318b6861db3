//! The streaming matcher: an Aho-Corasick DFA (the `aho-corasick` crate) stepped one byte at a
//! time over the stream the program receives, its state carried across writes.
//!
//! The matcher runs over the *output* (what the program gets), not over the raw input: after
//! a match is cut out, the state is recomputed from the output's last bytes, so bytes that
//! come together only once a match between them is gone (`e` + `exit\r` + `xit\r`) are caught
//! too. The invariant that follows: the bytes forwarded never contain a blocked sequence.

use std::collections::{HashMap, VecDeque};

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};

/// The matcher: the automaton, its current state, and the last bytes of the output stream.
#[derive(Debug, Clone)]
pub(super) struct Matcher {
    dfa: DFA,
    start: StateID,
    /// The automaton's state after the output so far.
    state: StateID,
    /// Trie depth of each state: how many trailing output bytes are a prefix of some pattern.
    depth: HashMap<StateID, usize>,
    /// The output stream's last bytes (forwarded and held), at most `cap`: enough context to
    /// recompute the state after a match is cut out of it.
    tail: VecDeque<u8>,
    cap: usize,
    /// How many of `tail`'s last bytes are held (not yet forwarded).
    held: usize,
}

impl Matcher {
    /// A matcher for `patterns` (non-empty, distinct, each non-empty: checked by the caller).
    pub(super) fn new(patterns: &[Vec<u8>]) -> Result<Self, aho_corasick::BuildError> {
        let dfa = DFA::builder()
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .build(patterns)?;
        let start = dfa
            .start_state(Anchored::No)
            .expect("an unanchored DFA has an unanchored start state");
        let depth = depths(&dfa, start);
        let max = patterns.iter().map(Vec::len).max().unwrap_or(1);
        Ok(Self {
            dfa,
            start,
            state: start,
            depth,
            tail: VecDeque::with_capacity(2 * max),
            // After cutting out a match (at most `max` bytes), `max - 1` bytes of context
            // must remain: the longest proper prefix of a pattern.
            cap: 2 * max,
            held: 0,
        })
    }

    /// Feeds one byte. Bytes that can no longer be the start of a match are appended to `out`;
    /// when a match completes, its bytes still held are dropped and the pattern's index is
    /// returned (the longest pattern ending here: `/exit\r` rather than `exit\r`).
    pub(super) fn push(&mut self, b: u8, out: &mut Vec<u8>) -> Option<usize> {
        self.tail.push_back(b);
        self.held += 1;
        self.state = self.dfa.next_state(Anchored::No, self.state, b);
        let matched = if self.dfa.is_match(self.state) {
            let (pid, len) = self.longest_match();
            // Bytes of the match already forwarded (released by a timeout, or put next to
            // the rest only by an earlier cut) cannot be recalled: drop what is still held.
            let drop = len.min(self.held);
            self.tail.truncate(self.tail.len() - drop);
            self.held -= drop;
            self.state = self.recompute();
            Some(pid)
        } else {
            None
        };
        self.release_excess(out);
        matched
    }

    /// Forwards every held byte (the partial-match timeout). The state is kept: if the rest
    /// of the sequence comes later, its bytes are still dropped.
    pub(super) fn flush(&mut self, out: &mut Vec<u8>) {
        self.release(self.held, out);
    }

    /// Bytes written around the filter (a person's local terminal): the held bytes go first,
    /// then these, unfiltered; the automaton still reads them, so its state stays that of the
    /// bytes the program received.
    pub(super) fn pass(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        self.flush(out);
        out.extend_from_slice(bytes);
        for &b in bytes {
            self.tail.push_back(b);
            self.state = self.dfa.next_state(Anchored::No, self.state, b);
        }
        self.trim();
    }

    /// How many bytes are held.
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// The held bytes, oldest first.
    pub(super) fn held_bytes(&self) -> Vec<u8> {
        self.tail
            .range(self.tail.len() - self.held..)
            .copied()
            .collect()
    }

    /// The longest pattern the current (match) state reports: (pattern index, length).
    fn longest_match(&self) -> (usize, usize) {
        (0..self.dfa.match_len(self.state))
            .map(|i| {
                let pid = self.dfa.match_pattern(self.state, i);
                (pid.as_usize(), self.dfa.pattern_len(pid))
            })
            .max_by_key(|&(_, len)| len)
            .expect("a match state has at least one pattern")
    }

    /// The state after the output's last bytes, read from the start state.
    fn recompute(&self) -> StateID {
        self.tail
            .iter()
            .fold(self.start, |s, &b| self.dfa.next_state(Anchored::No, s, b))
    }

    /// Forwards the held bytes that the current state no longer needs.
    fn release_excess(&mut self, out: &mut Vec<u8>) {
        let depth = self.depth.get(&self.state).copied().unwrap_or(0);
        if self.held > depth {
            self.release(self.held - depth, out);
        }
        self.trim();
    }

    /// Forwards the `n` oldest held bytes.
    fn release(&mut self, n: usize, out: &mut Vec<u8>) {
        let from = self.tail.len() - self.held;
        out.extend(self.tail.range(from..from + n));
        self.held -= n;
    }

    /// Keeps at most `cap` bytes of context (never dropping held ones).
    fn trim(&mut self) {
        let keep = self.cap.max(self.held);
        if self.tail.len() > keep {
            self.tail.drain(..self.tail.len() - keep);
        }
    }
}

/// The depth of every state reachable from `start`: the length of the pattern prefix it stands
/// for. A state is reached only by input ending in its prefix, so the shortest path to it
/// from the start state (breadth first) is exactly that prefix.
fn depths(dfa: &DFA, start: StateID) -> HashMap<StateID, usize> {
    let mut depth = HashMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(s) = queue.pop_front() {
        let d = depth[&s];
        for b in 0..=u8::MAX {
            let next = dfa.next_state(Anchored::No, s, b);
            depth.entry(next).or_insert_with(|| {
                queue.push_back(next);
                d + 1
            });
        }
    }
    depth
}
