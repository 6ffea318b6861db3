//! Redacting kpty's own messages: only what came from outside is redacted, not the words
//! kpty wrote around it. kpty quotes an outside value in a message as a Rust string literal
//! (`malformed session id "db_password": ids are 1-64 characters …`), so each quoted part is
//! redacted on its own, and the words between them are redacted with every quoted part masked
//! (so kpty's `": ids` can never be taken for the value of a quoted `password`). A secret in
//! the words (an outside value kpty did not quote) is still replaced, and so is a whole quoted
//! part that the words make a secret's value (`KEY="…"`).

use super::redact::redact;
use super::redact_spans::{PLACEHOLDER_PREFIX, apply, spans};
use std::borrow::Cow;
use std::ops::Range;

/// What a quoted part stands for while the words around it are redacted.
const MASK: &str = "\"\u{2026}\"";

/// `msg`, a message kpty wrote, with the secrets in what it quotes (and in its unquoted
/// text) replaced, and its own words kept.
#[must_use]
pub fn redact_message(msg: &str) -> Cow<'_, str> {
    let quoted = quoted_parts(msg);
    if quoted.is_empty() {
        return redact(msg);
    }
    // The words, each quoted part masked; `masks[i]`: where quoted part `i` sits in them.
    let mut words = String::with_capacity(msg.len());
    let mut masks = Vec::with_capacity(quoted.len());
    let mut cur = 0;
    for q in &quoted {
        words.push_str(&msg[cur..q.start]);
        masks.push(words.len()..words.len() + MASK.len());
        words.push_str(MASK);
        cur = q.end;
    }
    words.push_str(&msg[cur..]);
    let found = spans(&words);
    if found.is_empty() && !quoted.iter().any(|q| needs(&msg[q.clone()])) {
        return Cow::Borrowed(msg);
    }
    // Rebuild: words redacted outside the masks; each quoted part redacted alone, or whole
    // when a secret in the words covers its mask.
    let mut out = String::with_capacity(msg.len());
    let mut at = 0;
    for (q, m) in quoted.iter().zip(&masks) {
        let outside: Vec<_> = found
            .iter()
            .filter(|s| s.end <= m.start || s.start >= m.end)
            .copied()
            .collect();
        out.push_str(&apply(&words, &outside, at, m.start));
        match found.iter().find(|s| s.start < m.end && s.end > m.start) {
            Some(s) => {
                out.push('"');
                out.push_str(PLACEHOLDER_PREFIX);
                out.push_str(s.cat);
                out.push_str("]\"");
            }
            None => out.push_str(&redact(&msg[q.clone()])),
        }
        at = m.end;
    }
    let tail: Vec<_> = found.iter().filter(|s| s.end > at).copied().collect();
    out.push_str(&apply(&words, &tail, at, words.len()));
    Cow::Owned(out)
}

/// True when redacting `part` alone changes it.
fn needs(part: &str) -> bool {
    matches!(redact(part), Cow::Owned(_))
}

/// The ranges of `msg`'s string literals, quotes included: `"` to the next `"` not escaped by
/// a backslash (an unterminated one runs to the end).
fn quoted_parts(msg: &str) -> Vec<Range<usize>> {
    let b = msg.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = b.get(i..).and_then(|r| r.iter().position(|&c| c == b'"')) {
        let start = i + off;
        let mut j = start + 1;
        while j < b.len() && b[j] != b'"' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        let end = (j + 1).min(b.len());
        out.push(start..end);
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kpty_words_are_kept() {
        for id in ["db_password", "api_key", "secret", "my-token", "password:"] {
            let m =
                format!("malformed session id {id:?}: ids are 1-64 characters of letters, digits");
            assert_eq!(redact_message(&m), m, "{m}");
        }
    }

    #[test]
    fn quoted_secrets_are_replaced() {
        let tok = format!("ghp_{}", "a1B2".repeat(9));
        let m = format!("malformed session id {tok:?}: ids are 1-64 characters");
        assert_eq!(
            redact_message(&m),
            "malformed session id \"[REDACTED:github_token]\": ids are 1-64 characters"
        );
        let m = "unknown label \"password=hunter22\" (see list)";
        assert_eq!(
            redact_message(m),
            "unknown label \"password=[REDACTED:password]\" (see list)"
        );
    }

    #[test]
    fn words_that_make_a_quoted_part_a_value_replace_it() {
        let m = "cannot set DB_PASSWORD=\"hunter22\" here";
        assert_eq!(
            redact_message(m),
            "cannot set DB_PASSWORD=\"[REDACTED:password]\" here"
        );
        // An unquoted outside value is redacted as before.
        let m = "bad value sk-abcdefghijklmnopqrstuvwxyz0 for \"x\"";
        assert_eq!(redact_message(m), "bad value [REDACTED:api_key] for \"x\"");
    }

    #[test]
    fn escaped_quotes_and_unterminated_parts() {
        let m = r#"id "a\"b password=hunter22" and "open password=hunter33"#;
        let out = redact_message(m);
        assert!(
            !out.contains("hunter22") && !out.contains("hunter33"),
            "{out}"
        );
        assert!(out.starts_with("id \"a\\\"b "), "{out}");
    }
}
