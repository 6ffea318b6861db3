//! `send-keys` / `send_keys`: named keys and chords in tmux's spelling pressed in a real bash —
//! Ctrl-C interrupting a command, history, completion, cursor movement and meta keys, the
//! application cursor-key mode of a program, the dangerous-command check on what keys would
//! submit, unknown names, the audit trail, and the MCP tool.

use crate::mcp;
use crate::support::{Env, s, wait_for};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// `kpty --json send-keys -s SESSION KEYS…`, asserted to succeed.
fn keys(env: &Env, id: &str, keys: &[&str]) -> Value {
    let args: Vec<&str> = ["send-keys", "-s", id]
        .iter()
        .chain(keys)
        .copied()
        .collect();
    env.ok_json(&args)
}

/// `kpty --json send-keys -s SESSION -l TEXT`: TEXT typed, no Enter.
fn text(env: &Env, id: &str, text: &str) -> Value {
    env.ok_json(&["send-keys", "-s", id, "-l", text])
}

/// Wait until the visible screen contains `needle`; returns it.
fn screen_until(env: &Env, id: &str, needle: &str) -> String {
    let mut screen = String::new();
    wait_for(10_000, &format!("{needle:?} on the screen"), || {
        let v = env.ok_json(&["term-read", "-s", id, "--mode", "viewport"]);
        screen = s(&v, "text").to_string();
        screen.contains(needle)
    });
    screen
}

/// Wait until `sleep` holds the terminal (a Ctrl-C before then reaches bash, not `sleep`).
fn sleep_in_foreground(env: &Env, id: &str) {
    wait_for(10_000, "sleep in the foreground", || {
        env.entry(id)["foreground_command"] == "sleep"
    });
}

#[test]
fn ctrl_c_interrupts_a_running_command_and_the_session_is_free_again() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    env.send_line(&id, "echo started; sleep 30");
    env.read_until(&id, from, "started\r\n");
    sleep_in_foreground(&env, &id);
    let v = keys(&env, &id, &["C-c"]);
    assert_eq!(
        (s(&v, "session_id"), &v["bytes_written"], &v["keys"]),
        (id.as_str(), &1.into(), &json!(["C-c"]))
    );
    let t = Instant::now();
    let v = env.talk_when_free(&id, "echo back-$((40+2))");
    assert_eq!(s(&v, "output"), "back-42", "{v}");
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "sleep 30 was interrupted"
    );
}

#[test]
fn up_enter_runs_the_previous_command_again() {
    let env = Env::new();
    let id = env.create(&[]);
    assert_eq!(env.out(&id, "echo again-$((1+1))"), "again-2");
    let from = env.offset(&id);
    let v = keys(&env, &id, &["Up", "Enter"]);
    assert_eq!(v["bytes_written"], 4, "Esc [ A and CR: {v}");
    env.read_until(&id, from, "again-2\r\n");
    // One element holding several keys is those keys (`Up Enter`).
    let from = env.offset(&id);
    keys(&env, &id, &["Up Enter"]);
    env.read_until(&id, from, "again-2\r\n");
    // A blocked line never reaches the shell, so history cannot bring it back: Up recalls
    // the last command that ran.
    env.fails(
        &["send-line", "-s", &id, "cat ~/.ssh/id_rsa >ran"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    let from = env.offset(&id);
    keys(&env, &id, &["Up", "Enter"]);
    env.read_until(&id, from, "again-2\r\n");
    assert_eq!(env.talk_when_free(&id, "echo done")["output"], "done");
    assert!(!env.home().join("ran").exists(), "the blocked line ran");
}

#[test]
fn cursor_and_meta_keys_edit_the_line_readline_holds() {
    let env = Env::new();
    let id = env.create(&[]);
    // Left, then a character: inserted before the last one.
    let from = env.offset(&id);
    text(&env, &id, "echo ab");
    keys(&env, &id, &["Left", "X", "Enter"]);
    env.read_until(&id, from, "aXb\r\n");
    // Home and End (C-a / C-e as chords too).
    let from = env.offset(&id);
    text(&env, &id, "cho yz");
    keys(
        &env,
        &id,
        &[
            "Home", "e", "End", "w", "C-a", "Right", "Right", "Right", "Right", "Space", "Enter",
        ],
    );
    env.read_until(&id, from, "yzw\r\n");
    // Meta (Escape-prefixed) keys: M-b moves back a word.
    let from = env.offset(&id);
    text(&env, &id, "echo one two");
    keys(&env, &id, &["M-b", "X", "Enter"]);
    env.read_until(&id, from, "one Xtwo\r\n");
    // Escape then a key is the same meta key; BSpace and Delete erase.
    let from = env.offset(&id);
    text(&env, &id, "echo lefty right");
    keys(
        &env,
        &id,
        &["Escape", "b", "BSpace", "BSpace", "Delete", "Enter"],
    );
    env.read_until(&id, from, "leftight\r\n");
}

#[test]
fn tab_completes_but_enter_after_completion_on_a_typed_line_is_refused() {
    let env = Env::new();
    std::fs::write(env.home().join("unique-keys-file.txt"), "x").expect("file");
    let id = env.create(&[]);
    text(&env, &id, "ls unique-k");
    keys(&env, &id, &["Tab"]);
    screen_until(&env, &id, "ls unique-keys-file.txt");
    // kpty cannot see what completion put on the line: submitting it is refused, as for
    // send-line's \t, and nothing is typed.
    let v = env.fails(
        &["send-keys", "-s", &id, "Enter"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    assert_eq!(
        (s(&v["details"], "pattern"), s(&v["details"], "key")),
        ("unverifiable_line_edit", "Tab (completion)"),
        "{v}"
    );
    // C-c abandons the line; the session goes on.
    keys(&env, &id, &["C-c"]);
    assert_eq!(env.talk_when_free(&id, "echo fine")["output"], "fine");
}

#[test]
fn keys_that_would_make_a_blocked_command_are_refused_with_nothing_typed() {
    let env = Env::new();
    let id = env.create(&[]);
    // Allowed as typed (*.pub is fine) …
    text(&env, &id, "cat ~/.ssh/id_rsa.pub >ran");
    // … but these keys turn it into a private-key read: refused whether they submit it or
    // leave it on the line for a later Enter, judged with what the line already holds.
    let edit = [
        "Left", "Left", "Left", "Left", "Left", "BSpace", "BSpace", "BSpace", "BSpace",
    ];
    for with_enter in [false, true] {
        let mut args = vec!["send-keys", "-s", &id];
        args.extend(edit);
        if with_enter {
            args.push("Enter");
        }
        let v = env.fails(&args, 116, "DANGEROUS_COMMAND_BLOCKED");
        assert_eq!(s(&v["details"], "pattern"), "ssh_key_read", "{v}");
        assert_eq!(s(&v["details"], "line"), "cat ~/.ssh/id_rsa >ran", "{v}");
        assert!(s(&v, "message").contains("nothing was typed"), "{v}");
    }
    // The same bytes as one chord each (C-b is Left, C-h is BSpace) are judged the same.
    let v = env.fails(
        &[
            "send-keys",
            "-s",
            &id,
            "C-b",
            "C-b",
            "C-b",
            "C-b",
            "C-b",
            "C-h",
            "C-h",
            "C-h",
            "C-h",
            "C-m",
        ],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    assert_eq!(s(&v["details"], "pattern"), "ssh_key_read", "{v}");
    // A dangerous text typed literally is refused too.
    keys(&env, &id, &["C-u"]);
    env.fails(
        &["send-keys", "-s", &id, "-l", "rm -rf /"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    keys(&env, &id, &["C-c"]);
    assert_eq!(
        env.talk_when_free(&id, "echo still-here")["output"],
        "still-here"
    );
    assert!(!env.home().join("ran").exists(), "a blocked command ran");
    // The audit trail has the refused keys by name.
    let log = env.ok(&["--json", "log"]);
    assert!(
        log.contains("\"send_keys\"") && log.contains("Left Left Left Left Left BSpace"),
        "{log}"
    );
}

#[test]
fn unknown_key_names_and_impossible_chords_are_invalid_params() {
    let env = Env::new();
    let id = env.create(&[]);
    for bad in ["Cntrl-c", "Return", "F13", "C-Enter"] {
        let v = env.fails(&["send-keys", "-s", &id, "Up", bad], 115, "INVALID_PARAMS");
        assert_eq!(s(&v["details"], "key"), bad, "{v}");
        assert!(s(&v, "message").contains(bad), "{v}");
    }
    let v = env.fails(&["send-keys", "-s", &id, "Cntrl-c"], 115, "INVALID_PARAMS");
    assert!(s(&v, "message").contains("literal"), "the hint: {v}");
    // Nothing was typed: no Up reached the shell (its history would show as a line).
    assert_eq!(env.out(&id, "echo clean"), "clean");
    env.fails(
        &["send-keys", "-s", "pty_nothere", "C-c"],
        119,
        "PTY_SESSION_NOT_FOUND",
    );
}

#[test]
fn arrows_follow_a_programs_application_cursor_mode() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    env.send_line(&id, "printf 'normal\\\\n'; cat -v");
    env.read_until(&id, from, "normal\r\n");
    keys(&env, &id, &["Up", "Enter"]);
    env.read_until(&id, from, "^[[A\r\n");
    keys(&env, &id, &["C-c"]);
    env.talk_when_free(&id, "true");
    let from = env.offset(&id);
    env.send_line(&id, "printf '\\\\033[?1happ\\\\n'; cat -v");
    env.read_until(&id, from, "app\r\n");
    keys(&env, &id, &["Up", "Down", "Enter"]);
    env.read_until(&id, from, "^[OA^[OB\r\n");
    keys(&env, &id, &["C-c"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn send_keys_over_mcp_takes_an_array_or_a_string() {
    let env = Env::new();
    let m = mcp::start(&env).await;
    let v = m.json(json!({"action": "create"})).await;
    let id = s(&v, "session_id").to_string();
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo mcp-$((3*3))"}))
        .await;
    assert_eq!(s(&v, "output"), "mcp-9", "{v}");
    let v = m
        .json(json!({"action": "send_keys", "session_id": id, "keys": "Up Enter"}))
        .await;
    assert_eq!(
        (v["ok"].clone(), v["bytes_written"].clone()),
        (json!(true), json!(4)),
        "{v}"
    );
    let v = m
        .json(json!({"action": "send_line", "session_id": id, "data": "sleep 30"}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    sleep_in_foreground(&env, &id);
    let v = m
        .json(json!({"action": "send_keys", "session_id": id, "keys": ["C-c"]}))
        .await;
    assert_eq!(v["keys"], json!(["C-c"]), "{v}");
    let v = m
        .json(
            json!({"action": "send_keys", "session_id": id, "keys": ["echo lit"], "literal": true}),
        )
        .await;
    assert_eq!(v["bytes_written"], 8, "{v}");
    let v = m
        .json(json!({"action": "send_keys", "session_id": id, "keys": ["Cntrl-c"]}))
        .await;
    assert_eq!(s(&v, "error_code"), "INVALID_PARAMS", "{v}");
    let v = m
        .json(json!({"action": "send_keys", "session_id": id}))
        .await;
    assert_eq!(s(&v, "error_code"), "INVALID_PARAMS", "{v}");
    let v = m
        .json(json!({"action": "send_keys", "session_id": id, "keys": ["C-u", "Enter"]}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    let v = m
        .json(json!({"action": "send_keys", "session_id": id, "keys": "rm -rf /", "literal": true}))
        .await;
    assert_eq!(s(&v, "error_code"), "DANGEROUS_COMMAND_BLOCKED", "{v}");
    m.close().await;
    // The session the keys drove: mcp-9 printed twice (the talk, then Up Enter).
    wait_for(10_000, "Up Enter to rerun the command", || {
        let all = env.read(&id, &["--since", "0", "--max-bytes", "1000000"]);
        s(&all, "output").matches("mcp-9\r\n").count() >= 2
    });
}

#[test]
fn send_keys_reach_a_desktop_session_through_its_bridge() {
    let (a, b, id, serve) = crate::bridge::setup();
    let k = Some(serve.secret.as_str());
    let from = b.offset(&id);
    let (code, v) =
        crate::bridge::with_secret(&a, k, &["send-keys", "-s", &id, "-l", "echo via-$((5+5))"]);
    assert_eq!((code, &v["bytes_written"]), (Some(0), &json!(17)), "{v}");
    let (code, v) = crate::bridge::with_secret(&a, k, &["send-keys", "-s", &id, "Enter"]);
    assert_eq!(code, Some(0), "{v}");
    b.read_until(&id, from, "via-10\r\n");
    // Checked before anything goes to the bridge.
    let (code, v) = crate::bridge::with_secret(&a, k, &["send-keys", "-s", &id, "-l", "rm -rf /"]);
    assert_eq!(
        (code, s(&v, "error_code")),
        (Some(116), "DANGEROUS_COMMAND_BLOCKED"),
        "{v}"
    );
    let (code, v) = crate::bridge::with_secret(&a, k, &["send-keys", "-s", &id, "Nope"]);
    assert_eq!(
        (code, s(&v, "error_code")),
        (Some(115), "INVALID_PARAMS"),
        "{v}"
    );
}
