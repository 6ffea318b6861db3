//! A line submitted to the shell and not answered yet.
//!
//! An Enter typed at the prompt hands the line to the shell, which answers it with a marker
//! when the line is taken: a command starts (OSC 133 C), or it finishes or a new prompt comes
//! (D, or A on a line of its own). Until then the shell may still start that command, and a
//! talk typed meanwhile would take that command's markers for its own. Shells re-emit markers
//! while they repaint the line they are accepting (fish redraws its prompt and line, with A
//! and B, before it runs them): an input-start (B) never answers, and a prompt-start (A)
//! answers only after the line editor moved past the submitted line (a newline printed since
//! the Enter).

use super::markers::{Mark, MarkKind};

/// An Enter typed when the output stream ended at `at`, not answered yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Submitted {
    /// The output's end (absolute offset) when the Enter was typed.
    at: u64,
    /// The first newline the shell printed since (absolute offset), once seen.
    newline: Option<u64>,
}

impl Submitted {
    /// An Enter typed when the output ended at absolute offset `at`.
    pub fn at(at: u64) -> Self {
        Self { at, newline: None }
    }

    /// Feed output `chunk` (starting at absolute offset `off`) and the markers found in it;
    /// returns whether the shell answered the submitted line.
    pub fn answered(&mut self, chunk: &[u8], off: u64, marks: &[Mark]) -> bool {
        if self.newline.is_none() {
            let from = usize::try_from(self.at.saturating_sub(off))
                .unwrap_or(usize::MAX)
                .min(chunk.len());
            self.newline = chunk[from..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|p| off + (from + p) as u64);
        }
        marks.iter().any(|m| m.start >= self.at && self.answers(m))
    }

    fn answers(&self, m: &Mark) -> bool {
        match m.kind {
            MarkKind::OutputStart | MarkKind::Finished(_) => true,
            MarkKind::PromptStart => self.newline.is_some_and(|n| m.start > n),
            MarkKind::InputStart => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holder::markers::MarkerScanner;
    use proptest::prelude::*;

    /// Feed `stream` in chunks cut at `cuts`, starting at offset `at`: is the Enter answered?
    fn answered(stream: &[u8], cuts: &[usize], at: u64) -> bool {
        let mut sub = Submitted::at(at);
        let mut scan = MarkerScanner::new();
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
        bounds.extend([0, stream.len()]);
        bounds.sort_unstable();
        bounds.dedup();
        bounds.windows(2).any(|w| {
            let off = at + w[0] as u64;
            let marks = scan.feed(&stream[w[0]..w[1]], off);
            sub.answered(&stream[w[0]..w[1]], off, &marks)
        })
    }

    /// What shells print between an Enter and their answer: the line's echo, a repaint of the
    /// prompt and line (with A and B, as fish does), colours, the final newline.
    const BEFORE: &[&[u8]] = &[
        b"echo sent-3",
        b"\r\x1b[51C\x1b[30m\x1b(B\x1b[m",
        b"\x1b]133;A;click_events=1\x07prompt> \x1b]133;B\x07echo sent-3",
        b"\x1b]133;B\x07",
        b"\x1b[?2004l\r",
    ];

    /// The shells' answers: a command starts, it finishes and a prompt comes, a new prompt.
    const ANSWERS: &[&[u8]] = &[
        b"\x1b[30m\x1b(B\x1b[m\x1b]133;C\x07sent-3\r\n\x1b]133;D;0\x07",
        b"\x1b]133;C;cmdline_url=echo%20sent-3\x07",
        b"\x1b]133;D;0\x07\x1b]133;A\x07$ \x1b]133;B\x07",
        b"\x1b]133;D;2\x1b\\",
        b"\x1b[2m\xe2\x8f\x8e\r\x1b[K\x1b]133;A\x07> ",
    ];

    proptest! {
        #[test]
        fn an_enter_is_answered_by_a_command_start_or_a_new_prompt_never_by_a_repaint(
            before in proptest::collection::vec(proptest::sample::select(BEFORE), 0..4),
            answer in proptest::sample::select(ANSWERS),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            at in 0u64..1_000_000,
        ) {
            let mut stream: Vec<u8> = before.concat();
            // Repaints alone never answer.
            prop_assert!(!answered(&stream, &cuts, at), "{:?}", String::from_utf8_lossy(&stream));
            stream.extend_from_slice(b"\r\n");
            prop_assert!(!answered(&stream, &cuts, at), "{:?}", String::from_utf8_lossy(&stream));
            stream.extend_from_slice(answer);
            prop_assert!(answered(&stream, &cuts, at), "{:?}", String::from_utf8_lossy(&stream));
        }
    }

    #[test]
    fn markers_from_before_the_enter_do_not_answer_it() {
        let mut sub = Submitted::at(100);
        let mut scan = MarkerScanner::new();
        let old = b"\x1b]133;C\x07\r\n\x1b]133;D;0\x07\x1b]133;A\x07";
        let marks = scan.feed(old, 100 - old.len() as u64);
        assert!(!sub.answered(old, 100 - old.len() as u64, &marks));
        let marks = scan.feed(b"\r\n\x1b]133;A\x07", 100);
        assert!(sub.answered(b"\r\n\x1b]133;A\x07", 100, &marks));
    }
}
