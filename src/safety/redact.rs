//! Secret redaction for text returned to agents and written to audit logs.
//!
//! Rules run in table order: private-key blocks first (so nothing inside them is half
//! redacted), then `NAME=value` assignments (so the variable name is kept), then bare
//! tokens. Values end at whitespace or a quote. A `-----BEGIN … PRIVATE KEY-----` with no
//! matching END line (e.g. a truncated screen) is redacted up to the end of the text.

use aho_corasick::AhoCorasick;
use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// One redaction rule: a regex and its replacement (which may use `$name` groups).
struct Rule {
    re: Regex,
    replacement: &'static str,
}

fn rule(pattern: &str, replacement: &'static str) -> Rule {
    Rule {
        re: Regex::new(pattern).expect("redaction patterns are valid regexes"),
        replacement,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY-----|.*)",
            "[REDACTED_PRIVATE_KEY]",
        ),
        rule(
            r#"\b(?<name>ANTHROPIC_API_KEY|OPENAI_API_KEY)=(?<q>["']?)[^\s"']+"#,
            "${name}=${q}[REDACTED]",
        ),
        rule(
            r#"(?i)\b(?<export>export\s+)(?<name>[A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD)[A-Z0-9_]*)=(?<q>["']?)[^\s"']+"#,
            "${export}${name}=${q}[REDACTED]",
        ),
        rule(r"\bsk-[A-Za-z0-9_-]{20,}", "[REDACTED_API_KEY]"),
        rule(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            "[REDACTED_GITHUB_TOKEN]",
        ),
        rule(r"\bBearer [A-Za-z0-9._~+/=-]{8,}", "Bearer [REDACTED]"),
        rule(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "[REDACTED_AWS_KEY]"),
        rule(
            r#"\b(?<prefix>[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"']+):[^\s@/"']+@"#,
            "${prefix}:[REDACTED_PASSWORD]@",
        ),
    ]
});

/// A fixed part of every rule (ASCII case-insensitive: a superset of what the rules match).
static NEEDLES: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "-----begin",
            "_api_key=",
            "export",
            "sk-",
            "ghp_",
            "gho_",
            "ghu_",
            "ghs_",
            "ghr_",
            "github_pat_",
            "bearer ",
            "akia",
            "asia",
            "://",
        ])
        .expect("redaction needles build")
});

/// Replaces secrets in `text` with `[REDACTED…]` markers.
///
/// Covers `sk-…` API keys, GitHub tokens, `Bearer` tokens, `export NAME=value` where NAME
/// contains TOKEN/KEY/SECRET/PASSWORD, `ANTHROPIC_API_KEY=`/`OPENAI_API_KEY=` assignments,
/// AWS access key ids, URL passwords and PEM private-key blocks. Returns `Cow::Borrowed`
/// (no allocation) when nothing matched.
#[must_use]
pub fn redact(text: &str) -> Cow<'_, str> {
    // Cheap literal pre-check, one pass and no allocation: text without any rule's fixed part
    // never pays for compiling or running the rules (which matters to a short-lived CLI
    // process and to megabytes of command output).
    if !NEEDLES.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut out = Cow::Borrowed(text);
    for rule in RULES.iter() {
        if let Cow::Owned(replaced) = rule.re.replace_all(&out, rule.replacement) {
            out = Cow::Owned(replaced);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        redact(text).into_owned()
    }

    #[test]
    fn api_keys() {
        assert_eq!(
            r("key: sk-abcdefghijklmnopqrstuvwxyz"),
            "key: [REDACTED_API_KEY]"
        );
        assert_eq!(
            r("sk-ant-api03-AbCdEf_123456789-xyzXYZ done"),
            "[REDACTED_API_KEY] done"
        );
        assert_eq!(
            r("\"sk-proj-0123456789abcdefghij\""),
            "\"[REDACTED_API_KEY]\""
        );
        assert_eq!(r("sk-short"), "sk-short");
    }

    #[test]
    fn github_tokens() {
        let t = format!("ghp_{}", "a1".repeat(18));
        assert_eq!(
            r(&format!("token {t} ok")),
            "token [REDACTED_GITHUB_TOKEN] ok"
        );
        for prefix in ["gho_", "ghu_", "ghs_", "ghr_"] {
            assert_eq!(
                r(&format!("{prefix}{}", "Z".repeat(36))),
                "[REDACTED_GITHUB_TOKEN]"
            );
        }
        let pat = format!("github_pat_{}", "A1_b".repeat(6));
        assert_eq!(r(&pat), "[REDACTED_GITHUB_TOKEN]");
        assert_eq!(r("ghp_tooShort"), "ghp_tooShort");
    }

    #[test]
    fn bearer() {
        assert_eq!(
            r("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc-_~+/="),
            "Authorization: Bearer [REDACTED]"
        );
        assert_eq!(
            r("curl -H 'Authorization: Bearer abcdefgh12'"),
            "curl -H 'Authorization: Bearer [REDACTED]'"
        );
    }

    #[test]
    fn export_assignments() {
        assert_eq!(
            r("export GITHUB_TOKEN=abc123"),
            "export GITHUB_TOKEN=[REDACTED]"
        );
        assert_eq!(
            r("export db_password='hunter2' && x"),
            "export db_password='[REDACTED]' && x"
        );
        assert_eq!(
            r("export MY_SECRET=\"s3cr3t\""),
            "export MY_SECRET=\"[REDACTED]\""
        );
        assert_eq!(
            r("export STRIPE_KEY=rk_live_1"),
            "export STRIPE_KEY=[REDACTED]"
        );
        assert_eq!(r("export  API_TOKEN=x y"), "export  API_TOKEN=[REDACTED] y");
    }

    #[test]
    fn provider_key_assignments() {
        assert_eq!(
            r("ANTHROPIC_API_KEY=abc python run.py"),
            "ANTHROPIC_API_KEY=[REDACTED] python run.py"
        );
        assert_eq!(
            r("env OPENAI_API_KEY='xyz' cmd"),
            "env OPENAI_API_KEY='[REDACTED]' cmd"
        );
        assert_eq!(
            r("export ANTHROPIC_API_KEY=sk-ant-0123456789abcdefghijk"),
            "export ANTHROPIC_API_KEY=[REDACTED]"
        );
    }

    #[test]
    fn aws_keys() {
        assert_eq!(
            r("id AKIAIOSFODNN7EXAMPLE end"),
            "id [REDACTED_AWS_KEY] end"
        );
        assert_eq!(r("AKIA123"), "AKIA123");
    }

    #[test]
    fn url_passwords() {
        assert_eq!(
            r("postgres://admin:hunter2@db.example.com:5432/app"),
            "postgres://admin:[REDACTED_PASSWORD]@db.example.com:5432/app"
        );
        assert_eq!(
            r("git clone https://user:ghtoken@github.com/x/y"),
            "git clone https://user:[REDACTED_PASSWORD]@github.com/x/y"
        );
        assert_eq!(
            r("https://example.com:8080/path"),
            "https://example.com:8080/path"
        );
        assert_eq!(r("ssh://git@github.com/x"), "ssh://git@github.com/x");
    }

    #[test]
    fn private_keys() {
        let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\ndef==\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(r(pem), "before\n[REDACTED_PRIVATE_KEY]\nafter");
        let two = "-----BEGIN PRIVATE KEY-----\na\n-----END PRIVATE KEY-----\nmid\n\
                   -----BEGIN OPENSSH PRIVATE KEY-----\nb\n-----END OPENSSH PRIVATE KEY-----";
        assert_eq!(
            r(two),
            "[REDACTED_PRIVATE_KEY]\nmid\n[REDACTED_PRIVATE_KEY]"
        );
        let truncated = "$ cat key\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE";
        assert_eq!(r(truncated), "$ cat key\n[REDACTED_PRIVATE_KEY]");
        let public = "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----";
        assert_eq!(r(public), public);
    }

    #[test]
    fn ordinary_text_unchanged_and_borrowed() {
        for text in [
            "",
            "sk-",
            "task-manager",
            "Bearer",
            "Bearer token",
            "export PATH=/usr/bin",
            "export EDITOR=vim",
            "ls -la /tmp && echo done",
            "https://docs.rs/regex/latest/regex/",
            "héllo wörld ✓",
        ] {
            assert!(
                matches!(redact(text), Cow::Borrowed(t) if t == text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn redacted_output_is_stable() {
        let once = r(
            "export A_TOKEN=x && curl -H 'Bearer abcdefghijk' https://u:p@h sk-abcdefghijklmnopqrstu",
        );
        assert_eq!(
            once,
            "export A_TOKEN=[REDACTED] && curl -H 'Bearer [REDACTED]' https://u:[REDACTED_PASSWORD]@h [REDACTED_API_KEY]"
        );
        assert_eq!(r(&once), once);
    }
}
