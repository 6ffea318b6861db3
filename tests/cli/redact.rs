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
