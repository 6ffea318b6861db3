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
}

/// What keeps a talk running until the caller leaves (and is cleaned up after).
enum Caller {
    Cli(Child),
    Mcp(Mcp, RequestHandle<RoleClient>),
    HttpMcp(Serve, Mcp, RequestHandle<RoleClient>),
    HttpRaw(Serve, TcpStream),
}

/// The `k_pty` talk request for `id`.
fn talk_request(id: &str) -> ClientRequest {
    let args = json!({"action": "talk", "session_id": id, "command": LONG, "timeout_ms": 600000});
    ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("k_pty").with_arguments(args.as_object().expect("obj").clone()),
    ))
}

/// Start a talk running LONG in `id` through `front`.
async fn start(env: &Env, front: Front, leave: Leave, id: &str) -> Caller {
    match (front, leave) {
        (Front::Cli, _) => Caller::Cli(spawn(env.cmd(&["talk", "-s", id, LONG]))),
        (Front::McpStdio, _) => {
            let m = crate::mcp::start(env).await;
            let h = send(&m, id).await;
            Caller::Mcp(m, h)
        }
        (Front::Http, Leave::Cancel) => {
            let serve = Serve::start(env);
            let m = crate::serve_mcp::connect(&serve).await;
            let h = send(&m, id).await;
            Caller::HttpMcp(serve, m, h)
        }
        (Front::Http, Leave::Disconnect) => {
            let serve = Serve::start(env);
            let sock = post_talk(&serve, id);
            Caller::HttpRaw(serve, sock)
        }
    }
}

async fn send(m: &Mcp, id: &str) -> RequestHandle<RoleClient> {
    m.client
        .peer()
        .send_cancellable_request(talk_request(id), PeerRequestOptions::no_options())
        .await
        .expect("send the talk")
}

/// `POST /pty/talk` on a raw socket, left waiting for its answer.
fn post_talk(serve: &Serve, id: &str) -> TcpStream {
    let addr = serve.url.trim_start_matches("http://").to_string();
    let body = json!({"session_id": id, "command": LONG, "timeout_ms": 600000}).to_string();
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

/// The caller leaves as `leave` says; what must stay alive (a server) is returned.
async fn leave(caller: Caller, leave: Leave) -> Option<Serve> {
    let signal = |child: &Child, sig| {
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
        rustix::process::kill_process(pid, sig).expect("signal kpty talk");
    };
    match (caller, leave) {
        (Caller::Cli(child), l) => {
            let sig = match l {
                Leave::Cancel => rustix::process::Signal::INT,
                Leave::Disconnect => rustix::process::Signal::HUP,
            };
            signal(&child, sig);
            let out = wait_child(child, &["talk", LONG]);
            assert_eq!(out.status.code(), Some(130), "{out:?}");
            None
        }
        (Caller::Mcp(m, h), Leave::Cancel) => {
            h.cancel(Some("test".into())).await.expect("cancel");
            m.close().await;
            None
        }
        (Caller::Mcp(m, _h), Leave::Disconnect) => {
            m.close().await;
            None
        }
        (Caller::HttpMcp(serve, m, h), _) => {
            h.cancel(Some("test".into())).await.expect("cancel");
            drop(m);
            Some(serve)
        }
        (Caller::HttpRaw(serve, sock), _) => {
            sock.shutdown(std::net::Shutdown::Both)
                .expect("close the socket");
            drop(sock);
            Some(serve)
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
    let caller = start(&env, front, how, &id).await;
    env.read_until(&id, from, "started");
    let _server = leave(caller, how).await;
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
