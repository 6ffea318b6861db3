//! Identity routing, registered sessions and the audit trail: resolve by each key (unique,
//! not found, ambiguous), send-line-to-agent, leader protection, concurrent registrations,
//! heartbeats and pruning (backdated entries, no waiting), `kpty log`, gateway emits.

use crate::support::{Env, spawn, wait_child};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};

fn backdate(env: &Env, id: &str, days: i64) {
    let path = env.state().join("_registry.json");
    let mut reg: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("registry")).expect("json");
    let ts = jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_hours(24 * days))
        .expect("time");
    reg["sessions"][id]["last_heartbeat"] = json!(ts.to_string());
    std::fs::write(&path, serde_json::to_vec_pretty(&reg).expect("encode"))
        .expect("write registry");
}

#[test]
fn resolve_by_each_key_unique_missing_ambiguous() {
    let env = Env::new();
    let a = env.create(&[
        "--label",
        "Worker A",
        "--owner-agent-id",
        "worker_a",
        "--owner-session-id",
        "sess_a",
    ]);
    env.create(&["--owner-agent-id", "twin"]);
    env.create(&["--owner-agent-id", "twin"]);
    for args in [
        ["--agent", "worker_a"],
        ["--owner-session-id", "sess_a"],
        ["--label", "Worker A"],
    ] {
        let v = env.ok_json(&["resolve", args[0], args[1]]);
        assert_eq!(v["session_id"], a.as_str(), "{args:?}");
        assert_eq!(v["session"]["owner_agent_id"], "worker_a");
    }
    let v = env.fails(&["resolve", "--agent", "nobody"], 119, "NOT_FOUND");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("agent_id=nobody"))
    );
    let v = env.fails(&["resolve", "--agent", "twin"], 114, "AMBIGUOUS");
    assert_eq!(
        v["matches"].as_array().map(Vec::len),
        Some(2),
        "never a broadcast: {v}"
    );
    env.fails(&["resolve"], 115, "INVALID_PARAMS");
    // a session whose shell ended is not a routing target
    let gone = env.create(&["--owner-agent-id", "ghost"]);
    env.ok(&["kill", &gone]);
    env.fails(&["resolve", "--agent", "ghost"], 119, "NOT_FOUND");
}

#[test]
fn send_line_to_agent_and_agent_flags() {
    let env = Env::new();
    let a = env.create(&["--owner-agent-id", "worker_a"]);
    let v = env.ok_json(&[
        "send-line-to-agent",
        "--agent",
        "worker_a",
        "echo routed-$((40+2))",
    ]);
    assert_eq!(v["resolved_session_id"], a.as_str());
    assert_eq!(v["send_result"]["enter"]["bytes_written"], 1);
    env.read_until(&a, 0, "routed-42");
    assert_eq!(
        env.ok_json(&["talk", "--agent", "worker_a", "echo via-agent"])["output"],
        "via-agent"
    );
    env.fails(
        &["send-line-to-agent", "--agent", "nobody", "x"],
        119,
        "NOT_FOUND",
    );
    // update-ownership moves the routing identity
    env.ok(&[
        "update-ownership",
        &a,
        "--owner-agent-id",
        "worker_b",
        "--owner-role",
        "worker",
    ]);
    env.fails(&["resolve", "--agent", "worker_a"], 119, "NOT_FOUND");
    assert_eq!(
        env.ok_json(&["resolve", "--agent", "worker_b"])["session"]["owner_role"],
        "worker"
    );
    env.ok(&["kill", "--agent", "worker_b"]);
}

#[test]
fn registered_sessions_leader_protection_and_by_source() {
    let env = Env::new();
    env.create(&[]);
    let url = "http://127.0.0.1:9";
    env.ok(&[
        "register",
        "9ccd99b1bdd8710e",
        "--desktop-url",
        url,
        "--owner-agent-id",
        "lead",
        "--owner-role",
        "leader",
        "--label",
        "Leader",
    ]);
    env.ok(&[
        "register",
        "w-1",
        "--desktop-url",
        url,
        "--owner-agent-id",
        "w1",
        "--cli-type",
        "claude",
    ]);
    let l = env.ok_json(&["list"]);
    assert_eq!(l["by_source"], json!({"local": 1, "desktop": 2}));
    assert_eq!(env.entry("w-1")["state"], "registered");
    assert_eq!(
        env.ok_json(&["resolve", "--label", "Leader"])["session_id"],
        "9ccd99b1bdd8710e"
    );
    env.fails(
        &["unregister", "9ccd99b1bdd8710e"],
        111,
        "PTY_ACCESS_DENIED",
    );
    env.ok(&["unregister", "9ccd99b1bdd8710e", "--force"]);
    env.ok(&["unregister", "w-1"]);
    env.fails(
        &["register", "../../etc", "--desktop-url", url],
        115,
        "INVALID_PARAMS",
    );
    env.fails(&["register", "x1"], 115, "INVALID_PARAMS"); // a desktop session needs its bridge
    let events =
        std::fs::read_to_string(env.state().join("_registry_events.jsonl")).expect("events");
    for e in ["registered", "unregistered", "session_created"] {
        assert!(
            events.contains(&format!("\"event\":\"{e}\"")),
            "{e} not journalled"
        );
    }
}

#[test]
fn fifty_concurrent_registrations_keep_every_entry() {
    let env = Env::new();
    let kids: Vec<_> = (0..50)
        .map(|i| {
            spawn(env.cmd(&[
                "register",
                &format!("ext-{i:02}"),
                "--desktop-url",
                "http://127.0.0.1:9",
            ]))
        })
        .collect();
    for k in kids {
        assert!(wait_child(k, &["register"]).status.success());
    }
    let reg = env.registry();
    assert_eq!(
        reg["sessions"].as_object().map(|m| m.len()),
        Some(50),
        "{reg}"
    );
}

#[test]
fn heartbeat_and_pruning_of_stale_and_ended_sessions() {
    let env = Env::new();
    let url = "http://127.0.0.1:9";
    for id in ["old", "recent", "beating"] {
        env.ok(&["register", id, "--desktop-url", url]);
    }
    backdate(&env, "old", 8);
    backdate(&env, "recent", 6);
    backdate(&env, "beating", 30);
    env.ok(&["heartbeat", "beating"]);
    let local = env.create(&[]);
    env.ok(&["send-line", "-s", &local, "exit 4"]);
    crate::support::wait_for(10_000, "the shell to exit", || {
        env.entry(&local)["state"] == "exited"
    });
    let v = env.ok_json(&["prune", "--dry-run"]);
    assert_eq!(v["pruned"], json!(["old"]));
    assert_eq!(v["ended_local"][0]["session_id"], local.as_str());
    assert!(
        env.registry()["sessions"].get(&local).is_some(),
        "ended local sessions stay with --dry-run"
    );
    let v = env.ok_json(&["prune"]);
    assert_eq!(v["pruned_local"], json!([local]));
    let ids: Vec<String> = env.registry()["sessions"]
        .as_object()
        .expect("map")
        .keys()
        .cloned()
        .collect();
    assert_eq!(ids, vec!["beating".to_string(), "recent".to_string()]);
    // a server prunes at start, too
    backdate(&env, "recent", 9);
    let mut mcp = env
        .cmd(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("mcp");
    drop(mcp.stdin.take()); // EOF: the server starts, prunes, and exits
    assert!(mcp.wait().expect("wait").success());
    assert!(env.registry()["sessions"].get("recent").is_none());
}

#[test]
fn audit_trail_records_and_log_filters() {
    let env = Env::new();
    let s = env.create(&["--label", "aud", "--cli-type", "bash"]);
    env.ok(&["talk", "-s", &s, "echo one"]);
    env.kpty(&["talk", "-s", &s, "rm -rf /"]);
    env.kpty(&["talk", "-s", &s, "-t", "200", "sleep 1"]);
    env.ok(&[
        "send-line",
        "-s",
        &s,
        "export API_TOKEN=sk-abcdefghijklmnopqrstuvwxyz0123",
    ]);
    let lines = std::fs::read_to_string(env.state().join("sessions").join(&s).join("events.jsonl"))
        .expect("events");
    let events: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let talk = events
        .iter()
        .find(|e| e["action"] == "talk" && e["success"] == true)
        .expect("talk event");
    for k in [
        "session_id",
        "agent_id",
        "owner_session_id",
        "command",
        "response",
        "duration_ms",
        "success",
        "blocked",
        "blocked_pattern",
        "error_code",
        "label",
        "cli_type",
    ] {
        assert!(talk.get(k).is_some(), "field {k} missing: {talk}");
    }
    assert_eq!(
        (talk["label"].as_str(), talk["cli_type"].as_str()),
        (Some("aud"), Some("bash"))
    );
    assert!(
        !lines.contains("sk-abcdefghijklmnopqrstuvwxyz0123"),
        "secrets are redacted in the audit trail"
    );
    let out = env.ok(&["log", "--session", &s, "--errors-only"]);
    assert!(
        out.contains("PTY_TIMEOUT") && !out.contains("echo one"),
        "{out}"
    );
    let blocked = env.ok(&["log", "--blocked-only"]);
    assert!(blocked.contains("rm_recursive_root"), "{blocked}");
    let json_lines = env.ok(&["--json", "log", "--action", "send_line", "--since", "1h"]);
    assert_eq!(json_lines.lines().count(), 1, "{json_lines}");
}

/// `kpty log --follow` prints events as they are recorded, for sessions that exist when it
/// starts and for sessions created afterwards, woken by the writes themselves.
#[test]
fn log_follow_prints_new_events_as_they_happen() {
    let env = Env::new();
    let s = env.create(&[]);
    env.ok(&["send-line", "-s", &s, "echo before"]);
    let mut follower = spawn(env.cmd(&["--json", "log", "--follow"]));
    // Killed even when an assertion below fails.
    struct KillOnDrop(std::process::Child);
    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stdout = follower.stdout.take().expect("stdout");
    let _guard = KillOnDrop(follower);
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx
                .send(serde_json::from_str(&line).expect("a JSON event"))
                .is_err()
            {
                break;
            }
        }
    });
    let next_with = |needle: &str| -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let e = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no event with {needle:?} within 20 s"));
            if e.to_string().contains(needle) {
                return e;
            }
        }
    };
    // The history first, then what happens while it follows.
    assert_eq!(next_with("echo before")["action"], "send_line");
    env.ok(&["send-line", "-s", &s, "echo during"]);
    let e = next_with("echo during");
    assert_eq!(e["session_id"].as_str(), Some(s.as_str()));
    // A session created after the follower started is followed too.
    let later = env.create(&[]);
    env.ok(&["send-line", "-s", &later, "echo later"]);
    assert_eq!(
        next_with("echo later")["session_id"].as_str(),
        Some(later.as_str())
    );
}

#[test]
fn gateway_emit_reaches_a_listener_and_a_dead_gateway_changes_nothing() {
    let env = Env::new();
    let s = env.create(&[]);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("accept");
        let mut reader = BufReader::new(conn.try_clone().expect("clone"));
        let mut head = String::new();
        let mut len = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).expect("header");
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().expect("length");
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body).expect("body");
        let _ = conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}");
        (head, String::from_utf8_lossy(&body).into_owned())
    });
    // Secrets after newlines, in the command and its output, are redacted in the emit too.
    let cmd = "echo gw; printf 'x\\nsk-proj-GatewayKeyValue0123456789\\n'";
    let mut c = env.cmd(&["talk", "-s", &s, cmd]);
    c.env("KURORYUU_GATEWAY_URL", format!("http://127.0.0.1:{port}"));
    assert!(crate::support::run(c, &["talk"]).status.success());
    let (head, body) = server.join().expect("listener");
    assert!(head.starts_with("POST /v1/pty-traffic/emit"), "{head}");
    let ev: Value = serde_json::from_str(&body).expect("event JSON");
    assert_eq!(
        (ev["action"].as_str(), ev["command"].as_str()),
        (
            Some("talk"),
            Some("echo gw; printf 'x\\n[REDACTED:api_key]\\n'")
        )
    );
    assert!(!body.contains("GatewayKeyValue"), "{body}");
    let response = ev["response"].as_str().unwrap_or_default();
    assert!(
        response.contains(r"gw\nx\n[REDACTED:api_key]"),
        "{response}"
    );
    // a closed port: the action still succeeds with its own output
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let mut c = env.cmd(&["talk", "-s", &s, "echo still"]);
    c.env("KURORYUU_GATEWAY_URL", format!("http://127.0.0.1:{dead}"));
    let out = crate::support::run(c, &["talk"]);
    assert!(out.status.success());
    assert_eq!(crate::support::stdout(&out).trim(), "still");
}
