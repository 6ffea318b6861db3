//! `kpty check` and the `check` action: the verdict on a command without typing it — human
//! output, `--json`, exit codes (0 allowed, 116 blocked), the command on stdin, line-editing
//! keys applied as send-line applies them, no session needed or created, and MCP.
//! Commands are ones whose verdict any policy (patterns or a shell parser) agrees on.

use crate::support::{Env, s, stderr, stdout, wait_child};
use serde_json::{Value, json};
use std::io::Write;
use std::process::Stdio;

const BLOCKED: &[&str] = &["rm -rf /", "sudo reboot", "cat ~/.aws/credentials"];
const ALLOWED: &[&str] = &["ls -la", "echo hello"];

/// `kpty check ARGS`: exit code, stdout.
fn check(env: &Env, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["check"];
    all.extend(args);
    let out = env.kpty(&all);
    assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    (out.status.code(), stdout(&out))
}

/// `kpty --json check ARGS`: exit code and the reply.
fn check_json(env: &Env, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["--json", "check"];
    all.extend(args);
    let out = env.kpty(&all);
    let v: Value = serde_json::from_slice(&out.stdout).expect("check --json prints JSON");
    (out.status.code(), v)
}

/// The session directories and registry entries in the state directory.
fn no_sessions(env: &Env) {
    let list = env.ok_json(&["list"]);
    assert_eq!(list["sessions"], json!([]), "{list}");
    let dirs: Vec<String> = std::fs::read_dir(env.state())
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("pty_"))
                .collect()
        })
        .unwrap_or_default();
    assert!(dirs.is_empty(), "check created sessions: {dirs:?}");
}

/// The fields every verdict has, with their types.
fn assert_shape(v: &Value) {
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["allowed"].is_boolean() && v["parsed"].is_boolean(), "{v}");
    assert!(v["edited"].is_boolean() && v["line"].is_string(), "{v}");
    assert!(["shell", "patterns"].contains(&s(v, "checked_as")), "{v}");
    assert!(v["commands"].is_array(), "{v}");
}

fn commands_mention(v: &Value, text: &str) -> bool {
    v["commands"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c.as_str().is_some_and(|c| c.contains(text)))
    })
}

#[test]
fn blocked_commands_exit_116_with_the_rule() {
    let env = Env::new();
    for cmd in BLOCKED {
        let (code, out) = check(&env, &[cmd]);
        assert_eq!(code, Some(116), "{cmd}: {out}");
        assert!(out.starts_with("blocked  "), "{cmd}: {out}");
        assert!(out.contains("\n  saw: "), "{cmd}: {out}");
        assert!(out.contains("\n  checked as: "), "{cmd}: {out}");
        let (code, v) = check_json(&env, &[cmd]);
        assert_eq!(code, Some(116), "{cmd}: {v}");
        assert_shape(&v);
        assert_eq!(
            (v["allowed"].as_bool(), s(&v, "verdict")),
            (Some(false), "blocked")
        );
        assert!(v["rule"].is_string() && v["category"].is_string(), "{v}");
        assert!(v["description"].is_string() && v["key"].is_null(), "{v}");
        let core = cmd.trim_start_matches("sudo ");
        assert!(commands_mention(&v, core), "{cmd}: {v}");
        assert_eq!((s(&v, "line"), v["edited"].as_bool()), (*cmd, Some(false)));
    }
    let (_, v) = check_json(&env, &["rm -rf /"]);
    assert_eq!(v["rule"], "rm_recursive_root");
    assert_eq!(v["category"], "destructive_file_ops");
    let (_, out) = check(&env, &["rm -rf /"]);
    assert!(
        out.starts_with("blocked  rm_recursive_root (destructive_file_ops): "),
        "{out}"
    );
    assert!(out.contains("\n  saw: rm -rf /\n"), "{out}");
    no_sessions(&env);
}

#[test]
fn allowed_commands_exit_0() {
    let env = Env::new();
    for cmd in ALLOWED {
        let (code, out) = check(&env, &[cmd]);
        assert_eq!(code, Some(0), "{cmd}: {out}");
        assert!(out.starts_with("allowed\n"), "{cmd}: {out}");
        assert!(out.contains(&format!("\n  saw: {cmd}\n")), "{cmd}: {out}");
        let (code, v) = check_json(&env, &[cmd]);
        assert_eq!(code, Some(0), "{cmd}: {v}");
        assert_shape(&v);
        assert_eq!(
            (v["allowed"].as_bool(), s(&v, "verdict")),
            (Some(true), "allowed")
        );
        for k in ["rule", "category", "description", "key"] {
            assert!(v[k].is_null(), "{k} in {v}");
        }
        assert!(commands_mention(&v, cmd), "{cmd}: {v}");
    }
    // Several words are one command; `--` ends kpty's options.
    assert_eq!(check(&env, &["--", "rm", "-rf", "/"]).0, Some(116));
    assert_eq!(check(&env, &["echo", "hello"]).0, Some(0));
    no_sessions(&env);
}

#[test]
fn the_command_can_come_on_stdin() {
    let env = Env::new();
    let run = |input: &str, json: bool| {
        let args: &[&str] = if json {
            &["--json", "check", "-"]
        } else {
            &["check", "-"]
        };
        let mut c = env.cmd(args);
        c.stdin(Stdio::piped());
        let mut child = c.spawn().expect("start kpty check -");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(input.as_bytes())
            .expect("write the command");
        drop(stdin);
        wait_child(child, args)
    };
    let out = run("rm -rf /\n", false);
    assert_eq!(out.status.code(), Some(116), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("\n  saw: rm -rf /\n"),
        "{}",
        stdout(&out)
    );
    let out = run("echo hello\n", true);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        (v["allowed"].as_bool(), s(&v, "line")),
        (Some(true), "echo hello")
    );
    // Empty input is no command.
    let out = run("", true);
    assert_eq!(out.status.code(), Some(115), "{}", stdout(&out));
    no_sessions(&env);
}

#[test]
fn line_editing_keys_are_applied_as_send_line_applies_them() {
    let env = Env::new();
    // Ctrl-U kills the harmless text: the shell would read `rm -rf /`.
    let (code, v) = check_json(&env, &[r"echo safe\x15rm -rf /"]);
    assert_eq!(code, Some(116), "{v}");
    assert_eq!(v["rule"], "rm_recursive_root");
    assert_eq!(
        (s(&v, "line"), v["edited"].as_bool()),
        ("rm -rf /", Some(true))
    );
    // send-line reaches the same verdict (refused before any session is needed).
    let err = env.fails(
        &["send-line", r"echo safe\x15rm -rf /"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    assert_eq!(err["details"]["pattern"], v["rule"]);
    // The other way round: the dangerous text is killed; what the shell reads is harmless.
    let (code, v) = check_json(&env, &[r"rm -rf /tmp/x\x15echo hello"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        (s(&v, "line"), v["edited"].as_bool()),
        ("echo hello", Some(true))
    );
    // A line edited after a key kpty cannot follow (history) is refused.
    let (code, v) = check_json(&env, &[r"\x1b[Aecho hello"]);
    assert_eq!(code, Some(116), "{v}");
    assert_eq!(
        (s(&v, "rule"), s(&v, "category")),
        ("unverifiable_line_edit", "line_editing")
    );
    assert!(v["key"].is_string(), "{v}");
    // Human output escapes control characters in what it shows.
    let (code, out) = check(&env, &[r"echo safe\x15rm -rf /"]);
    assert_eq!(code, Some(116));
    assert!(out.contains("\n  shell reads: rm -rf /\n"), "{out}");
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    no_sessions(&env);
}

#[test]
fn check_is_not_audited_and_help_explains_it() {
    let env = Env::new();
    check(&env, &["rm -rf /"]);
    env.fails(&["send-line", "rm -rf /"], 116, "DANGEROUS_COMMAND_BLOCKED");
    let log = env.ok(&["--json", "log"]);
    assert!(
        log.contains("\"send_line\""),
        "the refused send-line is: {log}"
    );
    assert!(!log.contains("\"check\""), "check only looks: {log}");
    let help = env.ok_json(&["help"]);
    let summary = s(&help["data"]["actions"], "check");
    assert!(summary.contains("not a sandbox"), "{summary}");
    let long = env.ok(&["check", "--help"]);
    assert!(
        long.contains("not a sandbox") && long.contains("116"),
        "{long}"
    );
    no_sessions(&env);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_check_answers_without_a_session() {
    let env = Env::new();
    let m = crate::mcp::start(&env).await;
    let tools = m.client.list_all_tools().await.expect("tools/list");
    let actions = &tools[0].input_schema["properties"]["action"]["enum"];
    assert!(
        actions
            .as_array()
            .is_some_and(|a| a.contains(&json!("check"))),
        "{actions}"
    );
    for cmd in BLOCKED {
        let v = m.json(json!({"action": "check", "command": cmd})).await;
        assert_shape(&v);
        assert_eq!(
            (v["allowed"].as_bool(), s(&v, "verdict")),
            (Some(false), "blocked")
        );
        assert!(v["rule"].is_string(), "{v}");
        // The same object the CLI's --json prints.
        assert_eq!(check_json(&env, &[cmd]).1, v, "{cmd}");
    }
    for cmd in ALLOWED {
        let v = m.json(json!({"action": "check", "command": cmd})).await;
        assert_eq!(
            (v["allowed"].as_bool(), s(&v, "verdict")),
            (Some(true), "allowed")
        );
        assert!(commands_mention(&v, cmd), "{v}");
    }
    let v = m
        .json(json!({"action": "check", "command": "echo safe\\x15rm -rf /"}))
        .await;
    assert_eq!(
        (v["rule"].as_str(), v["edited"].as_bool()),
        (Some("rm_recursive_root"), Some(true))
    );
    let e = m.json(json!({"action": "check"})).await;
    assert_eq!(e["error_code"], "INVALID_PARAMS", "{e}");
    m.client.cancel().await.expect("close");
    no_sessions(&env);
}
