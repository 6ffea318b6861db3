//! `wait-for` / the `wait_for` action: waiting on a pattern (stream and screen), on quiet,
//! on the prompt; `since`; timeouts and bad parameters; over MCP, with redaction.

use crate::mcp;
use crate::support::{Env, s, secret_lines};
use serde_json::json;
use std::time::Instant;

/// `kpty --json wait-for -s SESSION ARGS`, asserted to succeed.
fn wait(env: &Env, id: &str, args: &[&str]) -> serde_json::Value {
    let t: &[&str] = if args.contains(&"-t") {
        &[]
    } else {
        &["-t", "20000"]
    };
    let all: Vec<&str> = ["wait-for", "-s", id]
        .iter()
        .chain(t)
        .chain(args)
        .copied()
        .collect();
    env.ok_json(&all)
}

fn offset(v: &serde_json::Value, field: &str) -> u64 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {v}"))
}

#[test]
fn waits_for_a_pattern_in_new_output() {
    let env = Env::new();
    let id = env.create(&[]);
    let since = env.offset(&id);
    env.send_line(&id, "sleep 0.5; echo READY-$((40+2))");
    let v = wait(&env, &id, &["READY-42"]);
    assert_eq!(
        (v["matched"].clone(), s(&v, "reason"), s(&v, "match")),
        (json!(true), "pattern", "READY-42"),
        "{v}"
    );
    assert!(s(&v, "output").contains("READY-42"), "{v}");
    assert!(offset(&v, "next_offset") > since, "{v}");
    // Human output: the output since, exit 0.
    env.send_line(&id, "echo HUMAN-$((1+1))");
    let out = env.ok(&["wait-for", "-s", &id, "-t", "20000", "^HUMAN-2"]);
    assert!(out.contains("HUMAN-2"), "{out}");
}

#[test]
fn a_pattern_split_across_chunks_matches() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "printf 'AB'; sleep 0.3; printf 'CD\\n'");
    let v = wait(&env, &id, &["ABCD"]);
    assert_eq!(s(&v, "match"), "ABCD", "{v}");
}

#[test]
fn drives_a_python_repl() {
    if std::process::Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .map_or(true, |st| !st.success())
    {
        return crate::support::skip("python3 is not installed (Debian package: python3)");
    }
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "python3 -q");
    let v = wait(&env, &id, &[">>> "]);
    assert_eq!(s(&v, "reason"), "pattern", "{v}");
    let next = offset(&v, "next_offset").to_string();
    env.send_line(&id, "print(6*7)");
    let v = wait(&env, &id, &["--since", &next, "^42$"]);
    assert_eq!(s(&v, "match"), "42", "{v}");
    let next = offset(&v, "next_offset").to_string();
    let v = wait(&env, &id, &["--since", &next, ">>> "]);
    assert_eq!(s(&v, "reason"), "pattern", "{v}");
    env.send_line(&id, "exit()");
    let v = wait(&env, &id, &["--prompt"]);
    assert_eq!(s(&v, "reason"), "prompt", "{v}");
}

#[test]
fn waits_for_quiet() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "for i in 1 2 3; do echo line-$i; sleep 0.1; done");
    let v = wait(&env, &id, &["--quiet-ms", "500"]);
    assert_eq!(s(&v, "reason"), "quiet", "{v}");
    let out = s(&v, "output");
    for l in ["line-1", "line-2", "line-3"] {
        assert!(out.contains(l), "{l} in {v}");
    }
    assert_eq!(v["match"], json!(null), "{v}");
}

#[test]
fn waits_for_the_prompt() {
    let env = Env::new();
    let id = env.create(&[]);
    let t = Instant::now();
    env.send_line(&id, "sleep 1; echo SLEPT");
    let v = wait(&env, &id, &["--prompt"]);
    assert_eq!(s(&v, "reason"), "prompt", "{v}");
    assert!(t.elapsed().as_millis() >= 900, "{v}");
    assert!(s(&v, "output").contains("SLEPT"), "{v}");
    assert_eq!(s(&v, "terminal_state"), "prompt", "{v}");
    // A command that already finished before the call: at the prompt at once.
    env.send_line(&id, "echo FAST");
    env.read_until(&id, offset(&v, "next_offset"), "FAST");
    let v = wait(&env, &id, &["--prompt", "-t", "5000"]);
    assert_eq!(s(&v, "reason"), "prompt", "{v}");
}

#[test]
fn waits_for_the_prompt_in_sh() {
    let env = Env::new();
    let id = env.create(&["--shell", "/bin/sh"]);
    let t = Instant::now();
    env.send_line(&id, "sleep 1; echo SLEPT");
    let v = wait(&env, &id, &["--prompt"]);
    assert_eq!(s(&v, "reason"), "prompt", "{v}");
    assert!(t.elapsed().as_millis() >= 900, "{v}");
}

#[test]
fn times_out_with_the_output_so_far() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "echo SOMETHING-ELSE");
    let t = Instant::now();
    let v = env.fails(
        &["wait-for", "-s", &id, "-t", "300", "never-printed"],
        124,
        "PTY_TIMEOUT",
    );
    assert!(t.elapsed().as_secs() < 10, "{v}");
    assert!(v["details"]["next_offset"].is_u64(), "{v}");
    let out = env.kpty(&["wait-for", "-s", &id, "-t", "300", "never-printed"]);
    assert_eq!(out.status.code(), Some(124));
}

#[test]
fn refuses_bad_parameters() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(&["wait-for", "-s", &id, "("], 115, "INVALID_PARAMS");
    assert!(s(&v, "error").contains("regex"), "{v}");
    env.fails(&["wait-for", "-s", &id], 115, "INVALID_PARAMS");
    env.fails(
        &["wait-for", "-s", &id, "--quiet-ms", "0"],
        115,
        "INVALID_PARAMS",
    );
    let long = "a".repeat(5000);
    env.fails(&["wait-for", "-s", &id, &long], 115, "INVALID_PARAMS");
}

#[test]
fn matches_the_screen() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "clear; echo SCREEN-$((2*5))");
    let v = wait(&env, &id, &["--screen", "SCREEN-10"]);
    assert_eq!(s(&v, "match"), "SCREEN-10", "{v}");
    // What is on the screen already counts, whatever `since`.
    let v = wait(&env, &id, &["--screen", "SCREEN-10", "-t", "5000"]);
    assert_eq!(s(&v, "reason"), "pattern", "{v}");
}

#[test]
fn since_makes_earlier_output_count() {
    let env = Env::new();
    let id = env.create(&[]);
    let since = env.offset(&id);
    env.send_line(&id, "echo EARLIER-$((5+5))");
    env.read_until(&id, since, "EARLIER-10");
    let v = wait(&env, &id, &["--since", &since.to_string(), "EARLIER-10"]);
    assert_eq!(s(&v, "match"), "EARLIER-10", "{v}");
    assert_eq!(offset(&v, "start_offset"), since, "{v}");
    // Without since: output from the last input on; EARLIER came before it.
    env.send_line(&id, "echo LATER");
    env.fails(
        &["wait-for", "-s", &id, "-t", "500", "EARLIER-10"],
        124,
        "PTY_TIMEOUT",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_redacted() {
    let env = Env::new();
    let m = mcp::start(&env).await;
    let v = m.json(json!({"action": "create"})).await;
    let id = s(&v, "session_id").to_string();
    let (line, secret) = secret_lines().remove(0);
    let v = m
        .json(json!({"action": "send_line", "session_id": id, "data": format!("sleep 0.3; echo '{line}'; echo DONE-$((1+1))")}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    let v = m
        .json(json!({"action": "wait_for", "session_id": id, "pattern": "DONE-2", "timeout_ms": 20000}))
        .await;
    assert_eq!(
        (v["ok"].clone(), s(&v, "reason")),
        (json!(true), "pattern"),
        "{v}"
    );
    assert!(!v.to_string().contains(&secret), "leaked: {v}");
    let v = m
        .json(json!({"action": "wait_for", "session_id": id, "quiet_ms": 200, "timeout_ms": 20000}))
        .await;
    assert_eq!(s(&v, "reason"), "quiet", "{v}");
    let v = m
        .json(json!({"action": "wait_for", "session_id": id, "pattern": "nope", "timeout_ms": 200}))
        .await;
    assert_eq!(v["error_code"], "PTY_TIMEOUT", "{v}");
    let v = m
        .json(json!({"action": "wait_for", "session_id": id}))
        .await;
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
}

#[test]
fn the_shell_exiting_ends_the_wait() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "sleep 0.5; exit 3");
    let t = Instant::now();
    let v = env.fails(
        &["wait-for", "-s", &id, "-t", "20000", "never-printed"],
        118,
        "PTY_PROCESS_EXITED",
    );
    assert!(t.elapsed().as_secs() < 15, "{v}");
}

#[test]
fn several_conditions_end_at_the_first_and_raw_output_on_request() {
    let env = Env::new();
    let id = env.create(&[]);
    // The echoed command line has `BO''LD`, not `BOLD`: only the output matches below.
    env.send_line(&id, "printf '\\033[1m%s\\033[0m\\n' BO''LD");
    let v = wait(&env, &id, &["never-printed", "--quiet-ms", "300"]);
    assert_eq!(s(&v, "reason"), "quiet", "{v}");
    assert!(!s(&v, "output").contains('\u{1b}'), "{v}");
    let since = offset(&v, "start_offset").to_string();
    let v = wait(&env, &id, &["--since", &since, "--no-strip-ansi", "BOLD"]);
    assert!(s(&v, "output").contains("\u{1b}[1mBOLD"), "{v}");
}
