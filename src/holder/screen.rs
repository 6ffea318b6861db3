//! The terminal-emulator screen inside the holder (`term_read`): the same output stream as the
//! ring buffer, fed through `avt` (the only module naming it) with a split-safe UTF-8 decoder,
//! plus a tiny OSC 0/2 title scanner (avt drops titles).
//!
//! Lines are numbered absolutely: line `n` is the `n`-th row ever held by the primary screen
//! (rows evicted from the scrollback, or dropped by a hard reset, keep their numbers), so a
//! delta marker is just a line number kept in the holder. Every read walks only the lines it
//! returns (VecDeque iterators skip in O(1)); nothing replays history.
//!
//! Memory: avt keeps ~16 bytes per cell, so it holds only the last [`AVT_SCROLLBACK`] lines
//! of scrollback (enough to reflow recent output on resize). Rows leaving avt's scrollback
//! (its `evicted` hook) move into a compact plain-text history (text + soft-wrap flag per
//! row) just before avt's first row, numbered on; the two together hold the configured
//! scrollback. A resize reflows only what avt still holds: older history keeps the wrapping
//! it had when it left avt (merged reads still join its soft-wrapped rows).

use super::history::{Counts, Row, Rows, len};
use avt::{ScreenKind, Terminal};
use std::collections::BTreeMap;

/// Most markers a holder remembers (the oldest are forgotten first).
pub const MAX_MARKERS: usize = 4096;
/// Most scrollback lines avt itself keeps (as cells); older ones move to the plain-text
/// history.
pub const AVT_SCROLLBACK: usize = 500;
/// Longest title kept (bytes).
const MAX_TITLE: usize = 512;

/// Which part of the terminal a read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The last lines of scrollback + screen.
    Tail,
    /// The visible screen.
    Viewport,
    /// Lines added since a marker.
    Delta,
}

impl Mode {
    /// Parse `tail` | `viewport` | `delta`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "tail" => Some(Self::Tail),
            "viewport" => Some(Self::Viewport),
            "delta" => Some(Self::Delta),
            _ => None,
        }
    }
}

/// A read request (already validated and capped by the core).
#[derive(Debug, Clone, Copy)]
pub struct Query {
    /// Mode.
    pub mode: Mode,
    /// Most (logical) lines.
    pub max_lines: usize,
    /// Most characters of text (lines joined with `\n`).
    pub max_chars: usize,
    /// Join soft-wrapped rows into one line.
    pub merge_wrapped: bool,
    /// Delta: the marker from the previous call.
    pub marker_id: Option<u64>,
}

/// What a read returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    /// The lines, trailing blanks trimmed.
    pub lines: Vec<String>,
    /// The character cap cut something.
    pub truncated: bool,
    /// Characters cut by the character cap.
    pub dropped_chars: usize,
    /// Absolute line of the cursor (primary screen); the row on the alternate screen.
    pub cursor_line: u64,
    /// Cursor column.
    pub cursor_col: usize,
    /// Absolute line of the top visible row (0 on the alternate screen).
    pub viewport_y: u64,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// The alternate screen is active.
    pub alternate: bool,
    /// Absolute line of the first returned line (primary screen).
    pub first_line: u64,
    /// The new marker (every call gets one).
    pub marker_id: u64,
    /// The absolute line it points at.
    pub marker_line: u64,
    /// The given marker's line had left the scrollback.
    pub marker_disposed: bool,
    /// Lines lost between the given marker and the oldest line still held.
    pub lines_lost: u64,
    /// Delta: more lines are waiting past `max_lines` / `max_chars` (call again).
    pub more: bool,
    /// Redaction context: the text above the returned lines that a secret or private-key
    /// block cut by their start spans.
    pub context_before: String,
    /// Redaction context: the rest of the last returned line, when the caps cut it.
    pub context_after: String,
}

/// An unknown marker id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMarker(pub u64);

/// The screen model of one session.
pub struct Screen {
    term: Terminal,
    carry: Vec<u8>,
    text: String,
    counts: Counts,
    titles: TitleScanner,
    markers: BTreeMap<u64, u64>,
    next_marker: u64,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("size", &self.term.size())
            .field("alternate", &self.alternate())
            .field("base", &self.counts.base)
            .field("history", &self.counts.history.len())
            .field("title", &self.titles.title)
            .field("markers", &self.markers.len())
            .finish()
    }
}

impl Screen {
    /// A screen of `cols`×`rows` keeping `scrollback` lines of history.
    pub fn new(cols: u16, rows: u16, scrollback: usize) -> Self {
        Self::split(cols, rows, scrollback, AVT_SCROLLBACK)
    }

    /// [`Screen::new`] with avt keeping at most `avt_keep` of the `scrollback` lines.
    fn split(cols: u16, rows: u16, scrollback: usize, avt_keep: usize) -> Self {
        let kept = scrollback.min(avt_keep);
        let term = Terminal::with_scrollback(
            usize::from(cols.max(1)),
            usize::from(rows.max(1)),
            Some(kept),
        )
        .unwrap_or_else(|_| unreachable_size());
        Self {
            term,
            carry: Vec::new(),
            text: String::new(),
            counts: Counts {
                history_cap: scrollback - kept,
                ..Counts::default()
            },
            titles: TitleScanner::default(),
            markers: BTreeMap::new(),
            next_marker: 1,
        }
    }

    /// Feed output bytes (any chunking; invalid UTF-8 becomes U+FFFD).
    pub fn feed(&mut self, chunk: &[u8]) {
        self.titles.feed(chunk);
        decode_utf8(&mut self.carry, chunk, &mut self.text);
        if !self.text.is_empty() {
            self.term.feed_with(self.text.as_str(), &mut self.counts);
        }
    }

    /// Resize (the primary screen reflows).
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.term.resize_with(
            usize::from(cols.max(1)),
            usize::from(rows.max(1)),
            &mut self.counts,
        );
    }

    /// The alternate screen is active (an editor, pager or TUI).
    pub fn alternate(&self) -> bool {
        self.term.active_screen_kind() == ScreenKind::Alternate
    }

    /// The last OSC 0/2 title.
    pub fn title(&self) -> Option<&str> {
        self.titles.title.as_deref()
    }

    /// Cursor (visible row, column).
    pub fn cursor(&self) -> (usize, usize) {
        let c = self.term.cursor();
        (c.row, c.col)
    }

    /// Absolute number of the line the cursor is on (primary screen).
    fn abs_cursor(&self) -> u64 {
        let (_, rows) = self.term.size();
        let p = self.term.primary_screen();
        self.counts.base + (len(p) - rows) as u64 + self.term.cursor().row as u64
    }

    /// All primary rows held (history + avt).
    fn rows(&self) -> Rows<'_> {
        Rows {
            hist: &self.counts.history,
            avt: self.term.primary_screen(),
        }
    }

    /// Index (in [`Rows`]) just past the last line with content: the cursor's line or the
    /// last non-blank visible row, whichever is lower on the screen.
    fn content_end(&self) -> usize {
        let (_, rows) = self.term.size();
        let p = self.term.primary_screen();
        let top = self.counts.history.len() + len(p) - rows;
        let mut end = top;
        for (i, l) in p.visible_lines().enumerate() {
            if l.cells().iter().any(|c| c.char() != ' ') {
                end = top + i + 1;
            }
        }
        if !self.alternate() {
            end = end.max(top + self.term.cursor().row + 1);
        }
        end
    }

    /// Read per `q`. Unknown markers are an error (they live only in this holder).
    pub fn read(&mut self, q: &Query) -> Result<View, UnknownMarker> {
        let (cols, rows) = self.term.size();
        let alternate = self.alternate();
        let (crow, ccol) = self.cursor();
        let mut v = View {
            rows,
            cols,
            alternate,
            cursor_col: ccol,
            ..View::default()
        };
        let primary = self.rows();
        let first = self.counts.first();
        let top = len(primary.avt) - rows;
        if alternate {
            v.cursor_line = crow as u64;
            v.viewport_y = 0;
        } else {
            v.cursor_line = self.abs_cursor();
            v.viewport_y = self.counts.base + top as u64;
        }
        let end = self.content_end();
        // The start of the logical line holding the last content line: where the next
        // delta starts once this one is caught up (that line may still change).
        let mut resume = end.saturating_sub(1);
        while resume > 0 && primary.wrapped(resume - 1) {
            resume -= 1;
        }
        match q.mode {
            Mode::Viewport | Mode::Tail if alternate || q.mode == Mode::Viewport => {
                let screen = self.term.screen();
                let visible = screen.visible_lines().map(Row::Avt);
                let mut lines = group(visible, q.merge_wrapped, usize::MAX).0;
                while lines.last().is_some_and(|l| l.is_empty()) {
                    lines.pop();
                }
                let above = if alternate {
                    String::new()
                } else {
                    above(primary, top, q.merge_wrapped)
                };
                let all = lines.clone();
                let skip = lines.len().saturating_sub(q.max_lines);
                lines.drain(..skip);
                if q.mode == Mode::Viewport {
                    v.first_line = if alternate { 0 } else { v.viewport_y };
                }
                (v.lines, v.dropped_chars) = cap_chars(lines, q.max_chars, true);
                (v.context_before, v.context_after) = edge_context(above, &all, &v.lines, true);
            }
            // The primary screen's tail (viewport took the arm above).
            Mode::Viewport | Mode::Tail => {
                let (start, lines) = tail(primary, end, q.max_lines, q.merge_wrapped);
                v.first_line = first + start as u64;
                let above = above(primary, start, q.merge_wrapped);
                let all = lines.clone();
                (v.lines, v.dropped_chars) = cap_chars(lines, q.max_chars, true);
                (v.context_before, v.context_after) = edge_context(above, &all, &v.lines, true);
            }
            Mode::Delta => {
                let start = match q.marker_id {
                    None => None,
                    Some(id) => Some(*self.markers.get(&id).ok_or(UnknownMarker(id))?),
                };
                let (from, lines, used) = match start {
                    // First call: the tail, and a marker after it.
                    None => {
                        let (s, lines) = tail(primary, end, q.max_lines, q.merge_wrapped);
                        (s, lines, end - s)
                    }
                    Some(line) => {
                        let from = if line < first {
                            v.marker_disposed = true;
                            v.lines_lost = self.counts.overflow_end.saturating_sub(line);
                            0
                        } else {
                            // A reflow can shrink the history under a marker: clamp.
                            ((line - first) as usize).min(resume)
                        };
                        let it = primary.from(from).take(end - from);
                        let (lines, used) = group(it, q.merge_wrapped, q.max_lines);
                        (from, lines, used)
                    }
                };
                // Cap characters from the front, whole lines only (a single over-long first
                // line is cut), so the marker passes exactly what was returned.
                let rows_per = physical_counts(primary, from, &lines, q.merge_wrapped);
                let (mut total, mut kept, mut rows_kept) = (0usize, 0usize, 0usize);
                for (i, l) in lines.iter().enumerate() {
                    let n = l.chars().count() + usize::from(i > 0);
                    if kept > 0 && total + n > q.max_chars {
                        break;
                    }
                    total += n;
                    kept += 1;
                    rows_kept += rows_per.get(i).copied().unwrap_or(1);
                }
                let mut lines = lines;
                let all = lines.clone();
                let cut = kept < lines.len();
                lines.truncate(kept);
                (v.lines, v.dropped_chars) = cap_chars(lines, q.max_chars, false);
                let above = above(primary, from, q.merge_wrapped);
                (v.context_before, v.context_after) = edge_context(above, &all, &v.lines, false);
                let consumed = from + if cut { rows_kept } else { used };
                v.more = consumed < end;
                // Caught up: the next delta starts again at the cursor's (logical) line,
                // which may still change.
                let next = if consumed > resume { resume } else { consumed };
                v.first_line = first + from as u64;
                v.marker_line = first + next as u64;
            }
        }
        v.truncated = v.dropped_chars > 0;
        if q.mode != Mode::Delta {
            v.marker_line = first + resume as u64;
        }
        v.marker_id = self.new_marker(v.marker_line);
        Ok(v)
    }

    fn new_marker(&mut self, line: u64) -> u64 {
        let id = self.next_marker;
        self.next_marker += 1;
        self.markers.insert(id, line);
        while self.markers.len() > MAX_MARKERS {
            self.markers.pop_first();
        }
        id
    }
}

fn unreachable_size() -> Terminal {
    // Sizes are clamped to at least 1×1 above, which avt always accepts.
    Terminal::new(1, 1).unwrap_or_else(|_| panic!("avt rejects a 1x1 terminal"))
}

/// Physical rows each logical line of `lines` (read from `from`) spans.
fn physical_counts(s: Rows<'_>, from: usize, lines: &[String], merge: bool) -> Vec<usize> {
    if !merge {
        return vec![1; lines.len()];
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut n = 0;
    for l in s.from(from) {
        if out.len() == lines.len() {
            break;
        }
        n += 1;
        if !l.wrapped() {
            out.push(n);
            n = 0;
        }
    }
    if n > 0 && out.len() < lines.len() {
        out.push(n);
    }
    out
}

/// Rows looked at above a window for its redaction context (a private-key block is shorter).
const CONTEXT_ROWS: usize = 200;

/// The text of the (at most [`CONTEXT_ROWS`]) rows above row `start`, each line ended by `\n`.
fn above(s: Rows<'_>, start: usize, merge: bool) -> String {
    let from = start.saturating_sub(CONTEXT_ROWS);
    if from == start {
        return String::new();
    }
    let lines = group(s.from(from).take(start - from), merge, usize::MAX).0;
    let mut t = lines.join("\n");
    t.push('\n');
    t
}

/// The redaction context of the lines `kept` out of `all` (the same lines before the caps:
/// `kept` is their end when `keep_end`, else their start) below the text `above`.
fn edge_context(
    mut above: String,
    all: &[String],
    kept: &[String],
    keep_end: bool,
) -> (String, String) {
    use crate::safety::redact::{context_after, context_before};
    let (all, kept) = (all.join("\n"), kept.join("\n"));
    let mut after = "";
    if keep_end {
        if let Some(cut) = all.strip_suffix(kept.as_str()) {
            above.push_str(cut);
        }
    } else if let Some(rest) = all.strip_prefix(kept.as_str()) {
        after = rest;
    }
    (
        context_before(&above).to_string(),
        context_after(after).to_string(),
    )
}

/// The last `max_lines` logical lines ending before index `end`; returns their first index.
fn tail(s: Rows<'_>, end: usize, max_lines: usize, merge: bool) -> (usize, Vec<String>) {
    // Walk back over physical rows counting logical starts; only the returned rows are read.
    let mut start = end;
    let mut logical = 0;
    while start > 0 && logical < max_lines {
        start -= 1;
        // Row `start` begins a logical line when the row before it does not wrap.
        let begins = !merge || start == 0 || !s.wrapped(start - 1);
        if begins {
            logical += 1;
        }
    }
    let lines = group(s.from(start).take(end - start), merge, usize::MAX).0;
    (start, lines)
}

/// Turn physical rows into lines (joining soft wraps when `merge`), at most `max` lines;
/// returns the lines and how many rows were used.
fn group<'a>(rows: impl Iterator<Item = Row<'a>>, merge: bool, max: usize) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut open = false;
    let mut used = 0;
    for l in rows {
        if out.len() >= max {
            break;
        }
        used += 1;
        cur.push_str(&l.text());
        open = true;
        if !(merge && l.wrapped()) {
            out.push(std::mem::take(&mut cur).trim_end().to_string());
            open = false;
        }
    }
    if open && out.len() < max {
        out.push(cur.trim_end().to_string());
    }
    (out, used)
}

/// Cap `lines` joined by `\n` at `max` characters: keep the end (`keep_end`, for tail and
/// viewport) or the start; returns the lines and how many characters were dropped.
pub fn cap_chars(mut lines: Vec<String>, max: usize, keep_end: bool) -> (Vec<String>, usize) {
    let total: usize =
        lines.iter().map(|l| l.chars().count()).sum::<usize>() + lines.len().saturating_sub(1);
    if total <= max {
        return (lines, 0);
    }
    let mut dropped = 0;
    if keep_end {
        lines.reverse();
    }
    let mut budget = max;
    let mut out = Vec::new();
    for (i, l) in lines.into_iter().enumerate() {
        let sep = usize::from(i > 0);
        let n = l.chars().count();
        if budget >= n + sep {
            budget -= n + sep;
            out.push(l);
        } else if out.is_empty() {
            // The first line alone is longer than the budget: keep part of it.
            let take = budget;
            let part: String = if keep_end {
                l.chars().skip(n - take).collect()
            } else {
                l.chars().take(take).collect()
            };
            dropped += n - take;
            budget = 0;
            out.push(part);
        } else {
            dropped += n + sep;
            budget = 0;
        }
    }
    if keep_end {
        out.reverse();
    }
    (out, dropped)
}

/// Split-safe UTF-8: decode `chunk` (after what `carry` holds) into `out`, keeping an
/// incomplete tail for the next chunk; invalid bytes become U+FFFD. (CRATES.md §3.)
fn decode_utf8(carry: &mut Vec<u8>, chunk: &[u8], out: &mut String) {
    out.clear();
    carry.extend_from_slice(chunk);
    let mut used = 0;
    for part in carry.utf8_chunks() {
        out.push_str(part.valid());
        let bad = part.invalid();
        used += part.valid().len() + bad.len();
        if !bad.is_empty() {
            let need = match bad[0] {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => 0,
            };
            if used == carry.len() && bad.len() < need {
                used -= bad.len(); // an incomplete tail: wait for the rest
            } else {
                out.push('\u{FFFD}');
            }
        }
    }
    carry.drain(..used);
}

/// Finds OSC 0 / OSC 2 (window title) in a byte stream fed in arbitrary chunks.
#[derive(Debug, Default)]
struct TitleScanner {
    state: TState,
    num: u32,
    buf: Vec<u8>,
    title: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum TState {
    #[default]
    Ground,
    Esc,
    Num,
    Text,
    TextEsc,
    Skip,
    SkipEsc,
}

impl TitleScanner {
    fn feed(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() {
            if self.state == TState::Ground {
                match chunk[i..].iter().position(|&b| b == 0x1b) {
                    Some(p) => {
                        i += p + 1;
                        self.state = TState::Esc;
                    }
                    None => return,
                }
                continue;
            }
            let b = chunk[i];
            i += 1;
            self.state = match (self.state, b) {
                (TState::Esc, b']') => {
                    self.num = 0;
                    TState::Num
                }
                (TState::Esc, 0x1b) => TState::Esc,
                (TState::Esc, _) => TState::Ground,
                (TState::Num, b'0'..=b'9') => {
                    self.num = (self.num * 10 + u32::from(b - b'0')).min(10_000);
                    TState::Num
                }
                (TState::Num, b';') if self.num == 0 || self.num == 2 => {
                    self.buf.clear();
                    TState::Text
                }
                (TState::Num, 0x07) => TState::Ground,
                (TState::Num, _) => TState::Skip,
                (TState::Text, 0x07) => {
                    self.finish();
                    TState::Ground
                }
                (TState::Text | TState::TextEsc, 0x1b) => TState::TextEsc,
                (TState::TextEsc, b'\\') => {
                    self.finish();
                    TState::Ground
                }
                (TState::TextEsc, _) => TState::Ground,
                (TState::Text, 0x18 | 0x1a) => TState::Ground,
                (TState::Text, _) => {
                    if self.buf.len() < MAX_TITLE {
                        self.buf.push(b);
                    }
                    TState::Text
                }
                (TState::Skip, 0x07) => TState::Ground,
                (TState::Skip | TState::SkipEsc, 0x1b) => TState::SkipEsc,
                (TState::SkipEsc, _) => TState::Ground,
                (TState::Skip, _) => TState::Skip,
                (TState::Ground, _) => TState::Ground,
            };
        }
    }

    fn finish(&mut self) {
        let t = String::from_utf8_lossy(&self.buf).into_owned();
        self.title = Some(t);
    }
}

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;
