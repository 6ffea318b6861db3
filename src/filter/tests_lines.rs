//! Property tests of the line stage: a blocked word however it is dressed (blanks, paste
//! markers, edits, Enter encodings, splits across writes) never reaches the program as a
//! submitted line; other lines dressed the same way pass byte for byte; and for any stream,
//! with any timeouts, the bytes forwarded never submit a blocked line.

use std::time::Instant;

use proptest::prelude::*;

use super::lines::{BUILTIN_LINES, LineRule, blocked};
use super::submit::submitted;
use super::*;

/// Ways to reach an empty line first: nothing, or text erased by each editing key.
const PREFIXES: [&str; 7] = ["", "\x15", "junk\x15", "e\x7f", "x\x08", "abc\x17", "ls\r"];

/// Encodings of Enter.
const ENTERS: [&str; 8] = [
    "\r",
    "\n",
    "\r\n",
    "\x1bOM",
    "\x1b[13u",
    "\x1b[13;1u",
    "\x1b[27;1;13~",
    "\x1b[57414u",
];

const BLANKS: [&str; 4] = ["", " ", "\t", "  \t "];

/// Splits `input` into writes at the given cut points.
fn writes<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut from = 0;
    for c in at {
        out.push(&input[from..c]);
        from = c;
    }
    out.push(&input[from..]);
    out
}

fn run(input: &[u8], cuts: &[usize]) -> (Vec<u8>, Vec<String>) {
    let mut f = InputFilter::new(FilterConfig::default()).unwrap();
    let now = Instant::now();
    let (mut out, mut names) = (Vec::new(), Vec::new());
    for w in writes(input, cuts) {
        let r = f.write(w, now);
        out.extend(r.forward);
        names.extend(r.blocked);
    }
    out.extend(f.flush());
    (out, names)
}

fn rules() -> Vec<LineRule> {
    BUILTIN_LINES
        .iter()
        .filter_map(|w| LineRule::from_sequence(format!("{w}\r").as_bytes()))
        .collect()
}

fn no_blocked_submission(out: &[u8]) -> Result<(), TestCaseError> {
    for line in submitted(out) {
        prop_assert!(blocked(&rules(), &line).is_none(), "{line:?} in {out:?}");
    }
    Ok(())
}

/// A line dressed up: prefix, blanks, optional paste, the word (maybe with a typo fixed),
/// an optional status, blanks, and Enter (inside the paste or after it).
fn dressed(word: &str) -> impl Strategy<Value = (String, Vec<usize>)> {
    let word = word.to_string();
    (
        prop::sample::select(&PREFIXES[..]),
        prop::sample::select(&BLANKS[..]),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(&["", " 0", " $?"][..]),
        prop::sample::select(&BLANKS[..]),
        prop::sample::select(&ENTERS[..]),
        0u8..3,
        proptest::collection::vec(0usize..64, 0..6),
    )
        .prop_map(
            move |(pre, lead, paste, typo, status, trail, enter, paste_enter, cuts)| {
                let mut w = word.clone();
                if typo && w.len() > 1 {
                    w.insert_str(1, "q\x7f");
                }
                let body = format!("{lead}{w}{status}{trail}");
                let line = match (paste, paste_enter) {
                    (false, _) => format!("{pre}{body}{enter}"),
                    // Enter inside the paste (a program without bracketed paste submits it).
                    (true, 0) => format!("{pre}\x1b[200~{body}\r\x1b[201~"),
                    (true, 1) => format!("{pre}\x1b[200~{body}\n\x1b[201~{enter}"),
                    (true, _) => format!("{pre}\x1b[200~{body}\x1b[201~{enter}"),
                };
                (line, cuts)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_blocked_word_however_dressed_is_kept_back(
        (line, cuts) in prop::sample::select(&BUILTIN_LINES[..]).prop_flat_map(dressed)
    ) {
        let (out, names) = run(line.as_bytes(), &cuts);
        prop_assert!(!names.is_empty(), "{line:?} passed as {out:?}");
        no_blocked_submission(&out)?;
    }

    #[test]
    fn other_lines_dressed_the_same_pass_untouched(
        (line, cuts) in prop::sample::select(&[
            "exit_code=1", "echo exit", "exitfoo", "quitter", "ls -la", "/exits", "ex it",
            "git commit -m quit", "cat /exit",
        ][..]).prop_flat_map(dressed)
    ) {
        let (out, names) = run(line.as_bytes(), &cuts);
        prop_assert!(names.is_empty(), "{line:?}: {names:?}");
        prop_assert_eq!(out, line.into_bytes());
    }

    #[test]
    fn whatever_the_stream_and_timing_no_blocked_line_is_submitted(
        tokens in proptest::collection::vec(prop::sample::select(&[
            "e", "x", "i", "t", "q", "u", "/", " ", "\t", "\r", "\n", "\x7f", "\x15", "\x17",
            "\x1b[200~", "\x1b[201~", "\x1bOM", "\x1b[13u", ";", "0", "a", "\x01", "\x1b[D",
            "\x05", "\x0b", "\x16", "\x1b", "'",
        ][..]), 0..40),
        sizes in proptest::collection::vec(1usize..8, 1..8),
        flush in proptest::collection::vec(any::<bool>(), 8),
    ) {
        let input: Vec<u8> = tokens.concat().into_bytes();
        let mut f = InputFilter::new(FilterConfig::default()).unwrap();
        let now = Instant::now();
        let mut out = Vec::new();
        let (mut at, mut i) = (0, 0);
        while at < input.len() {
            let end = (at + sizes[i % sizes.len()]).min(input.len());
            out.extend(f.write(&input[at..end], now).forward);
            if flush[i % flush.len()] {
                out.extend(f.flush());
            }
            at = end;
            i += 1;
        }
        out.extend(f.flush());
        no_blocked_submission(&out)?;
        // Nothing invented or reordered.
        let mut it = input.iter();
        prop_assert!(out.iter().all(|b| it.any(|c| c == b)));
    }
}
