//! Unit and snapshot tests of the screen model: recorded PTY bytes from tests/fixtures/ fed
//! in odd-sized chunks, renderings checked with insta (snapshots in the top-level snapshots/).

use super::*;
use crate::holder::history::row_text;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}

fn q(mode: Mode, max_lines: usize, marker_id: Option<u64>) -> Query {
    Query {
        mode,
        max_lines,
        max_chars: 50_000,
        merge_wrapped: true,
        marker_id,
    }
}

/// Feed in odd-sized chunks (split sequences and characters on purpose).
fn fed(bytes: &[u8], cols: u16, rows: u16) -> Screen {
    let mut s = Screen::new(cols, rows, 1000);
    for c in bytes.chunks(7) {
        s.feed(c);
    }
    s
}

/// A rendering for snapshots: state line, then the viewport rows as `|text|`.
fn render(s: &mut Screen, mode: Mode) -> String {
    let v = s.read(&q(mode, 200, None)).expect("read");
    let mut out = format!(
        "buffer={} cursor=({},{}) viewport_y={} title={:?}\n",
        if v.alternate { "alternate" } else { "normal" },
        v.cursor_line,
        v.cursor_col,
        v.viewport_y,
        s.title()
    );
    for l in v.lines {
        out.push_str(&format!("|{l}|\n"));
    }
    out
}

macro_rules! fixture_snapshot {
    ($name:ident, $file:literal, $cols:expr, $rows:expr, $mode:expr) => {
        #[test]
        fn $name() {
            let bytes = include_bytes!(concat!("../../tests/fixtures/", $file));
            let mut s = fed(bytes, $cols, $rows);
            let r = render(&mut s, $mode);
            settings().bind(|| insta::assert_snapshot!(stringify!($name), r));
        }
    };
}

fixture_snapshot!(screen_ls_color, "ls_color.bin", 60, 10, Mode::Viewport);
fixture_snapshot!(screen_progress, "progress.bin", 60, 6, Mode::Viewport);
fixture_snapshot!(screen_long_line, "long_line.bin", 20, 6, Mode::Tail);
fixture_snapshot!(screen_clear, "clear.bin", 40, 5, Mode::Viewport);
fixture_snapshot!(
    screen_alt_inside,
    "alt_screen_open.bin",
    40,
    5,
    Mode::Viewport
);
fixture_snapshot!(screen_alt_after, "alt_screen.bin", 40, 5, Mode::Viewport);
fixture_snapshot!(screen_wide, "wide.bin", 20, 5, Mode::Viewport);
fixture_snapshot!(
    screen_invalid_utf8,
    "invalid_utf8.bin",
    40,
    4,
    Mode::Viewport
);

#[test]
fn unmerged_long_line_keeps_rows() {
    let mut s = fed(include_bytes!("../../tests/fixtures/long_line.bin"), 20, 6);
    let v = s
        .read(&Query {
            merge_wrapped: false,
            ..q(Mode::Tail, 200, None)
        })
        .expect("read");
    let merged = s.read(&q(Mode::Tail, 200, None)).expect("read");
    assert!(v.lines.len() > merged.lines.len(), "{v:?} vs {merged:?}");
    assert!(v.lines.iter().all(|l| l.chars().count() <= 20));
}

#[test]
fn alternate_screen_detected_and_left() {
    let mut s = fed(
        include_bytes!("../../tests/fixtures/alt_screen_open.bin"),
        40,
        5,
    );
    assert!(s.alternate());
    s.feed(b"\x1b[?1049l");
    assert!(!s.alternate());
}

#[test]
fn title_from_osc_0_and_2_across_chunks() {
    let mut s = Screen::new(20, 3, 10);
    for b in b"x\x1b]0;first\x07y\x1b]2;sec".iter() {
        s.feed(std::slice::from_ref(b));
    }
    assert_eq!(s.title(), Some("first"));
    s.feed(b"ond\x1b\\ \x1b]133;A\x07\x1b]7;file://h/x\x07");
    assert_eq!(s.title(), Some("second"));
}

#[test]
fn delta_chain_has_no_gap_or_repeat() {
    let mut s = Screen::new(30, 5, 100);
    let r = s.read(&q(Mode::Delta, 10, None)).expect("first");
    let mut marker = r.marker_id;
    let mut seen: Vec<String> = Vec::new();
    for n in 1..=60 {
        s.feed(format!("{n}\r\n").as_bytes());
        if n % 13 == 0 {
            loop {
                let v = s.read(&q(Mode::Delta, 7, Some(marker))).expect("delta");
                assert!(!v.marker_disposed);
                seen.extend(v.lines.iter().filter(|l| !l.is_empty()).cloned());
                marker = v.marker_id;
                if !v.more {
                    break;
                }
            }
        }
    }
    let want: Vec<String> = (1..=52).map(|n| n.to_string()).collect();
    assert_eq!(seen, want);
}

#[test]
fn delta_reports_disposed_marker_and_lost_lines() {
    let mut s = Screen::new(30, 5, 10);
    let m = s.read(&q(Mode::Delta, 10, None)).expect("first").marker_id;
    for n in 1..=50 {
        s.feed(format!("{n}\r\n").as_bytes());
    }
    let v = s.read(&q(Mode::Delta, 200, Some(m))).expect("delta");
    assert!(v.marker_disposed);
    // 51 rows ever (50 lines + the cursor's), 15 held (10 history + 5 visible).
    assert_eq!(v.lines_lost, 36, "{v:?}");
    assert_eq!(v.lines.first().map(String::as_str), Some("37"));
    assert!(s.read(&q(Mode::Delta, 10, Some(999))).is_err());
}

#[test]
fn delta_across_clear_continues() {
    let mut s = Screen::new(30, 5, 100);
    s.feed(b"a\r\nb\r\n$ ");
    let m = s.read(&q(Mode::Delta, 10, None)).expect("first").marker_id;
    s.feed(b"clear\r\n\x1b[H\x1b[2J\x1b[3Jafter\r\n$ ");
    let v = s.read(&q(Mode::Delta, 10, Some(m))).expect("delta");
    assert!(!v.marker_disposed);
    assert_eq!(v.lines.last().map(String::as_str), Some("$"));
    assert!(v.lines.contains(&"after".to_string()), "{v:?}");
    assert!(!v.lines.contains(&"a".to_string()), "{v:?}");
}

/// Output mixing short lines, soft-wrapped long ones and a prompt (10 columns).
fn mixed(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        if i % 7 == 3 {
            let long: String = (0..23)
                .map(|k| char::from(b'a' + ((i + k) % 26) as u8))
                .collect();
            out.extend_from_slice(format!("L{i}:{long}\r\n").as_bytes());
        } else {
            out.extend_from_slice(format!("{i}\r\n").as_bytes());
        }
    }
    out.extend_from_slice(b"$ ");
    out
}

/// A split screen (avt keeps 6 lines, the rest is plain history) answers every read
/// exactly like one where avt keeps the whole scrollback.
#[test]
fn history_split_reads_match_unsplit() {
    for merge in [true, false] {
        let mut a = Screen::split(10, 4, 40, 6);
        let mut b = Screen::split(10, 4, 40, 40);
        let read = |s: &mut Screen, mode, max, marker| {
            s.read(&Query {
                merge_wrapped: merge,
                ..q(mode, max, marker)
            })
            .expect("read")
        };
        let (mut ma, mut mb) = (None, None);
        let bytes = mixed(90);
        for (k, c) in bytes.chunks(11).enumerate() {
            a.feed(c);
            b.feed(c);
            assert!(a.counts.history.len() <= 34);
            for max in [1, 3, 25, 200] {
                assert_eq!(read(&mut a, Mode::Tail, max, None).lines, {
                    read(&mut b, Mode::Tail, max, None).lines
                });
            }
            // A delta chain read every few chunks, in small steps.
            if k % 5 == 0 {
                loop {
                    let (va, vb) = (
                        read(&mut a, Mode::Delta, 4, ma),
                        read(&mut b, Mode::Delta, 4, mb),
                    );
                    assert_eq!(
                        (va.lines.clone(), va.first_line, va.marker_line, va.more),
                        (vb.lines, vb.first_line, vb.marker_line, vb.more)
                    );
                    assert_eq!((va.marker_disposed, va.lines_lost), (false, 0));
                    (ma, mb) = (Some(va.marker_id), Some(vb.marker_id));
                    if !va.more {
                        break;
                    }
                }
            }
        }
        assert_eq!(a.counts.history.len(), 34, "history filled");
        let (va, vb) = (
            read(&mut a, Mode::Tail, 200, None),
            read(&mut b, Mode::Tail, 200, None),
        );
        assert_eq!(va, vb);
    }
}

#[test]
fn row_text_matches_avt_text() {
    let mut s = Screen::new(12, 3, 10);
    s.feed("ab 世界 c  \r\n\u{a0}x\u{a0} \r\n   \r\n界界界界界界".as_bytes());
    for l in s.term.primary_screen().all_lines() {
        assert_eq!(row_text(l, true), l.text().trim_end());
        assert_eq!(row_text(l, false), l.text());
    }
}

#[test]
fn delta_chain_across_history_boundary() {
    // avt keeps 3 lines; the reads fall far behind, so markers point into the history.
    let mut s = Screen::split(30, 5, 100, 3);
    let mut marker = s.read(&q(Mode::Delta, 10, None)).expect("first").marker_id;
    let mut seen: Vec<String> = Vec::new();
    for n in 1..=80 {
        s.feed(format!("{n}\r\n").as_bytes());
        if n % 37 == 0 || n == 80 {
            loop {
                let v = s.read(&q(Mode::Delta, 6, Some(marker))).expect("delta");
                assert!(!v.marker_disposed);
                seen.extend(v.lines.iter().filter(|l| !l.is_empty()).cloned());
                marker = v.marker_id;
                if !v.more {
                    break;
                }
            }
        }
    }
    assert!(!s.counts.history.is_empty());
    let want: Vec<String> = (1..=80).map(|n| n.to_string()).collect();
    assert_eq!(seen, want);
    // A tail spanning history and avt: consecutive, numbered on.
    let v = s.read(&q(Mode::Tail, 20, None)).expect("tail");
    let want: Vec<String> = (62..=80)
        .map(|n| n.to_string())
        .chain([String::new()])
        .collect();
    assert_eq!(v.lines, want);
    assert_eq!(v.first_line, 61);
    assert_eq!(v.cursor_line, 80);
}

#[test]
fn resize_with_history_keeps_chain_and_old_wrapping() {
    let mut s = Screen::split(10, 4, 100, 3);
    s.feed(b"0123456789abcdefghij\r\n");
    for n in 1..=20 {
        s.feed(format!("{n}\r\n").as_bytes());
    }
    let m = s.read(&q(Mode::Delta, 100, None)).expect("first").marker_id;
    s.resize(30, 4);
    for n in 21..=25 {
        s.feed(format!("{n}\r\n").as_bytes());
    }
    let v = s.read(&q(Mode::Delta, 100, Some(m))).expect("delta");
    let want: Vec<String> = (21..=25)
        .map(|n| n.to_string())
        .chain([String::new()])
        .collect();
    assert_eq!(v.lines, want);
    // The long line left avt before the resize: it keeps its 10-column rows, merged
    // back into one logical line on request.
    let mut rows = |merge| {
        s.read(&Query {
            merge_wrapped: merge,
            ..q(Mode::Tail, 100, None)
        })
        .expect("tail")
        .lines
    };
    assert_eq!(rows(false)[..2], ["0123456789", "abcdefghij"]);
    assert_eq!(rows(true)[0], "0123456789abcdefghij");
}

#[test]
fn history_disposal_counts_match() {
    // The same totals as `delta_reports_disposed_marker_and_lost_lines`, with most of
    // the scrollback in the history.
    let mut s = Screen::split(30, 5, 10, 3);
    let m = s.read(&q(Mode::Delta, 10, None)).expect("first").marker_id;
    for n in 1..=50 {
        s.feed(format!("{n}\r\n").as_bytes());
    }
    assert_eq!(s.counts.history.len(), 7);
    let v = s.read(&q(Mode::Delta, 200, Some(m))).expect("delta");
    assert!(v.marker_disposed);
    assert_eq!(v.lines_lost, 36, "{v:?}");
    assert_eq!(v.first_line, 36);
    assert_eq!(v.lines.first().map(String::as_str), Some("37"));
}

#[test]
fn history_belongs_to_primary_and_reset_clears_it() {
    let mut s = Screen::split(30, 5, 100, 3);
    for n in 1..=20 {
        s.feed(format!("{n}\r\n").as_bytes());
    }
    let held = s.counts.history.len();
    assert!(held > 0);
    s.feed(b"\x1b[?1049h");
    for n in 0..50 {
        s.feed(format!("alt{n}\r\n").as_bytes());
    }
    assert_eq!(s.counts.history.len(), held);
    s.feed(b"\x1b[?1049l");
    let v = s.read(&q(Mode::Tail, 100, None)).expect("tail");
    assert_eq!(v.lines.first().map(String::as_str), Some("1"));
    assert!(!v.lines.iter().any(|l| l.starts_with("alt")));
    let m = v.marker_id;
    s.feed(b"\x1bcfresh");
    assert!(s.counts.history.is_empty());
    let v = s.read(&q(Mode::Delta, 100, Some(m))).expect("delta");
    assert!(v.marker_disposed);
    assert_eq!(v.lines_lost, 0, "a reset is not an overflow");
    assert_eq!(v.lines, ["fresh"]);
}

#[test]
fn resize_reflows_long_line() {
    let mut s = Screen::new(10, 4, 100);
    s.feed(b"0123456789abcdefghij\r\n");
    let narrow = s.read(&Query {
        merge_wrapped: false,
        ..q(Mode::Tail, 10, None)
    });
    assert_eq!(
        narrow.expect("read").lines[..2],
        ["0123456789", "abcdefghij"]
    );
    s.resize(30, 4);
    let wide = s
        .read(&Query {
            merge_wrapped: false,
            ..q(Mode::Tail, 10, None)
        })
        .expect("read");
    assert_eq!(wide.lines[0], "0123456789abcdefghij");
    assert_eq!(wide.cols, 30);
}

#[test]
fn char_cap_reports_dropped() {
    let mut s = Screen::new(40, 5, 100);
    s.feed(b"aaaaaaaaaa\r\nbbbbbbbbbb\r\ncccccccccc");
    let v = s
        .read(&Query {
            max_chars: 15,
            ..q(Mode::Tail, 10, None)
        })
        .expect("read");
    // Whole lines only, newest kept; a single too-long line is cut.
    assert!(v.truncated);
    assert_eq!(v.lines, ["cccccccccc"]);
    assert_eq!(v.dropped_chars, 32 - 10);
    let (one, dropped) = cap_chars(vec!["0123456789".into()], 4, true);
    assert_eq!((one, dropped), (vec!["6789".to_string()], 6));
}

#[test]
fn utf8_split_anywhere_decodes() {
    let text = "héllo 世界 🎉 ok";
    for size in 1..6 {
        let mut carry = Vec::new();
        let mut all = String::new();
        let mut out = String::new();
        for c in text.as_bytes().chunks(size) {
            decode_utf8(&mut carry, c, &mut out);
            all.push_str(&out);
        }
        assert_eq!(all, text);
    }
    let mut carry = Vec::new();
    let mut out = String::new();
    decode_utf8(&mut carry, b"a\xffb\xe4", &mut out);
    assert_eq!(out, "a\u{FFFD}b");
}

/// What a client shows after the redraw taken at byte `k` of `bytes` and the bytes after it.
fn resumed(bytes: &[u8], k: usize, cols: u16, rows: u16) -> Screen {
    let at = fed(&bytes[..k], cols, rows);
    let mut client = Screen::new(cols, rows, 1000);
    client.feed(&at.redraw());
    client.feed(&bytes[k..]);
    client
}

#[test]
fn a_redraw_taken_inside_a_sequence_or_character_resumes_where_the_model_stands() {
    let mut streams: Vec<Vec<u8>> = [
        &b"plain \x1b[31mred\x1b[0m \x1b[1;4mbold\x1b[m\r\nnext \xe2\x82\xac euro"[..],
        b"\x1b]2;a title\x07titled \x1b]0;other\x1b\\x\r\n\x1b]133;A\x07$ \x1b]133;B\x07",
        b"a\x1b[3\n1mLF inside a CSI\x1b[0m b\x1b[2;5Hmoved",
        b"\x1bP1$r0m\x1b\\after dcs \x1b(Bcharset \x1b7saved\x1b8restored",
        b"cancel \x1b[31\x18 text \x1b]2;x\x1a more \xf0\x9f\x8e\x89 party",
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    for f in [
        "ls_color.bin",
        "progress.bin",
        "wide.bin",
        "alt_screen_open.bin",
    ] {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
        streams.push(std::fs::read(format!("{path}{f}")).expect("fixture"));
    }
    for bytes in &streams {
        let whole = fed(bytes, 40, 8);
        for k in 0..=bytes.len() {
            let client = resumed(bytes, k, 40, 8);
            let at = String::from_utf8_lossy(&bytes[..k]);
            assert_eq!(
                client.visible_text(),
                whole.visible_text(),
                "split after {at:?}"
            );
            assert_eq!(client.cursor(), whole.cursor(), "split after {at:?}");
            assert_eq!(client.title(), whole.title(), "split after {at:?}");
        }
    }
}

#[test]
fn a_long_unfinished_string_is_replayed_as_its_opener() {
    let mut bytes = b"before \x1b]2;".to_vec();
    bytes.extend(std::iter::repeat_n(b't', 5000));
    let k = bytes.len();
    bytes.extend_from_slice(b"\x07after");
    let whole = fed(&bytes, 40, 8);
    let at = fed(&bytes[..k], 40, 8);
    assert!(at.redraw().ends_with(b"\x1b[?2026l\x1b]"));
    let client = resumed(&bytes, k, 40, 8);
    assert_eq!(client.visible_text(), whole.visible_text());
}

#[test]
fn text_since_is_what_was_typed_after_the_prompt_up_to_the_cursor() {
    // A prompt, then typing; long enough to wrap; the prompt scrolled up by earlier lines.
    for (before, typed, cols) in [
        ("", "echo hi", 40),
        ("line\r\n".repeat(30).as_str(), "echo there", 40),
        ("", &format!("echo {}", "x".repeat(90)), 40),
        ("", "ls -l", 10),
    ] {
        let mut s = Screen::new(cols, 8, 1000);
        s.feed(format!("{before}user@host:~$ ").as_bytes());
        let at = s.cursor_point().expect("primary screen");
        assert_eq!(s.text_since(at).as_deref(), Some(""));
        s.feed(typed.as_bytes());
        assert_eq!(
            s.text_since(at).as_deref(),
            Some(typed),
            "{typed:?} at {cols}"
        );
        // The cursor moved back to the start (Home): text after it is not counted.
        s.feed(format!("\x1b[{}D", typed.len().min(cols as usize - 1)).as_bytes());
        let back = s.text_since(at).unwrap_or_default();
        assert!(typed.starts_with(&back), "{back:?}");
        // On one row: erased the way a line editor does (CR, prompt again, clear to the end).
        if typed.len() + 13 < usize::from(cols) {
            s.feed(b"\ruser@host:~$ \x1b[J");
            assert_eq!(s.text_since(at).as_deref(), Some(""), "{typed:?} erased");
        }
    }
    // The alternate screen has no input line.
    let mut s = Screen::new(40, 8, 1000);
    s.feed(b"$ ");
    let at = s.cursor_point().expect("primary");
    s.feed(b"\x1b[?1049h");
    assert_eq!(s.cursor_point(), None);
    assert_eq!(s.text_since(at), None);
}

proptest::proptest! {
    /// The scrollback a web client is sent: the rows above the visible screen, oldest first,
    /// at most `max` of them (from kpty's history and avt's scrollback alike), then a line
    /// feed for every row but one, so they all scroll off before the redraw.
    #[test]
    fn scrollback_text_is_the_rows_above_the_screen(
        n in 0usize..200,
        rows in 2u16..12,
        max in 0usize..250,
        avt_keep in 1usize..60,
    ) {
        let mut s = Screen::split(20, rows, 1000, avt_keep);
        for i in 1..=n {
            s.feed(format!("line {i}\r\n").as_bytes());
        }
        // The cursor stands on an empty row under line n: rows - 1 lines are visible.
        let above = n.saturating_sub(usize::from(rows) - 1);
        let want: String = (above.saturating_sub(max) + 1..=above)
            .map(|i| format!("line {i}\r\n"))
            .collect();
        let got = String::from_utf8(s.scrollback_text(max)).unwrap();
        if want.is_empty() {
            proptest::prop_assert_eq!(got, "");
        } else {
            let feeds = "\n".repeat(usize::from(rows) - 1);
            proptest::prop_assert_eq!(got, want + &feeds);
        }
    }
}
