//! One running talk, whichever front end runs it: front end (CLI, MCP over stdio, HTTP) × how
//! the caller leaves (it cancels, or it goes away) → the command in the session is
//! interrupted, the session is free again (the next talk works), and the audit trail records
//! the talk as `CANCELLED`.

use crate::bridge::Serve;
use crate::mcp::Mcp;
use crate::support::{Env, spawn, wait_child, wait_for};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
use rmcp::service::{PeerRequestOptions, RequestHandle};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpStream;
use std::process::Child;

/// A command that prints `started` once it runs (the typed text never contains the word
/// whole), then sleeps far longer than any test waits.
const LONG: &str = "echo sta''rted; sleep 90";

#[derive(Clone, Copy, Debug)]
enum Front {
    /// `kpty talk`.
    Cli,
    /// `kpty mcp`, through rmcp's client over the child's stdio.
    McpStdio,
    /// `kpty serve`: MCP over HTTP for a cancel, the bridge's `POST /pty/talk` for a caller
    /// that goes away.
    Http,
}

#[derive(Clone, Copy, Debug)]
enum Leave {
    /// The caller cancels: SIGINT to `kpty talk`, `notifications/cancelled` over MCP.
    Cancel,
    /// The caller goes away: SIGHUP to `kpty talk` (its terminal closed), the MCP client
    /// closes its connection, the HTTP client closes its socket mid-request.
    Disconnect,
    /// The process that holds the talk's connection to its session is killed (SIGKILL):
    /// `kpty talk`, `kpty mcp`, `kpty serve`. Nothing of it can cancel anything.
    Killed,
}

/// What keeps a talk running until the caller leaves (and is cleaned up after).
enum Caller {
    Cli(Child),
    Mcp(Mcp, RequestHandle<RoleClient>),
    HttpMcp(Serve, Mcp, RequestHandle<RoleClient>),
    HttpRaw(Serve, TcpStream),
}

/// The `k_pty` talk request running `cmd` in `id`.
fn talk_request(id: &str, cmd: &str) -> ClientRequest {
    let args = json!({"action": "talk", "session_id": id, "command": cmd, "timeout_ms": 600000});
    ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("k_pty").with_arguments(args.as_object().expect("obj").clone()),
    ))
}

/// Start a talk running `cmd` in `id` through `front`.
async fn start(env: &Env, front: Front, leave: Leave, id: &str, cmd: &str) -> Caller {
    match ready(env, front, leave).await {
        Ready::Cli => Caller::Cli(spawn(env.cmd(&["talk", "-s", id, cmd]))),
        Ready::Mcp(m) => {
            let h = send(&m, id, cmd).await;
            Caller::Mcp(m, h)
        }
        Ready::HttpMcp(serve, m) => {
            let h = send(&m, id, cmd).await;
            Caller::HttpMcp(serve, m, h)
        }
        Ready::HttpRaw(serve) => {
            let sock = post_talk(&serve, id, cmd);
            Caller::HttpRaw(serve, sock)
        }
    }
}

/// A front end up and ready to take a talk (its server started, its client connected).
enum Ready {
    Cli,
    Mcp(Mcp),
    HttpMcp(Serve, Mcp),
    HttpRaw(Serve),
}

async fn ready(env: &Env, front: Front, leave: Leave) -> Ready {
    match (front, leave) {
        (Front::Cli, _) => Ready::Cli,
        (Front::McpStdio, _) => Ready::Mcp(crate::mcp::start(env).await),
        (Front::Http, Leave::Cancel) => {
            let serve = Serve::start(env);
            let m = crate::serve_mcp::connect(&serve).await;
            Ready::HttpMcp(serve, m)
        }
        (Front::Http, _) => Ready::HttpRaw(Serve::start(env)),
    }
}

async fn send(m: &Mcp, id: &str, cmd: &str) -> RequestHandle<RoleClient> {
    m.client
        .peer()
        .send_cancellable_request(talk_request(id, cmd), PeerRequestOptions::no_options())
        .await
        .expect("send the talk")
}

/// `POST /pty/talk` on a raw socket, left waiting for its answer.
fn post_talk(serve: &Serve, id: &str, cmd: &str) -> TcpStream {
    let addr = serve.url.trim_start_matches("http://").to_string();
    let body = json!({"session_id": id, "command": cmd, "timeout_ms": 600000}).to_string();
    let mut sock = TcpStream::connect(&addr).expect("connect to kpty serve");
    let head = format!(
        "POST /pty/talk HTTP/1.1\r\nHost: {addr}\r\nX-Kuroryuu-Desktop-Secret: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        serve.secret,
        body.len()
    );
    sock.write_all(head.as_bytes()).expect("send the head");
    sock.write_all(body.as_bytes()).expect("send the body");
    sock
}

/// The caller leaves as `leave` says; what must stay alive (a server) is returned. `kpty
/// talk` exits 130 (its stderr returned).
async fn leave(caller: Caller, leave: Leave) -> (Option<Serve>, String) {
    let signal = |child: &Child, sig| {
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
        rustix::process::kill_process(pid, sig).expect("signal kpty talk");
    };
    match (caller, leave) {
        (Caller::Cli(mut child), Leave::Killed) => {
            child.kill().expect("kill kpty talk");
            child.wait().expect("reap kpty talk");
            (None, String::new())
        }
        (Caller::Mcp(m, _h), Leave::Killed) => {
            let pid = rustix::process::Pid::from_raw(m.pid as i32).expect("pid");
            rustix::process::kill_process(pid, rustix::process::Signal::KILL).expect("kill");
            m.close().await;
            (None, String::new())
        }
        (Caller::HttpRaw(mut serve, sock), Leave::Killed) => {
            serve.child.kill().expect("kill kpty serve");
            serve.child.wait().expect("reap kpty serve");
            drop(sock);
            (None, String::new())
        }
        (Caller::Cli(child), l) => {
            let sig = match l {
                Leave::Cancel => rustix::process::Signal::INT,
                _ => rustix::process::Signal::HUP,
            };
            signal(&child, sig);
            let out = wait_child(child, &["talk"]);
            assert_eq!(out.status.code(), Some(130), "{out:?}");
            (None, String::from_utf8_lossy(&out.stderr).into_owned())
        }
        (Caller::Mcp(m, h), Leave::Cancel) => {
            h.cancel(Some("test".into())).await.expect("cancel");
            m.close().await;
            (None, String::new())
        }
        (Caller::Mcp(m, _h), _) => {
            m.close().await;
            (None, String::new())
        }
        (Caller::HttpMcp(serve, m, h), _) => {
            h.cancel(Some("test".into())).await.expect("cancel");
            drop(m);
            (Some(serve), String::new())
        }
        (Caller::HttpRaw(serve, sock), _) => {
            sock.shutdown(std::net::Shutdown::Both)
                .expect("close the socket");
            drop(sock);
            (Some(serve), String::new())
        }
    }
}

/// The audit trail's talks running LONG.
fn long_talks(env: &Env) -> Vec<Value> {
    let log = env.ok(&["--json", "log", "--action", "talk"]);
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["command"] == LONG)
        .collect()
}

/// One cell of the matrix.
async fn cell(front: Front, how: Leave) {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    let caller = start(&env, front, how, &id, LONG).await;
    env.read_until(&id, from, "started");
    let (_server, _) = leave(caller, how).await;
    let what = format!("{front:?} × {how:?}: the session to be free again");
    let mut last = Value::Null;
    wait_for(30_000, &what, || {
        last = env.json(&["talk", "-s", &id, "--timeout-ms", "10000", "echo fr''ee"]);
        last["ok"] == true
    });
    assert_eq!(last["output"], "free", "{front:?} × {how:?}: {last}");
    // One Ctrl-C for the talk, however many cancels reached its holder (a front end's own
    // and its shutdown's): a second would reach the shell at its prompt.
    let (typed, since) = env.ctrl_c_shown(&id, from);
    assert_eq!(
        typed, 1,
        "{front:?} × {how:?}: Ctrl-C typed {typed} times: {since}"
    );
    let mut events = vec![];
    if !crate::support::holds_within(20_000, || {
        events = long_talks(&env);
        !events.is_empty()
    }) {
        // What the trail and the terminal show, to tell why.
        let trail = env.ok(&["--json", "log"]);
        let read = env.ok(&["--json", "read", "-s", &id]);
        panic!("{front:?} × {how:?}: the talk is not in the trail: {trail} | the terminal: {read}");
    }
    assert_eq!(events.len(), 1, "{front:?} × {how:?}: {events:?}");
    assert_eq!(
        events[0]["success"], false,
        "{front:?} × {how:?}: {events:?}"
    );
    assert_eq!(
        events[0]["error_code"], "CANCELLED",
        "{front:?} × {how:?}: {events:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_interrupts_its_command_when_cancelled_or_hung_up() {
    cell(Front::Cli, Leave::Cancel).await;
    cell(Front::Cli, Leave::Disconnect).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_stdio_interrupts_the_command_when_cancelled_or_the_client_leaves() {
    cell(Front::McpStdio, Leave::Cancel).await;
    cell(Front::McpStdio, Leave::Disconnect).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn http_interrupts_the_command_when_cancelled_or_the_client_leaves() {
    cell(Front::Http, Leave::Cancel).await;
    cell(Front::Http, Leave::Disconnect).await;
}

/// The `k_pty` wait_for request for `id`: a pattern that never shows, a timeout far beyond
/// any test's.
fn endless_wait(id: &str) -> ClientRequest {
    let args = json!({"action": "wait_for", "session_id": id, "pattern": "never-sh[o]wn-here",
                      "timeout_ms": 600000});
    ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("k_pty").with_arguments(args.as_object().expect("obj").clone()),
    ))
}

/// The trail's lines for `id` that say `key` is `value` (intent lines included).
fn trail_lines(env: &Env, id: &str, key: &str, value: &str) -> Vec<Value> {
    let path = env.state().join("sessions").join(id).join("events.jsonl");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e[key] == value)
        .collect()
}

/// A wait_for whose MCP client cancels it (over stdio and over HTTP) stops waiting at once:
/// the trail records it `CANCELLED` long before its ten-minute timeout, and the session
/// answers the next call.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_wait_for_stops_waiting_at_once() {
    for front in [Front::McpStdio, Front::Http] {
        let env = Env::new();
        let id = env.create(&[]);
        let (serve, m) = match front {
            Front::Http => {
                let serve = Serve::start(&env);
                let m = crate::serve_mcp::connect(&serve).await;
                (Some(serve), m)
            }
            _ => (None, crate::mcp::start(&env).await),
        };
        let h = m
            .client
            .peer()
            .send_cancellable_request(endless_wait(&id), PeerRequestOptions::no_options())
            .await
            .expect("send the wait");
        wait_for(20_000, &format!("{front:?}: the wait under way"), || {
            !trail_lines(&env, &id, "intent", "wait_for").is_empty()
        });
        h.cancel(Some("test".into())).await.expect("cancel");
        let mut ended = vec![];
        wait_for(20_000, &format!("{front:?}: the wait recorded"), || {
            ended = trail_lines(&env, &id, "action", "wait_for");
            !ended.is_empty()
        });
        assert_eq!(ended[0]["error_code"], "CANCELLED", "{front:?}: {ended:?}");
        let v = env.json(&["talk", "-s", &id, "echo fr''ee"]);
        assert_eq!(v["output"], "free", "{front:?}: {v}");
        m.close().await;
        drop(serve);
    }
}

/// The talk that runs while another caller's talk waits behind it: it says it started, then
/// waits for the file `go` (made once the waiting talk's caller has left) and says it
/// finished.
fn first_talk(go: &std::path::Path) -> String {
    format!(
        "echo sta''rted; while [ ! -e '{}' ]; do sleep 0.05; done; echo fini''shed",
        go.display()
    )
}

/// The talk that waits behind it; never typed when its caller leaves first.
const QUEUED: &str = "echo que''ued-ran";

/// The audit trail's talks that ran `cmd`.
fn talks_of(env: &Env, cmd: &str) -> Vec<Value> {
    let log = env.ok(&["--json", "log", "--action", "talk"]);
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["command"] == cmd)
        .collect()
}

/// When the waiting talk's caller leaves.
#[derive(Clone, Copy, Debug)]
enum Moment {
    /// As soon as kpty took the talk (its audit intent is written): it may not have
    /// reached the session's holder yet.
    Taken,
    /// Once the talk waits in the holder (`list` counts it in `waiting_talks`).
    Waiting,
}

/// The session's `waiting_talks` (0 when `list` leaves it out).
fn waiting_talks(env: &Env, id: &str) -> u64 {
    env.entry(id)["waiting_talks"].as_u64().unwrap_or(0)
}

/// One cell: a talk runs (`kpty talk`), `front`'s talk waits behind it, and its caller
/// leaves at `moment`. The waiting talk ends with nothing of it typed (`CANCELLED`, when its
/// caller lives to record it); the running talk — another caller's — runs on untouched: no
/// Ctrl-C reaches its command, which prints all it prints and exits 0.
async fn queued_cell(front: Front, how: Leave, moment: Moment) {
    let cell = format!("{front:?} × {how:?} × {moment:?}");
    let env = Env::new();
    // Every wait here blocks its thread: it is handed off first (`blocking`), so that the
    // tasks queued on this worker — an MCP client's loop — run on meanwhile.
    let (id, from, go, first) = blocking(|| {
        let id = env.create(&[]);
        let from = env.offset(&id);
        let go = env.state().join("go");
        let first = spawn(env.cmd(&["--json", "talk", "-s", &id, &first_talk(&go)]));
        env.read_until(&id, from, "started");
        (id, from, go, first)
    });
    let caller = start(&env, front, how, &id, QUEUED).await;
    blocking(|| match moment {
        Moment::Taken => wait_for(20_000, &format!("{cell}: the talk taken"), || {
            let intents = trail_lines(&env, &id, "intent", "talk");
            intents.iter().any(|e| e["command"] == QUEUED)
        }),
        Moment::Waiting => wait_for(20_000, &format!("{cell}: the talk waiting"), || {
            waiting_talks(&env, &id) == 1
        }),
    });
    let (_server, stderr) = leave(caller, how).await;
    if let (Front::Cli, Leave::Cancel | Leave::Disconnect) = (front, how) {
        assert!(stderr.contains("nothing of it ran"), "{cell}: {stderr}");
    }
    blocking(|| {
        if let Leave::Killed = how {
            // Nobody is left to record it: the holder gives it up when its caller's
            // connection closes.
            wait_for(20_000, &format!("{cell}: the talk given up"), || {
                waiting_talks(&env, &id) == 0
            });
        } else {
            let mut events = vec![];
            wait_for(
                20_000,
                &format!("{cell}: the waiting talk in the trail"),
                || {
                    events = talks_of(&env, QUEUED);
                    !events.is_empty()
                },
            );
            assert_eq!(events[0]["error_code"], "CANCELLED", "{cell}: {events:?}");
        }
        std::fs::write(&go, "").expect("let the first talk finish");
        let out = wait_child(first, &["talk", "first"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        assert_eq!(
            v["exit_code"], 0,
            "{cell}: the running talk was disturbed: {v} {out:?}"
        );
        assert_eq!(v["output"], "started\nfinished", "{cell}: {v}");
        let free = env.json(&["talk", "-s", &id, "--timeout-ms", "10000", "echo fr''ee"]);
        assert_eq!(free["output"], "free", "{cell}: {free}");
        let (typed, since) = env.ctrl_c_shown(&id, from);
        assert_eq!(typed, 0, "{cell}: a Ctrl-C reached the session: {since}");
        let shown = since["output"].as_str().unwrap_or_default();
        assert!(
            !shown.contains("queued-ran"),
            "{cell}: the waiting talk ran: {since}"
        );
        let recorded = talks_of(&env, QUEUED).len();
        let expected = if let Leave::Killed = how { 0 } else { 1 };
        assert_eq!(recorded, expected, "{cell}");
    });
}

/// A talk waiting for another caller's talk to end, cancelled or left by its caller — every
/// front end, every way of leaving (its process killed too), as soon as kpty took it or once
/// it waits in the holder — ends there without typing anything, and stops nothing of the
/// other talk: a cancel names its own talk, and a talk whose caller is gone is not typed
/// later for nobody.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_talk_waiting_behind_another_stops_only_itself() {
    let mut cells = tokio::task::JoinSet::new();
    for front in [Front::Cli, Front::McpStdio, Front::Http] {
        for how in [Leave::Cancel, Leave::Disconnect, Leave::Killed] {
            for moment in [Moment::Taken, Moment::Waiting] {
                // Killed before the holder has it, a talk may still reach it: only once it
                // waits there is its caller's death what the holder sees.
                if let (Leave::Killed, Moment::Taken) = (how, moment) {
                    continue;
                }
                cells.spawn(queued_cell(front, how, moment));
            }
        }
    }
    // Every cell's failure, not only the first's.
    let mut failed = vec![];
    while let Some(done) = cells.join_next().await {
        if let Err(e) = done {
            let p = e.into_panic();
            let why = p.downcast_ref::<String>().cloned();
            failed.push(why.unwrap_or_else(|| format!("{p:?}")));
        }
    }
    assert!(
        failed.is_empty(),
        "{} cells failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// Run `f`, which blocks, on this worker's thread once its queued tasks are handed to
/// another.
fn blocking<T>(f: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(f)
}
