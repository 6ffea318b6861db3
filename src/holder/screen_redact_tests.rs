//! Redaction of the rows a `term_read` returns: a secret the terminal soft-wrapped over rows
//! (an unmerged read) or that a window's edge cuts is found on the logical line, through the
//! real screen model, at every width.

use super::*;
use crate::safety::redact::redact_rows;
use crate::safety::redact::tests::secret;
use proptest::prelude::*;

/// What an agent gets from an unmerged tail read of `max_lines` rows: the rows as the core
/// redacts them (with the holder's context and wrap flags).
fn redacted_tail(s: &mut Screen, max_lines: usize, mode: Mode, merge: bool) -> Vec<String> {
    let v = s
        .read(&Query {
            mode,
            max_lines,
            max_chars: 50_000,
            merge_wrapped: merge,
            marker_id: None,
        })
        .expect("read");
    redact_rows(
        &v.context_before,
        v.lines,
        (&v.wraps, v.cols),
        &v.context_after,
    )
}

/// Every 8-byte piece of `value` (the part of a secret that must never show).
fn pieces(value: &str) -> Vec<&str> {
    (0..value.len().saturating_sub(7))
        .filter(|i| value.is_char_boundary(*i) && value.is_char_boundary(i + 8))
        .map(|i| &value[i..i + 8])
        .collect()
}

fn assert_hidden(rows: &[String], value: &str, what: &str) {
    // Joined without separators too: an agent can put wrapped rows back together.
    for joined in [rows.join(""), rows.join("\n")] {
        for p in pieces(value) {
            assert!(!joined.contains(p), "{what}: {p:?} in {rows:?}");
        }
    }
}

#[test]
fn a_token_wrapped_at_every_width_is_hidden() {
    let token = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5");
    for cols in 5..=60u16 {
        let mut s = Screen::new(cols, 10, 1000);
        s.feed(format!("$ echo {token}\r\n{token}\r\n$ ").as_bytes());
        for max in [1, 2, 3, 200] {
            for merge in [false, true] {
                let rows = redacted_tail(&mut s, max, Mode::Tail, merge);
                assert_hidden(&rows, &token[4..], &format!("cols {cols} max {max}"));
            }
        }
        let rows = redacted_tail(&mut s, 200, Mode::Viewport, false);
        assert_hidden(&rows, &token[4..], &format!("viewport cols {cols}"));
    }
}

#[test]
fn a_token_after_wide_characters_wrapped_at_every_width_is_hidden() {
    let token = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5";
    for cols in 5..=50u16 {
        let mut s = Screen::new(cols, 10, 1000);
        s.feed(format!("日本語 {token}\r\n$ ").as_bytes());
        for max in [1, 2, 200] {
            let rows = redacted_tail(&mut s, max, Mode::Tail, false);
            assert_hidden(&rows, &token[4..], &format!("cols {cols} max {max}"));
        }
    }
}

#[test]
fn a_wrapped_secret_keeps_the_rows_around_it() {
    let mut s = Screen::new(10, 10, 1000);
    s.feed(b"ls\r\nkey: ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5 ok\r\n$ ");
    let rows = redacted_tail(&mut s, 200, Mode::Tail, false);
    assert_eq!(rows.first().map(String::as_str), Some("ls"));
    assert!(
        rows.iter().any(|r| r == "key: [REDACTED:github_token]"),
        "{rows:?}"
    );
    assert_eq!(rows.last().map(String::as_str), Some("$"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_secret_kind_wrapped_at_any_width_is_hidden(
        (text, value) in secret(),
        pre in "[ -~]{0,30}",
        cols in 4u16..90,
        max in 1usize..6,
    ) {
        let mut s = Screen::new(cols, 8, 1000);
        let shown = text.replace('\n', "\r\n");
        s.feed(format!("{pre} {shown} tail\r\n$ ").as_bytes());
        for mode in [Mode::Tail, Mode::Viewport] {
            for lines in [max, 200] {
                let rows = redacted_tail(&mut s, lines, mode, false);
                for joined in [rows.join(""), rows.join("\n")] {
                    for p in pieces(&value) {
                        prop_assert!(!joined.contains(p), "cols {} {:?}: {:?} in {:?}", cols, mode, p, rows);
                    }
                }
            }
        }
    }
}
