//! The line stage of the filter: follows the line the program is editing, as both line
//! editors of [`crate::safety::lineedit`] would hold it (readline, and the kernel's canonical
//! mode), and keeps from the program any Enter that would submit a blocked line
//! ([`super::lines`]).
//!
//! It reads the bytes the program receives (what the byte stage forwarded, plus a person's
//! unfiltered keys), through [`super::enter::KeyDecoder`] (every Enter encoding as `\r`, paste
//! markers gone). Two views are kept: `committed`, after the bytes the program has, and
//! `current`, after those and the bytes held back. Bytes are held while the line could still
//! become a blocked one (`e`, `ex`, `exit `…), at most [`HOLD_CAP`] of them, and released
//! once it cannot, when a line is submitted, or at the partial-match timeout. A key that
//! would submit a blocked line is dropped with the held bytes; the program keeps the line it
//! had (text forwarded earlier, e.g. by the timeout, stays; its Enter never comes).
//!
//! Invariant: replaying the forwarded bytes through a fresh stage never submits a blocked line.
//! Work is bounded: a line is looked at in full only on a control key (an Enter may be among
//! them), and at most [`CHECK_BUDGET`] characters are looked at per write; past that, control
//! keys that would submit a line are dropped (fail closed) and named as such.

use super::enter::{KeyDecoder, PASTE_END};
use super::lines::{self, LineRule};
use crate::safety::lineedit::{Editor, Keymap, Line};

/// Most bytes held back for one line.
pub(super) const HOLD_CAP: usize = 256;

/// Lines longer than this are not candidates for holding (their Enter is still checked).
const SHORT_LINE: usize = 512;

/// Most characters of lines looked at per write.
pub(super) const CHECK_BUDGET: usize = 1 << 23;

/// The name of a submission kept from the program because the write was too costly to check.
pub(super) const UNCHECKED: &str = "Enter on a line too costly to check";

/// The line as the program holds it, in both editors.
#[derive(Debug, Clone)]
struct View {
    keys: KeyDecoder,
    readline: Editor,
    canonical: Editor,
}

impl View {
    fn new() -> Self {
        Self {
            keys: KeyDecoder::default(),
            readline: Editor::new(Keymap::Readline),
            canonical: Editor::new(Keymap::Canonical),
        }
    }

    /// Feeds one character to both editors; returns the lines they submit.
    fn feed(&mut self, c: char) -> Vec<Line> {
        let mut buf = [0; 4];
        let s = c.encode_utf8(&mut buf);
        let mut lines = self.readline.feed(s);
        lines.extend(self.canonical.feed(s));
        // Beyond what an editor follows: it starts over with an empty line.
        if self.readline.gave_up() {
            self.readline = Editor::new(Keymap::Readline);
        }
        if self.canonical.gave_up() {
            self.canonical = Editor::new(Keymap::Canonical);
        }
        lines
    }

    /// Feeds bytes without looking at what they submit.
    fn pass(&mut self, bytes: &[u8]) {
        let mut chars = Vec::new();
        for &b in bytes {
            self.keys.push(b, &mut chars);
        }
        for c in chars {
            self.feed(c);
        }
    }

    /// What both editors hold, in characters: the cost of a clone or a look at the line.
    fn size(&self) -> usize {
        self.readline.chars_held() + self.canonical.chars_held()
    }

    /// Whether the line being typed could still become a blocked one, in either editor.
    fn candidate(&self, rules: &[LineRule]) -> bool {
        self.size() <= SHORT_LINE
            && [&self.readline, &self.canonical]
                .iter()
                .any(|e| lines::candidate(rules, &e.pending().text))
    }
}

/// The line stage's state.
#[derive(Debug, Clone)]
pub(super) struct LineStage {
    rules: Vec<LineRule>,
    committed: View,
    current: View,
    held: Vec<u8>,
    /// Characters looked at in this write.
    spent: usize,
}

impl LineStage {
    /// A stage blocking `rules`.
    pub(super) fn new(rules: Vec<LineRule>) -> Self {
        Self {
            rules,
            committed: View::new(),
            current: View::new(),
            held: Vec::new(),
            spent: 0,
        }
    }

    /// A new write begins: its checking budget is full again.
    pub(super) fn begin_write(&mut self) {
        self.spent = 0;
    }

    /// Feeds one byte on its way to the program. Bytes it releases are appended to `out`;
    /// when it would submit a blocked line it is dropped with the held bytes and the rule's
    /// words are returned.
    pub(super) fn push(&mut self, b: u8, out: &mut Vec<u8>) -> Option<String> {
        let mut chars = Vec::new();
        self.current.keys.push(b, &mut chars);
        let mut submitted = false;
        for &c in &chars {
            if c >= ' ' && c != '\x7f' {
                self.current.feed(c);
                continue;
            }
            // A control key may submit: try it on a copy first.
            self.spent = self.spent.saturating_add(self.current.size() + 1);
            let verdict = if self.spent > CHECK_BUDGET {
                Err(UNCHECKED.to_string())
            } else {
                let mut trial = self.current.clone();
                let lines = trial.feed(c);
                match lines
                    .iter()
                    .find_map(|l| lines::blocked(&self.rules, &l.text))
                {
                    Some(rule) => Err(rule.words.clone()),
                    None => Ok((trial, !lines.is_empty())),
                }
            };
            match verdict {
                Ok((trial, sub)) => {
                    self.current = trial;
                    submitted |= sub;
                }
                Err(_) if self.spent > CHECK_BUDGET && !self.would_submit(c) => {
                    self.current.feed(c);
                }
                Err(name) => {
                    self.block(out);
                    return Some(name);
                }
            }
        }
        self.held.push(b);
        if submitted || self.held.len() > HOLD_CAP || !self.current.candidate(&self.rules) {
            self.release(out);
        }
        None
    }

    /// Whether `c` is a key that may submit a line (so an unchecked one must be dropped).
    fn would_submit(&self, c: char) -> bool {
        matches!(c, '\r' | '\n' | '\x0f' | '\x04')
    }

    /// Drops the held bytes and the key that would submit a blocked line: the program keeps
    /// the line it has. A paste the program saw open but whose end was among the dropped
    /// bytes is closed, so the program does not stay in paste mode.
    fn block(&mut self, out: &mut Vec<u8>) {
        let closed = self.committed.keys.in_paste() && !self.current.keys.in_paste();
        self.held.clear();
        self.current = self.committed.clone();
        if closed {
            self.committed.pass(PASTE_END);
            self.current.pass(PASTE_END);
            out.extend_from_slice(PASTE_END);
        }
    }

    /// Forwards every held byte.
    pub(super) fn release(&mut self, out: &mut Vec<u8>) {
        if self.held.is_empty() {
            return;
        }
        self.committed.pass(&self.held);
        out.append(&mut self.held);
    }

    /// Bytes written around the filter (a person's keys): the held bytes go first, then
    /// these; both views follow them.
    pub(super) fn pass(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        self.release(out);
        self.committed.pass(bytes);
        self.current.pass(bytes);
        out.extend_from_slice(bytes);
    }

    /// How many bytes are held.
    pub(super) fn held(&self) -> usize {
        self.held.len()
    }

    /// The held bytes.
    pub(super) fn held_bytes(&self) -> &[u8] {
        &self.held
    }
}

/// The lines a program would submit reading `bytes` from a fresh start (both editors).
#[cfg(test)]
pub(super) fn submitted(bytes: &[u8]) -> Vec<String> {
    let mut view = View::new();
    let mut chars = Vec::new();
    for &b in bytes {
        view.keys.push(b, &mut chars);
    }
    chars
        .into_iter()
        .flat_map(|c| view.feed(c))
        .map(|l| l.text)
        .collect()
}
