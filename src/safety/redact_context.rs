//! Redacting a window of a longer text: the context around the window (the rest of its
//! lines, an enclosing private-key block) and the guard on a last word that more output may
//! turn into a secret.

use super::pem;
use super::redact_plain as plain;
use super::redact_rules::TOKEN_PREFIXES;
use super::redact_spans::{PLACEHOLDER_PREFIX, Span, apply, merge, spans};
use std::borrow::Cow;

/// Most bytes of the current line kept as context on either side of a window.
pub const LINE_CONTEXT: usize = 1024;

/// Redacts `text`, a window of a longer text, given what precedes it (`before`, from
/// [`context_before`]) and follows it (`after`, from [`context_after`]): a secret that
/// straddles an edge of the window, or a private-key block the window starts inside, has
/// the window's part replaced. With no `after` (the window ends where the output does, so
/// far), a last word that begins like a token is replaced too: more output may complete it.
/// Escapes and controls are seen through as everywhere ([`redact`](fn@super::redact::redact)).
#[must_use]
pub fn redact_window<'a>(before: &str, text: &'a str, after: &str) -> Cow<'a, str> {
    let spans = window_spans(before, text, after);
    if spans.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(apply(text, &spans, 0, text.len()))
    }
}

/// Screen rows joined as the terminal shows them, and where each row lies in the result:
/// `\n` between rows, nothing where row `i` soft-wraps into the next (`wraps[i]`), or a space
/// when such a row is shorter than the screen's `cols` (0: unknown) — its trailing blanks
/// were trimmed, and they separate words.
#[must_use]
pub fn join_rows(rows: &[String], wraps: &[bool], cols: usize) -> (String, Vec<(usize, usize)>) {
    let mut text = String::new();
    let mut bounds = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            let prev = &rows[i - 1];
            match wraps.get(i - 1) {
                Some(true) if cols > 0 && prev.chars().count() < cols => text.push(' '),
                Some(true) => {}
                _ => text.push('\n'),
            }
        }
        bounds.push((text.len(), text.len() + r.len()));
        text.push_str(r);
    }
    (text, bounds)
}

/// Redacts screen rows, a window of a longer screen text, as [`redact_window`] does: the
/// rows are read as the terminal shows them ([`join_rows`]), so a secret wrapped over rows
/// is found. A wrapped row shorter than the screen is read both with a blank after it (its
/// trailing blanks were trimmed) and without (it holds wide characters). Each secret's
/// placeholder goes where it starts; the rest of it is removed from the rows it runs on
/// into, and a row it covers whole (a private-key block's lines) is dropped.
#[must_use]
pub fn redact_rows(
    before: &str,
    rows: Vec<String>,
    (wraps, cols): (&[bool], usize),
    after: &str,
) -> Vec<String> {
    let ambiguous = cols > 0
        && rows
            .iter()
            .zip(wraps)
            .any(|(r, w)| *w && r.chars().count() < cols);
    let widths: &[usize] = if ambiguous { &[cols, 0] } else { &[cols] };
    // Per row: the ranges to replace (row offsets, category, whether the secret starts there).
    let mut pieces: Vec<Vec<(usize, usize, &'static str, bool)>> = vec![Vec::new(); rows.len()];
    let mut dropped = vec![false; rows.len()];
    for &c in widths {
        let (text, bounds) = join_rows(&rows, wraps, c);
        for sp in window_spans(before, &text, after) {
            for (i, &(s, e)) in bounds.iter().enumerate() {
                if sp.start < s && sp.end >= e {
                    // Wholly inside a secret that began above: its placeholder is given.
                    dropped[i] = true;
                } else if sp.start < e && sp.end > s {
                    let piece = (
                        sp.start.max(s) - s,
                        sp.end.min(e) - s,
                        sp.cat,
                        sp.start >= s,
                    );
                    pieces[i].push(piece);
                }
            }
        }
    }
    if !dropped.contains(&true) && pieces.iter().all(Vec::is_empty) {
        return rows;
    }
    rows.into_iter()
        .zip(pieces)
        .zip(dropped)
        .filter(|(_, d)| !d)
        .map(|((row, p), _)| replace_pieces(&row, p))
        .collect()
}

/// `row` with `pieces` replaced: a placeholder where a secret starts, nothing where one
/// runs on from the row above.
fn replace_pieces(row: &str, mut pieces: Vec<(usize, usize, &'static str, bool)>) -> String {
    if pieces.is_empty() {
        return row.to_string();
    }
    pieces.sort_by_key(|p| (p.0, std::cmp::Reverse(p.1)));
    let mut out = String::with_capacity(row.len());
    let mut cur = 0;
    for (a, b, cat, starts) in pieces {
        if a >= cur {
            out.push_str(&row[cur..a]);
            if starts {
                out.push_str(PLACEHOLDER_PREFIX);
                out.push_str(cat);
                out.push(']');
            }
        }
        cur = cur.max(b);
    }
    out.push_str(&row[cur..]);
    out
}

/// The ranges of `text` (offsets in `text`) to replace, found with its context as
/// [`redact_window`] describes.
pub(super) fn window_spans(before: &str, text: &str, after: &str) -> Vec<Span> {
    let full;
    let t = if before.is_empty() && after.is_empty() {
        text
    } else {
        full = [before, text, after].concat();
        &full
    };
    let (lo, hi) = (before.len(), before.len() + text.len());
    let mut found = spans(t);
    if after.is_empty()
        && let Some(g) = tail_span(&t[..hi])
    {
        found.push(g);
        found = merge(found);
    }
    found
        .into_iter()
        .filter(|s| s.start < hi && s.end > lo)
        .map(|s| Span {
            start: s.start.max(lo) - lo,
            end: s.end.min(hi) - lo,
            cat: s.cat,
        })
        .collect()
}

/// The range from a last word that is an incomplete token (`ghp_abc` with its end still to
/// come) or an incomplete URL password (`postgres://u:hun`) to the end of `t`, judged on the
/// text a terminal shows (a colour code inside the word does not hide it).
fn tail_span(t: &str) -> Option<Span> {
    if !plain::needs_scan(t) {
        let (at, cat) = tail_guard(t)?;
        return Some(Span {
            start: at,
            end: t.len(),
            cat,
        });
    }
    let scan = plain::scan(t);
    let (at, cat) = tail_guard(&scan.stripped.text)?;
    let start = scan.stripped.raw_range(t, at..at + 1)?.start;
    Some(Span {
        start,
        end: t.len(),
        cat,
    })
}

/// Where the replacement of an incomplete token or URL password that ends `text` starts,
/// and its category.
fn tail_guard(text: &str) -> Option<(usize, &'static str)> {
    let word_at = text
        .rfind(|c: char| c.is_whitespace() || "\"'`=:,;()<>[]{}".contains(c))
        .map_or(0, |i| pem::ceil_boundary(text, i + 1));
    let word = &text[word_at..];
    if let Some((_, cat, _)) = TOKEN_PREFIXES.iter().find(|(p, _, extra)| {
        word.strip_prefix(p).is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
        })
    }) {
        return Some((word_at, cat));
    }
    // `scheme://user:pass` with its `@` still to come.
    let url_at = text
        .rfind(char::is_whitespace)
        .map_or(0, |i| pem::ceil_boundary(text, i + 1));
    let url = &text[url_at..];
    let p = url.find("://")?;
    let rest = &url[p + 3..];
    // (`host:8080` is a port, not a password.)
    let colon = rest.rfind(':')?;
    (!rest.contains(['@', '/'])
        && colon + 1 < rest.len()
        && !rest[colon + 1..].starts_with(PLACEHOLDER_PREFIX)
        && !rest[colon + 1..].bytes().all(|b| b.is_ascii_digit()))
    .then_some((url_at + p + 3 + colon + 1, "password"))
}

/// The context to pass as `before` to [`redact_window`] for a window that starts at the end
/// of `preceding` (the text before it): from the BEGIN of a private-key block the window
/// starts inside, else from the start of the current line (at most [`LINE_CONTEXT`] bytes,
/// or characters as shown when the text has escapes).
#[must_use]
pub fn context_before(preceding: &str) -> &str {
    let start = pem::context_start(preceding, LINE_CONTEXT);
    let from = pem::floor_boundary(
        preceding,
        preceding.len().saturating_sub(pem::MAX_BLOCK_BYTES),
    );
    if !plain::needs_scan(&preceding[from..]) {
        return &preceding[start..];
    }
    // With escapes: the same judged on the text as shown — a key's BEGIN split by a colour
    // code, a window cut inside an escape, [`LINE_CONTEXT`] characters however many escapes
    // come between them.
    let scan = plain::scan(&preceding[from..]);
    let shown = &scan.stripped;
    let at = pem::context_start(&shown.text, LINE_CONTEXT);
    let raw = shown.raw_at(at).map_or(preceding.len(), |r| from + r);
    &preceding[start.min(raw)..]
}

/// Most raw bytes looked at after a window for [`LINE_CONTEXT`] characters of a
/// line that carries escapes.
pub const MAX_CONTEXT_BYTES: usize = 16 * 1024;

/// The context to pass as `after` to [`redact_window`] for a window followed by `following`:
/// the rest of the current line (at most [`LINE_CONTEXT`] characters as shown, escapes
/// between them not counted, within [`MAX_CONTEXT_BYTES`] bytes).
#[must_use]
pub fn context_after(following: &str) -> &str {
    let line = following.find('\n').unwrap_or(following.len());
    let line = &following[..pem::floor_boundary(following, line.min(MAX_CONTEXT_BYTES))];
    if line.len() > LINE_CONTEXT && plain::needs_scan(line) {
        return &line[..plain::head_end(line, LINE_CONTEXT)];
    }
    &line[..pem::floor_boundary(line, LINE_CONTEXT)]
}

/// The `(before, after)` contexts of the window `bytes[start..end]` of retained output
/// (`bytes` need not be valid UTF-8 at its edges), for [`redact_window`].
#[must_use]
pub fn byte_window_context(bytes: &[u8], start: usize, end: usize) -> (String, String) {
    let end = end.min(bytes.len());
    let start = start.min(end);
    let before_from = start.saturating_sub(pem::MAX_BLOCK_BYTES);
    let before = String::from_utf8_lossy(&bytes[before_from..start]);
    let after_to = (end + MAX_CONTEXT_BYTES).min(bytes.len());
    let after = String::from_utf8_lossy(&bytes[end..after_to]);
    (
        context_before(&before).to_string(),
        context_after(&after).to_string(),
    )
}
