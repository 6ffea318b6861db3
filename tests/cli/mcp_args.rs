//! MCP arguments as real clients send them: the Inspector CLI and other clients that map each
//! field through a text box send numbers and booleans as strings (`"100"`, `"true"`); kpty
//! reads them as what they spell and still refuses what they do not.

use crate::mcp;
use crate::support::{Env, s};
use serde_json::json;

#[tokio::test]
async fn inspector_style_string_arguments_drive_a_session() {
    let env = Env::new();
    let client = mcp::start(&env).await;
    let v = client
        .json(json!({"action": "create", "cols": "100", "rows": "20", "label": "strings"}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    let id = s(&v, "session_id").to_string();
    let v = client
        .json(json!({"action": "talk", "session_id": id, "command": "tput cols; tput lines", "timeout_ms": "10000"}))
        .await;
    assert_eq!(
        s(&v, "output").split_whitespace().collect::<Vec<_>>(),
        ["100", "20"],
        "{v}"
    );
    let v = client
        .json(json!({"action": "read", "session_id": id, "max_bytes": "64", "strip_ansi": "true", "timeout_ms": "0"}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    assert!(s(&v, "output").len() <= 64, "{v}");
    let v = client
        .json(json!({"action": "term_read", "session_id": id, "max_lines": "3", "merge_wrapped": "false", "mode": "viewport"}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    // Strict about meaning: words that are not numbers or booleans are still refused.
    for bad in [
        json!({"action": "resize", "session_id": id, "cols": "wide", "rows": "20"}),
        json!({"action": "read", "session_id": id, "strip_ansi": "yes"}),
    ] {
        let v = client.json(bad.clone()).await;
        assert_eq!(s(&v, "error_code"), "INVALID_PARAMS", "{bad}: {v}");
    }
    client
        .json(json!({"action": "kill", "session_id": id}))
        .await;
    client.close().await;
}

/// `kpty mcp` started by hand in a terminal says, on stderr, what it is waiting for; started
/// by a client (stdin a pipe) it prints nothing there.
#[test]
fn started_in_a_terminal_it_says_it_waits_for_a_client() {
    use crate::support::Stream;
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::Write;
    use std::time::Duration;

    let env = Env::new();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 250,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pseudo-terminal");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_kpty"));
    cmd.arg("mcp");
    cmd.cwd(env.home());
    cmd.env("KPTY_STATE_DIR", env.state());
    cmd.env("HOME", env.home());
    let mut child = pair.slave.spawn_command(cmd).expect("spawn kpty mcp");
    drop(pair.slave);
    let mut stream = Stream::new(pair.master.try_clone_reader().expect("reader"));
    if !stream.until("waiting for an MCP client", Duration::from_secs(10)) {
        let _ = child.kill();
        panic!("no hint within 10 s: {:?}", stream.seen);
    }
    // Ctrl-D ends its stdin: it exits.
    let mut writer = pair.master.take_writer().expect("writer");
    writer.write_all(b"\x04").expect("Ctrl-D");
    let status = child.wait().expect("kpty mcp exits");
    assert!(status.success(), "{status:?}");

    let out = crate::support::run(env.cmd(&["mcp"]), &["mcp"]);
    assert_eq!(
        crate::support::stderr(&out),
        "",
        "no hint when a client starts it"
    );
}

/// Over MCP a talk result is sized for a model's context: no `raw_output` unless asked, and
/// the default cap holds for the whole result (as JSON text), not only `output`.
#[tokio::test]
async fn mcp_talk_results_are_lean_and_capped_as_a_whole() {
    let env = Env::new();
    let id = env.create(&[]);
    let client = mcp::start(&env).await;
    let v = client
        .json(json!({"action": "talk", "session_id": id, "command": "seq 1 50000"}))
        .await;
    let text = serde_json::to_string(&v).expect("json");
    assert!(text.chars().count() <= 50_000, "{} characters", text.len());
    assert!(
        v.get("raw_output").is_none(),
        "raw_output over MCP without include_raw"
    );
    assert_eq!(
        (v["truncated"].as_bool(), v["exit_code"].as_i64()),
        (Some(true), Some(0))
    );
    assert!(s(&v, "output").ends_with("49999\n50000"), "the end is kept");
    assert!(
        v["dropped_chars"].as_u64().unwrap_or(0) > 238_000,
        "{}",
        v["dropped_chars"]
    );
    let v = client
        .json(json!({"action": "talk", "session_id": id, "command": "seq 1 5000", "include_raw": "true"}))
        .await;
    let text = serde_json::to_string(&v).expect("json");
    assert!(text.chars().count() <= 50_000, "{} characters", text.len());
    assert!(s(&v, "raw_output").contains("4999\r\n5000"), "{v}");
    // A small result is whole; the CLI's --json keeps raw_output as before.
    let v = client
        .json(json!({"action": "talk", "session_id": id, "command": "echo small"}))
        .await;
    assert_eq!(
        (s(&v, "output"), v["truncated"].as_bool()),
        ("small", Some(false))
    );
    client.close().await;
    assert!(env.talk(&id, "echo cli")["raw_output"].is_string());
}
