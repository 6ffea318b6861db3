//! Errors speak the front end's language: over the CLI a hint names `kpty …` commands and
//! `--flags`; over MCP it names actions and parameters; neither leaks the other's words.

use crate::mcp;
use crate::support::{Env, kill_9, s, stderr, wait_for};
use serde_json::{Value, json};

/// Words only the CLI says.
const CLI_ONLY: &[&str] = &["kpty ", "--", "send-line", "send-keys", "term-read", "-s "];
/// Words only the action contract says.
const TOOL_ONLY: &[&str] = &[
    "send_line",
    "send_keys",
    "term_read",
    "session_id",
    "timeout_ms",
    "max_bytes",
    "=true",
    "list action",
    "check action",
];

fn cli_says(v: &Value, wants: &[&str]) {
    let m = s(v, "message");
    for w in wants {
        assert!(m.contains(w), "the CLI should say {w:?}: {m}");
    }
    for w in TOOL_ONLY {
        assert!(!m.contains(w), "the CLI says the tool's {w:?}: {m}");
    }
}

fn tool_says(v: &Value, wants: &[&str]) {
    assert_eq!(v["ok"], false, "{v}");
    let m = s(v, "message");
    for w in wants {
        assert!(m.contains(w), "MCP should say {w:?}: {m}");
    }
    for w in CLI_ONLY {
        assert!(!m.contains(w), "MCP says the CLI's {w:?}: {m}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn session_not_found_and_no_default_session() {
    let env = Env::new();
    let v = env.fails(&["read", "-s", "nope"], 119, "PTY_SESSION_NOT_FOUND");
    cli_says(&v, &["`kpty list`"]);
    let human = stderr(&env.kpty(&["send-line", "-s", "nope", "hi"]));
    assert!(human.contains("`kpty list`"), "{human}");
    let v = env.fails(&["read"], 119, "PTY_SESSION_NOT_FOUND");
    cli_says(&v, &["`kpty talk CMD`", "-s/--session"]);

    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "read", "session_id": "nope"}))
        .await;
    tool_says(&v, &["list action"]);
    let v = m.json(json!({"action": "read"})).await;
    tool_says(&v, &["session_id"]);
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn busy_with_a_foreground_program_or_a_full_screen_one() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "sleep 60");
    wait_for(10_000, "sleep in the foreground", || {
        env.entry(&id)["foreground_command"] == "sleep"
    });
    let v = env.fails(&["talk", "-s", &id, "true"], 117, "PTY_BUSY");
    cli_says(
        &v,
        &[
            &format!("kpty send-keys -s {id} C-c"),
            &format!("kpty talk -s {id} --force CMD"),
        ],
    );
    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "true"}))
        .await;
    tool_says(&v, &["send_keys keys=[\"C-c\"]", "force=true"]);

    let full = env.create(&[]);
    env.send_line(&full, "printf '\\033[?1049h'; sleep 60");
    wait_for(10_000, "a full-screen sleep", || {
        env.entry(&full)["foreground_command"] == "sleep"
    });
    let v = env.fails(&["talk", "-s", &full, "true"], 117, "PTY_BUSY");
    cli_says(&v, &[&format!("kpty term-read -s {full} --mode viewport")]);
    let v = m
        .json(json!({"action": "talk", "session_id": full, "command": "true"}))
        .await;
    tool_says(&v, &["term_read mode=viewport"]);
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timed_out_talk_says_how_to_look_and_interrupt() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(
        &["talk", "-s", &id, "-t", "500", "sleep 30"],
        124,
        "PTY_TIMEOUT",
    );
    cli_says(
        &v,
        &[
            &format!("kpty read -s {id}"),
            &format!("kpty send-keys -s {id} C-c"),
            "-t/--timeout-ms",
        ],
    );
    let other = env.create(&[]);
    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "talk", "session_id": other, "command": "sleep 30", "timeout_ms": 500}))
        .await;
    assert_eq!(v["error_code"], "PTY_TIMEOUT", "{v}");
    tool_says(&v, &["timeout_ms", "send_keys keys=[\"C-c\"]"]);
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ended_shell_and_a_dead_holder() {
    let env = Env::new();
    let id = env.create(&[]);
    env.kpty(&["talk", "-s", &id, "exit 3"]);
    let v = env.fails(&["talk", "-s", &id, "true"], 118, "PTY_PROCESS_EXITED");
    cli_says(&v, &["`kpty create`"]);
    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "send_line", "session_id": id, "data": "true"}))
        .await;
    assert_eq!(v["error_code"], "PTY_PROCESS_EXITED", "{v}");
    tool_says(&v, &["create starts another"]);

    let dead = env.create(&[]);
    kill_9(env.entry(&dead)["holder_pid"].as_u64().expect("holder pid"));
    wait_for(5_000, "list to call the session dead", || {
        env.entry(&dead)["state"] == "dead"
    });
    let v = env.fails(&["talk", "-s", &dead, "true"], 118, "PTY_PROCESS_EXITED");
    cli_says(&v, &[&format!("`kpty kill {dead}`")]);
    let v = m
        .json(json!({"action": "talk", "session_id": dead, "command": "true"}))
        .await;
    tool_says(&v, &["kill with session_id"]);
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn dangerous_deprecated_and_refused_unregisters() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(
        &["talk", "-s", &id, "rm -rf /"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    cli_says(&v, &["`kpty check CMD`"]);
    let v = env.fails(&["unregister", &id], 115, "INVALID_PARAMS");
    cli_says(&v, &[&format!("`kpty kill {id}`")]);
    let leader = "9ccd99b1bdd8710e";
    env.ok_json(&[
        "register",
        leader,
        "--desktop-url",
        "http://127.0.0.1:9",
        "--owner-role",
        "leader",
    ]);
    let v = env.fails(&["unregister", leader], 111, "PTY_ACCESS_DENIED");
    cli_says(&v, &[&format!("`kpty unregister {leader} --force`")]);

    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "send_line", "session_id": id, "data": "rm -rf /"}))
        .await;
    tool_says(&v, &["check action"]);
    let v = m
        .json(json!({"action": "write", "session_id": id, "data": "x"}))
        .await;
    tool_says(&v, &["send_line", "talk"]);
    let v = m
        .json(json!({"action": "unregister", "session_id": id}))
        .await;
    tool_says(&v, &["kill action"]);
    let v = m
        .json(json!({"action": "unregister", "session_id": leader}))
        .await;
    tool_says(&v, &["force=true"]);
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_parameters_are_named_as_flags_over_the_cli() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(
        &["read", "-s", &id, "--max-bytes", "0"],
        115,
        "INVALID_PARAMS",
    );
    cli_says(&v, &["--max-bytes"]);
    let v = env.fails(
        &["talk", "-s", &id, "-t", "0", "true"],
        115,
        "INVALID_PARAMS",
    );
    cli_says(&v, &["-t/--timeout-ms"]);
    let v = env.fails(
        &["term-read", "-s", &id, "--max-lines", "0"],
        115,
        "INVALID_PARAMS",
    );
    cli_says(&v, &["--max-lines"]);

    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "read", "session_id": id, "max_bytes": 0}))
        .await;
    tool_says(&v, &["max_bytes"]);
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "true", "timeout_ms": 0}))
        .await;
    tool_says(&v, &["timeout_ms"]);
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn screen_reads_name_their_flags_or_parameters() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(
        &[
            "term-read",
            "-s",
            &id,
            "--mode",
            "delta",
            "--marker",
            "999999",
        ],
        115,
        "INVALID_PARAMS",
    );
    cli_says(
        &v,
        &[
            "--marker 999999",
            &format!("kpty term-read -s {id} --mode delta"),
        ],
    );
    let v = env.fails(
        &["term-read", "-s", &id, "--marker", "1"],
        115,
        "INVALID_PARAMS",
    );
    cli_says(&v, &["--marker", "--mode delta"]);
    let mut off = env.cmd(&["--json", "term-read", "-s", &id]);
    off.env("KURORYUU_TERM_BUFFER_ACCESS", "off");
    let out = crate::support::run(off, &["term-read"]);
    assert_eq!(out.status.code(), Some(107));
    let v = crate::support::parse(&out, &["term-read"]);
    cli_says(&v, &["`kpty read`"]);

    let m = mcp::start(&env).await;
    let v = m
        .json(
            json!({"action": "term_read", "session_id": id, "mode": "delta", "marker_id": 999999}),
        )
        .await;
    tool_says(
        &v,
        &["marker_id 999999", "term_read mode=delta without marker_id"],
    );
    let v = m
        .json(json!({"action": "term_read", "session_id": id, "marker_id": 1}))
        .await;
    tool_says(&v, &["marker_id", "mode=delta"]);
    m.close().await;
}
