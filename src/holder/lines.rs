//! Logical lines from the screen's physical rows (`term_read`): soft-wrap grouping, tails,
//! character caps, and the redaction context around a returned window.

use super::history::{Row, Rows};

/// Physical rows each logical line of `lines` (read from `from`) spans.
pub(super) fn physical_counts(
    s: Rows<'_>,
    from: usize,
    lines: &[String],
    merge: bool,
) -> Vec<usize> {
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

/// The text of the (at most [`CONTEXT_ROWS`]) rows above row `start`, soft wraps joined
/// (whatever the read asked: this is redaction's context), each logical line ended by `\n` —
/// except the last when it wraps into row `start` (a secret may run on into the window).
pub(super) fn above(s: Rows<'_>, start: usize) -> String {
    let from = start.saturating_sub(CONTEXT_ROWS);
    if from == start {
        return String::new();
    }
    let lines = group(s.from(from).take(start - from), true, usize::MAX).0;
    let mut t = lines.join("\n");
    if !s.wrapped(start - 1) {
        t.push('\n');
    } else if s
        .from(start - 1)
        .next()
        .is_some_and(|r| r.text().ends_with(char::is_whitespace))
    {
        // Blanks at the end of the row that wraps into the window were trimmed: they
        // separate words (`--password ` | `value`).
        t.push(' ');
    }
    t
}

/// For `n` unmerged lines read from row `from`: whether each soft-wraps into the next
/// (empty for merged reads).
pub(super) fn row_wraps(s: Rows<'_>, from: usize, n: usize, merge: bool) -> Vec<bool> {
    if merge {
        return Vec::new();
    }
    (from..from + n).map(|i| s.wrapped(i)).collect()
}

/// The redaction context of the lines `kept` out of `all` (the same lines before the caps,
/// with their soft-wrap flags and the screen's width: `kept` is their end when `keep_end`, else their start) below
/// the text `above`.
pub(super) fn edge_context(
    mut above: String,
    (all, wraps, cols): (&[String], &[bool], usize),
    kept: &[String],
    keep_end: bool,
) -> (String, String) {
    use crate::safety::redact::{context_after, context_before, join_rows};
    let join_wrapped = |l: &[String], w: &[bool]| join_rows(l, w, cols).0;
    let kept_wraps = if keep_end {
        &wraps[wraps.len().saturating_sub(kept.len())..]
    } else {
        &wraps[..kept.len().min(wraps.len())]
    };
    let (all, kept) = (join_wrapped(all, wraps), join_wrapped(kept, kept_wraps));
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
pub(super) fn tail(s: Rows<'_>, end: usize, max_lines: usize, merge: bool) -> (usize, Vec<String>) {
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
pub(super) fn group<'a>(
    rows: impl Iterator<Item = Row<'a>>,
    merge: bool,
    max: usize,
) -> (Vec<String>, usize) {
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
