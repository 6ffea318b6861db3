//! Unit tests of [`clean_text`], [`strip_ansi`] and [`keep_tail`]: escape removal, line redraws,
//! cursor movement, the plain fast path and linear time on large input.

use super::*;

fn clean(s: &[u8]) -> String {
    clean_text(s)
}

#[test]
fn keep_tail_cuts_at_a_line_start() {
    assert_eq!(keep_tail("abc", 5), ("abc", 0));
    assert_eq!(keep_tail("one\ntwo\nthree", 8), ("three", 8));
    assert_eq!(keep_tail("one\ntwo\nthree", 9), ("two\nthree", 4));
    assert_eq!(keep_tail("one\ntwo\nthree", 10), ("two\nthree", 4));
    // A single long line is cut inside it rather than emptied.
    assert_eq!(keep_tail("abcdefgh", 3), ("fgh", 5));
    assert_eq!(keep_tail("ééééé\nü", 3), ("ü", 6));
}

#[test]
fn plain_fast_path_agrees_with_the_renderer() {
    // Every string over a small alphabet that exercises the fast path's edges (lone and
    // doubled CRs, blank lines, trailing spaces), plus pseudo-random longer ones.
    let alphabet = [b'a', b' ', b'\r', b'\n', b'\t', b'Z'];
    let mut cases: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..6 {
        let next: Vec<Vec<u8>> = cases
            .iter()
            .flat_map(|c| {
                alphabet.iter().map(move |&b| {
                    let mut c = c.clone();
                    c.push(b);
                    c
                })
            })
            .collect();
        cases.extend(next.into_iter().filter(|c| c.len() <= 6));
        cases.dedup();
    }
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..500 {
        let len = (x % 200) as usize;
        let case = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                alphabet[(x % alphabet.len() as u64) as usize]
            })
            .collect();
        cases.push(case);
    }
    let mut fast = 0;
    for c in &cases {
        let r = render(c);
        if let Some(p) = clean_plain(c) {
            fast += 1;
            assert_eq!(p, r, "input {:?}", String::from_utf8_lossy(c));
        }
        assert_eq!(clean_text(c), r);
    }
    assert!(fast > 1000, "the fast path was taken {fast} times");
    let seq: String = (1..=1000).map(|i| format!("{i}\r\n")).collect();
    assert!(clean_plain(seq.as_bytes()).is_some());
    assert!(clean_plain(b"50%\r100%\r\n").is_none());
    assert!(clean_plain(b"\x1b[31mred\x1b[0m\r\n").is_none());
}

#[test]
fn empty_input() {
    assert_eq!(clean(b""), "");
    assert_eq!(strip_ansi(b""), "");
    assert_eq!(clean(b"\r\n\r\n"), "");
}

#[test]
fn coloured_ls() {
    let raw = b"\x1b[0m\x1b[01;34mdir\x1b[0m  file\r\n\x1b[01;32mrun.sh\x1b[0m\r\n";
    assert_eq!(clean(raw), "dir  file\nrun.sh");
    assert_eq!(strip_ansi(raw), "dir  file\nrun.sh\n");
}

#[test]
fn progress_bar_redraws() {
    assert_eq!(clean(b"10%\r20%\r100%\r\ndone\r\n"), "100%\ndone");
    assert_eq!(strip_ansi(b"10%\r20%\r100%\r\n"), "10%\r20%\r100%\n");
    // A shorter redraw leaves the tail of the longer one, as on a terminal.
    assert_eq!(clean(b"abc\rX"), "Xbc");
}

#[test]
fn backspace() {
    assert_eq!(clean(b"ab\x08c"), "ac");
    assert_eq!(clean(b"\x08\x08x"), "x");
    assert_eq!(clean(b"abc\x08\x08\x1b[K"), "a");
    assert_eq!(strip_ansi(b"ab\x08c"), "ab\x08c");
}

#[test]
fn erase_line_after_cr() {
    assert_eq!(clean(b"Downloading 50%\r\x1b[KDone\r\n"), "Done");
    assert_eq!(clean(b"long line\r\x1b[2Kok"), "ok");
    assert_eq!(clean(b"abcdef\x1b[3D\x1b[1K"), "    ef");
    assert_eq!(clean(b"abcdef\x1b[3D\x1b[0K"), "abc");
    assert_eq!(strip_ansi(b"50%\r\x1b[KDone\r\n"), "50%\rDone\n");
}

#[test]
fn osc_markers_and_titles_removed() {
    let raw = b"\x1b]0;user@host: ~\x07\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\
        \x1b]133;C\x1b\\out\r\n\x1b]133;D;0\x07\x1b]2;title\x1b\\$ ";
    assert_eq!(clean(raw), "$ ls\nout\n$");
    assert_eq!(strip_ansi(raw), "$ ls\nout\n$ ");
}

#[test]
fn bracketed_paste_and_modes_removed() {
    let raw = b"\x1b[?2004h$ echo hi\r\n\x1b[?2004lhi\r\n\x1b[?25l\x1b[?1049h\x1b[H\x1b[2J";
    assert_eq!(clean(raw), "$ echo hi\nhi");
    assert_eq!(strip_ansi(raw), "$ echo hi\nhi\n");
}

#[test]
fn crlf_normalised() {
    assert_eq!(strip_ansi(b"a\r\nb\r\r\nc\rd"), "a\nb\nc\rd");
    assert_eq!(strip_ansi(b"a\r\x1b[K\nb\r"), "a\nb\r");
    assert_eq!(clean(b"a\r\nb\nc\r\n"), "a\nb\nc");
}

#[test]
fn tabs() {
    assert_eq!(
        clean(b"a\tb\r\n12345678\tc"),
        "a       b\n12345678        c"
    );
    assert_eq!(clean(b"abcdefghij\r\tX"), "abcdefghXj");
    assert_eq!(clean(b"x\t\r\n"), "x");
    assert_eq!(strip_ansi(b"a\tb"), "a\tb");
}

#[test]
fn cursor_movement() {
    assert_eq!(clean(b"a\x1b[3Cb"), "a   b");
    assert_eq!(clean(b"a\x1b[Cb"), "a b");
    assert_eq!(clean(b"hello\x1b[3GX"), "heXlo");
    assert_eq!(clean(b"hello\x1b[GX"), "Xello");
    assert_eq!(clean(b"hello\x1b[99DX"), "Xello");
    assert_eq!(
        clean(b"left\x1b[20Gright"),
        format!("left{}right", " ".repeat(15))
    );
    // Vertical moves are ignored: text stays on the current line.
    assert_eq!(clean(b"ab\x1b[2Acd\x1b[1Bef"), "abcdef");
    // Huge forward moves are clamped.
    assert_eq!(clean(b"\x1b[65535Cx").chars().count(), MAX_COLUMN + 1);
}

#[test]
fn readline_editing() {
    // Delete, insert and erase characters as readline does while editing a command.
    assert_eq!(clean(b"$ lss\x08\x1b[P"), "$ ls");
    assert_eq!(clean(b"$ ls\x08\x1b[1@x"), "$ lxs");
    assert_eq!(clean(b"$ abcd\x1b[3D\x1b[2X"), "$ a  d");
}

#[test]
fn unicode_preserved() {
    let raw = "\x1b[1m日本語\x1b[0m テキスト 🎉 café\r\n".as_bytes();
    assert_eq!(clean(raw), "日本語 テキスト 🎉 café");
    assert_eq!(strip_ansi(raw), "日本語 テキスト 🎉 café\n");
    assert_eq!(clean("🎉🎉\rx".as_bytes()), "x🎉");
}

#[test]
fn invalid_utf8_becomes_replacement() {
    assert_eq!(clean(b"a\xffb"), "a\u{FFFD}b");
    assert_eq!(clean(b"a\x80b"), "a\u{FFFD}b");
    assert_eq!(clean(b"a\xe2\x82\x1b[0mb"), "a\u{FFFD}b");
    assert_eq!(strip_ansi(b"x\xfe\xff"), "x\u{FFFD}\u{FFFD}");
    // Truncated sequence at the very end is flushed, not lost.
    assert_eq!(clean(b"end\xe2\x82"), "end\u{FFFD}");
    assert_eq!(strip_ansi(b"end\xf0"), "end\u{FFFD}");
}

#[test]
fn other_controls_and_escapes_dropped() {
    assert_eq!(clean(b"a\x07b\x00c\x7fd"), "abcd");
    assert_eq!(strip_ansi(b"a\x07b\x00c\x7fd"), "abcd");
    assert_eq!(clean(b"\x1b(B\x1b7x\x1b8\x1bPq#0;1\x1b\\y"), "xy");
    // Unterminated escape at the end produces nothing.
    assert_eq!(clean(b"ok\x1b]0;tit"), "ok");
    assert_eq!(strip_ansi(b"ok\x1b[3"), "ok");
}

#[test]
fn blank_lines() {
    assert_eq!(clean(b"a\r\n\r\n\r\nb\r\n\r\n\r\n"), "a\n\n\nb");
    assert_eq!(clean(b"\r\n\r\nx"), "\n\nx");
    assert_eq!(clean(b"trailing   \r\n  \r\n"), "trailing");
    assert_eq!(clean(b"\x1b[K\r\n"), "");
}

#[test]
fn large_input_linear() {
    let chunk = b"\x1b[32mline\x1b[0m 10%\r\x1b[K100%\t\xe6\x97\xa5\r\n";
    let count = 2 * 1024 * 1024 / chunk.len() + 1;
    let raw = chunk.repeat(count);
    assert!(raw.len() >= 2 * 1024 * 1024);
    let out = clean(&raw);
    assert_eq!(out.lines().count(), count);
    assert!(out.lines().all(|l| l == "100%    日"));
    let stripped = strip_ansi(&raw);
    assert_eq!(stripped.matches('\n').count(), count);
    // One huge line with redraws over it.
    let mut long = vec![b'x'; 2 * 1024 * 1024];
    long.extend_from_slice(b"\rY\x1b[5CZ");
    let out = clean(&long);
    assert_eq!(out.len(), 2 * 1024 * 1024);
    assert!(out.starts_with("Yxxxxx"));
    assert_eq!(&out[6..8], "Zx");
}
