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
#[path = "text_tests.rs"]
mod tests;
