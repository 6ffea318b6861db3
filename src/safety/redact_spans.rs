//! The engine under every redaction: the byte ranges of `text` the rules find (seen through
//! escapes and controls, [`super::redact_plain`]), merged, and a window of the text with
//! each range replaced by its `[REDACTED:<category>]` placeholder.

use super::pem;
use super::redact_plain as plain;
use super::redact_rules::{Cat, RULES, compiled, name_category, needle_hits};
use regex::Captures;

/// Every placeholder starts with this (and a value that does is never redacted again).
pub const PLACEHOLDER_PREFIX: &str = "[REDACTED:";

/// A range to replace and its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    /// First byte replaced.
    pub(super) start: usize,
    /// Byte after the last one replaced.
    pub(super) end: usize,
    /// The placeholder's category.
    pub(super) cat: &'static str,
}

/// The range a match replaces: its value group, else the whole match.
fn value_of<'t>(c: &Captures<'t>) -> Option<regex::Match<'t>> {
    c.name("v")
        .or_else(|| c.name("v1"))
        .or_else(|| c.name("v2"))
        .or_else(|| c.name("v3"))
        .or_else(|| c.get(0))
}

/// Every range of `text` to replace, sorted and merged. The rules run on the text as it
/// stands or, when it has escapes or controls, on each view of it ([`super::redact_plain`]:
/// what a terminal shows, with overprints applied, and what a reader of the raw bytes sees),
/// each match mapped back to the raw range it came from; no range cuts an escape in two.
pub(super) fn spans(text: &str) -> Vec<Span> {
    if !plain::needs_scan(text) {
        return merge(rule_spans(text));
    }
    let scan = plain::scan(text);
    let mut out = Vec::new();
    for view in scan.views() {
        for s in rule_spans(&view.text) {
            if let Some(r) = view.raw_range(text, s.start..s.end) {
                let r = plain::widen(&scan.escapes, r);
                out.push(Span {
                    start: r.start,
                    end: r.end,
                    cat: s.cat,
                });
            }
        }
    }
    merge(out)
}

/// Every range of `text` (taken as it stands) that a rule matches.
fn rule_spans(text: &str) -> Vec<Span> {
    let mut pem_hit = false;
    let mut hit = vec![false; RULES.len()];
    needle_hits(text, |owner| match owner {
        Some(i) => hit[i] = true,
        None => pem_hit = true,
    });
    let mut out = Vec::new();
    if pem_hit {
        out.extend(pem::blocks(text).into_iter().map(|(start, end)| Span {
            start,
            end,
            cat: "private_key",
        }));
    }
    for (i, r) in RULES.iter().enumerate() {
        if !hit[i] {
            continue;
        }
        let Some(re) = compiled(i) else { continue };
        for c in re.captures_iter(text) {
            let Some(v) = value_of(&c) else { continue };
            let s = v.as_str();
            if s.is_empty() || s.starts_with(PLACEHOLDER_PREFIX) {
                continue;
            }
            if r.check.is_some_and(|f| !f(s)) {
                continue;
            }
            let cat = match r.cat {
                Cat::Fixed(c) => c,
                Cat::ByName => name_category(c.name("name").map_or("", |n| n.as_str())),
            };
            out.push(Span {
                start: v.start(),
                end: v.end(),
                cat,
            });
        }
    }
    out
}

/// `spans` sorted, overlapping ones merged.
pub(super) fn merge(mut spans: Vec<Span>) -> Vec<Span> {
    if spans.len() < 2 {
        return spans;
    }
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            Some(m) if s.start < m.end => m.end = m.end.max(s.end),
            _ => merged.push(s),
        }
    }
    merged
}

/// `text[lo..hi]` with every span that overlaps it replaced by its placeholder, followed by
/// the colour and charset escapes the replaced range held (so what follows keeps its look;
/// nothing else of the range survives, and never part of an escape).
pub(super) fn apply(text: &str, spans: &[Span], lo: usize, hi: usize) -> String {
    let mut out = String::with_capacity(hi - lo);
    let mut cur = lo;
    for s in spans {
        if s.end <= lo || s.start >= hi {
            continue;
        }
        let (a, b) = (s.start.max(cur), s.end.min(hi).max(cur));
        out.push_str(&text[cur..a]);
        out.push_str(PLACEHOLDER_PREFIX);
        out.push_str(s.cat);
        out.push(']');
        let gone = &text[a..b];
        if gone.contains(['\x1b', '\x0e', '\x0f', '\u{9b}']) {
            out.push_str(&plain::state_escapes(gone));
        }
        cur = b;
    }
    out.push_str(&text[cur..hi]);
    out
}
