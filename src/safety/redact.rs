//! Secret redaction for everything that leaves on an agent channel: MCP results, `--json`
//! output, `kpty serve` replies, the audit trail and gateway emits.
//!
//! Every rule finds byte ranges in the original text (private-key blocks, the value of a
//! `NAME=value` / `"password": "…"` assignment, a URL's password, a bare token); overlapping
//! ranges are merged and each range becomes `[REDACTED:<category>]`. Assignments keep their
//! name (`export GITHUB_TOKEN=[REDACTED:secret]`). A placeholder never matches a rule again,
//! so redaction is idempotent, and ranges always lie on char boundaries. A token or keyword
//! may follow a non-word character or an escaped `\n`, `\r`, `\t` (a secret after
//! `printf 'a\nsk-…'`, or in already encoded text).
//!
//! Raw terminal output is matched as a terminal shows it (`redact_plain`): the
//! rules run on the text with escape sequences and invisible controls removed (and, when
//! there are any, with `\r` overprints and backspaces applied, and with what an `ESC` hides
//! from the screen but not from a reader of the bytes), and each match replaces its whole raw
//! span — the escapes inside it included, never half an escape. The colour (SGR) and charset
//! escapes of a replaced span are re-emitted after its placeholder, so the text after it
//! keeps its look; a secret inside an OSC/DCS string (a title, a link's URL) is replaced
//! inside the string, which stays a valid sequence. Screen rows are redacted as the logical
//! lines the terminal soft-wrapped them from ([`redact_rows`]), and kpty's own messages only
//! in what they quote from outside ([`super::redact_message`]).
//!
//! One ASCII-case-insensitive Aho-Corasick pass over the text finds which rules can match at
//! all; only those rules' regexes are compiled (once) and run, and text without any needle is
//! returned borrowed. [`redact_window`] redacts a window of a longer text given its context
//! (see [`context_before`] / [`context_after`]), so a secret cut by the window is still
//! recognised and the window's part of it replaced.

use super::pem;
pub use super::redact_context::{
    LINE_CONTEXT, MAX_CONTEXT_BYTES, byte_window_context, context_after, context_before, join_rows,
    redact_rows, redact_window,
};
use super::redact_plain as plain;
use super::redact_rules::{Cat, NEEDLES, RULES, SECRET_WORDS, compiled, name_category};
use regex::{Captures, Regex};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::LazyLock;

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
    let (ac, owner) = &*NEEDLES;
    let mut pem_hit = false;
    let mut hit = vec![false; RULES.len()];
    for m in ac.find_overlapping_iter(text) {
        match owner.get(m.pattern().as_usize()).copied().flatten() {
            Some(i) => hit[i] = true,
            None => pem_hit = true,
        }
    }
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

/// Replaces secrets in `text` with `[REDACTED:<category>]`.
///
/// Categories: `private_key` (PEM/OpenSSH/PGP/SSH2 private-key blocks and PuTTY key files,
/// whole), `password` (also `curl -u name:pass`, `--user name:pass` of HTTP/FTP clients,
/// `mysql -pPASS`, `sshpass -p PASS`), `authorization` (the credentials of an
/// `Authorization:` header of any scheme), `cookie`, `password` /
/// `secret` (the value of `password=`, `passwd:`, `"password": "…"`, `*_PASSWORD=`,
/// `*_SECRET=`, `*_TOKEN=`, `api_key=`, `export …KEY=` …; the name is kept), `aws_secret_key`,
/// `password` in URLs (`scheme://user:[REDACTED:password]@host`), `bearer_token`,
/// `basic_auth`, `anthropic_key` (`sk-ant-…`), `api_key` (`sk-…`, Stripe, Hugging Face,
/// SendGrid), `github_token` (`ghp_/gho_/ghu_/ghs_/ghr_`, `github_pat_`), `gitlab_token`,
/// `aws_access_key`, `jwt`, `slack_token` (`xox?-`), `slack_webhook`, `google_api_key`
/// (`AIza…`), `google_token`, `npm_token`, `secret` (`X-…-Key/-Token/-Secret` headers).
/// Escapes and controls are seen through (see the module docs). Returns `Cow::Borrowed` (no
/// allocation) when nothing matched.
#[must_use]
pub fn redact(text: &str) -> Cow<'_, str> {
    // One literal pass, no allocation: text without any rule's fixed part never pays for
    // compiling or running the rules (megabytes of command output, a short-lived CLI).
    let spans = spans(text);
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(apply(text, &spans, 0, text.len()))
}

/// True when `text` holds anything [`redact`] would replace (for refusing a secret where it
/// must not be stored, e.g. a session label). Escapes and controls are seen through.
#[must_use]
pub fn contains_secret(text: &str) -> bool {
    !spans(text).is_empty()
}

/// A JSON key that names a secret (`password`, `client_secret`, `GITHUB_TOKEN` …).
static SECRET_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)^[a-z0-9_.-]*(?:{SECRET_WORDS})(?:[_.-][a-z0-9]+)*$"
    ))
    .expect("the secret-key regex is valid")
});

/// The string `value` stored under the JSON key `key`, redacted: wholly when the key names a
/// secret (`{"password": "…"}`), else by [`redact`].
#[must_use]
pub fn redact_entry<'a>(key: &str, value: &'a str) -> Cow<'a, str> {
    if !value.is_empty()
        && !value.starts_with(PLACEHOLDER_PREFIX)
        && NEEDLES.0.is_match(key)
        && SECRET_KEY.is_match(key)
    {
        let cat = name_category(key);
        return Cow::Owned(format!("{PLACEHOLDER_PREFIX}{cat}]"));
    }
    redact(value)
}

/// Redact every string in a JSON value, in place; a string under a key that names a secret
/// is replaced whole ([`redact_entry`]).
pub fn redact_value(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Cow::Owned(r) = redact(s) {
                *s = r;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_value),
        Value::Object(o) => {
            // A failure's `error` / `message` is kpty's own text: only what it quotes (and
            // what it does not quote but looks like a secret) is redacted.
            let failure = o.get("ok") == Some(&Value::Bool(false));
            for (k, x) in o.iter_mut() {
                match x {
                    Value::String(s) if failure && (k == "error" || k == "message") => {
                        if let Cow::Owned(r) = super::redact_message(s) {
                            *s = r;
                        }
                    }
                    Value::String(s) => {
                        if let Cow::Owned(r) = redact_entry(k, s) {
                            *s = r;
                        }
                    }
                    other => redact_value(other),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "redact_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "redact_escape_tests.rs"]
mod escape_tests;
