//! The compact plain-text history below avt's scrollback: rows avt evicts (text + soft-wrap
//! flag), the line numbering kept by avt's observer hooks, and the [`Rows`] view that walks
//! history and avt's rows as one sequence.

use avt::parser::Function;
use avt::{Line, Observation, Observer, Operation};
use std::borrow::Cow;
use std::collections::VecDeque;

/// Line bookkeeping and the plain-text history, updated by avt's observer hooks.
#[derive(Debug, Default)]
pub(super) struct Counts {
    /// Absolute number of the first primary line avt holds.
    pub(super) base: u64,
    /// Lines below this number were lost to the scrollback limit (not to a reset).
    pub(super) overflow_end: u64,
    /// Rows evicted from avt's scrollback, oldest first, ending just before `base`.
    pub(super) history: VecDeque<HistRow>,
    /// Most rows `history` keeps.
    pub(super) history_cap: usize,
}

impl Counts {
    /// Absolute number of the first primary line held (history included).
    pub(super) fn first(&self) -> u64 {
        self.base - self.history.len() as u64
    }
}

/// A row that left avt's scrollback: its text (trailing blanks trimmed unless it soft-wraps
/// into the next row, whose text continues it) and whether it soft-wraps.
#[derive(Debug)]
pub(super) struct HistRow {
    text: Box<str>,
    wrapped: bool,
}

impl Observer for Counts {
    type Output = ();

    fn before(&mut self, cx: &mut Observation<'_>, op: &Operation) {
        // A hard reset replaces the primary buffer: its lines are gone, numbers move on.
        if let Operation::Function(Function::Ris) = op {
            self.base += len(cx.terminal().primary_screen()) as u64;
            self.history.clear();
        }
    }

    fn evicted(&mut self, _: &mut Observation<'_>, line: &Line) {
        self.base += 1;
        if self.history_cap == 0 {
            self.overflow_end = self.base;
            return;
        }
        let wrapped = line.is_wrapped();
        self.history.push_back(HistRow {
            text: row_text(line, !wrapped).into_boxed_str(),
            wrapped,
        });
        while self.history.len() > self.history_cap {
            self.history.pop_front();
            self.overflow_end = self.first();
        }
    }

    fn end(&mut self, _: &mut Observation<'_>) {}
}

/// A row's text (`Line::text`), trailing whitespace trimmed when `trim`; reads no cell past
/// the last non-blank one (most rows are short, every evicted row passes here).
pub(super) fn row_text(line: &Line, trim: bool) -> String {
    let cells = line.cells();
    let n = if trim {
        cells
            .iter()
            .rposition(|c| !c.char().is_whitespace())
            .map_or(0, |i| i + 1)
    } else {
        cells.len()
    };
    // Wide characters' second cells (width 0) are not text, as in `Line::chars`.
    cells[..n]
        .iter()
        .filter(|c| c.width() != 0)
        .map(avt::Cell::char)
        .collect()
}

/// Lines held by a screen (O(1): the VecDeque iterator knows its length).
pub(super) fn len(s: avt::Screen<'_>) -> usize {
    s.all_lines().size_hint().0
}

/// One physical primary row: from the history or from avt.
#[derive(Clone, Copy)]
pub(super) enum Row<'a> {
    Hist(&'a HistRow),
    Avt(&'a Line),
}

impl<'a> Row<'a> {
    pub(super) fn wrapped(self) -> bool {
        match self {
            Self::Hist(r) => r.wrapped,
            Self::Avt(l) => l.is_wrapped(),
        }
    }

    pub(super) fn text(self) -> Cow<'a, str> {
        match self {
            Self::Hist(r) => Cow::Borrowed(&r.text),
            Self::Avt(l) => Cow::Owned(l.text()),
        }
    }
}

/// All primary rows held: the history, then avt's scrollback and screen. Indexes count
/// from the oldest history row; every access is O(1) to reach.
#[derive(Clone, Copy)]
pub(super) struct Rows<'a> {
    pub(super) hist: &'a VecDeque<HistRow>,
    pub(super) avt: avt::Screen<'a>,
}

impl<'a> Rows<'a> {
    fn get(self, i: usize) -> Option<Row<'a>> {
        match self.hist.get(i) {
            Some(r) => Some(Row::Hist(r)),
            None => self.avt.all_lines().nth(i - self.hist.len()).map(Row::Avt),
        }
    }

    pub(super) fn wrapped(self, i: usize) -> bool {
        self.get(i).is_some_and(Row::wrapped)
    }

    /// Rows from index `i` on.
    pub(super) fn from(self, i: usize) -> impl Iterator<Item = Row<'a>> {
        let h = self.hist.len();
        self.hist
            .range(i.min(h)..)
            .map(Row::Hist)
            .chain(self.avt.all_lines().skip(i.saturating_sub(h)).map(Row::Avt))
    }
}
