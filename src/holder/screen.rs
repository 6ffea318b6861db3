//! The terminal-emulator screen inside the holder (`term_read`): the same output stream as the
//! ring buffer, fed through `avt` (the only module naming it) with a split-safe UTF-8 decoder
//! and an OSC 0/2 title scanner (`decode.rs`); rows become lines in `lines.rs`.
//!
//! Lines are numbered absolutely: line `n` is the `n`-th row ever held by the primary screen
//! (rows evicted from the scrollback, or dropped by a hard reset, keep their numbers), so a
//! delta marker is just a line number kept in the holder. Every read walks only the lines it
//! returns (VecDeque iterators skip in O(1)); nothing replays history.
//!
//! Memory: avt keeps ~16 bytes per cell, so it holds only the last `AVT_SCROLLBACK` lines
//! of scrollback (enough to reflow recent output on resize). Rows leaving avt's scrollback
//! (its `evicted` hook) move into a compact plain-text history (text + soft-wrap flag per
//! row) just before avt's first row, numbered on; the two together hold the configured
//! scrollback. A resize reflows only what avt still holds: older history keeps the wrapping
//! it had when it left avt (merged reads still join its soft-wrapped rows).

use super::decode::{PendingSeq, TitleScanner, decode_utf8};
use super::history::{Counts, Row, Rows, len};
pub use super::lines::cap_chars;
use super::lines::{above, edge_context, group, physical_counts, row_wraps, tail};
use super::term_queries::QueryScanner;
use avt::{ScreenKind, Terminal};
use std::collections::BTreeMap;

/// How an avt pen looks, as the wire says it.
fn style_of(pen: &avt::Pen) -> crate::proto::screen::Style {
    use crate::proto::screen::{Color, Style};
    let color = |c: Option<avt::Color>| {
        c.map(|c| match c {
            avt::Color::Indexed(i) => Color::Indexed(i),
            avt::Color::RGB(rgb) => Color::Rgb(rgb.r, rgb.g, rgb.b),
        })
    };
    Style {
        fg: color(pen.foreground()),
        bg: color(pen.background()),
        bold: pen.is_bold(),
        faint: pen.is_faint(),
        italic: pen.is_italic(),
        underline: pen.is_underline(),
        strike: pen.is_strikethrough(),
        inverse: pen.is_inverse(),
    }
}

/// Most markers a holder remembers (the oldest are forgotten first).
pub const MAX_MARKERS: usize = 4096;
/// Most scrollback lines avt itself keeps (as cells); older ones move to the plain-text
/// history.
const AVT_SCROLLBACK: usize = 500;

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
    /// Unmerged reads: per returned line, whether it soft-wraps into the next.
    pub wraps: Vec<bool>,
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
    pending: PendingSeq,
    /// Terminal queries in the output, answered from this screen.
    queries: QueryScanner,
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
            .field("title", &self.titles.title())
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
            pending: PendingSeq::default(),
            queries: QueryScanner::default(),
            markers: BTreeMap::new(),
            next_marker: 1,
        }
    }

    /// Feed output bytes (any chunking; invalid UTF-8 becomes U+FFFD).
    pub fn feed(&mut self, chunk: &[u8]) {
        self.titles.feed(chunk);
        self.pending.feed(chunk);
        decode_utf8(&mut self.carry, chunk, &mut self.text);
        if !self.text.is_empty() {
            self.term.feed_with(self.text.as_str(), &mut self.counts);
        }
    }

    /// [`Screen::feed`], answering the terminal queries in it from this screen
    /// (`holder::answers`): each answer is appended to `answers`, with the cursor where the
    /// query found it.
    pub fn feed_answering(&mut self, chunk: &[u8], answers: &mut Vec<u8>) {
        let mut at = 0;
        for (end, q) in self.queries.feed(chunk) {
            self.feed(&chunk[at..end]);
            at = end;
            answers.extend(q.answer(self.cursor()));
        }
        self.feed(&chunk[at..]);
    }

    /// Resize (the primary screen reflows).
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.term.resize_with(
            usize::from(cols.max(1)),
            usize::from(rows.max(1)),
            &mut self.counts,
        );
    }

    /// A program set application cursor-key mode (DECCKM): arrows, Home and End send
    /// `Esc O x` rather than `Esc [ x`.
    pub fn cursor_key_app_mode(&self) -> bool {
        self.term.cursor_key_app_mode()
    }

    /// The alternate screen is active (an editor, pager or TUI).
    pub fn alternate(&self) -> bool {
        self.term.active_screen_kind() == ScreenKind::Alternate
    }

    /// Bytes that draw this screen on a terminal of the same size from whatever it showed:
    /// attributes reset, screen cleared, then avt's dump (visible buffers, cursor, colours,
    /// modes, the alternate screen) and the title, all inside a synchronized update (DEC
    /// mode 2026: terminals that know it show the result without flicker, others ignore it).
    /// It ends with what the output holds of a control sequence or UTF-8 character not yet
    /// finished, so the output that follows goes on where the screen model stands.
    pub fn redraw(&self) -> Vec<u8> {
        let mut out = String::from("\x1b[?2026h\x1b[0m\x1b[?1049l\x1b[H\x1b[2J");
        out.push_str(&self.term.dump());
        if let Some(t) = self.title() {
            out.push_str("\x1b]2;");
            out.extend(t.chars().filter(|c| !c.is_control()));
            out.push('\x07');
        }
        out.push_str("\x1b[?2026l");
        let mut out = out.into_bytes();
        match self.pending.replay() {
            seq if seq.is_empty() => out.extend_from_slice(&self.carry),
            seq => out.extend(seq),
        }
        out
    }

    /// Up to `max_rows` primary rows above the visible screen (its scrollback), oldest first,
    /// as plain text for a client that keeps a scrollback of its own (the web console): each
    /// row then `\r\n`, then enough line feeds to scroll them all off a screen of this size,
    /// so the [`Screen::redraw`] that follows finds it blank and they stay above it.
    pub fn scrollback_text(&self, max_rows: usize) -> Vec<u8> {
        let (_, rows) = self.term.size();
        let top = self.counts.history.len() + len(self.term.primary_screen()) - rows;
        let from = top.saturating_sub(max_rows);
        if from == top {
            return Vec::new();
        }
        let mut out = String::new();
        for row in self.rows().from(from).take(top - from) {
            out.push_str(row.text().trim_end());
            out.push_str("\r\n");
        }
        out.push_str(&"\n".repeat(rows.saturating_sub(1)));
        out.into_bytes()
    }

    /// The last OSC 0/2 title.
    pub fn title(&self) -> Option<&str> {
        self.titles.title()
    }

    /// The visible screen as runs of cells that look the same (a screenshot's matter).
    pub fn cells(&self) -> crate::proto::screen::ScreenBody {
        use crate::proto::screen::{Row, ScreenBody, Span};
        let c = self.term.cursor();
        let mut lines = Vec::new();
        let mut cols = 0u16;
        for line in self.term.screen().visible_lines() {
            let mut spans: Vec<Span> = Vec::new();
            let mut width = 0u16;
            for cell in line.cells() {
                if cell.width() == 0 {
                    continue; // the second column of a wide character
                }
                let style = style_of(cell.pen());
                let w = u16::from(cell.width());
                width += w;
                match spans.last_mut() {
                    Some(s) if s.style == style => {
                        s.text.push(cell.char());
                        s.width += w;
                    }
                    _ => spans.push(Span {
                        text: cell.char().to_string(),
                        width: w,
                        style,
                    }),
                }
            }
            cols = cols.max(width);
            lines.push(Row {
                wrapped: line.is_wrapped(),
                spans,
            });
        }
        ScreenBody {
            cols,
            rows: u16::try_from(lines.len()).unwrap_or(u16::MAX),
            cursor: c.visible.then(|| {
                (
                    u16::try_from(c.row).unwrap_or(u16::MAX),
                    u16::try_from(c.col).unwrap_or(u16::MAX),
                )
            }),
            title: self.title().map(str::to_string),
            lines,
        }
    }

    /// Cursor (visible row, column).
    pub fn cursor(&self) -> (usize, usize) {
        let c = self.term.cursor();
        (c.row, c.col)
    }

    /// The text of the cursor's line up to the cursor (a prompt the program printed, its
    /// trailing space kept).
    pub fn cursor_line_prefix(&self) -> String {
        let c = self.term.cursor();
        self.term
            .screen()
            .visible_lines()
            .nth(c.row)
            .map(|l| l.chars().take(c.col).collect())
            .unwrap_or_default()
    }

    /// Where the cursor is on the primary screen: (absolute line, column); `None` on the
    /// alternate screen.
    pub fn cursor_point(&self) -> Option<(u64, usize)> {
        (!self.alternate()).then(|| (self.abs_cursor(), self.term.cursor().col))
    }

    /// The text from `from` (a [`Self::cursor_point`]) up to the cursor, blanks trimmed: what
    /// is typed on a prompt's input line that starts at `from`. `None` when the cursor is no
    /// longer after that point (the alternate screen, the line scrolled out of avt's rows).
    pub fn text_since(&self, from: (u64, usize)) -> Option<String> {
        let to = self.cursor_point()?;
        if to < from {
            return None;
        }
        let first = usize::try_from(from.0.checked_sub(self.counts.base)?).ok()?;
        let last = usize::try_from(to.0 - self.counts.base).ok()?;
        let mut text = String::new();
        let lines = self.term.primary_screen().all_lines().skip(first);
        for (i, line) in lines.take(last - first + 1).enumerate() {
            let cells = line.cells();
            let start = if i == 0 { from.1 } else { 0 };
            let end = if first + i == last { to.1 } else { cells.len() };
            let part = &cells[start.min(cells.len())..end.min(cells.len())];
            text.extend(part.iter().filter(|c| c.width() != 0).map(avt::Cell::char));
        }
        Some(text.trim().to_string())
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
        let top = len(self.term.primary_screen()) - rows;
        let mut v = View {
            rows,
            cols,
            alternate,
            cursor_col: ccol,
            ..View::default()
        };
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
        let primary = self.rows();
        let mut resume = end.saturating_sub(1);
        while resume > 0 && primary.wrapped(resume - 1) {
            resume -= 1;
        }
        let first = self.counts.first();
        match q.mode {
            // The alternate screen has no scrollback: its tail is its viewport.
            Mode::Viewport | Mode::Tail if alternate || q.mode == Mode::Viewport => {
                self.read_visible(q, &mut v, top);
            }
            Mode::Viewport | Mode::Tail => self.read_tail(q, &mut v, end),
            Mode::Delta => {
                let next = self.read_delta(q, &mut v, end, resume)?;
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

    /// The visible screen's text, lines joined with `\n`, without leaving a marker
    /// (`wait_for` on the screen looks at it on every wakeup).
    pub fn visible_text(&self) -> String {
        let (cols, rows) = self.term.size();
        let top = len(self.term.primary_screen()) - rows;
        let q = Query {
            mode: Mode::Viewport,
            max_lines: rows.max(1),
            max_chars: usize::MAX,
            merge_wrapped: true,
            marker_id: None,
        };
        let mut v = View {
            rows,
            cols,
            alternate: self.alternate(),
            ..View::default()
        };
        self.read_visible(&q, &mut v, top);
        v.lines.join("\n")
    }

    /// The visible screen (the viewport, or anything on the alternate screen): its last
    /// `max_lines` lines; `top` is the index of its first row among the primary rows.
    fn read_visible(&self, q: &Query, v: &mut View, top: usize) {
        let visible = self.term.screen().visible_lines().map(Row::Avt);
        let mut lines = group(visible, q.merge_wrapped, usize::MAX).0;
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let mut wraps: Vec<bool> = if q.merge_wrapped {
            Vec::new()
        } else {
            let rows = self.term.screen().visible_lines();
            rows.map(|l| Row::Avt(l).wrapped())
                .take(lines.len())
                .collect()
        };
        let above = if v.alternate {
            String::new()
        } else {
            above(self.rows(), top)
        };
        let all = lines.clone();
        let all_wraps = wraps.clone();
        let skip = lines.len().saturating_sub(q.max_lines);
        lines.drain(..skip);
        if q.mode == Mode::Viewport {
            v.first_line = if v.alternate { 0 } else { v.viewport_y };
        }
        (v.lines, v.dropped_chars) = cap_chars(lines, q.max_chars, true);
        wraps.drain(..wraps.len().saturating_sub(v.lines.len()));
        v.wraps = wraps;
        (v.context_before, v.context_after) =
            edge_context(above, (&all, &all_wraps, v.cols), &v.lines, true);
    }

    /// The primary screen's last `max_lines` lines ending before row `end`.
    fn read_tail(&self, q: &Query, v: &mut View, end: usize) {
        let primary = self.rows();
        let (start, lines) = tail(primary, end, q.max_lines, q.merge_wrapped);
        v.first_line = self.counts.first() + start as u64;
        let above = above(primary, start);
        let all = lines.clone();
        let all_wraps = row_wraps(primary, start, all.len(), q.merge_wrapped);
        (v.lines, v.dropped_chars) = cap_chars(lines, q.max_chars, true);
        v.wraps = all_wraps[all_wraps.len().saturating_sub(v.lines.len())..].to_vec();
        (v.context_before, v.context_after) =
            edge_context(above, (&all, &all_wraps, v.cols), &v.lines, true);
    }

    /// The lines since the given marker (the tail without one), up to the caps; returns the
    /// row the next delta starts at (`resume` once caught up: that line may still change).
    fn read_delta(
        &self,
        q: &Query,
        v: &mut View,
        end: usize,
        resume: usize,
    ) -> Result<usize, UnknownMarker> {
        let primary = self.rows();
        let first = self.counts.first();
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
        // Cap characters from the front, whole lines only (a single over-long first line is
        // cut), so the marker passes exactly what was returned.
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
        let above = above(primary, from);
        let all_wraps = row_wraps(primary, from, all.len(), q.merge_wrapped);
        v.wraps = all_wraps.iter().take(v.lines.len()).copied().collect();
        (v.context_before, v.context_after) =
            edge_context(above, (&all, &all_wraps, v.cols), &v.lines, false);
        let consumed = from + if cut { rows_kept } else { used };
        v.more = consumed < end;
        v.first_line = first + from as u64;
        // Caught up: the next delta starts again at the cursor's (logical) line.
        Ok(if consumed > resume { resume } else { consumed })
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

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "screen_redact_tests.rs"]
mod redact_tests;
