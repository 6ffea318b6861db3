//! Plain text from raw PTY output: owns [`clean_text`] (a line-oriented mini renderer) and [`strip_ansi`] (escape removal only), both driven by the `vte` parser.

use vte::{Params, Parser, Perform};

/// Forward cursor movements (`CSI C`, `CSI G`, ...) stop at this column unless the line or cursor
/// is already further right, so hostile input such as `ESC[65535Cx` cannot balloon the output.
const MAX_COLUMN: usize = 1024;
/// Distance between tab stops.
const TAB_WIDTH: usize = 8;
/// What stray C1 bytes (`0x80..=0x9F`, which vte hands to `execute`) are shown as.
const REPLACEMENT: char = '\u{FFFD}';

/// Render raw terminal output as plain text: escape sequences removed, `\r\n` → `\n`,
/// carriage-return redraws and backspaces applied per line, like a terminal would show them.
///
/// Contract of the result: the rendered lines joined by `\n`, trailing whitespace trimmed from
/// each line, trailing empty lines removed (so the result never ends with `\n`; leading and inner
/// blank lines are kept). Rendering is line-oriented: `\r`, backspace, tab, `CSI K/C/D/G/X/P/@`
/// act on the current line; vertical movement, colours, modes, OSC/DCS/ESC sequences are dropped.
/// Invalid UTF-8 becomes U+FFFD. Runs in linear time.
pub fn clean_text(bytes: &[u8]) -> String {
    if let Some(plain) = clean_plain(bytes) {
        return plain;
    }
    render(bytes)
}

/// [`clean_text`] through the renderer, whatever the input.
fn render(bytes: &[u8]) -> String {
    let mut renderer = Renderer {
        out: String::with_capacity(bytes.len()),
        line: Vec::new(),
        cursor: 0,
        pending_blank: 0,
        emitted: false,
    };
    feed(&mut renderer, bytes);
    renderer.finish_line();
    renderer.out
}

/// [`clean_text`]'s fast path for the commonest output (`seq`, logs, listings): printable
/// ASCII lines ending in `\n` or `\r\n`, with no escapes, tabs, backspaces or `\r` redraws.
/// For such input the renderer would only drop the `\r`s, trim each line and the trailing
/// blank lines; this does the same in one pass without the per-character parser.
/// `None` when the input has anything else.
fn clean_plain(bytes: &[u8]) -> Option<String> {
    let mut after_cr = false;
    for &b in bytes {
        match b {
            // A printable right after `\r` overwrites the line: a redraw, the renderer's job.
            0x20..=0x7e if !after_cr => {}
            b'\n' => after_cr = false,
            b'\r' => after_cr = true,
            _ => return None,
        }
    }
    let mut out = String::with_capacity(bytes.len());
    let (mut pending_blank, mut emitted) = (0usize, false);
    for line in bytes.split(|&b| b == b'\n') {
        // Only trailing `\r`s and spaces remain to drop (checked above).
        let end = line
            .iter()
            .rposition(|&b| b != b'\r' && b != b' ')
            .map_or(0, |i| i + 1);
        if end == 0 {
            pending_blank += 1;
            continue;
        }
        let breaks = pending_blank + usize::from(emitted);
        out.extend(std::iter::repeat_n('\n', breaks));
        // Printable ASCII only: always valid UTF-8.
        out.push_str(std::str::from_utf8(&line[..end]).ok()?);
        pending_blank = 0;
        emitted = true;
    }
    Some(out)
}

/// The end of `s`, at most `max_chars` characters of it, starting at a line start when the
/// cut would fall inside a line that is not the only one kept. Returns the text kept and how
/// many characters were dropped from the front.
pub fn keep_tail(s: &str, max_chars: usize) -> (&str, usize) {
    let total = s.chars().count();
    if total <= max_chars {
        return (s, 0);
    }
    let mut start = s
        .char_indices()
        .nth(total - max_chars)
        .map_or(s.len(), |(i, _)| i);
    if !s[..start].ends_with('\n')
        && let Some(nl) = s[start..].find('\n')
        && start + nl + 1 < s.len()
    {
        start += nl + 1;
    }
    let dropped = s[..start].chars().count();
    (&s[start..], dropped)
}

/// Remove escape sequences only (CSI, OSC, DCS, other ESC sequences), normalise `\r\n` to `\n`,
/// keep every other character (lone `\r` kept). Used by `read` with strip_ansi.
///
/// Details: a run of `\r` directly before `\n` (escape sequences in between do not count)
/// collapses into that `\n`, so the result never contains `\r\n`. Tab and backspace are kept;
/// other C0 controls (BEL, NUL, ...) and DEL are dropped. Invalid UTF-8 becomes U+FFFD.
pub fn strip_ansi(bytes: &[u8]) -> String {
    let mut stripper = Stripper {
        out: String::with_capacity(bytes.len()),
        pending_cr: 0,
    };
    feed(&mut stripper, bytes);
    stripper.flush_cr();
    stripper.out
}

/// Run the whole input through a fresh parser.
fn feed<P: Perform>(performer: &mut P, bytes: &[u8]) {
    let mut parser = Parser::new();
    parser.advance(performer, bytes);
    // vte holds back an incomplete UTF-8 sequence at the end of the input waiting for more bytes.
    // A final ESC flushes it as U+FFFD; otherwise it only aborts an unterminated escape sequence,
    // which produces no output either way.
    parser.advance(performer, b"\x1b");
}

/// The `clean_text` performer: the current line as chars plus a cursor column.
struct Renderer {
    /// Finished lines, already joined.
    out: String,
    /// The line being drawn.
    line: Vec<char>,
    /// Cursor column in `line` (may be past its end).
    cursor: usize,
    /// Blank lines seen since the last non-blank one (emitted only if more text follows).
    pending_blank: usize,
    /// Whether a non-blank line has been written to `out`.
    emitted: bool,
}

impl Renderer {
    /// End the current line: append it (trimmed) to `out` and start a new one at column 0.
    fn finish_line(&mut self) {
        let end = self
            .line
            .iter()
            .rposition(|c| !c.is_whitespace())
            .map_or(0, |i| i + 1);
        if end == 0 {
            self.pending_blank += 1;
        } else {
            let breaks = self.pending_blank + usize::from(self.emitted);
            self.out.extend(std::iter::repeat_n('\n', breaks));
            self.out.extend(&self.line[..end]);
            self.pending_blank = 0;
            self.emitted = true;
        }
        self.line.clear();
        self.cursor = 0;
    }

    /// Clamp a forward cursor target (see [`MAX_COLUMN`]).
    fn clamp_forward(&self, target: usize) -> usize {
        target.min(MAX_COLUMN.max(self.line.len()).max(self.cursor))
    }

    /// `CSI n K`: 0 = cursor to end, 1 = start to cursor (inclusive), 2 = whole line.
    fn erase_in_line(&mut self, mode: usize) {
        match mode {
            0 => self.line.truncate(self.cursor),
            1 => {
                let end = self.cursor.saturating_add(1).min(self.line.len());
                self.line[..end].fill(' ');
            }
            2 => self.line.clear(),
            _ => {}
        }
    }
}

/// First parameter of a CSI sequence, 0 when absent.
fn first_param(params: &Params) -> usize {
    params
        .iter()
        .next()
        .and_then(|p| p.first())
        .map_or(0, |&v| usize::from(v))
}

impl Perform for Renderer {
    fn print(&mut self, c: char) {
        if c == '\x7f' {
            return;
        }
        if let Some(slot) = self.line.get_mut(self.cursor) {
            *slot = c;
        } else {
            self.line.resize(self.cursor, ' ');
            self.line.push(c);
        }
        self.cursor += 1;
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            // VT and FF move down like LF on a terminal.
            b'\n' | 0x0b | 0x0c => self.finish_line(),
            b'\r' => self.cursor = 0,
            0x08 => self.cursor = self.cursor.saturating_sub(1),
            b'\t' => self.cursor = (self.cursor / TAB_WIDTH + 1) * TAB_WIDTH,
            0x80..=0x9f => self.print(REPLACEMENT),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], _ignore: bool, action: char) {
        let private = match intermediates {
            [] => false,
            [b'?'] => true,
            _ => return,
        };
        let raw = first_param(params);
        let n = raw.max(1);
        let len = self.line.len();
        match (private, action) {
            (_, 'K') => self.erase_in_line(raw),
            (false, 'C' | 'a') => self.cursor = self.clamp_forward(self.cursor.saturating_add(n)),
            (false, 'D') => self.cursor = self.cursor.saturating_sub(n),
            (false, 'G' | '`') => self.cursor = self.clamp_forward(n - 1),
            // ECH: blank n chars from the cursor.
            (false, 'X') if self.cursor < len => {
                let end = self.cursor.saturating_add(n).min(len);
                self.line[self.cursor..end].fill(' ');
            }
            // DCH: delete n chars at the cursor (readline uses it when editing).
            (false, 'P') if self.cursor < len => {
                let end = self.cursor.saturating_add(n).min(len);
                self.line.drain(self.cursor..end);
            }
            // ICH: insert n blanks at the cursor.
            (false, '@') if self.cursor < len => {
                let at = self.cursor;
                self.line
                    .splice(at..at, std::iter::repeat_n(' ', n.min(MAX_COLUMN)));
            }
            _ => {}
        }
    }
}

/// The `strip_ansi` performer.
struct Stripper {
    /// Text so far.
    out: String,
    /// Carriage returns not yet written: dropped if a `\n` comes next.
    pending_cr: usize,
}

impl Stripper {
    /// Write held-back carriage returns.
    fn flush_cr(&mut self) {
        self.out.extend(std::iter::repeat_n('\r', self.pending_cr));
        self.pending_cr = 0;
    }

    /// Write one character after any held-back carriage returns.
    fn push(&mut self, c: char) {
        self.flush_cr();
        self.out.push(c);
    }
}

impl Perform for Stripper {
    fn print(&mut self, c: char) {
        if c != '\x7f' {
            self.push(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => {
                self.pending_cr = 0;
                self.out.push('\n');
            }
            b'\r' => self.pending_cr += 1,
            b'\t' => self.push('\t'),
            0x08 => self.push('\x08'),
            0x80..=0x9f => self.push(REPLACEMENT),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
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
}
