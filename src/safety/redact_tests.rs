//! Unit and property tests of secret redaction: every category, benign look-alikes, JSON
//! encodings, and windows cut through secrets and private-key blocks.

use super::*;
use proptest::prelude::*;

fn r(text: &str) -> String {
    redact(text).into_owned()
}

/// What a holder returns for the window `t[lo..hi]`, redacted with its context (`hi` at the
/// end of `t`: the output so far, nothing after it yet).
fn window(t: &str, lo: usize, hi: usize) -> String {
    let after = if hi == t.len() {
        ""
    } else {
        context_after(&t[hi..])
    };
    redact_window(context_before(&t[..lo]), &t[lo..hi], after).into_owned()
}

const RSA: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nQx7z+Lk9/abcDEF0123456789ghijkLMNOPq==\n-----END RSA PRIVATE KEY-----";

#[test]
fn api_keys() {
    assert_eq!(
        r("key: sk-abcdefghijklmnopqrstuvwxyz"),
        "key: [REDACTED:api_key]"
    );
    assert_eq!(
        r("use sk-abcdefghijklmnopqrstuvwxyz now"),
        "use [REDACTED:api_key] now"
    );
    assert_eq!(
        r("sk-ant-api03-AbCdEf_123456789-xyzXYZ done"),
        "[REDACTED:anthropic_key] done"
    );
    assert_eq!(
        r("\"sk-proj-0123456789abcdefghij\""),
        "\"[REDACTED:api_key]\""
    );
    assert_eq!(
        r("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
        "stripe [REDACTED:api_key]"
    );
    assert_eq!(r("sk-short"), "sk-short");
}

#[test]
fn github_and_gitlab_tokens() {
    let t = format!("ghp_{}", "a1".repeat(18));
    assert_eq!(
        r(&format!("token {t} ok")),
        "token [REDACTED:github_token] ok"
    );
    for prefix in ["gho_", "ghu_", "ghs_", "ghr_"] {
        assert_eq!(
            r(&format!("{prefix}{}", "Z".repeat(36))),
            "[REDACTED:github_token]"
        );
    }
    let pat = format!("github_pat_11{}", "A1_b".repeat(20));
    assert_eq!(r(&pat), "[REDACTED:github_token]");
    assert_eq!(r("ghp_tooShort"), "ghp_tooShort");
    assert_eq!(r("glpat-xYz0123456789abcdefGH"), "[REDACTED:gitlab_token]");
}

#[test]
fn bearer_and_basic() {
    assert_eq!(
        r("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc-_~+/="),
        "Authorization: Bearer [REDACTED:bearer_token]"
    );
    assert_eq!(
        r("curl -H 'Authorization: Bearer abcdefgh12'"),
        "curl -H 'Authorization: Bearer [REDACTED:bearer_token]'"
    );
    assert_eq!(
        r("Authorization: Basic dXNlcjpwYXNzd29yZA=="),
        "Authorization: Basic [REDACTED:basic_auth]"
    );
    assert_eq!(r("bearer authentication"), "bearer authentication");
}

#[test]
fn assignments_keep_their_name() {
    for (text, want) in [
        (
            "export GITHUB_TOKEN=abc123",
            "export GITHUB_TOKEN=[REDACTED:secret]",
        ),
        (
            "export db_password='hunter2' && x",
            "export db_password='[REDACTED:password]' && x",
        ),
        (
            "export MY_SECRET=\"s3cr3t\"",
            "export MY_SECRET=\"[REDACTED:secret]\"",
        ),
        (
            "export STRIPE_KEY=rk_live_1",
            "export STRIPE_KEY=[REDACTED:secret]",
        ),
        (
            "export  API_TOKEN=x y",
            "export  API_TOKEN=[REDACTED:secret] y",
        ),
        (
            "DB_PASSWORD=hunter2 ./run",
            "DB_PASSWORD=[REDACTED:password] ./run",
        ),
        ("APP_SECRET=abc", "APP_SECRET=[REDACTED:secret]"),
        (
            "MYSQL_PWD=hunter2 mysql",
            "MYSQL_PWD=[REDACTED:password] mysql",
        ),
        ("user=bob pass=hunter2", "user=bob pass=[REDACTED:password]"),
        ("db_pass: hunter2", "db_pass: [REDACTED:password]"),
        ("password=hunter2", "password=[REDACTED:password]"),
        ("passwd: hunter2", "passwd: [REDACTED:password]"),
        (
            "{\"password\": \"hunter 2\", \"user\": \"bob\"}",
            "{\"password\": \"[REDACTED:password]\", \"user\": \"bob\"}",
        ),
        ("api_key = abc123", "api_key = [REDACTED:secret]"),
        (
            "ANTHROPIC_API_KEY=abc python run.py",
            "ANTHROPIC_API_KEY=[REDACTED:secret] python run.py",
        ),
        (
            "env OPENAI_API_KEY='xyz' cmd",
            "env OPENAI_API_KEY='[REDACTED:secret]' cmd",
        ),
        (
            "mysql --password hunter2 db",
            "mysql --password [REDACTED:password] db",
        ),
        (
            "//registry.npmjs.org/:_authToken=abcdef",
            "//registry.npmjs.org/:_authToken=[REDACTED:secret]",
        ),
    ] {
        assert_eq!(r(text), want, "{text:?}");
    }
}

#[test]
fn aws_keys() {
    assert_eq!(
        r("id AKIAIOSFODNN7EXAMPLE end"),
        "id [REDACTED:aws_access_key] end"
    );
    assert_eq!(r("AKIA123"), "AKIA123");
    assert_eq!(
        r("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        "aws_secret_access_key = [REDACTED:aws_secret_key]"
    );
    assert_eq!(
        r("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        "export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]"
    );
    assert_eq!(
        r("\"SecretAccessKey\": \"wJalrXUtnFEMI/K7MDENG\""),
        "\"SecretAccessKey\": \"[REDACTED:aws_secret_key]\""
    );
}

#[test]
fn other_tokens() {
    for (text, cat) in [
        (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
        ),
        ("xoxb-1234567890-abcdefghijABCDEF", "slack_token"),
        ("xoxp-12345-67890-abcdef", "slack_token"),
        ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "google_api_key"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_token"),
        ("ya29.a0AfH6SMBxyz0123456789abcdef", "google_token"),
        ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "api_key"),
    ] {
        assert_eq!(
            r(&format!("x {text} y")),
            format!("x [REDACTED:{cat}] y"),
            "{text}"
        );
    }
}

#[test]
fn url_passwords() {
    assert_eq!(
        r("postgres://admin:hunter2@db.example.com:5432/app"),
        "postgres://admin:[REDACTED:password]@db.example.com:5432/app"
    );
    assert_eq!(
        r("git clone https://user:ghtoken@github.com/x/y"),
        "git clone https://user:[REDACTED:password]@github.com/x/y"
    );
    assert_eq!(
        r("mongodb+srv://app:p@ss:w0rd@cluster0.example.net/db"),
        "mongodb+srv://app:[REDACTED:password]@cluster0.example.net/db"
    );
    assert_eq!(
        r("redis://:s3cret@cache:6379"),
        "redis://:[REDACTED:password]@cache:6379"
    );
    assert_eq!(
        r("https://example.com:8080/path"),
        "https://example.com:8080/path"
    );
    assert_eq!(r("ssh://git@github.com/x"), "ssh://git@github.com/x");
}

#[test]
fn private_keys_are_redacted_whole() {
    let pem = format!("before\n{RSA}\nafter");
    assert_eq!(r(&pem), "before\n[REDACTED:private_key]\nafter");
    let two = "-----BEGIN PRIVATE KEY-----\na\n-----END PRIVATE KEY-----\nmid\n\
               -----BEGIN OPENSSH PRIVATE KEY-----\nb\n-----END OPENSSH PRIVATE KEY-----";
    assert_eq!(
        r(two),
        "[REDACTED:private_key]\nmid\n[REDACTED:private_key]"
    );
    for kind in [
        "EC PRIVATE KEY",
        "DSA PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        let k = format!("-----BEGIN {kind}-----\nMHcCAQEE\n-----END {kind}-----");
        assert_eq!(
            r(&format!("$ cat k\n{k}\n$ ")),
            "$ cat k\n[REDACTED:private_key]\n$ "
        );
    }
    let ssh2 = "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nP2/56wAAAi\n---- END SSH2 ENCRYPTED PRIVATE KEY ----";
    assert_eq!(r(ssh2), "[REDACTED:private_key]");
    let truncated = "$ cat key\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE";
    assert_eq!(r(truncated), "$ cat key\n[REDACTED:private_key]");
    let escaped = "KEY=\"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\"";
    assert_eq!(r(escaped), "KEY=\"[REDACTED:private_key]\"");
}

#[test]
fn public_material_and_ordinary_text_unchanged_and_borrowed() {
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
        "Password: ",
        "[sudo] password for bob: ",
        "input_tokens: 1234",
        "bypass: true",
        "PWD=/home/bob OLDPWD=/tmp",
        "compass=north",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+g\n-----END CERTIFICATE-----",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC user@host",
    ] {
        assert!(
            matches!(redact(text), Cow::Borrowed(t) if t == text),
            "{text:?} became {:?}",
            redact(text)
        );
    }
}

#[test]
fn redacted_output_is_stable() {
    let once = r(
        "export A_TOKEN=x && curl -H 'Bearer abcdefghijk1' https://u:p@h sk-abcdefghijklmnopqrstu",
    );
    assert_eq!(
        once,
        "export A_TOKEN=[REDACTED:secret] && curl -H 'Bearer [REDACTED:bearer_token]' https://u:[REDACTED:password]@h [REDACTED:api_key]"
    );
    assert!(matches!(redact(&once), Cow::Borrowed(_)));
}

#[test]
fn windows_through_a_key_leak_nothing() {
    let t = format!("$ cat id\n{RSA}\n$ echo done\ndone\n");
    // Every pair of cuts at char boundaries: the middle window too.
    let cuts: Vec<usize> = (0..=t.len()).filter(|i| t.is_char_boundary(*i)).collect();
    for &a in &cuts {
        for &b in cuts.iter().filter(|b| **b >= a) {
            for (lo, hi) in [(0, a), (a, b), (b, t.len())] {
                let w = window(&t, lo, hi);
                for body in ["MIIEpAIBAAKCAQEA", "Qx7z+Lk9", "END RSA", "0123456789ghij"] {
                    assert!(!w.contains(body), "{lo}..{hi} leaked {body}: {w:?}");
                }
            }
        }
    }
    // Text after the block is kept.
    let after = t.find("$ echo").unwrap_or(0);
    assert_eq!(window(&t, after, t.len()), "$ echo done\ndone\n");
    assert_eq!(
        window(&t, t.find("MIIE").unwrap_or(0), after),
        "[REDACTED:private_key]\n"
    );
}

#[test]
fn a_window_ending_inside_a_token_hides_its_start() {
    assert_eq!(
        redact_window("", "clone ghp_abc", ""),
        "clone [REDACTED:github_token]"
    );
    assert_eq!(
        redact_window("", "psql postgres://bob:hun", ""),
        "psql postgres://bob:[REDACTED:password]"
    );
    assert_eq!(redact_window("", "ask sk-", ""), "ask sk-");
    assert_eq!(
        redact_window("", "echo $npm_config_cache", ""),
        "echo $npm_config_cache"
    );
    assert_eq!(
        redact_window("", "listening on http://127.0.0.1:8201", ""),
        "listening on http://127.0.0.1:8201"
    );
    assert_eq!(
        redact_window("", "ghp_abc", "d"),
        "ghp_abc",
        "a complete short word is no token"
    );
}

#[test]
fn strings_under_secret_keys_are_replaced_whole() {
    let mut v = serde_json::json!({"password": "hunter 2", "GITHUB_TOKEN": "abc", "client_secret": "x",
        "input_tokens": "12", "session_id": "pty_1", "nested": [{"api_key": "k1"}], "token_count": 3});
    redact_value(&mut v);
    assert_eq!(
        v,
        serde_json::json!({"password": "[REDACTED:password]", "GITHUB_TOKEN": "[REDACTED:secret]",
            "client_secret": "[REDACTED:secret]", "input_tokens": "12", "session_id": "pty_1",
            "nested": [{"api_key": "[REDACTED:secret]"}], "token_count": 3})
    );
}

#[test]
fn values_are_redacted_before_encoding() {
    let mut v = serde_json::json!({"output": "ok\nghp_0123456789abcdefghij0123456789abcdef\nexport GITHUB_TOKEN=abc\n", "n": [1, "AKIAIOSFODNN7EXAMPLE"]});
    redact_value(&mut v);
    let line = v.to_string();
    for s in ["ghp_0123", "=abc", "AKIAIOSF"] {
        assert!(!line.contains(s), "{line}");
    }
}

#[test]
fn a_png_screenshots_base64_is_left_whole_and_nothing_else_is() {
    // Base64 that spells a Google key and an AWS key id by chance.
    let image =
        "iVBORw0KGgoAAAANSUhEUgAIzaSyA1234567890abcdefghijklmnopqrstu+AKIAIOSFODNN7EXAMPLE/";
    let png =
        serde_json::json!({"ok": true, "format": "png", "encoding": "base64", "image": image});
    let mut v = png.clone();
    redact_value(&mut v);
    assert_eq!(v, png);
    // The same text as an SVG's or text's image, or not starting with the PNG signature: redacted.
    for (format, image) in [("svg", image), ("txt", image), ("png", &image[4..])] {
        let mut v = serde_json::json!({"format": format, "encoding": "base64", "image": image});
        redact_value(&mut v);
        assert!(
            v["image"]
                .as_str()
                .is_some_and(|i| i.contains("[REDACTED:")),
            "{v}"
        );
    }
}

/// A secret of each category, with the part that must never survive (each of the 20 forms
/// equally likely: the groups are weighted by their size).
pub(crate) fn secret() -> impl Strategy<Value = (String, String)> {
    prop_oneof![11 => token(), 7 => credential(), 2 => key_file()]
}

/// Tokens recognised by their shape (`sk-…`, `ghp_…`, `AKIA…`, JWTs …).
fn token() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[A-Za-z0-9]{30,48}".prop_map(|b| (format!("sk-{b}"), b)),
        "[A-Za-z0-9_-]{30,60}".prop_map(|b| (format!("sk-ant-api03-{b}"), b)),
        (
            prop::sample::select(vec!["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
            "[A-Za-z0-9]{36}"
        )
            .prop_map(|(p, b)| (format!("{p}{b}"), b)),
        "[A-Za-z0-9]{22,60}".prop_map(|b| (format!("github_pat_{b}"), b)),
        "[A-Z0-9]{16}".prop_map(|b| (format!("AKIA{b}"), format!("AKIA{b}"))),
        "[A-Za-z0-9/+]{40}".prop_map(|b| (format!("aws_secret_access_key = {b}"), b)),
        (
            "[A-Za-z0-9_-]{10,30}",
            "[A-Za-z0-9_-]{10,40}",
            "[A-Za-z0-9_-]{20,43}"
        )
            .prop_map(|(a, b, c)| (format!("eyJ{a}.eyJ{b}.{c}"), format!("{a}.eyJ{b}"))),
        ("[abeposr]", "[0-9]{10}-[A-Za-z0-9]{24}").prop_map(|(k, b)| (format!("xox{k}-{b}"), b)),
        "[A-Za-z0-9_-]{35}".prop_map(|b| (format!("AIza{b}"), b)),
        "[A-Za-z0-9]{36}".prop_map(|b| (format!("npm_{b}"), b)),
        "[A-Za-z0-9._~+/-]{12,40}".prop_map(|b| (format!("Authorization: Bearer {b}x1"), b)),
    ]
}

/// Passwords and credentials recognised by what names them (assignments, URLs, options, headers).
fn credential() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        (
            prop::sample::select(vec![
                "password=",
                "passwd: ",
                "DB_PASSWORD=",
                "APP_SECRET=",
                "export GITHUB_TOKEN=",
                "\"password\": ",
                "api_key: ",
                "MYSQL_PWD=",
                "pass=",
                "--password ",
                "client_secret: ",
                "x-api-key: ",
                "Token: ",
                "\"SecretAccessKey\": ",
            ]),
            "[A-Za-z0-9!#%*+./?@^_~-]{8,30}"
        )
            .prop_map(|(n, b)| (format!("{n}{b}"), b)),
        "[A-Za-z0-9!*_~-]{8,24}".prop_map(|b| (format!("postgres://app:{b}@db:5432/x"), b)),
        (
            prop::sample::select(vec![
                "curl -u ",
                "curl -sSu ",
                "curl --user ",
                "wget --user=",
                "curl -U "
            ]),
            "[A-Za-z][A-Za-z0-9!*_~-]{7,23}"
        )
            .prop_map(|(o, b)| (format!("{o}deploy:{b} https://h/x"), b)),
        (
            prop::sample::select(vec![
                "mysql -h db -uroot -p",
                "mysqldump -p",
                "mariadb -u a -p"
            ]),
            "[A-Za-z0-9!*_~%^-]{8,24}"
        )
            .prop_map(|(o, b)| (format!("{o}{b} app"), b)),
        "[A-Za-z0-9!*_~-]{8,24}".prop_map(|b| (format!("sshpass -p {b} ssh h"), b)),
        (
            prop::sample::select(vec![
                "token", "Digest", "ApiKey", "Basic", "Bearer", "Custom"
            ]),
            "[A-Za-z0-9._~+/=-]{12,40}"
        )
            .prop_map(|(k, b)| (format!("Authorization: {k} {b}9"), b)),
        (
            prop::sample::select(vec![
                "X-Api-Key: ",
                "x-auth-token: ",
                "X-Vault-Token: ",
                "Cookie: sid="
            ]),
            "[A-Za-z0-9._~+/-]{12,40}"
        )
            .prop_map(|(h, b)| (format!("{h}{b}"), b)),
    ]
}

/// Private-key files: PuTTY and PEM blocks.
fn key_file() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        prop::collection::vec("[A-Za-z0-9+/]{64}", 1..5).prop_map(|lines| (
            format!(
                "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: {}\n{}\nPrivate-MAC: 0a1b2c3d4e5f6a7b",
                lines.len(),
                lines.join("\n")
            ),
            lines[0].clone(),
        )),
        (
            prop::sample::select(vec!["RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "", "DSA "]),
            prop::collection::vec("[A-Za-z0-9+/]{64}", 1..6)
        )
            .prop_map(|(k, lines)| (
                format!(
                    "-----BEGIN {k}PRIVATE KEY-----\n{}\n-----END {k}PRIVATE KEY-----",
                    lines.join("\n")
                ),
                lines[0].clone(),
            )),
    ]
}

/// Text around a secret: anything, ending (or starting) with a separator.
pub(crate) fn surrounding() -> impl Strategy<Value = String> {
    (
        "[ -~]{0,20}|\\PC{0,20}|(\\PC{0,10}\n){0,3}",
        prop::sample::select(vec![
            " ", "\n", "\"", "'", "\t", "\r\n", "é ", "✓\n", "(", "\\n", "\\t",
        ]),
    )
        .prop_map(|(t, sep)| format!("{t}{sep}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_secret_never_survives((s, value) in secret(), pre in surrounding(), post in surrounding()) {
        let post: String = post.chars().rev().collect();
        let text = format!("{pre}{s}{post}");
        let out = r(&text);
        prop_assert!(!out.contains(&value), "{text:?} -> {out:?}");
        prop_assert_eq!(r(&out), out.clone(), "not idempotent");
        // The same after a newline in a JSON encoding of an event.
        let mut v = serde_json::json!({"response": format!("ok\n{text}"), "command": text});
        redact_value(&mut v);
        prop_assert!(!v.to_string().contains(&value));
    }

    #[test]
    fn a_secret_cut_by_a_window_never_survives(
        (s, value) in secret(), pre in surrounding(), post in surrounding(), at in 0usize..1000,
    ) {
        let post: String = post.chars().rev().collect();
        let text = format!("{pre}{s}{post}");
        let start = pre.len();
        let cut = crate::safety::pem::floor_boundary(&text, start + 1 + at % s.len());
        let (a, b) = (window(&text, 0, cut), window(&text, cut, text.len()));
        // No 8-byte piece of the secret shows in either window.
        let pieces: Vec<&str> = (0..value.len().saturating_sub(8))
            .filter(|i| value.is_char_boundary(*i) && value.is_char_boundary(i + 8))
            .map(|i| &value[i..i + 8])
            .collect();
        for p in pieces {
            prop_assert!(!a.contains(p) && !b.contains(p), "{text:?} cut at {cut}: {a:?} | {b:?}");
        }
    }

    #[test]
    fn redaction_is_idempotent_and_never_panics(s in "\\PC*|[ -~\n]*|(ghp_|sk-|AKIA|password=|://|-----BEGIN RSA PRIVATE KEY-----\n|eyJ|é|\n|[A-Za-z0-9]{1,40}| )*") {
        let once = r(&s);
        prop_assert_eq!(r(&once), once.clone());
        let cut = crate::safety::pem::floor_boundary(&s, s.len() / 2);
        let _ = window(&s, 0, cut);
        let _ = window(&s, cut, s.len());
    }

    #[test]
    fn a_key_split_at_any_line_leaks_no_body(lines in prop::collection::vec("[A-Za-z0-9+/]{64}", 1..30), at in 0usize..40, pre in surrounding()) {
        let body = lines.join("\n");
        let text = format!("{pre}-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----\n$ ");
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let cut = starts[at % starts.len()];
        for w in [window(&text, 0, cut), window(&text, cut, text.len())] {
            for l in &lines {
                prop_assert!(!w.contains(l.as_str()), "{w:?}");
            }
            prop_assert!(!w.contains("END OPENSSH"), "{w:?}");
        }
    }
}

#[test]
fn a_file_named_like_a_secret_in_a_message_is_not_a_key() {
    for text in [
        "cat: /home/u/secret.txt: Permission denied",
        "open tokens.json: no such file or directory",
        "credentials.yaml: line 3: bad indentation",
    ] {
        assert_eq!(redact(text), text);
    }
    assert!(redact("client_secret: abc123def").contains("[REDACTED:secret]"));
    assert!(redact("app.secret.value=abc123def").contains("[REDACTED:secret]"));
}

#[test]
fn grep_colour_does_not_hide_a_token() {
    let body = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    let raw = format!("GH=\x1b[01;31m\x1b[Kghp_\x1b[m\x1b[K{body}\r\n");
    let out = r(&raw);
    assert!(!out.contains(&body[..8]), "{out:?}");
    assert!(out.contains("[REDACTED:github_token]"), "{out:?}");
    // The colour reset inside the token is re-emitted after the placeholder.
    assert!(
        out.ends_with("[REDACTED:github_token]\x1b[m\r\n"),
        "{out:?}"
    );
    assert_eq!(r(&out), out);
}

#[test]
fn command_line_credentials() {
    for (text, gone) in [
        ("curl -u alice:s3cr3tPass https://x", "s3cr3tPass"),
        ("curl -sS -ualice:s3cr3tPass https://x", "s3cr3tPass"),
        ("curl -U 'proxy:pr0xyPw' -x p https://x", "pr0xyPw"),
        ("curl --user alice:s3cr3tPass https://x", "s3cr3tPass"),
        (
            "wget --user=bob:hunter2x --http-password=hunter3y u",
            "hunter2x",
        ),
        ("wget --http-password=hunter3y u", "hunter3y"),
        ("mysql -h db -u root -pS3cretPw mydb", "S3cretPw"),
        ("mysqldump -uroot -p'S3cret Pw' db", "S3cret Pw"),
        ("mariadb -u root -p\"Pw0rd!\" -e 'select 1'", "Pw0rd!"),
        ("sshpass -p hunter22 ssh host", "hunter22"),
        ("sshpass -phunter22 ssh host", "hunter22"),
        ("mysql --password=Sup3rPw db", "Sup3rPw"),
    ] {
        let out = r(text);
        assert!(!out.contains(gone), "{text:?} -> {out:?}");
        assert!(out.contains("[REDACTED:"), "{text:?} -> {out:?}");
    }
    // Look-alikes that are not credentials.
    for text in [
        "mysql -u root -p mydb",
        "mysql -u root -p",
        "mkdir -p /tmp/a/b",
        "ssh -p 2222 host",
        "docker run -u 1000:1000 img",
        "git push -u origin main",
        "ps -u root",
        "sort -u names.txt",
        "pip install mysql-python",
        "curl -o out.html https://example.com:8443/x",
        "docker run --user root:wheel img",
        "useradd --user bob:staff",
    ] {
        assert_eq!(r(text), text, "{text:?}");
    }
}

#[test]
fn authorization_headers_of_any_scheme() {
    for (text, gone) in [
        (
            "Authorization: token ghx0123456789abcdef",
            "0123456789abcdef",
        ),
        ("authorization: Digest abc123def456ghi", "abc123def456ghi"),
        ("Proxy-Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
        ("-H 'Authorization: ApiKey k3y-0123456789'", "0123456789"),
        (
            "{\"Authorization\": \"token 0123456789abcdef\"}",
            "0123456789abcdef",
        ),
        ("Authorization: abcdef0123456789", "abcdef0123456789"),
        ("X-Api-Key: 0123456789abcdef", "0123456789abcdef"),
        ("x-auth-token: tok-0123456789", "0123456789"),
        ("X-Vault-Token: hvs.CAESIabcdef0123", "CAESIabcdef0123"),
        ("Cookie: session=abc123def456; theme=dark", "abc123def456"),
        (
            "< Set-Cookie: sid=Zm9vYmFyYmF6; Path=/; HttpOnly",
            "Zm9vYmFyYmF6",
        ),
    ] {
        let out = r(text);
        assert!(!out.contains(gone), "{text:?} -> {out:?}");
    }
    for text in [
        "Authorization: required",
        "the Authorization header is missing",
        "X-Request-Id: 0123456789abcdef",
        "X-Frame-Options: DENY",
        "x-oauth-scopes: admin:org, repo",
        "x-accepted-oauth-scopes: admin:org",
    ] {
        assert_eq!(r(text), text, "{text:?}");
    }
}

#[test]
fn putty_private_keys() {
    let key = "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key\nPublic-Lines: 1\nAAAAB3NzaC1yc2EAAAABJQ\nPrivate-Lines: 2\nAAABAGx5c2VjcmV0a2V5Ym9keTEyMw\nQUJDREVGR0hJSktMTU5PUFFSU1RVVg\nPrivate-MAC: 0a1b2c3d4e5f";
    let out = r(&format!("$ cat k.ppk\n{key}\n$ "));
    assert_eq!(out, "$ cat k.ppk\n[REDACTED:private_key]\n$ ");
    // Cut by a read window inside its private lines: neither side shows them.
    let t = format!("$ cat k.ppk\n{key}\n$ ");
    let cut = t.find("QUJDREVG").unwrap_or(0) + 3;
    for w in [window(&t, 0, cut), window(&t, cut, t.len())] {
        assert!(!w.contains("REVGR0hJ") && !w.contains("x5c2Vj"), "{w:?}");
    }
}

#[test]
fn seeds_kinds() {
    for (text, gone) in [
        ("ANTHROPIC_API_KEY=sk-ant-api03-abc", "abc"),
        ("OPENAI_API_KEY=whatever123", "whatever123"),
        ("export MY_TOKEN=tok123456", "tok123456"),
        ("Bearer abcdef123456", "abcdef123456"),
    ] {
        let out = r(text);
        assert!(!out.contains(gone), "{text:?} -> {out:?}");
    }
}

#[test]
fn contains_secret_agrees_with_redact() {
    for t in [
        "ghp_0123456789abcdefghijABCDEFGHIJ",
        "x \x1b[31mghp_\x1b[m0123456789abcdefghijABCDEFGHIJ",
        "DB_PASSWORD=hunter22",
        "curl -u a:b0bPassw0rd u",
    ] {
        assert!(contains_secret(t), "{t:?}");
    }
    for t in ["my-label", "build 42", "password", "api_key docs", ""] {
        assert!(!contains_secret(t), "{t:?}");
    }
}
