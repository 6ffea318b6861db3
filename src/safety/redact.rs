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

pub use super::redact_context::{
    LINE_CONTEXT, MAX_CONTEXT_BYTES, byte_window_context, context_after, context_before, join_rows,
    redact_rows, redact_window,
};
use super::redact_rules::{SECRET_WORDS, any_needle, name_category};
pub use super::redact_spans::PLACEHOLDER_PREFIX;
use super::redact_spans::{apply, spans};
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::LazyLock;

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
        && any_needle(key)
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
            let binary = is_png_image(o);
            for (k, x) in o.iter_mut() {
                match x {
                    // A PNG screenshot's base64: pixels, drawn from a screen whose text was
                    // redacted before drawing. Base64 can spell a token's prefix (`AIza`,
                    // `AKIA` …) by chance, and a placeholder there would break the image.
                    Value::String(_) if binary && k == "image" => {}
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

/// A screenshot's PNG in base64 (`{"format": "png", "encoding": "base64", "image": …}`, the
/// image starting with the PNG signature), which [`redact_value`] leaves whole.
fn is_png_image(o: &serde_json::Map<String, Value>) -> bool {
    // `\x89PNG\r\n\x1a\n` in base64.
    const SIGNATURE: &str = "iVBORw0KGgo";
    let is = |k: &str, v: &str| o.get(k).and_then(Value::as_str) == Some(v);
    is("format", "png")
        && is("encoding", "base64")
        && o.get("image")
            .and_then(Value::as_str)
            .is_some_and(|i| i.starts_with(SIGNATURE))
}

#[cfg(test)]
#[path = "redact_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "redact_escape_tests.rs"]
mod escape_tests;
