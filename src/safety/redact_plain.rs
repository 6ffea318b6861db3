//! Raw terminal output as the text a terminal shows, with a map back to the raw bytes: the
//! redaction rules run on that text, so a secret split by colour codes, hyperlinks, charset
//! switches, invisible controls, `\r` overprints or backspace overstrikes is still found,
//! and the raw range it came from (escapes inside it included) is what gets replaced.
//!
//! One scan splits the raw text into characters, controls and escape sequences (CSI with
//! private and intermediate bytes, OSC ended by BEL or ST, DCS/SOS/PM/APC strings ended by ST,
//! `ESC` + intermediates + final such as charset designations, a lone `ESC` + char, the C1
//! forms of all of them) and builds two views:
//! - *stripped*: escapes and invisible controls removed; `\n`, `\t`, `\r`, backspace kept
//!   (they separate words), VT and FF shown as `\n`;
//! - *shown* (only when the text has `\r` overprints, backspaces or horizontal cursor moves):
//!   each line as a terminal leaves it, `\r`, backspace, `CSI C/D/G/K` applied.
//!
//! Every byte of a view maps to the raw offset of the character it came from, so a match in
//! a view is a raw range from its first character to its last — whole escapes inside it.

use std::ops::Range;

/// The furthest column the shown view models (`ESC[99999C` cannot make it allocate more).
const MAX_COLUMN: usize = 4096;

/// One escape sequence in the raw text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Esc {
    /// Its raw range.
    pub(super) range: Range<usize>,
    /// The string an OSC/DCS/SOS/PM/APC carries (a title, a link's URL), if any.
    pub(super) payload: Option<Range<usize>>,
    /// What it does, as far as redaction cares.
    pub(super) kind: EscKind,
}

/// What an escape sequence does, as far as redaction cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EscKind {
    /// Sets colours or attributes (`CSI … m`): re-emitted after a placeholder that replaced
    /// it, so the text after the secret keeps its colours.
    Sgr,
    /// Designates a character set (`ESC ( 0`): re-emitted likewise.
    Charset,
    /// Moves the cursor on its line or erases the line's rest.
    Move(Move),
    /// Anything else (a string, a mode, a vertical move …).
    Other,
}

/// A move within the current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Move {
    /// `CSI n C`.
    Forward(usize),
    /// `CSI n D`.
    Back(usize),
    /// `CSI n G` (1-based).
    Column(usize),
    /// `CSI K` / `CSI 0 K`.
    EraseRight,
}

/// A text made from raw output, each of its bytes mapped to the raw character it came from.
#[derive(Debug, Default)]
pub(super) struct View {
    /// The text.
    pub(super) text: String,
    /// `at[i]`: raw offset of the character that byte `i` of `text` came from.
    at: Vec<usize>,
}

impl View {
    fn push(&mut self, c: char, raw: usize) {
        self.text.push(c);
        self.at.extend(std::iter::repeat_n(raw, c.len_utf8()));
    }

    /// For the lenient view: keep what escape `e` hides from a terminal but not from a
    /// reader of the raw bytes; true when it hides anything.
    fn keep(&mut self, raw: &str, e: &Esc) -> bool {
        if let Some(p) = &e.payload {
            if p.is_empty() {
                return false;
            }
            self.push('\n', e.range.start);
            for (j, c) in raw[p.clone()].char_indices() {
                self.push(c, p.start + j);
            }
            self.push('\n', e.range.start);
            return true;
        }
        // `ESC g`: a letter, digit or `_` a two-byte escape swallows (a token's first
        // letter). Not `ESC =` / `ESC (B` (keypad and charset switches, everywhere in real
        // output): they would join words that are apart.
        match raw[e.range.clone()].as_bytes() {
            [0x1b, c] if c.is_ascii_alphanumeric() || *c == b'_' => {
                self.push(char::from(*c), e.range.end - 1);
                true
            }
            _ => false,
        }
    }

    /// The raw offset of the character byte `i` of the view came from.
    pub(super) fn raw_at(&self, i: usize) -> Option<usize> {
        self.at.get(i).copied()
    }

    /// The raw range that the view's range `r` came from: from its earliest character to the
    /// end of its latest (the shown view may have put later characters first).
    pub(super) fn raw_range(&self, raw: &str, r: Range<usize>) -> Option<Range<usize>> {
        let pos = self.at.get(r)?;
        let lo = *pos.iter().min()?;
        let hi = *pos.iter().max()?;
        Some(lo..hi + char_len(raw, hi))
    }
}

/// The length of the raw character (or the first byte of an escape) at `at`.
fn char_len(raw: &str, at: usize) -> usize {
    raw.get(at..)
        .and_then(|s| s.chars().next())
        .map_or(1, char::len_utf8)
}

/// The scan of a raw text: its escapes and its views.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Every escape sequence, in order, disjoint.
    pub(super) escapes: Vec<Esc>,
    /// Escapes and invisible controls removed.
    pub(super) stripped: View,
    /// Each line as a terminal shows it, when that differs from `stripped`.
    pub(super) shown: Option<View>,
    /// What a reader of the raw bytes sees besides: `stripped` with the letter or digit a
    /// two-byte escape swallows (`ESC g`) kept, and each string's payload (a title, a link's URL) on
    /// a line of its own; when that differs from `stripped`.
    pub(super) lenient: Option<View>,
}

impl Scan {
    /// Every view of the text.
    pub(super) fn views(&self) -> impl Iterator<Item = &View> {
        std::iter::once(&self.stripped)
            .chain(self.shown.as_ref())
            .chain(self.lenient.as_ref())
    }
}

/// True when `raw` has anything a terminal does not print as it stands: an escape, a control
/// other than `\n`, `\t` and the `\r` of `\r\n`, or a C1 control.
pub(super) fn needs_scan(raw: &str) -> bool {
    let b = raw.as_bytes();
    b.iter().enumerate().any(|(i, &c)| match c {
        b'\n' | b'\t' => false,
        b'\r' => b.get(i + 1) != Some(&b'\n'),
        0..=0x1f | 0x7f => true,
        0xc2 => b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)),
        _ => false,
    })
}

/// Scan `raw` into its escapes and views.
pub(super) fn scan(raw: &str) -> Scan {
    let mut s = Scan::default();
    let mut line = Line::default();
    let mut shown = View::default();
    let mut lenient = View::default();
    let (mut overprints, mut hidden) = (false, false);
    let mut i = 0;
    while let Some(c) = raw.get(i..).and_then(|r| r.chars().next()) {
        if let Some(esc) = escape_at(raw, i, c) {
            if let EscKind::Move(m) = esc.kind {
                overprints |= line.apply(m);
            }
            hidden |= lenient.keep(raw, &esc);
            i = esc.range.end.max(i + 1);
            s.escapes.push(esc);
            continue;
        }
        let shows = match c {
            '\n' | '\x0b' | '\x0c' => {
                line.flush(&mut shown);
                shown.push('\n', i);
                Some('\n')
            }
            '\r' | '\x08' => {
                overprints |= c == '\x08' || raw.as_bytes().get(i + 1) != Some(&b'\n');
                line.control(c);
                Some(c)
            }
            c if c != '\t' && is_control(c) => None,
            c => {
                line.put(c, i);
                Some(c)
            }
        };
        if let Some(c) = shows {
            s.stripped.push(c, i);
            lenient.push(c, i);
        }
        i += c.len_utf8();
    }
    line.flush(&mut shown);
    s.shown = overprints.then_some(shown);
    s.lenient = hidden.then_some(lenient);
    s
}

/// C0, DEL and C1 controls (those not starting a sequence are invisible).
fn is_control(c: char) -> bool {
    c.is_control()
}

/// The current line of the shown view: its cells and the cursor.
#[derive(Default)]
struct Line {
    cells: Vec<(char, usize)>,
    cursor: usize,
}

impl Line {
    fn put(&mut self, c: char, raw: usize) {
        if self.cursor >= MAX_COLUMN {
            return;
        }
        while self.cells.len() < self.cursor {
            // A gap left by a forward move shows as blank.
            self.cells.push((' ', raw));
        }
        if self.cursor < self.cells.len() {
            self.cells[self.cursor] = (c, raw);
        } else {
            self.cells.push((c, raw));
        }
        self.cursor += 1;
    }

    fn control(&mut self, c: char) {
        match c {
            '\r' => self.cursor = 0,
            _ => self.cursor = self.cursor.saturating_sub(1),
        }
    }

    /// Apply a move; true when it can make the shown line differ from the stripped one (an
    /// erase at the line's end, grep's `ESC[K`, cannot).
    fn apply(&mut self, m: Move) -> bool {
        match m {
            Move::Forward(n) => self.cursor = self.cursor.saturating_add(n).min(MAX_COLUMN),
            Move::Back(n) => self.cursor = self.cursor.saturating_sub(n),
            Move::Column(n) => self.cursor = n.saturating_sub(1).min(MAX_COLUMN),
            Move::EraseRight => {
                let cut = self.cursor < self.cells.len();
                self.cells.truncate(self.cursor);
                return cut;
            }
        }
        true
    }

    fn flush(&mut self, view: &mut View) {
        for (c, raw) in self.cells.drain(..) {
            view.push(c, raw);
        }
        self.cursor = 0;
    }
}

/// The escape sequence that starts at `i` (whose character is `c`), if one does.
fn escape_at(raw: &str, i: usize, c: char) -> Option<Esc> {
    let b = raw.as_bytes();
    let esc = |end: usize, kind: EscKind| Esc {
        range: i..end,
        payload: None,
        kind,
    };
    match c {
        '\x1b' => {}
        '\u{9b}' => return Some(csi(raw, i, i + 2)),
        '\u{9d}' => return Some(string(raw, i, i + 2, true)),
        '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => return Some(string(raw, i, i + 2, false)),
        _ => return None,
    }
    let Some(&next) = b.get(i + 1) else {
        return Some(esc(i + 1, EscKind::Other));
    };
    Some(match next {
        b'[' => csi(raw, i, i + 2),
        b']' => string(raw, i, i + 2, true),
        b'P' | b'X' | b'^' | b'_' => string(raw, i, i + 2, false),
        0x20..=0x2f => {
            let mut j = i + 1;
            while b.get(j).is_some_and(|x| (0x20..=0x2f).contains(x)) {
                j += 1;
            }
            let end = if b.get(j).is_some_and(|x| (0x30..=0x7e).contains(x)) {
                j + 1
            } else {
                j
            };
            let kind = if b"()*+-./".contains(&next) {
                EscKind::Charset
            } else {
                EscKind::Other
            };
            esc(end, kind)
        }
        0x30..=0x7e => esc(i + 2, EscKind::Other),
        // A lone ESC: the next character is processed on its own.
        _ => esc(i + 1, EscKind::Other),
    })
}

/// A CSI whose parameters start at `p` (the sequence at `start`). A byte that cannot be in a
/// CSI ends it there (unfinished), and is processed on its own.
fn csi(raw: &str, start: usize, p: usize) -> Esc {
    let b = raw.as_bytes();
    let mut j = p;
    while b.get(j).is_some_and(|x| (0x30..=0x3f).contains(x)) {
        j += 1;
    }
    let params = &raw[p.min(j)..j];
    let inter = j;
    while b.get(j).is_some_and(|x| (0x20..=0x2f).contains(x)) {
        j += 1;
    }
    let fin = b.get(j).copied().filter(|x| (0x40..=0x7e).contains(x));
    let plain = inter == j && params.bytes().all(|x| x.is_ascii_digit() || x == b';');
    let n = || params.parse::<usize>().unwrap_or(1).max(1);
    let kind = match fin {
        Some(b'm') if inter == j && params.bytes().all(|x| (0x30..=0x3b).contains(&x)) => {
            EscKind::Sgr
        }
        Some(b'C') if plain => EscKind::Move(Move::Forward(n())),
        Some(b'D') if plain => EscKind::Move(Move::Back(n())),
        Some(b'G') if plain => EscKind::Move(Move::Column(n())),
        Some(b'K') if params.is_empty() || params == "0" => EscKind::Move(Move::EraseRight),
        _ => EscKind::Other,
    };
    Esc {
        range: start..if fin.is_some() { j + 1 } else { j },
        payload: None,
        kind,
    }
}

/// An OSC (`osc`: also ended by BEL) or DCS/SOS/PM/APC string whose payload starts at `p`:
/// ended by ST (`ESC \` or U+009C), CAN or SUB; another `ESC` ends it and starts a sequence
/// of its own; unterminated, it runs to the end of the text.
fn string(raw: &str, start: usize, p: usize, osc: bool) -> Esc {
    let b = raw.as_bytes();
    let mut j = p;
    let (pe, end) = loop {
        match b.get(j) {
            None => break (b.len(), b.len()),
            Some(0x07) if osc => break (j, j + 1),
            Some(0x18 | 0x1a) => break (j, j + 1),
            Some(0x1b) if b.get(j + 1) == Some(&b'\\') => break (j, j + 2),
            Some(0x1b) => break (j, j),
            Some(0xc2) if b.get(j + 1) == Some(&0x9c) => break (j, j + 2),
            Some(_) => j += 1,
        }
    };
    let p = p.min(pe);
    Esc {
        range: start..end,
        payload: Some(p..pe),
        kind: EscKind::Other,
    }
}

/// Where the first `n` characters that `raw` shows end (with the escapes among them).
pub(super) fn head_end(raw: &str, n: usize) -> usize {
    let v = scan(raw).stripped;
    match v.text.char_indices().nth(n) {
        Some((i, _)) => v.at.get(i).copied().unwrap_or(raw.len()),
        None => raw.len(),
    }
}

/// The escapes of `raw` that set state a placeholder must not lose (colours, charsets, and the
/// SO/SI shifts), concatenated: what is re-emitted after a placeholder that replaced `raw`.
pub(super) fn state_escapes(raw: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    while let Some(c) = raw.get(i..).and_then(|r| r.chars().next()) {
        if let Some(e) = escape_at(raw, i, c) {
            let complete = match e.kind {
                EscKind::Sgr => raw[e.range.clone()].ends_with('m'),
                EscKind::Charset => e.range.len() >= 3,
                _ => false,
            };
            if complete {
                out.push_str(&raw[e.range.clone()]);
            }
            i = e.range.end.max(i + 1);
            continue;
        }
        if c == '\x0e' || c == '\x0f' {
            out.push(c);
        }
        i += c.len_utf8();
    }
    out
}

/// `r` widened so that it cuts no escape of `escapes` (sorted, disjoint): an escape it
/// partly covers is taken whole, unless `r` lies inside the escape's payload (a secret in a
/// title or a link's URL: only its characters are replaced, the sequence stays valid).
pub(super) fn widen(escapes: &[Esc], mut r: Range<usize>) -> Range<usize> {
    let first = escapes.partition_point(|e| e.range.end <= r.start);
    for e in &escapes[first..] {
        if e.range.start >= r.end {
            break;
        }
        let inside_payload = e
            .payload
            .as_ref()
            .is_some_and(|p| p.start <= r.start && r.end <= p.end);
        if inside_payload {
            continue;
        }
        r.start = r.start.min(e.range.start);
        r.end = r.end.max(e.range.end);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripped_view_maps_back() {
        let raw = "a\x1b[01;31m\x1b[Kghp_\x1b[m\x1b[Kxyz\x07!";
        let s = scan(raw);
        assert_eq!(s.stripped.text, "aghp_xyz!");
        assert!(s.shown.is_none());
        let r = s.stripped.raw_range(raw, 1..8).unwrap();
        assert_eq!(&raw[r], "ghp_\x1b[m\x1b[Kxyz");
        assert_eq!(s.escapes.len(), 4);
        assert_eq!(s.escapes[0].kind, EscKind::Sgr);
    }

    #[test]
    fn strings_and_c1() {
        let raw =
            "x\x1b]8;;http://u:p@h\x1b\\link\x1b]8;;\x07y\u{9b}1mz\x1bP1$r\x1b\\w\x1b(0q\x1b(B";
        let s = scan(raw);
        assert_eq!(s.stripped.text, "xlinkyzwq");
        let p = s.escapes[0].payload.clone().unwrap();
        assert_eq!(&raw[p], "8;;http://u:p@h");
        assert_eq!(s.escapes[2].kind, EscKind::Sgr);
        assert_eq!(state_escapes(raw), "\u{9b}1m\x1b(0\x1b(B");
    }

    #[test]
    fn shown_view_applies_overprints() {
        let raw = "XXXXXX\rgh\x08hp_\x1b[2C!\x1b[K";
        let s = scan(raw);
        let shown = s.shown.unwrap();
        assert_eq!(shown.text, "ghp_XX!");
        assert_eq!(s.stripped.text, "XXXXXX\rgh\x08hp_!");
    }

    #[test]
    fn unfinished_sequences_end_the_text() {
        for raw in ["a\x1b", "a\x1b[12;", "a\x1b]0;title", "a\x1bP", "a\x1b("] {
            let s = scan(raw);
            assert_eq!(s.stripped.text, "a", "{raw:?}");
            assert_eq!(s.escapes.last().unwrap().range.end, raw.len(), "{raw:?}");
        }
    }

    #[test]
    fn widening_takes_whole_escapes_but_keeps_payloads() {
        let raw = "ab\x1b[31mcd\x1b]0;ghp_x\x07";
        let s = scan(raw);
        assert_eq!(widen(&s.escapes, 3..8), 2..8);
        let p = s.escapes[1].payload.clone().unwrap();
        assert_eq!(widen(&s.escapes, p.clone()), p);
    }
}
