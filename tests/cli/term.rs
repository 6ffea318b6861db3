//! `term-read` (the `term_read` action): the rendered screen from the holder's emulator —
//! tail / viewport / delta round trips, a delta chain over 5 000 lines, marker disposal when
//! the scrollback overflows, caps, redaction, full-screen detection (talk refused while a
//! pager is up), resize reflow, the access switch, and screen state in list/read/talk.

use crate::support::{Env, wait_for};
use serde_json::Value;

fn term(env: &Env, id: &str, extra: &[&str]) -> Value {
    let mut args = vec!["term-read", "-s", id];
    args.extend_from_slice(extra);
    env.ok_json(&args)
}

fn lines(v: &Value) -> Vec<String> {
    v["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().expect("line").to_string())
        .collect()
}

#[test]
fn tail_and_viewport_round_trip() {
    let env = Env::new();
    let id = env.create(&["--cols", "80", "--rows", "10"]);
    env.talk(&id, "for i in $(seq 1 30); do echo row-$i; done");
    let v = term(&env, &id, &["--max-lines", "5"]);
    let l = lines(&v);
    assert_eq!(l.len(), 5, "{v}");
    assert!(l.contains(&"row-30".to_string()), "{v}");
    assert!(!l.contains(&"row-20".to_string()), "{v}");
    assert_eq!(v["text"], l.join("\n"));
    for k in ["truncated", "marker_disposed"] {
        assert_eq!(v[k], false, "{k} in {v}");
    }
    assert_eq!(
        (v["rows"].as_u64(), v["cols"].as_u64()),
        (Some(10), Some(80))
    );
    assert_eq!(v["buffer_type"], "normal");
    assert_eq!(v["terminal_state"], "prompt");
    assert!(v["marker_id"].is_u64() && v["cursor_line"].is_u64(), "{v}");

    let vp = term(&env, &id, &["--mode", "viewport"]);
    let l = lines(&vp);
    assert!(l.len() <= 10, "{vp}");
    assert!(l.iter().any(|x| x == "row-30"), "{vp}");
    assert_eq!(
        vp["viewport_y"].as_u64(),
        Some(vp["cursor_line"].as_u64().unwrap() - 9)
    );

    // Human output is the text itself, no escape codes.
    let human = env.ok(&["term-read", "-s", &id, "--max-lines", "3"]);
    assert!(
        !human.contains('\x1b') && human.contains("row-30"),
        "{human:?}"
    );
}

#[test]
fn delta_chain_over_5000_lines_loses_and_repeats_nothing() {
    let env = Env::new();
    let id = env.create(&["--cols", "80", "--rows", "24"]);
    let first = term(&env, &id, &["--mode", "delta"]);
    let mut marker = first["marker_id"].as_u64().expect("marker").to_string();
    env.talk(&id, "seq 1 5000");
    let mut got: Vec<u64> = Vec::new();
    for _ in 0..100 {
        let v = term(
            &env,
            &id,
            &["--mode", "delta", "--marker", &marker, "--max-lines", "200"],
        );
        assert_eq!(v["marker_disposed"], false, "{v}");
        got.extend(lines(&v).iter().filter_map(|l| l.parse::<u64>().ok()));
        marker = v["marker_id"].as_u64().expect("marker").to_string();
        if v["more"] == false {
            break;
        }
    }
    let want: Vec<u64> = (1..=5000).collect();
    assert_eq!(
        got.len(),
        want.len(),
        "first/last: {:?} {:?}",
        got.first(),
        got.last()
    );
    assert_eq!(got, want);
    // Caught up: the next delta holds only the prompt line.
    let v = term(&env, &id, &["--mode", "delta", "--marker", &marker]);
    assert!(lines(&v).iter().all(|l| l.parse::<u64>().is_err()), "{v}");
}

#[test]
fn marker_is_disposed_when_the_scrollback_overflows() {
    let env = Env::new();
    let id = env.create_with_env(&[("KPTY_SCROLLBACK", "100")], &["--rows", "10"]);
    let m = term(&env, &id, &["--mode", "delta"])["marker_id"]
        .as_u64()
        .expect("marker")
        .to_string();
    env.talk(&id, "seq 1 500");
    let v = term(
        &env,
        &id,
        &["--mode", "delta", "--marker", &m, "--max-lines", "200"],
    );
    assert_eq!(v["marker_disposed"], true, "{v}");
    assert_eq!(v["scrollback"], 100);
    let lost = v["lines_lost"].as_u64().expect("lines_lost");
    assert!(lost >= 390, "{v}");
    // What is returned starts at the oldest line still held, not at 1.
    let nums: Vec<u64> = lines(&v).iter().filter_map(|l| l.parse().ok()).collect();
    assert!(nums.first().is_some_and(|n| *n > 300), "{v}");
    assert_eq!(nums.last(), Some(&500));
    // An unknown marker is a parameter error, never a silent resend.
    env.fails(
        &[
            "term-read",
            "-s",
            &id,
            "--mode",
            "delta",
            "--marker",
            "99999",
        ],
        115,
        "INVALID_PARAMS",
    );
}

/// `create --scrollback` sets a session's scrollback (over `KPTY_SCROLLBACK`), and a value
/// past the cap is refused before anything starts.
#[test]
fn scrollback_is_a_create_parameter() {
    let env = Env::new();
    let c = env.ok_json(&["create", "--scrollback", "50", "--rows", "10"]);
    assert_eq!(c["scrollback"], 50, "{c}");
    let id = c["session_id"].as_str().expect("id").to_string();
    env.talk(&id, "seq 1 300");
    let v = term(&env, &id, &["--max-lines", "200"]);
    assert_eq!(v["scrollback"], 50, "{v}");
    let nums: Vec<u64> = lines(&v).iter().filter_map(|l| l.parse().ok()).collect();
    assert!(nums.len() <= 60 && nums.last() == Some(&300), "{v}");
    env.fails(
        &["create", "--scrollback", "1000001"],
        115,
        "INVALID_PARAMS",
    );
    assert_eq!(
        env.json(&["list"])["sessions"].as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn caps_truncate_and_report() {
    let env = Env::new();
    let id = env.create(&["--cols", "120", "--rows", "10"]);
    env.talk(
        &id,
        "for i in 1 2 3 4 5 6; do printf 'x%.0s' $(seq 1 100); echo; done",
    );
    let v = term(&env, &id, &["--max-chars", "250", "--max-lines", "200"]);
    assert_eq!(v["truncated"], true, "{v}");
    assert!(v["dropped_chars"].as_u64().unwrap_or(0) > 0, "{v}");
    assert!(v["text"].as_str().unwrap().chars().count() <= 250, "{v}");
    // Values above a cap are lowered to it.
    let v = term(&env, &id, &["--max-lines", "100000"]);
    assert!(lines(&v).len() <= 200);
    env.fails(
        &["term-read", "-s", &id, "--max-lines", "0"],
        115,
        "INVALID_PARAMS",
    );
}

#[test]
fn secrets_are_redacted() {
    let env = Env::new();
    let id = env.create(&["--cols", "150"]);
    env.talk(
        &id,
        "printf '%s\\n' 'key sk-abcdefghijklmnopqrstuvwxyz0123' 'gh ghp_abcdefghijklmnopqrstuvwxyz0123456789' 'auth: Bearer abcdef123456789' 'export GITHUB_TOKEN=supersecretvalue'",
    );
    let v = term(&env, &id, &[]);
    let t = v["text"].as_str().unwrap();
    for secret in [
        "sk-abcdefghij",
        "ghp_abcdefghij",
        "abcdef123456789",
        "supersecretvalue",
    ] {
        assert!(!t.contains(secret), "{secret} leaked: {t}");
    }
    assert!(t.contains("[REDACTED"), "{t}");
    assert!(lines(&v).iter().all(|l| !l.contains("supersecretvalue")));
}

#[test]
fn full_screen_program_is_detected_and_talk_refused() {
    let env = Env::new();
    let id = env.create(&["--cols", "80", "--rows", "12"]);
    std::fs::write(
        env.home().join("notes.txt"),
        "first line of notes\nsecond line\n",
    )
    .expect("write notes");
    let (prog, cmd) = if std::path::Path::new("/usr/bin/less").exists() {
        ("less", "less notes.txt")
    } else {
        (
            "sh",
            "sh -c 'printf \"\\033[?1049hfirst line of notes\"; sleep 60'",
        )
    };
    env.send_line(&id, cmd);
    wait_for(10_000, "the alternate screen", || {
        term(&env, &id, &["--mode", "viewport"])["buffer_type"] == "alternate"
    });
    let v = term(&env, &id, &["--mode", "viewport"]);
    assert_eq!(v["terminal_state"], "full_screen", "{v}");
    assert!(
        v["text"].as_str().unwrap().contains("first line of notes"),
        "{v}"
    );
    let entry = env.entry(&id);
    assert_eq!(entry["state"], "running");
    assert_eq!(entry["terminal_state"], "full_screen", "{entry}");
    assert_eq!(entry["screen"]["buffer_type"], "alternate", "{entry}");

    let e = env.fails(&["talk", "-s", &id, "echo hi"], 117, "PTY_BUSY");
    assert_eq!(e["details"]["terminal_state"], "full_screen", "{e}");
    assert!(e["message"].as_str().unwrap().contains(prog), "{e}");

    // Leave it: back to the prompt, talk works again.
    if prog == "less" {
        env.send_line(&id, "q");
    } else {
        env.send_line(&id, "\\x03");
    }
    wait_for(10_000, "the normal screen", || {
        term(&env, &id, &["--mode", "viewport"])["terminal_state"] == "prompt"
    });
    let t = env.talk(&id, "echo back");
    assert_eq!(t["terminal_state"], "prompt", "{t}");
    assert_eq!(t["screen"]["buffer_type"], "normal", "{t}");
}

#[test]
fn resize_reflows_the_screen() {
    let env = Env::new();
    let id = env.create(&["--cols", "40", "--rows", "10"]);
    let long = "z".repeat(70);
    env.talk(&id, &format!("echo {long}"));
    let narrow = term(&env, &id, &["--no-merge-wrapped"]);
    assert!(lines(&narrow).contains(&"z".repeat(40)), "{narrow}");
    let merged = term(&env, &id, &[]);
    assert!(lines(&merged).contains(&long), "{merged}");
    env.ok_json(&["resize", "-s", &id, "--cols", "100", "--rows", "10"]);
    let wide = term(&env, &id, &["--no-merge-wrapped"]);
    assert_eq!(wide["cols"], 100);
    assert!(lines(&wide).contains(&long), "{wide}");
}

#[test]
fn read_list_and_title_carry_screen_state() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "printf '\\033]0;my-title\\007'");
    let r = env.ok_json(&["read", "-s", &id, "--timeout-ms", "0"]);
    assert_eq!(r["terminal_state"], "prompt", "{r}");
    assert_eq!(r["screen"]["title"], "my-title", "{r}");
    assert!(r["screen"]["cursor"]["line"].is_u64(), "{r}");
    let entry = env.entry(&id);
    assert_eq!(entry["screen"]["title"], "my-title", "{entry}");
    assert_eq!(entry["terminal_state"], "prompt");
}

#[test]
fn access_switch_turns_term_read_off() {
    let env = Env::new();
    let id = env.create(&[]);
    let args = ["--json", "term-read", "-s", &id];
    let mut c = env.cmd(&args);
    c.env("KURORYUU_TERM_BUFFER_ACCESS", "off");
    let out = crate::support::run(c, &args);
    let v = crate::support::parse(&out, &args);
    assert_eq!(out.status.code(), Some(107), "{v}");
    assert_eq!(v["error_code"], "TERM_READ_DISABLED");
    let mut c = env.cmd(&["--json", "help"]);
    c.env("KURORYUU_TERM_BUFFER_ACCESS", "off");
    let h = crate::support::parse(&crate::support::run(c, &["help"]), &["help"]);
    assert_eq!(h["data"]["term_buffer_access"]["mode"], "off", "{h}");
}
