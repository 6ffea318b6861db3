//! Unit tests of the input filter: every blocked sequence whole and split, surrounding bytes,
//! the partial-match timeout, the Ctrl-C debounce, custom sequences, overlaps.

use std::time::{Duration, Instant};

use super::*;
use crate::error::ErrorCode;

fn filter() -> InputFilter {
    InputFilter::new(FilterConfig::default()).expect("built-ins compile")
}

/// Feeds `writes` at one instant (no timeout fires); returns everything forwarded (held bytes
/// flushed at the end) and the names blocked.
fn run(f: &mut InputFilter, writes: &[&[u8]]) -> (Vec<u8>, Vec<String>) {
    let now = Instant::now();
    let (mut out, mut names) = (Vec::new(), Vec::new());
    for w in writes {
        let r = f.write(w, now);
        out.extend(r.forward);
        names.extend(r.blocked);
    }
    out.extend(f.flush());
    (out, names)
}

#[test]
fn every_builtin_whole_is_blocked_and_named() {
    for seq in BUILTIN {
        let mut f = filter();
        let r = f.write(seq, Instant::now());
        assert!(r.forward.is_empty(), "{seq:?}: {r:?}");
        assert_eq!(r.blocked, vec![describe(seq)]);
        assert_eq!((r.held, f.deadline()), (0, None));
        assert_eq!(r.warning(), Some(WARNING));
    }
    assert_eq!(describe(b"\x04"), "\\x04 (Ctrl-D)");
    assert_eq!(describe(b"\x1c"), "\\x1c (Ctrl-\\)");
    assert_eq!(describe(b"exit\r"), "exit\\r");
    assert_eq!(describe(b"/exit\n"), "/exit\\n");
}

#[test]
fn every_builtin_split_at_every_boundary_with_context() {
    for seq in BUILTIN {
        for cut in 0..=seq.len() {
            for (pre, post) in [
                (&b""[..], &b""[..]),
                (b"ls\r", b"pwd\r"),
                (b"\x1b[A", b"x"),
                (b"  ", b"y"),
                (b"echo \x15", b""),
            ] {
                let mut f = filter();
                let mut first = pre.to_vec();
                first.extend_from_slice(&seq[..cut]);
                let (out, names) = run(&mut f, &[&first, &seq[cut..], post]);
                let mut want = pre.to_vec();
                want.extend_from_slice(post);
                assert_eq!(out, want, "{seq:?} cut at {cut}");
                assert_eq!(names, vec![describe(seq)]);
            }
        }
    }
}

#[test]
fn five_keystrokes_in_five_writes() {
    let mut f = filter();
    let now = Instant::now();
    for (i, b) in b"exit".iter().enumerate() {
        let r = f.write(&[*b], now);
        assert!(r.forward.is_empty() && !r.suppressed());
        assert_eq!(r.held, i + 1);
    }
    assert_eq!(f.held(), b"exit");
    let r = f.write(b"\r", now);
    assert!(r.forward.is_empty());
    assert_eq!(r.blocked, vec!["exit\\r"]);
    assert_eq!(f.deadline(), None);
}

#[test]
fn a_failed_partial_match_is_forwarded_in_order() {
    let mut f = filter();
    let now = Instant::now();
    assert!(f.write(b"ex", now).forward.is_empty());
    assert_eq!(f.write(b"port A=1\r", now).forward, b"export A=1\r");
    // `quit` held, then a space: not a match.
    assert!(f.write(b"quit", now).forward.is_empty());
    assert_eq!(f.write(b" now\r", now).forward, b"quit now\r");
    // Ctrl-D or Ctrl-\ inside text: only that byte goes.
    assert_eq!(run(&mut f, &[b"a\x04b\x1cc"]).0, b"abc");
}

#[test]
fn lines_are_judged_whole_not_as_substrings() {
    let (out, names) = run(&mut filter(), &[b"/exit\r"]);
    assert_eq!((out, names), (Vec::new(), vec!["/exit\\r".to_string()]));
    for cut in 0..=6 {
        let s = b"/exit\n";
        let (out, _) = run(&mut filter(), &[&s[..cut], &s[cut..]]);
        assert!(out.is_empty(), "cut {cut}: {out:?}");
    }
    // Another command that holds the word is not the word: the shell would not exit.
    for benign in [
        &b"x/exit\ry"[..],
        b"myexit\r",
        b"echo exit\r",
        b"exit_code=1\r",
        b"EXIT\rexit now\r",
    ] {
        let (out, names) = run(&mut filter(), &[benign]);
        assert_eq!((out.as_slice(), names.len()), (benign, 0));
    }
    // The word as its own command, however it is dressed, is the word.
    let (out, names) = run(&mut filter(), &[b"ls; exit 0\r"]);
    assert_eq!((out, names.len()), (b"ls; ".to_vec(), 1));
}

#[test]
fn a_cut_cannot_splice_a_sequence_together() {
    // Ctrl-D is cut out; the line the program then gets is `quit`, and its Enter is kept back.
    let (out, names) = run(&mut filter(), &[b"qu\x04it\r"]);
    assert_eq!((out, names.len()), (Vec::new(), 2));
    let (out, names) = run(&mut filter(), &[b"e\x1cxit\n"]);
    assert_eq!((out, names.len()), (Vec::new(), 2));
}

#[test]
fn partial_match_flushes_after_the_timeout() {
    let mut f = filter();
    let t0 = Instant::now();
    assert!(f.write(b"ls; qui", t0).forward == b"ls; ");
    assert_eq!(f.deadline(), Some(t0 + PARTIAL_TIMEOUT));
    assert_eq!(f.flush_due(t0 + Duration::from_millis(499)), None);
    // New input restarts the clock.
    let t1 = t0 + Duration::from_millis(400);
    assert!(f.write(b"", t1).forward.is_empty());
    assert_eq!(
        f.deadline(),
        Some(t0 + PARTIAL_TIMEOUT),
        "an empty write is no input"
    );
    assert!(f.write(b"t", t1).forward.is_empty());
    assert_eq!(f.deadline(), Some(t1 + PARTIAL_TIMEOUT));
    assert_eq!(f.flush_due(t1 + Duration::from_millis(499)), None);
    assert_eq!(f.flush_due(t1 + PARTIAL_TIMEOUT), Some(b"quit".to_vec()));
    assert_eq!(
        (f.deadline(), f.flush_due(t1 + PARTIAL_TIMEOUT)),
        (None, None)
    );
    // The rest, late: the program already has `quit`, but never gets the Enter.
    let r = f.write(b"\r", t1 + Duration::from_secs(5));
    assert!(r.forward.is_empty());
    assert_eq!(r.blocked, vec!["quit\\r"]);
    // Something else after the flush passes.
    let mut f = filter();
    f.write(b"exi", t0);
    assert_eq!(
        f.flush_due(t0 + Duration::from_secs(1)),
        Some(b"exi".to_vec())
    );
    assert_eq!(
        f.write(b"sts\r", t0 + Duration::from_secs(2)).forward,
        b"sts\r"
    );
}

#[test]
fn ctrl_c_debounce_windows() {
    let ms = Duration::from_millis;
    let mut f = filter();
    let t0 = Instant::now();
    assert_eq!(f.write(b"\x03", t0).forward, b"\x03");
    let r = f.write(b"\x03", t0 + ms(499));
    assert_eq!((r.forward.is_empty(), r.ctrl_c_debounced), (true, 1));
    assert_eq!(r.warning(), Some(CTRL_C_WARNING));
    assert_eq!(r.names(), vec!["\\x03 (Ctrl-C) repeated within 500 ms"]);
    // A dropped one does not extend the window: at its end the next is first again.
    assert_eq!(f.write(b"\x03", t0 + ms(500)).forward, b"\x03");
    let r = f.write(b"a\x03\x03b", t0 + ms(600));
    assert_eq!((r.forward, r.ctrl_c_debounced), (b"ab".to_vec(), 2));
    // In one write: the first passes, the rest inside the window do not.
    let mut f = filter();
    let r = f.write(b"\x03\x03\x03", t0);
    assert_eq!((r.forward, r.ctrl_c_debounced), (b"\x03".to_vec(), 2));
    // Off with 0.
    let mut f = InputFilter::new(FilterConfig {
        ctrl_c_debounce_ms: 0,
        ..FilterConfig::default()
    })
    .unwrap();
    assert_eq!(f.write(b"\x03\x03", t0).forward, b"\x03\x03");
    // Ctrl-C ends a partial match: the held bytes go first.
    let mut f = filter();
    assert!(f.write(b"exi", t0).forward.is_empty());
    assert_eq!(f.write(b"\x03", t0).forward, b"exi\x03");
}

#[test]
fn custom_sequences_with_escapes() {
    let config = FilterConfig::parse(&[r"\x1b[24~", r"\x1a", r"kill\ta", r"é\e"], 500).unwrap();
    assert_eq!(
        config.block_sequences,
        vec![
            b"\x1b[24~".to_vec(),
            b"\x1a".to_vec(),
            b"kill\ta".to_vec(),
            "é\x1b".into()
        ]
    );
    let mut f = InputFilter::new(config).unwrap();
    assert_eq!(f.sequences().len(), BUILTIN.len() + 4);
    let (out, names) = run(&mut f, &[b"a\x1b[2", b"4~b\x1a", b"c\x1b[A"]);
    assert_eq!(out, b"abc\x1b[A");
    assert_eq!(names, vec!["\\x1b[24~", "\\x1a (Ctrl-Z)"]);
    // A duplicate of a built-in is one sequence.
    let f = InputFilter::new(FilterConfig::parse(&[r"exit\r"], 500).unwrap()).unwrap();
    assert_eq!(f.sequences().len(), BUILTIN.len());
}

#[test]
fn custom_prefix_and_overlap_patterns() {
    let config = FilterConfig::parse(&["ab", "abc", "bcd", "x"], 0).unwrap();
    let mut f = InputFilter::new(config).unwrap();
    // `ab` completes first; `c` follows alone.
    assert_eq!(run(&mut f, &[b"zab", b"cd"]).0, b"zcd");
    assert_eq!(run(&mut f, &[b"bcd"]).0, b"");
    assert_eq!(run(&mut f, &[b"1x2xx3"]).0, b"123");
    assert_eq!(run(&mut f, &[b"abbcd"]).0, b"");
}

#[test]
fn bad_sequences_are_refused() {
    for (bad, why) in [
        ("", "empty"),
        (r"\q", "unknown escape"),
        (r"a\", "lone backslash"),
        (r"\x4", "two hex digits"),
        (r"\x+1", "two hex digits"),
        (r"\xzz", "two hex digits"),
    ] {
        let e = parse_sequence(bad).expect_err(bad);
        assert_eq!(e.code, ErrorCode::InvalidParams);
        assert!(e.message.contains(why), "{bad}: {}", e.message);
    }
    assert!(parse_sequence(&"a".repeat(65)).is_err());
    assert_eq!(parse_sequence(r"\\\0\x00").unwrap(), b"\\\0\0");
    let e = InputFilter::new(FilterConfig {
        block_sequences: vec![Vec::new()],
        ..FilterConfig::default()
    })
    .unwrap_err();
    assert!(e.message.contains("empty"), "{}", e.message);
    assert!(FilterConfig::parse(&["a"; 65], 500).is_err());
    assert!(FilterConfig::parse::<&str>(&[], MAX_CTRL_C_DEBOUNCE_MS + 1).is_err());
}

#[test]
fn local_writes_bypass_but_keep_the_context() {
    let mut f = filter();
    let now = Instant::now();
    assert!(f.write(b"ex", now).forward.is_empty());
    // A person types: the held remote bytes go first, then theirs, unfiltered.
    assert_eq!(f.local(b"it\r\x04"), b"exit\r\x04");
    assert_eq!(f.deadline(), None);
    // The program got `qu` from the person; a remote `it\r` would finish `quit\r`.
    assert_eq!(f.local(b"qu"), b"qu");
    let r = f.write(b"it\r", now);
    assert!(r.forward.is_empty() && r.suppressed());
}

#[test]
fn the_writer_gets_input_blocked() {
    let mut f = filter();
    let r = f.write(b"ls\r\x04", Instant::now());
    assert_eq!(r.forward, b"ls\r");
    let e = r.error().expect("blocked");
    assert_eq!((e.code, e.code.exit_code()), (ErrorCode::InputBlocked, 106));
    assert!(e.message.contains("\\x04 (Ctrl-D)"), "{}", e.message);
    let d = e.details.unwrap().to_value();
    assert_eq!(d["blocked"], serde_json::json!(["\\x04 (Ctrl-D)"]));
    assert_eq!(d["warning"], WARNING);
    assert_eq!(
        (d["forwarded_bytes"].as_u64(), d["held_bytes"].as_u64()),
        (Some(3), Some(0))
    );
    assert!(f.write(b"ls\r", Instant::now()).error().is_none());
    // The web console's words are seed 002's, byte for byte.
    assert_eq!(
        for_web(WARNING),
        "\r\n\x1b[1;33m⚠  Blocked from web. Use local terminal to exit.\x1b[0m\r\n"
    );
    assert!(for_web(CTRL_C_WARNING).contains("Repeated Ctrl-C blocked from web"));
}

#[test]
fn the_largest_custom_set_builds_and_bounds_the_hold() {
    let seqs: Vec<Vec<u8>> = (0..64u8)
        .map(|i| {
            (0..64u8)
                .map(|j| b'a' + (i.wrapping_mul(7) ^ j) % 26)
                .collect()
        })
        .collect();
    let mut f = InputFilter::new(FilterConfig {
        block_sequences: seqs.clone(),
        ..FilterConfig::default()
    })
    .unwrap();
    let now = Instant::now();
    let r = f.write(&seqs[5][..63], now);
    assert!(r.held <= sequence::MAX_SEQUENCE_LEN);
    assert!(f.write(&seqs[5][63..], now).suppressed());
}

#[test]
fn a_blocked_paste_is_still_closed_for_the_program() {
    // The paste start went out; its end was held with `exit`: the program gets the end back.
    let (out, names) = run(&mut filter(), &[b"\x1b[200~exit\x1b[201~\r"]);
    assert_eq!((out, names.len()), (b"\x1b[200~\x1b[201~".to_vec(), 1));
    // The Enter inside the paste is dropped; the end comes later as sent.
    let (out, names) = run(&mut filter(), &[b"\x1b[200~exit\r", b"\x1b[201~"]);
    assert_eq!((out, names.len()), (b"\x1b[200~\x1b[201~".to_vec(), 1));
}
