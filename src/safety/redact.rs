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
//! One ASCII-case-insensitive Aho-Corasick pass over the text finds which rules can match at
//! all; only those rules' regexes are compiled (once) and run, and text without any needle is
//! returned borrowed. [`redact_window`] redacts a window of a longer text given its context
//! (see [`context_before`] / [`context_after`]), so a secret cut by the window is still
//! recognised and the window's part of it replaced.

use super::pem;
use aho_corasick::AhoCorasick;
use regex::{Captures, Regex};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

/// Every placeholder starts with this (and a value that does is never redacted again).
pub const PLACEHOLDER_PREFIX: &str = "[REDACTED:";

/// Most bytes of the current line kept as context on either side of a window.
pub const LINE_CONTEXT: usize = 1024;

/// How a rule names what it found.
#[derive(Clone, Copy)]
enum Cat {
    /// Always this category.
    Fixed(&'static str),
    /// `password` when the assignment's name says pass…, else `secret`.
    ByName,
}

/// A value in an assignment: double-quoted, single-quoted or bare.
const VALUE: &str = r#"(?:"(?<v1>[^"\n]*)"|'(?<v2>[^'\n]*)'|(?<v3>[^\s"'`,;&]+))"#;

/// Keywords that make a name a secret's name (`DB_PASSWORD`, `client_secret`, `api-key` …).
const SECRET_WORDS: &str = "password|passwd|passphrase|[_-]pwd|secret|token|api_?key|api-key|apikey|access_?key|access-key|secret_?key|private_?key|auth_?key|credentials?";

/// One redaction rule: the literals that must occur for it to match, its pattern, what the
/// replaced range is (group `v`, `v1`..`v3`, or the whole match) and its category.
struct Rule {
    needles: &'static [&'static str],
    pattern: Cow<'static, str>,
    cat: Cat,
    /// An extra test on the matched value (beyond what a regex says cheaply).
    check: Option<fn(&str) -> bool>,
}

fn rule(needles: &'static [&'static str], pattern: &'static str, cat: &'static str) -> Rule {
    Rule {
        needles,
        pattern: Cow::Borrowed(pattern),
        cat: Cat::Fixed(cat),
        check: None,
    }
}

const NAME_NEEDLES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "accesskey",
    "access_key",
    "access-key",
    "secretkey",
    "secret_key",
    "private_key",
    "privatekey",
    "auth_key",
    "authkey",
    "credential",
    "_pwd",
    "-pwd",
];

/// A token has a digit or punctuation: `Bearer authentication` is prose, not a token.
fn tokenish(v: &str) -> bool {
    v.bytes().any(|b| !b.is_ascii_alphabetic())
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        Rule {
            needles: &["secret"],
            pattern: Cow::Owned(format!(
                r#"(?i)(?:^|[^a-z0-9_]|\\[nrt])(?<name>[a-z0-9_.-]*secret[_-]?access[_-]?key)["']?[ \t]*[:=][ \t]*{VALUE}"#
            )),
            cat: Cat::Fixed("aws_secret_key"),
            check: None,
        },
        Rule {
            needles: &["export"],
            pattern: Cow::Owned(format!(
                r#"(?i)(?:^|[^a-z0-9_]|\\[nrt])export[ \t]+(?<name>[a-z0-9_]*(?:token|key|secret|pass|credential|auth)[a-z0-9_]*)={VALUE}"#
            )),
            cat: Cat::ByName,
            check: None,
        },
        Rule {
            needles: NAME_NEEDLES,
            pattern: Cow::Owned(format!(
                r#"(?i)(?:^|[^a-z0-9_])(?<name>[a-z0-9_.-]*(?:{SECRET_WORDS})(?:[_.-][a-z0-9]+)*)["']?[ \t]*[:=][ \t]*{VALUE}"#
            )),
            cat: Cat::ByName,
            check: None,
        },
        Rule {
            // `pass=` / `db_pass:` (but not `bypass:`: a bare `pass` must start the name or
            // follow a separator).
            needles: &["pass"],
            pattern: Cow::Owned(format!(
                r#"(?i)(?:^|[^a-z0-9_]|\\[nrt])(?<name>(?:[a-z0-9]+[_.-])*pass)["']?[ \t]*[:=][ \t]*{VALUE}"#
            )),
            cat: Cat::ByName,
            check: None,
        },
        Rule {
            needles: NAME_NEEDLES,
            pattern: Cow::Owned(format!(
                r#"(?i)(?:^|[^a-z0-9_-]|\\[nrt])--(?<name>password|passwd|passphrase|token|secret|api-key|apikey|access-token|auth-token)[ \t]+{VALUE}"#
            )),
            cat: Cat::ByName,
            check: None,
        },
        rule(
            &["://"],
            r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]*:(?<v>[^\s/"'<>]+)@"#,
            "password",
        ),
        Rule {
            needles: &["bearer"],
            pattern: Cow::Borrowed(
                r"(?i)(?:^|[^a-z0-9_]|\\[nrt])bearer[ \t]+(?<v>[a-z0-9._~+/=-]{8,})",
            ),
            cat: Cat::Fixed("bearer_token"),
            check: Some(tokenish),
        },
        rule(
            &["basic"],
            r"(?i)(?:^|[^a-z0-9_]|\\[nrt])authorization:[ \t]*basic[ \t]+(?<v>[a-z0-9+/=]{8,})",
            "basic_auth",
        ),
        rule(&["sk-ant-"], r"sk-ant-[A-Za-z0-9_-]{16,}", "anthropic_key"),
        rule(
            &["sk-"],
            r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>sk-[A-Za-z0-9_-]{20,})",
            "api_key",
        ),
        rule(
            &["_live_", "_test_"],
            r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})",
            "api_key",
        ),
        rule(
            &["hf_"],
            r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>hf_[A-Za-z0-9]{30,})",
            "api_key",
        ),
        rule(
            &["sg."],
            r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})",
            "api_key",
        ),
        rule(
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
            "github_token",
        ),
        rule(&["glpat-"], r"glpat-[A-Za-z0-9_-]{20,}", "gitlab_token"),
        rule(
            &[
                "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa",
                "apka", "asca",
            ],
            r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[0-9A-Z]{16}",
            "aws_access_key",
        ),
        rule(
            &["eyj"],
            r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)",
            "jwt",
        ),
        rule(
            &["xox", "xapp-"],
            r"(?:xox[abeposr]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,})",
            "slack_token",
        ),
        rule(
            &["hooks.slack.com"],
            r"hooks\.slack\.com/services/[A-Za-z0-9/_-]{8,}",
            "slack_webhook",
        ),
        rule(&["aiza"], r"AIza[0-9A-Za-z_-]{35}", "google_api_key"),
        rule(&["ya29."], r"ya29\.[0-9A-Za-z_-]{20,}", "google_token"),
        rule(&["npm_"], r"npm_[A-Za-z0-9]{30,}", "npm_token"),
    ]
});

/// The prefixes of bare tokens, their category and the characters (beyond ASCII letters and
/// digits) their rest may have: a window that ends in the middle of one (more output may
/// complete it) has that last word replaced.
const TOKEN_PREFIXES: &[(&str, &str, &str)] = &[
    ("sk-ant-", "anthropic_key", "_-"),
    ("sk-", "api_key", "_-"),
    ("sk_live_", "api_key", ""),
    ("rk_live_", "api_key", ""),
    ("hf_", "api_key", ""),
    ("ghp_", "github_token", ""),
    ("gho_", "github_token", ""),
    ("ghu_", "github_token", ""),
    ("ghs_", "github_token", ""),
    ("ghr_", "github_token", ""),
    ("github_pat_", "github_token", "_"),
    ("glpat-", "gitlab_token", "_-"),
    ("AKIA", "aws_access_key", ""),
    ("ASIA", "aws_access_key", ""),
    ("eyJ", "jwt", "_-."),
    ("xox", "slack_token", "-"),
    ("xapp-", "slack_token", "-"),
    ("AIza", "google_api_key", "_-"),
    ("ya29.", "google_token", "_-"),
    ("npm_", "npm_token", ""),
];

/// The rules' compiled regexes, each compiled the first time its needles occur.
static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| OnceLock::new()).collect());

/// Which rule each needle belongs to (`None`: the private-key blocks).
static NEEDLES: LazyLock<(AhoCorasick, Vec<Option<usize>>)> = LazyLock::new(|| {
    let mut pats: Vec<&str> = vec![pem::NEEDLE];
    let mut owner = vec![None];
    for (i, r) in RULES.iter().enumerate() {
        for n in r.needles {
            pats.push(n);
            owner.push(Some(i));
        }
    }
    // A contiguous NFA: built in microseconds (a DFA over these needles costs a short-lived
    // CLI process more to build than it ever saves in searching) and still one pass.
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(pats)
        .expect("redaction needles build");
    (ac, owner)
});

fn compiled(i: usize) -> Option<&'static Regex> {
    let rule = RULES.get(i)?;
    let cell = COMPILED.get(i)?;
    Some(cell.get_or_init(|| Regex::new(&rule.pattern).expect("redaction patterns are valid")))
}

/// `password` for a name that says so (`DB_PASSWORD`, `passwd`, `MYSQL_PWD`), else `secret`.
fn name_category(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.contains("pass") || n.contains("pwd") {
        "password"
    } else {
        "secret"
    }
}

/// A range to replace and its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    cat: &'static str,
}

/// The range a match replaces: its value group, else the whole match.
fn value_of<'t>(c: &Captures<'t>) -> Option<regex::Match<'t>> {
    c.name("v")
        .or_else(|| c.name("v1"))
        .or_else(|| c.name("v2"))
        .or_else(|| c.name("v3"))
        .or_else(|| c.get(0))
}

/// Every range of `text` to replace, sorted and merged.
fn spans(text: &str) -> Vec<Span> {
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
    if out.len() < 2 {
        return out;
    }
    out.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(out.len());
    for s in out {
        match merged.last_mut() {
            Some(m) if s.start < m.end => m.end = m.end.max(s.end),
            _ => merged.push(s),
        }
    }
    merged
}

/// `text[lo..hi]` with every span that overlaps it replaced by its placeholder.
fn apply(text: &str, spans: &[Span], lo: usize, hi: usize) -> String {
    let mut out = String::with_capacity(hi - lo);
    let mut cur = lo;
    for s in spans {
        if s.end <= lo || s.start >= hi {
            continue;
        }
        out.push_str(&text[cur..s.start.max(cur)]);
        out.push_str(PLACEHOLDER_PREFIX);
        out.push_str(s.cat);
        out.push(']');
        cur = s.end.min(hi);
    }
    out.push_str(&text[cur..hi]);
    out
}

/// Replaces secrets in `text` with `[REDACTED:<category>]`.
///
/// Categories: `private_key` (PEM/OpenSSH/PGP/SSH2 private-key blocks, whole), `password` /
/// `secret` (the value of `password=`, `passwd:`, `"password": "…"`, `*_PASSWORD=`,
/// `*_SECRET=`, `*_TOKEN=`, `api_key=`, `export …KEY=` …; the name is kept), `aws_secret_key`,
/// `password` in URLs (`scheme://user:[REDACTED:password]@host`), `bearer_token`,
/// `basic_auth`, `anthropic_key` (`sk-ant-…`), `api_key` (`sk-…`, Stripe, Hugging Face,
/// SendGrid), `github_token` (`ghp_/gho_/ghu_/ghs_/ghr_`, `github_pat_`), `gitlab_token`,
/// `aws_access_key`, `jwt`, `slack_token` (`xox?-`), `slack_webhook`, `google_api_key`
/// (`AIza…`), `google_token`, `npm_token`. Returns `Cow::Borrowed` (no allocation) when
/// nothing matched.
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

/// Redacts `text`, a window of a longer text, given what precedes it (`before`, from
/// [`context_before`]) and follows it (`after`, from [`context_after`]): a secret that
/// straddles an edge of the window, or a private-key block the window starts inside, has
/// the window's part replaced. With no `after` (the window ends where the output does, so
/// far), a last word that begins like a token is replaced too: more output may complete it.
#[must_use]
pub fn redact_window<'a>(before: &str, text: &'a str, after: &str) -> Cow<'a, str> {
    let out = if before.is_empty() && after.is_empty() {
        redact(text)
    } else {
        let full = [before, text, after].concat();
        let (lo, hi) = (before.len(), before.len() + text.len());
        let spans = spans(&full);
        if spans.iter().any(|s| s.start < hi && s.end > lo) {
            Cow::Owned(apply(&full, &spans, lo, hi))
        } else {
            Cow::Borrowed(text)
        }
    };
    if after.is_empty() {
        guard_tail(out)
    } else {
        out
    }
}

/// Replace a last word that is an incomplete token (`ghp_abc` with its end still to come) or
/// an incomplete URL password (`postgres://u:hun`).
fn guard_tail(text: Cow<'_, str>) -> Cow<'_, str> {
    let word_at = text
        .rfind(|c: char| c.is_whitespace() || "\"'`=:,;()<>[]{}".contains(c))
        .map_or(0, |i| pem::ceil_boundary(&text, i + 1));
    let word = &text[word_at..];
    if let Some((_, cat, _)) = TOKEN_PREFIXES.iter().find(|(p, _, extra)| {
        word.strip_prefix(p).is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
        })
    }) {
        return Cow::Owned(format!("{}{PLACEHOLDER_PREFIX}{cat}]", &text[..word_at]));
    }
    // `scheme://user:pass` with its `@` still to come.
    let url_at = text
        .rfind(char::is_whitespace)
        .map_or(0, |i| pem::ceil_boundary(&text, i + 1));
    let url = &text[url_at..];
    if let Some(p) = url.find("://") {
        let rest = &url[p + 3..];
        // (`host:8080` is a port, not a password.)
        if let Some(colon) = rest.rfind(':')
            && !rest.contains(['@', '/'])
            && colon + 1 < rest.len()
            && !rest[colon + 1..].starts_with(PLACEHOLDER_PREFIX)
            && !rest[colon + 1..].bytes().all(|b| b.is_ascii_digit())
        {
            let cut = url_at + p + 3 + colon + 1;
            return Cow::Owned(format!("{}{PLACEHOLDER_PREFIX}password]", &text[..cut]));
        }
    }
    text
}

/// The context to pass as `before` to [`redact_window`] for a window that starts at the end
/// of `preceding` (the text before it): from the BEGIN of a private-key block the window
/// starts inside, else from the start of the current line (at most [`LINE_CONTEXT`] bytes).
#[must_use]
pub fn context_before(preceding: &str) -> &str {
    &preceding[pem::context_start(preceding, LINE_CONTEXT)..]
}

/// The context to pass as `after` to [`redact_window`] for a window followed by `following`:
/// the rest of the current line (at most [`LINE_CONTEXT`] bytes).
#[must_use]
pub fn context_after(following: &str) -> &str {
    let end = following
        .find('\n')
        .unwrap_or(following.len())
        .min(LINE_CONTEXT);
    &following[..pem::floor_boundary(following, end)]
}

/// The `(before, after)` contexts of the window `bytes[start..end]` of retained output
/// (`bytes` need not be valid UTF-8 at its edges), for [`redact_window`].
#[must_use]
pub fn byte_window_context(bytes: &[u8], start: usize, end: usize) -> (String, String) {
    let end = end.min(bytes.len());
    let start = start.min(end);
    let before_from = start.saturating_sub(pem::MAX_BLOCK_BYTES);
    let before = String::from_utf8_lossy(&bytes[before_from..start]);
    let after_to = (end + LINE_CONTEXT).min(bytes.len());
    let after = String::from_utf8_lossy(&bytes[end..after_to]);
    (
        context_before(&before).to_string(),
        context_after(&after).to_string(),
    )
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
            for (k, x) in o.iter_mut() {
                match x {
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
