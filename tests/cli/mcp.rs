//! `kpty mcp` driven by rmcp's own client over the child's stdio: initialize, the tool's
//! schema, every action, errors as `isError` results, sessions shared with the CLI, progress,
//! cancellation, concurrency, restarts, and a garbage-proof stdin.

use crate::support::{Env, s};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam, Request,
    ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A client that records progress notifications.
#[derive(Clone, Default)]
pub(crate) struct Client {
    pub(crate) progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Client {
    async fn on_progress(&self, p: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        self.progress.lock().expect("progress lock").push(p);
    }
}

pub(crate) struct Mcp {
    pub(crate) client: RunningService<RoleClient, Client>,
    pub(crate) handler: Client,
    /// The server's pid (`kpty mcp`; for `kpty serve`, the server's too).
    pub(crate) pid: u32,
}

/// `kpty mcp` in `env`, initialized through rmcp's client.
pub(crate) async fn start(env: &Env) -> Mcp {
    start_cmd(env.cmd(&["mcp"])).await
}

/// A prepared `kpty mcp …` command (its own flags, cwd, environment), initialized.
pub(crate) async fn start_cmd(cmd: std::process::Command) -> Mcp {
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.stderr(Stdio::null());
    let (proc, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn kpty mcp");
    let pid = proc.id().expect("server pid");
    let handler = Client::default();
    let client = handler.clone().serve(proc).await.expect("initialize");
    Mcp {
        client,
        handler,
        pid,
    }
}

impl Mcp {
    pub(crate) async fn call(&self, args: Value) -> CallToolResult {
        let args = args.as_object().expect("object args").clone();
        self.client
            .call_tool(CallToolRequestParams::new("k_pty").with_arguments(args))
            .await
            .expect("tools/call")
    }

    /// Close the connection (the server then exits).
    pub(crate) async fn close(self) {
        self.client.cancel().await.expect("close");
    }

    /// Call and return the structured content, asserting `isError` agrees with `ok`.
    pub(crate) async fn json(&self, args: Value) -> Value {
        let r = self.call(args).await;
        let v = r.structured_content.clone().expect("structured content");
        assert_eq!(
            r.is_error,
            Some(v["ok"] != true),
            "isError must mirror ok: {v}"
        );
        let text = r
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .expect("text content");
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("text is JSON"),
            v,
            "text and structured content agree"
        );
        v
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_and_tool_schema() {
    let env = Env::new();
    let m = start(&env).await;
    let info = m.client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().expect("server_info").name, "kpty");
    assert!(
        info.instructions
            .as_deref()
            .is_some_and(|i| i.contains("talk"))
    );
    let tools = m.client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 1);
    let schema = Value::Object((*tools[0].input_schema).clone());
    assert_eq!(schema["type"], "object");
    for k in ["oneOf", "anyOf", "allOf"] {
        assert!(
            schema.get(k).is_none(),
            "top-level {k} is rejected by Claude Code"
        );
    }
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.bind(|| {
        insta::assert_json_snapshot!(
            "mcp_tool",
            json!({
                "name": tools[0].name,
                "annotations": tools[0].annotations,
                "inputSchema": schema,
            })
        )
    });
    m.client.cancel().await.expect("close");
}

/// Create a 90×20 session labelled `label`, talk into it by id (output and exit code), run
/// in it by label (its size); the session's id.
pub(crate) async fn create_talk_and_run(m: &Mcp, label: &str) -> String {
    let c = m
        .json(json!({"action": "create", "label": label, "cols": 90, "rows": 20}))
        .await;
    let id = c["session_id"].as_str().expect("id").to_string();
    let t = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo hi; (exit 3)"}))
        .await;
    assert_eq!(
        (t["output"].as_str(), t["exit_code"].as_i64()),
        (Some("hi"), Some(3))
    );
    let r = m
        .json(json!({"action": "run", "session_id": label, "command": "stty size"}))
        .await;
    assert_eq!(r["output"], "20 90");
    id
}

#[tokio::test(flavor = "multi_thread")]
async fn every_action_round_trips_and_failures_are_is_error() {
    let env = Env::new();
    let m = start(&env).await;
    assert_eq!(
        m.json(json!({"action": "help"})).await["data"]["tool"],
        "k_pty"
    );
    let id = create_talk_and_run(&m, "mcp").await;
    let s = m
        .json(json!({"action": "send_line", "session_id": id, "data": "echo typed"}))
        .await;
    assert_eq!(s["enter"]["bytes_written"], 1);
    // The echo arrives when the shell gets to it: read on (each read waits for new output).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut since = 0;
    let mut seen = String::new();
    while !seen.contains("typed") {
        assert!(
            std::time::Instant::now() < deadline,
            "no echo of the line: {seen:?}"
        );
        let rd = m
            .json(json!({"action": "read", "session_id": id, "since": since,
                         "max_bytes": 100000, "timeout_ms": 2000}))
            .await;
        seen.push_str(rd["output"].as_str().unwrap_or_default());
        since = rd["next_offset"].as_u64().unwrap_or(since);
    }
    m.json(json!({"action": "resize", "session_id": id, "cols": 100, "rows": 30}))
        .await;
    let l = m.json(json!({"action": "list"})).await;
    assert_eq!(l["count"], 1);
    assert_eq!(l["sessions"][0]["state"], "running");
    // failures: all isError results with the seeds' codes, none a JSON-RPC error
    for (args, code) in [
        (
            json!({"action": "write", "session_id": id, "data": "x"}),
            "DEPRECATED",
        ),
        (
            json!({"action": "talk", "session_id": "pty_00000000", "command": "ls"}),
            "PTY_SESSION_NOT_FOUND",
        ),
        (
            json!({"action": "talk", "session_id": "../../etc", "command": "ls"}),
            "INVALID_PARAMS",
        ),
        (
            json!({"action": "talk", "session_id": id, "command": "rm -rf /"}),
            "DANGEROUS_COMMAND_BLOCKED",
        ),
        // Editing keys are applied before the check: the shell would read `cat ~/.ssh/id_rsa`.
        (
            json!({"action": "talk", "session_id": id, "command": "x\u{7f}cat ~/.ssh/id_rsa"}),
            "DANGEROUS_COMMAND_BLOCKED",
        ),
        (
            json!({"action": "send_line", "session_id": id, "data": "echo ok\u{15}cat ~/.ssh/id_rsa"}),
            "DANGEROUS_COMMAND_BLOCKED",
        ),
        (
            json!({"action": "send_line", "session_id": id, "data": "echo hel\tlo"}),
            "DANGEROUS_COMMAND_BLOCKED",
        ),
        (
            json!({"action": "send_line", "session_id": id, "data": "caf\\xe9"}),
            "INVALID_PARAMS",
        ),
        (
            json!({"action": "talk", "session_id": id, "command": "sleep 3", "timeout_ms": 300}),
            "PTY_TIMEOUT",
        ),
        (
            json!({"action": "read", "session_id": id, "max_bytes": 0}),
            "INVALID_PARAMS",
        ),
        (json!({"action": "list", "bogus": 1}), "INVALID_PARAMS"),
        (json!({"action": "nope"}), "INVALID_PARAMS"),
        (json!({"command": "ls"}), "INVALID_PARAMS"),
    ] {
        let v = m.json(args.clone()).await;
        assert_eq!(v["error_code"], code, "{args} → {v}");
    }
    let k = m.json(json!({"action": "kill", "session_id": id})).await;
    assert_eq!(k["killed"], true);
    // an unknown tool is the one JSON-RPC error
    let e = m.client.call_tool(CallToolRequestParams::new("nope")).await;
    assert!(e.is_err());
    m.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_are_shared_with_the_cli_and_survive_the_server() {
    let env = Env::new();
    let m = start(&env).await;
    let id = m.json(json!({"action": "create", "label": "shared"})).await["session_id"]
        .as_str()
        .expect("id")
        .to_string();
    m.json(json!({"action": "talk", "session_id": id, "command": "X=from-mcp"}))
        .await;
    assert_eq!(
        env.ok(&["talk", "-s", "shared", "echo $X"]).trim(),
        "from-mcp"
    );
    let cli = env.create(&["--label", "cli"]);
    env.ok(&["talk", "-s", &cli, "Y=from-cli"]);
    assert_eq!(
        m.json(json!({"action": "talk", "session_id": "cli", "command": "echo $Y"}))
            .await["output"],
        "from-cli"
    );
    // SIGKILL the server: the sessions live on, a new server uses them
    crate::support::kill_9(u64::from(m.pid));
    drop(m);
    let m2 = start(&env).await;
    assert_eq!(
        m2.json(json!({"action": "talk", "session_id": id, "command": "echo $X"}))
            .await["output"],
        "from-mcp"
    );
    m2.client.cancel().await.expect("close");
}

/// A talk that prints a lot returns its end to an MCP client (50 000 characters unless the
/// call says otherwise), with what was cut counted; the CLI prints everything unless asked.
#[tokio::test(flavor = "multi_thread")]
async fn big_talk_output_is_capped_for_mcp_clients() {
    let env = Env::new();
    let m = start(&env).await;
    let id = env.create(&[]);
    // 20000 lines "1".."20000": 108894 characters with the newlines between them.
    let full: String = (1..=20_000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "seq 1 20000"}))
        .await;
    let out = v["output"].as_str().expect("output");
    assert!(
        serde_json::to_string(&v).expect("json").chars().count() <= 50_000 && full.ends_with(out),
        "{}",
        &out[..80]
    );
    assert!(out.starts_with(|c: char| c.is_ascii_digit()) && out.ends_with("\n20000"));
    assert_eq!(v["truncated"], true);
    assert_eq!(
        v["dropped_chars"].as_u64(),
        Some((full.chars().count() - out.chars().count()) as u64)
    );
    assert!(
        v.get("raw_output").is_none(),
        "raw_output only with include_raw"
    );
    assert_eq!(v["exit_code"], 0);
    // Asked for raw_output too, the cap still holds for the whole result, and the two views
    // share it: the clean output is never squeezed out by the raw one.
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "seq 1 20000", "include_raw": true}))
        .await;
    let (out, raw) = (s(&v, "output"), s(&v, "raw_output"));
    assert!(
        serde_json::to_string(&v).expect("json").chars().count() <= 50_000,
        "{}",
        &out[..80]
    );
    assert!(
        out.len() > 5_000 && out.ends_with("\n20000"),
        "{}",
        out.len()
    );
    assert!(raw.len() > 5_000 && raw.contains("20000"), "{}", raw.len());
    // The call's own max_chars wins; small outputs are whole, with nothing dropped.
    let v = m
        .json(
            json!({"action": "talk", "session_id": id, "command": "seq 1 20000", "max_chars": 12}),
        )
        .await;
    assert_eq!(v["output"], "19999\n20000");
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo hi"}))
        .await;
    assert_eq!(
        (v["output"].as_str(), v["dropped_chars"].as_u64()),
        (Some("hi"), Some(0))
    );
    assert_eq!(v["truncated"], false);
    // A timed-out talk's partial output is capped the same way.
    let v = m
        .json(
            json!({"action": "talk", "session_id": id, "command": "seq 1 20000; sleep 3",
                     "timeout_ms": 1500, "max_chars": 100}),
        )
        .await;
    assert_eq!(v["error_code"], "PTY_TIMEOUT", "{v}");
    let partial = v["details"]["partial_output"].as_str().expect("partial");
    assert!(partial.len() <= 100 && partial.ends_with("20000"), "{v}");
    assert!(
        v["details"]["dropped_chars"].as_u64() > Some(100_000),
        "{v}"
    );
    env.talk_when_free(&id, "true"); // the sleep has ended and the prompt is back
    // The CLI: all of it by default, the end with --max-chars.
    assert_eq!(env.ok(&["talk", "-s", &id, "seq 1 20000"]).trim_end(), full);
    assert_eq!(
        env.ok(&["talk", "-s", &id, "--max-chars", "5", "seq 1 20000"]),
        "20000\n"
    );
    m.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_talk_does_not_delay_other_calls() {
    let env = Env::new();
    let m = Arc::new(start(&env).await);
    let a = env.create(&[]);
    let b = env.create(&[]);
    let m2 = m.clone();
    let a2 = a.clone();
    // The slow talk runs until the test lets it end: however loaded the machine, it is still
    // running when the fast calls answer.
    let go = env.dir.path().join("go");
    let slow_cmd = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; echo slow",
        go.display()
    );
    let slow = tokio::spawn(async move {
        m2.json(json!({"action": "talk", "session_id": a2, "command": slow_cmd}))
            .await
    });
    running(&env, &a);
    assert_eq!(m.json(json!({"action": "list"})).await["count"], 2);
    assert_eq!(
        m.json(json!({"action": "talk", "session_id": b, "command": "echo fast"}))
            .await["output"],
        "fast"
    );
    assert!(
        !slow.is_finished(),
        "the fast calls finished while the slow talk still ran"
    );
    std::fs::write(&go, "").expect("let the slow talk end");
    let done = slow.await.expect("slow talk");
    assert_eq!(done["output"], "slow");
}

/// A talk whose shell or holder dies while it waits ends alike over MCP (which waits for the
/// holder on its server's event loop) and in the CLI (which waits on its own thread): the
/// same error code and exit details; and the server answers the next call.
#[tokio::test(flavor = "multi_thread")]
async fn a_talk_whose_session_dies_while_it_waits_fails_alike_over_mcp_and_the_cli() {
    let env = Env::new();
    let m = Arc::new(start(&env).await);
    for victim in ["shell", "holder"] {
        let mut ends = Vec::new();
        for front in ["cli", "mcp"] {
            let id = env.create(&[]);
            let entry = env.entry(&id);
            let pid = entry[if victim == "shell" {
                "pid"
            } else {
                "holder_pid"
            }]
            .as_u64()
            .expect("a pid");
            let talk = json!({"action": "talk", "session_id": id, "command": "sleep 30"});
            let waiting = match front {
                "mcp" => {
                    let m = m.clone();
                    tokio::spawn(async move { m.json(talk).await })
                }
                _ => {
                    let cmd = env.cmd(&["--json", "talk", "-s", &id, "sleep 30"]);
                    tokio::spawn(async move {
                        let out = tokio::task::spawn_blocking(move || {
                            crate::support::wait_child(crate::support::spawn(cmd), &["talk"])
                        });
                        let out = out.await.expect("the CLI's talk");
                        crate::support::parse(&out, &["talk"])
                    })
                }
            };
            running(&env, &id);
            crate::support::kill_9(pid);
            let v = tokio::time::timeout(Duration::from_secs(20), waiting)
                .await
                .unwrap_or_else(|_| panic!("{front}: the talk outlived its {victim}"))
                .expect("the talk's task");
            assert_eq!(v["ok"], false, "{front}, {victim} killed: {v}");
            let details = &v["details"];
            ends.push((v["error_code"].clone(), details["state"].clone()));
        }
        assert_eq!(ends[0], ends[1], "{victim} killed: CLI then MCP");
    }
    let id = env.create(&[]);
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo alive"}))
        .await;
    assert_eq!(v["output"], "alive", "{v}");
}

/// A talk to a holder that does not answer (stopped with SIGSTOP) waits on the server's loop
/// without holding it: a talk in another session answers meanwhile, and the first ends at
/// its deadline as `PTY_TIMEOUT`.
#[tokio::test(flavor = "multi_thread")]
async fn a_talk_to_a_stopped_holder_holds_no_other_call() {
    let env = Env::new();
    let m = Arc::new(start(&env).await);
    let (a, b) = (env.create(&[]), env.create(&[]));
    let holder = env.entry(&a)["holder_pid"].as_u64().expect("holder pid");
    let stopped = crate::deadlines::Stopped::new(holder);
    let m2 = m.clone();
    let waiting = tokio::spawn(async move {
        let talk =
            json!({"action": "talk", "session_id": a, "command": "echo late", "timeout_ms": 3000});
        m2.json(talk).await
    });
    let started = std::time::Instant::now();
    let other = json!({"action": "talk", "session_id": b, "command": "echo alive"});
    assert_eq!(m.json(other).await["output"], "alive");
    assert!(
        !waiting.is_finished(),
        "the stopped holder's talk ended before the other one answered"
    );
    let v = tokio::time::timeout(Duration::from_secs(15), waiting)
        .await
        .expect("the talk ends at its deadline")
        .expect("the talk's task");
    assert_eq!(v["error_code"], "PTY_TIMEOUT", "{v}");
    assert!(started.elapsed() >= Duration::from_millis(3000), "{v}");
    drop(stopped);
}

/// A talk in a session that ended (or stopped answering) after an earlier talk answers alike
/// over MCP — whose server kept its connection to the holder from that talk — and in the CLI,
/// which connects anew: the same error code and state, however the session ended. The
/// server then talks in a new session as before.
#[tokio::test(flavor = "multi_thread")]
async fn a_talk_after_its_session_ended_answers_alike_over_a_kept_connection_and_the_cli() {
    let env = Env::new();
    let m = start(&env).await;
    for end in ["kill", "exit", "shell", "holder", "stopped"] {
        let mut answers = Vec::new();
        for front in ["cli", "mcp"] {
            let id = env.create(&[]);
            let talk = |command: &str| json!({"action": "talk", "session_id": id, "command": command, "timeout_ms": 2000});
            let first = match front {
                "mcp" => m.json(talk("echo first")).await,
                _ => env.json(&["talk", "-s", &id, "echo first"]),
            };
            assert_eq!(first["output"], "first", "{end}, {front}: {first}");
            let entry = env.entry(&id);
            let (shell, holder) = (entry["pid"].as_u64(), entry["holder_pid"].as_u64());
            let (shell, holder) = (shell.expect("shell pid"), holder.expect("holder pid"));
            let mut stopped = None;
            match end {
                "kill" => drop(env.ok_json(&["kill", "-s", &id])),
                "exit" => drop(env.kpty(&["talk", "-s", &id, "exit 3"])),
                "shell" => crate::support::kill_9(shell),
                "holder" => crate::support::kill_9(holder),
                _ => stopped = Some(crate::deadlines::Stopped::new(holder)),
            }
            if stopped.is_none() {
                crate::support::wait_for(20_000, "the holder to end", || {
                    crate::support::pid_gone(holder)
                });
            }
            let v = match front {
                "mcp" => m.json(talk("echo again")).await,
                _ => env.json(&["talk", "-s", &id, "--timeout-ms", "2000", "echo again"]),
            };
            assert_eq!(v["ok"], false, "{end}, {front}: {v}");
            answers.push((v["error_code"].clone(), v["details"]["state"].clone()));
            drop(stopped);
        }
        assert_eq!(
            answers[0], answers[1],
            "{end}: the CLI's answer, then MCP's"
        );
    }
    let id = env.create(&[]);
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo alive"}))
        .await;
    assert_eq!(v["output"], "alive", "{v}");
}

/// Wait until the session runs a command (a talk typed it and it started).
fn running(env: &Env, id: &str) {
    crate::support::wait_for(20_000, "the talk's command to start", || {
        env.json(&["read", "-s", id, "--timeout-ms", "100"])["terminal_state"] == "running"
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_and_cancellation() {
    let env = Env::new();
    let m = start(&env).await;
    let id = env.create(&[]);
    let peer = m.client.peer().clone();
    let call = |cmd: &str| {
        ClientRequest::CallToolRequest(Request::new(
            CallToolRequestParams::new("k_pty").with_arguments(
                json!({"action": "talk", "session_id": id, "command": cmd})
                    .as_object()
                    .expect("obj")
                    .clone(),
            ),
        ))
    };
    // progress: a token is attached by send_cancellable_request; output so far arrives
    let h = peer
        .send_cancellable_request(
            call("for i in 1 2 3 4; do echo line$i; sleep 0.4; done"),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("send");
    let r = h.await_response().await.expect("response");
    let ServerResult::CallToolResult(r) = r else {
        panic!("unexpected result {r:?}")
    };
    assert_eq!(
        r.structured_content.expect("content")["output"],
        "line1\nline2\nline3\nline4"
    );
    let seen = m.handler.progress.lock().expect("lock").clone();
    assert!(!seen.is_empty(), "no progress notifications");
    assert!(
        seen.iter()
            .any(|p| p.message.as_deref().is_some_and(|t| t.contains("line1"))),
        "{seen:?}"
    );
    // Each notification streams what is new since the previous one: no line twice, and
    // `progress` (bytes so far) only grows.
    for line in ["line1", "line2", "line3"] {
        let n = seen
            .iter()
            .filter(|p| p.message.as_deref().is_some_and(|t| t.contains(line)))
            .count();
        assert!(n <= 1, "{line} in {n} notifications: {seen:?}");
    }
    assert!(
        seen.windows(2).all(|w| w[1].progress > w[0].progress),
        "{seen:?}"
    );
    // cancellation: the call stops, the command is interrupted, the session is usable at once
    let h = peer
        .send_cancellable_request(call("sleep 30"), PeerRequestOptions::no_options())
        .await
        .expect("send");
    running(&env, &id);
    h.cancel(Some("test".into())).await.expect("cancel");
    // The cancelled sleep (30 s) no longer holds the session: a talk runs well before it ends.
    let v = m.json(json!({"action": "talk", "session_id": id, "command": "echo after", "timeout_ms": 20000})).await;
    assert_eq!(v["output"], "after", "{v}");
    m.client.cancel().await.expect("close");
}

#[test]
fn raw_stdio_protocol_versions_garbage_and_eof() {
    let env = Env::new();
    let lines = vec![
        r#"this is not json"#.to_string(),
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/ca".to_string(),
        json!({"jsonrpc":"2.0","id":3,"method":"no/such/method"}).to_string(),
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"k_pty","arguments":{"action":"talk","command":"echo raw"}}}).to_string(),
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"k_pty","arguments":{"action":"talk","command":"x".repeat(2_000_000)}}}).to_string(),
    ];
    // EOF after the last line: answer what is in flight, then exit cleanly.
    let replies = raw_session(&env, lines, Duration::from_secs(60));
    let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).cloned();
    assert_eq!(
        by_id(1).expect("init")["result"]["protocolVersion"],
        "2024-11-05"
    );
    assert!(by_id(3).expect("unknown method")["error"].is_object());
    let talk = by_id(4).expect("talk reply");
    assert_eq!(talk["result"]["structuredContent"]["output"], "raw");
    let huge = by_id(5).expect("huge reply");
    assert_eq!(huge["result"]["isError"], true);
    assert_eq!(
        huge["result"]["structuredContent"]["error_code"],
        "INVALID_PARAMS"
    );
    // the default session outlives the server
    let l = env.ok_json(&["list"]);
    assert_eq!(l["sessions"][0]["state"], "running");
}

/// Every kind of request before `initialize` gets an error saying to initialize first (not
/// rmcp's `-32602` about `_meta`); notifications then are dropped, `ping` is answered, and
/// the server serves normally once initialized.
#[test]
fn a_request_before_initialize_is_told_to_initialize_first() {
    let env = Env::new();
    let early = [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "k_pty", "arguments": {"action": "list"}}),
        ),
        ("resources/list", json!({})),
        ("prompts/list", json!({})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}}),
        ),
        ("no/such/method", json!({})),
    ];
    let mut lines = Vec::new();
    for (i, (method, params)) in early.iter().enumerate() {
        lines.push(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": method, "params": params}).to_string(),
        );
        // Notifications and stray responses before initialize do not end the server.
        lines.push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        lines.push(json!({"jsonrpc": "2.0", "id": 900 + i, "result": {}}).to_string());
    }
    lines.push(json!({"jsonrpc": "2.0", "id": 50, "method": "ping"}).to_string());
    lines.push(json!({"jsonrpc":"2.0","id":60,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}).to_string());
    lines.push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    lines.push(json!({"jsonrpc": "2.0", "id": 70, "method": "tools/list"}).to_string());
    let replies = raw_session(&env, lines, Duration::from_secs(60));
    let by_id = |id: usize| replies.iter().find(|r| r["id"] == id).cloned();
    for (i, (method, _)) in early.iter().enumerate() {
        let r = by_id(i + 1).unwrap_or_else(|| panic!("no reply to {method}: {replies:?}"));
        assert_eq!(r["error"]["code"], -32002, "{method}: {r}");
        let text = r["error"]["message"].as_str().unwrap_or_default();
        assert!(
            text.contains("initialize") && text.contains(method),
            "{method}: {text}"
        );
    }
    assert_eq!(by_id(50).expect("ping")["result"], json!({}));
    assert_eq!(
        by_id(60).expect("initialize")["result"]["protocolVersion"],
        "2025-06-18"
    );
    assert_eq!(
        by_id(70).expect("tools/list")["result"]["tools"][0]["name"],
        "k_pty"
    );
    assert_eq!(replies.len(), early.len() + 3, "{replies:?}");
}

#[test]
fn a_talk_in_flight_when_the_client_leaves_is_stopped_and_its_session_left_free() {
    let env = Env::new();
    env.create(&["--label", "left"]);
    let lines = vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        raw_call(2, json!({"action": "talk", "session_id": "left", "command": "sleep 300; echo LATE"})),
    ];
    // EOF with the talk running: the server exits (raw_session asserts a clean exit) ...
    let replies = raw_session(&env, lines, Duration::from_secs(60));
    assert!(replies.iter().any(|r| r["id"] == 1), "{replies:?}");
    // ... and the command was interrupted, so the session takes the next talk at once.
    let v = env.ok_json(&["talk", "-s", "left", "-t", "10000", "echo free-$((6*7))"]);
    assert_eq!(s(&v, "output"), "free-42", "{v}");
}

/// The contract: for each action the CLI's `--json` object and the MCP structured content
/// are the same object, ids, times and offsets aside.
#[tokio::test(flavor = "multi_thread")]
async fn cli_json_and_mcp_results_are_the_same_object() {
    /// Volatile values masked; an error's message up to its hint, which each front end
    /// words in its own language (`kpty read -s …` vs `read`).
    fn norm(v: &Value) -> Value {
        use crate::support::VOLATILE;
        let mut v = crate::support::mask(v, VOLATILE, &|_, _| Value::String("*".into()));
        for k in ["message", "error"] {
            if let Some(m) = v[k].as_str() {
                v[k] = Value::String(m.split("; ").next().unwrap_or_default().to_string());
            }
        }
        v
    }
    let env = Env::new();
    let m = start(&env).await;
    let a = env.create(&["--label", "a"]);
    let b = m.json(json!({"action": "create", "label": "b"})).await["session_id"]
        .as_str()
        .expect("id")
        .to_string();
    let pairs: Vec<(Vec<&str>, Value)> = vec![
        (
            vec!["talk", "-s", &a, "echo x"],
            json!({"action": "talk", "session_id": b, "command": "echo x", "include_raw": true}),
        ),
        (
            vec!["talk", "-s", &a, "-t", "200", "sleep 1"],
            json!({"action": "talk", "session_id": b, "command": "sleep 1", "timeout_ms": 200}),
        ),
        (
            vec!["send-line", "-s", &a, "true"],
            json!({"action": "send_line", "session_id": b, "data": "true"}),
        ),
        (
            vec!["resize", "-s", &a, "--cols", "81", "--rows", "21"],
            json!({"action": "resize", "session_id": b, "cols": 81, "rows": 21}),
        ),
        (
            vec!["read", "-s", "pty_00000000"],
            json!({"action": "read", "session_id": "pty_00000000"}),
        ),
        (vec!["help"], json!({"action": "help"})),
    ];
    for (cli, mcp) in pairs {
        let c = env.json(&cli);
        let mv = m.json(mcp.clone()).await;
        assert_eq!(norm(&c), norm(&mv), "CLI {cli:?} vs MCP {mcp}");
    }
    m.client.cancel().await.expect("close");
}

/// `kpty mcp` with piped stdio; `lines` are written (one per line, from a thread; the last
/// without its newline, which a final line does not need) and then stdin is closed. Returns every stdout line, parsed (each must be JSON), once the server
/// exits, and asserts it exited cleanly within `deadline`.
fn raw_session(env: &Env, lines: Vec<String>, deadline: Duration) -> Vec<Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = env
        .cmd(&["mcp"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let text = lines.join("\n");
        // The server may stop reading; a broken pipe then ends the writing.
        let _ = stdin.write_all(text.as_bytes());
    });
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let replies: Vec<String> = out.lines().map_while(Result::ok).collect();
        let _ = tx.send(replies);
    });
    let replies = match rx.recv_timeout(deadline) {
        Ok(r) => r,
        Err(_) => {
            let _ = child.kill();
            panic!("kpty mcp did not finish within {deadline:?}");
        }
    };
    let _ = writer.join();
    let st = child.wait().expect("wait");
    assert!(st.success(), "exit status {st:?}");
    replies
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("only JSON-RPC on stdout"))
        .collect()
}

fn raw_call(id: i64, args: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"k_pty","arguments":args}}).to_string()
}

#[test]
fn raw_stdio_too_deep_too_large_and_string_arguments_get_error_replies() {
    let env = Env::new();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"k_pty","arguments":{{"action":"list","x":{}{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let lines = vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        deep,
        raw_call(8, json!({"action": "list"})),
        raw_call(9, json!({"action": "send_line", "data": "x".repeat(20 << 20)})),
        raw_call(10, json!({"action": "list"})),
        json!({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"k_pty","arguments":"{\"action\":\"list\"}"}}).to_string(),
        "not json".to_string(),
        json!({"jsonrpc":"2.0","id":12,"method":"tools/list"}).to_string(),
    ];
    let replies = raw_session(&env, lines, Duration::from_secs(60));
    let by_id = |id: Value| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no reply with id {id}: {replies:?}"))
    };
    let code = |r: &Value| r["error"]["code"].as_i64();
    let deep = by_id(json!(7));
    assert_eq!(code(&deep), Some(-32600), "{deep}");
    let huge = by_id(json!(9));
    assert_eq!(code(&huge), Some(-32600), "{huge}");
    assert!(
        huge["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("bytes")),
        "{huge}"
    );
    for id in [8, 10] {
        let r = by_id(json!(id));
        assert_eq!(r["result"]["structuredContent"]["ok"], true, "{r}");
    }
    let string_args = by_id(json!(11));
    assert_eq!(code(&string_args), Some(-32602), "{string_args}");
    assert!(
        string_args["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("arguments must be a JSON object")),
        "{string_args}"
    );
    let not_json = by_id(Value::Null);
    assert_eq!(code(&not_json), Some(-32700), "{not_json}");
    assert!(by_id(json!(12))["result"]["tools"].is_array());
}

#[test]
fn raw_stdio_not_json_alone_is_a_parse_error_reply() {
    let env = Env::new();
    let replies = raw_session(&env, vec!["not json".to_string()], Duration::from_secs(20));
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(
        (&replies[0]["id"], &replies[0]["error"]["code"]),
        (&Value::Null, &json!(-32700)),
        "{replies:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn talk_read_term_read_and_progress_are_redacted() {
    use crate::support::{leaked, private_key, secret_lines};
    let env = Env::new();
    let lines: Vec<String> = secret_lines().into_iter().map(|(l, _)| l).collect();
    std::fs::write(env.home().join("secrets.txt"), lines.join("\n\n") + "\n").expect("write");
    let (pem, body) = private_key(12);
    std::fs::write(env.home().join("key.pem"), pem).expect("write");
    let m = start(&env).await;
    let id = env.create(&[]);
    let v = m
        .json(
            json!({"action": "talk", "session_id": id, "command": "cat secrets.txt; cat key.pem"}),
        )
        .await;
    let text = v.to_string();
    assert!(
        leaked(&text, &body).is_empty(),
        "talk leaked {:?}",
        leaked(&text, &body)
    );
    assert!(text.contains("[REDACTED:private_key]") && text.contains("[REDACTED:github_token]"));
    let v = m
        .json(json!({"action": "read", "session_id": id, "timeout_ms": 0, "max_bytes": 65536}))
        .await;
    assert!(leaked(&v.to_string(), &body).is_empty(), "{v}");
    for n in [1, 3, 6, 10, 40] {
        let v = m
            .json(json!({"action": "term_read", "session_id": id, "max_lines": n}))
            .await;
        assert!(
            leaked(&v.to_string(), &body).is_empty(),
            "max_lines {n}: {v}"
        );
    }
    // Progress messages (the tail of the output so far) are redacted too.
    let h = m
        .client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(
                CallToolRequestParams::new("k_pty").with_arguments(
                    json!({"action": "talk", "session_id": id,
                           "command": "cat secrets.txt; sleep 0.6; cat key.pem; sleep 0.6"})
                    .as_object()
                    .expect("obj")
                    .clone(),
                ),
            )),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("send");
    let r = h.await_response().await.expect("response");
    assert!(leaked(&format!("{r:?}"), &body).is_empty());
    let seen = m.handler.progress.lock().expect("lock").clone();
    assert!(!seen.is_empty(), "no progress notifications");
    for p in &seen {
        let t = p.message.clone().unwrap_or_default();
        assert!(leaked(&t, &body).is_empty(), "progress leaked: {t}");
    }
    m.client.cancel().await.expect("close");
}

/// Calls whose failure quotes what the caller sent, from each place a failure can come from:
/// the tool's argument check (the action, a parameter's name, a parameter's type) and the
/// core (a session id, a pattern, a key name).
pub(crate) fn calls_quoting(secret: &str) -> Vec<Value> {
    let mut named = serde_json::Map::new();
    named.insert("action".into(), json!("list"));
    named.insert(secret.to_string(), json!(1));
    vec![
        json!({"action": secret}),
        Value::Object(named),
        json!({"action": "talk", "session_id": "nope", "command": "true", "timeout_ms": secret}),
        json!({"action": "talk", "session_id": secret, "command": "true"}),
        json!({"action": "wait_for", "session_id": "nope", "pattern": format!("({secret}")}),
        json!({"action": "send_keys", "session_id": "nope", "keys": [secret]}),
    ]
}

/// Every failure over `m` that quotes a secret the caller sent answers without it (the
/// structured content and its text, which [`Mcp::json`] checks agree), for every kind of
/// token the redaction knows by its shape.
pub(crate) async fn quoted_secrets_stay_hidden(m: &Mcp) {
    for (line, secret) in crate::support::secret_lines() {
        // Only a token whose line is the token itself is a secret by its shape alone.
        if line.contains(' ') {
            continue;
        }
        for args in calls_quoting(&line) {
            let v = m.json(args.clone()).await;
            assert_eq!(v["ok"], false, "{args} → {v}");
            assert!(
                !v.to_string().contains(&secret),
                "{secret} leaked: {args} → {v}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn failures_that_quote_a_secret_are_redacted() {
    let env = Env::new();
    let m = start(&env).await;
    quoted_secrets_stay_hidden(&m).await;
    m.close().await;
}
