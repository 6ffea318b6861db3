//! Secrets on the CLI's channels: `--json` output (talk, read, term-read) and the audit trail
//! are redacted, `--no-redact` / `KPTY_REDACT=off` give the raw JSON, human output stays raw;
//! a private key read through small windows (term-read lines, read bytes) leaks no body line.

use crate::support::{Env, leaked, private_key, s, secret_lines};
use serde_json::Value;

/// A session whose HOME holds `secrets.txt` (every category, blank lines between) and
/// `key.pem` (a private key of `n` body lines).
fn setup(n: usize) -> (Env, String, Vec<String>) {
    let env = Env::new();
    let text: Vec<String> = secret_lines().into_iter().map(|(l, _)| l).collect();
    std::fs::write(env.home().join("secrets.txt"), text.join("\n\n") + "\n")
        .expect("write secrets.txt");
    let (pem, body) = private_key(n);
    std::fs::write(env.home().join("key.pem"), pem).expect("write key.pem");
    let id = env.create(&["--cols", "120", "--rows", "10"]);
    (env, id, body)
}

fn events(env: &Env, id: &str) -> String {
    std::fs::read_to_string(env.state().join("sessions").join(id).join("events.jsonl"))
        .expect("events.jsonl")
}

#[test]
fn json_talk_and_read_are_redacted_human_output_and_opt_outs_are_raw() {
    let (env, id, body) = setup(8);
    let v = env.talk(&id, "cat secrets.txt; cat key.pem");
    for k in ["output", "raw_output"] {
        let t = s(&v, k);
        assert!(
            leaked(t, &body).is_empty(),
            "{k} leaked {:?}: {t}",
            leaked(t, &body)
        );
    }
    let out = s(&v, "output");
    for cat in [
        "github_token",
        "anthropic_key",
        "api_key",
        "aws_access_key",
        "aws_secret_key",
        "jwt",
        "slack_token",
        "google_api_key",
        "npm_token",
        "bearer_token",
        "password",
        "private_key",
    ] {
        assert!(
            out.contains(&format!("[REDACTED:{cat}]")),
            "no {cat} placeholder: {out}"
        );
    }
    assert!(
        out.contains("export GITHUB_TOKEN=[REDACTED:secret]"),
        "{out}"
    );
    assert!(
        out.contains("postgres://app:[REDACTED:password]@db"),
        "{out}"
    );

    let r = env.read(&id, &["--timeout-ms", "0", "--max-bytes", "65536"]);
    assert!(leaked(s(&r, "output"), &body).is_empty(), "{r}");

    // Human output: raw, as the terminal shows it.
    let human = env.ok(&["talk", "-s", &id, "cat secrets.txt; cat key.pem"]);
    assert!(
        leaked(&human, &body).len() > secret_lines().len(),
        "human output must stay raw: {human}"
    );
    // The opt-outs of the --json channel.
    let raw = env.ok(&[
        "--json",
        "--no-redact",
        "talk",
        "-s",
        &id,
        "cat secrets.txt",
    ]);
    let raw: Value = serde_json::from_str(&raw).expect("json");
    assert_eq!(
        leaked(s(&raw, "output"), &[]).len(),
        secret_lines().len(),
        "{raw}"
    );
    let mut c = env.cmd(&["--json", "read", "-s", &id, "--timeout-ms", "0"]);
    c.env("KPTY_REDACT", "off");
    let out = crate::support::run(c, &["read"]);
    let raw: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(!leaked(s(&raw, "output"), &body).is_empty(), "{raw}");

    // The audit trail never has them, whatever the channel was (human, raw JSON).
    let ev = events(&env, &id);
    assert!(ev.lines().count() >= 4, "{ev}");
    assert!(
        leaked(&ev, &body).is_empty(),
        "events.jsonl leaked {:?}",
        leaked(&ev, &body)
    );
    let log = env.ok(&["--json", "log", "--session", &id]);
    assert!(leaked(&log, &body).is_empty(), "{log}");
}

#[test]
fn secrets_in_commands_and_after_newlines_stay_out_of_the_audit_trail() {
    let (env, id, _) = setup(1);
    // The secrets are in the command itself, after newlines (printf's \n), and in the output.
    let cmd = "export GITHUB_TOKEN=exportedTokenValue123; printf 'one\\nsk-proj-OpenAiKeyValue0123456789abcdef\\nid AKIAQWERTYUIOPASDFGH\\n'";
    env.talk(&id, cmd);
    env.ok(&[
        "talk",
        "-s",
        &id,
        "printf 'a\\nghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr\\n'",
    ]);
    env.send_line(&id, "echo DB_PASSWORD=dbPassw0rdValue");
    let ev = events(&env, &id);
    assert!(leaked(&ev, &[]).is_empty(), "{ev}");
    assert!(ev.contains("export GITHUB_TOKEN=[REDACTED:secret]"), "{ev}");
    assert!(ev.contains("one\\\\n[REDACTED:api_key]"), "{ev}");
    assert!(ev.contains("echo DB_PASSWORD=[REDACTED:password]"), "{ev}");
}

#[test]
fn term_read_windows_through_a_private_key_leak_no_body_or_end_line() {
    let (env, id, body) = setup(20);
    let start = env.offset(&id);
    env.talk(&id, "cat key.pem; echo after-the-key");
    // Tail windows of every size: they start in the body, on the END line, on BEGIN.
    for n in 1..=24 {
        let v = env.ok_json(&["term-read", "-s", &id, "--max-lines", &n.to_string()]);
        let t = s(&v, "text");
        assert!(leaked(t, &body).is_empty(), "max-lines {n}: {t}");
        // The newest lines come through: the window ends with the prompt after the key.
        if n >= 3 {
            assert!(t.contains("after-the-key"), "max-lines {n}: {t}");
        }
    }
    // A character cap that cuts into the middle of a body line.
    let v = env.ok_json(&[
        "term-read",
        "-s",
        &id,
        "--max-lines",
        "8",
        "--max-chars",
        "150",
    ]);
    assert!(leaked(s(&v, "text"), &body).is_empty(), "{v}");
    // Delta windows of 3 lines from before the key to the end.
    let first = env.ok_json(&[
        "term-read",
        "-s",
        &id,
        "--mode",
        "delta",
        "--max-lines",
        "200",
    ]);
    let mut marker = first["marker_id"].to_string();
    let v = env.ok_json(&["term-read", "-s", &id, "--mode", "viewport"]);
    assert!(leaked(s(&v, "text"), &body).is_empty(), "{v}");
    env.talk(&id, "cat key.pem; echo again");
    for _ in 0..20 {
        let v = env.ok_json(&[
            "term-read",
            "-s",
            &id,
            "--mode",
            "delta",
            "--marker",
            &marker,
            "--max-lines",
            "3",
        ]);
        assert!(leaked(s(&v, "text"), &body).is_empty(), "{v}");
        marker = v["marker_id"].to_string();
        if v["more"] != true {
            break;
        }
    }
    // Byte windows of `read`, 100 bytes each, from before the first key to the end.
    let mut since = start;
    for _ in 0..200 {
        let v = env.read(
            &id,
            &[
                "--since",
                &since.to_string(),
                "--max-bytes",
                "100",
                "--timeout-ms",
                "0",
            ],
        );
        assert!(leaked(s(&v, "output"), &body).is_empty(), "at {since}: {v}");
        let next = v["next_offset"].as_u64().expect("next_offset");
        if next == since {
            break;
        }
        since = next;
    }
    // The human screen is raw.
    let human = env.ok(&["term-read", "-s", &id, "--max-lines", "30"]);
    assert!(human.contains(&body[5]), "{human}");
}

/// Secrets whose bodies must never reach an agent, each as a line of `env.sample`.
const SAMPLE: &[(&str, &str)] = &[
    (
        "GITHUB_TOKEN=ghp_Zq8Xw2Lm4Np6Rt8Vb0Cd2Fg4Hj6Kl8Mn0Pq2",
        "Zq8Xw2Lm4Np6Rt8Vb0Cd2Fg4Hj6Kl8Mn0Pq2",
    ),
    (
        "SLACK=xoxb-1234567890-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8",
        "1234567890-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8",
    ),
    (
        "HF=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    (
        "DATABASE_URL=mongodb://admin:M0ng0Pw9xQ7rT5@db.example:27017/app",
        "M0ng0Pw9xQ7rT5",
    ),
    ("password: Tr0ub4dor3xK9pQ", "Tr0ub4dor3xK9pQ"),
    ("curl -u deploy:Cu7lPassW0rd9 https://x", "Cu7lPassW0rd9"),
    ("mysql -h db -uroot -pMyS9lPassW0rd db", "MyS9lPassW0rd"),
    (
        "Authorization: token Au7hT0kenValue123456",
        "Au7hT0kenValue123456",
    ),
];

/// Every 8-byte piece of each body found in `text`.
fn pieces_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (_, body) in SAMPLE {
        for i in 0..body.len().saturating_sub(7) {
            let p = &body[i..i + 8];
            if text.contains(p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

fn no_pieces(what: &str, text: &str) {
    let found = pieces_in(text);
    assert!(found.is_empty(), "{what} leaked {found:?}: {text}");
}

/// A session whose HOME holds `env.sample` (the [`SAMPLE`] lines) and `coloured.txt` (the
/// same with colour codes and a link inside every secret), 24 columns wide so long lines wrap.
fn coloured_setup() -> (Env, String) {
    let env = Env::new();
    let lines: Vec<&str> = SAMPLE.iter().map(|(l, _)| *l).collect();
    std::fs::write(env.home().join("env.sample"), lines.join("\n") + "\n").expect("write");
    let coloured: Vec<String> = SAMPLE
        .iter()
        .map(|(l, body)| {
            let at = l.find(body).unwrap_or(0) + body.len() / 2;
            format!(
                "{}\x1b[1;33m\x1b]8;;https://example.com\x1b\\{}\x1b]8;;\x07\x1b[0m",
                &l[..at],
                &l[at..]
            )
        })
        .collect();
    std::fs::write(
        env.home().join("coloured.txt"),
        coloured.join("\r\n") + "\r\n",
    )
    .expect("write");
    let id = env.create(&["--cols", "24", "--rows", "40"]);
    (env, id)
}

#[test]
fn coloured_and_wrapped_secrets_stay_hidden_on_every_cli_channel() {
    let (env, id) = coloured_setup();
    let start = env.offset(&id);
    // grep colours each match (`ESC[01;31mESC[K…ESC[mESC[K`), splitting the tokens.
    let cmd = "grep --color=always -e ghp_ -e xoxb- -e hf_ -e mongodb -e password -e curl -e mysql -e Authorization env.sample; cat coloured.txt";
    let v = env.talk(&id, cmd);
    for k in ["output", "raw_output"] {
        no_pieces(&format!("talk {k}"), s(&v, k));
    }
    assert!(s(&v, "raw_output").contains("\x1b["), "colours kept: {v}");
    // read: the whole output at once, then in windows of every small size (a secret cut
    // between two reads, a colour code cut in two).
    let all = env.read(&id, &["--since", &start.to_string(), "--timeout-ms", "0"]);
    no_pieces("read", s(&all, "output"));
    for size in [5, 9, 16, 23] {
        let (mut since, mut joined) = (start, String::new());
        for _ in 0..2000 {
            let r = env.read(
                &id,
                &[
                    "--since",
                    &since.to_string(),
                    "--max-bytes",
                    &size.to_string(),
                    "--timeout-ms",
                    "0",
                ],
            );
            joined.push_str(s(&r, "output"));
            let next = r["next_offset"].as_u64().expect("next_offset");
            if next == since {
                break;
            }
            since = next;
        }
        no_pieces(&format!("reads of {size} bytes"), &joined);
    }
    // term-read of the 24-column screen, rows unmerged (every secret wraps) and merged, in
    // windows of every height.
    for n in [1, 2, 3, 5, 8, 40] {
        for merge in [true, false] {
            let n = n.to_string();
            let mut args = vec!["term-read", "-s", &id, "--max-lines", &n];
            if !merge {
                args.push("--no-merge-wrapped");
            }
            let t = env.ok_json(&args);
            let lines: Vec<&str> = t["lines"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            no_pieces(&format!("term-read {args:?}"), &lines.join(""));
            no_pieces(&format!("term-read {args:?}"), s(&t, "text"));
        }
    }
    // The audit trail.
    no_pieces("events.jsonl", &events(&env, &id));
    // Human output stays raw.
    let human = env.ok(&["term-read", "-s", &id, "--max-lines", "200"]);
    assert!(!pieces_in(&human.replace('\n', "")).is_empty(), "{human}");
}

#[tokio::test(flavor = "multi_thread")]
async fn coloured_and_wrapped_secrets_stay_hidden_over_mcp() {
    let (env, id) = coloured_setup();
    let start = env.offset(&id);
    env.talk(&id, "grep --color=always -e ghp_ -e xoxb- -e hf_ -e mongodb -e password -e curl -e mysql -e Authorization env.sample; cat coloured.txt");
    let m = crate::mcp::start(&env).await;
    let r = m
        .json(serde_json::json!({"action": "read", "session_id": id, "since": start, "timeout_ms": 0}))
        .await;
    assert_eq!(r["ok"], true, "{r}");
    no_pieces("mcp read", s(&r, "output"));
    let (mut since, mut joined) = (start, String::new());
    for _ in 0..2000 {
        let r = m
            .json(serde_json::json!({"action": "read", "session_id": id, "since": since, "max_bytes": 11, "timeout_ms": 0}))
            .await;
        joined.push_str(s(&r, "output"));
        let next = r["next_offset"].as_u64().expect("next_offset");
        if next == since {
            break;
        }
        since = next;
    }
    no_pieces("mcp reads of 11 bytes", &joined);
    for max in [2, 40] {
        let t = m
            .json(serde_json::json!({"action": "term_read", "session_id": id, "merge_wrapped": false, "max_lines": max}))
            .await;
        assert_eq!(t["ok"], true, "{t}");
        no_pieces("mcp term_read", &t.to_string().replace("\\n", ""));
    }
    let talk = m
        .json(
            serde_json::json!({"action": "talk", "session_id": id, "command": "cat coloured.txt"}),
        )
        .await;
    no_pieces("mcp talk", &talk.to_string());
    m.close().await;
}

#[test]
fn kpty_own_messages_keep_their_words_and_quoted_secrets_are_hidden() {
    let env = Env::new();
    // Malformed session ids that end like a secret's name: kpty's words after them stay.
    for id in ["db password", "my api_key", "x secret", "a token"] {
        let v = env.json(&["read", "-s", id]);
        let msg = s(&v, "message");
        assert!(msg.contains("ids are 1-64 characters"), "{v}");
        assert!(msg.contains(id), "{v}");
        assert!(!msg.contains("[REDACTED"), "kpty's own words redacted: {v}");
    }
    // A token quoted in a message is still hidden.
    let tok = "ghp_Zq8Xw2Lm4Np6Rt8Vb0Cd2Fg4Hj6Kl8Mn0Pq2";
    let v = env.json(&["read", "-s", tok]);
    assert!(!v.to_string().contains(&tok[4..12]), "{v}");
    // The audit trail keeps the words too, and never the token.
    let audit =
        std::fs::read_to_string(env.state().join("_registry_events.jsonl")).unwrap_or_default();
    if audit.contains("ids are 1-64") {
        assert!(!audit.contains("[REDACTED:password] are"), "{audit}");
    }
    assert!(!audit.contains(&tok[4..12]), "{audit}");
}
