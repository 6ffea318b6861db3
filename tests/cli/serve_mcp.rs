//! MCP over Streamable HTTP in `kpty serve`, driven by rmcp's own HTTP client: the same tool
//! as over stdio, every action, progress over SSE, cancellation, many clients at once, the
//! seeds' plain JSON POST, sessions shared with the CLI and stdio MCP, the secret on every
//! route, foreign hosts and origins, the `_x9k_*` endpoints, `--print-config`, and a
//! graceful SIGTERM.

use crate::bridge::Serve;
use crate::mcp::{Client, Mcp};
use crate::support::{Env, s, wait_for};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientRequest, Request, ServerResult};
use rmcp::service::PeerRequestOptions;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An rmcp client over HTTP to `serve`, initialized, with the secret as a bearer token.
pub(crate) async fn connect(serve: &Serve) -> Mcp {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client");
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", serve.url))
        .auth_header(serve.secret.clone());
    let transport = StreamableHttpClientTransport::with_client(http, config);
    let handler = Client::default();
    let client = handler
        .clone()
        .serve(transport)
        .await
        .expect("initialize over HTTP");
    Mcp {
        client,
        handler,
        pid: serve.child.id(),
    }
}

/// Call and assert the result is `ok`.
async fn assert_ok(m: &Mcp, args: Value) -> Value {
    let v = m.json(args.clone()).await;
    assert_eq!(v["ok"], true, "{args} → {v}");
    v
}

/// The tool list as JSON.
async fn tools(m: &Mcp) -> Value {
    serde_json::to_value(m.client.list_all_tools().await.expect("tools/list")).expect("json")
}

#[tokio::test(flavor = "multi_thread")]
async fn http_mcp_lists_the_same_tool_and_round_trips_every_action() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let m = connect(&serve).await;
    let info = m.client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().expect("server_info").name, "kpty");
    let stdio = crate::mcp::start(&env).await;
    assert_eq!(
        tools(&m).await,
        tools(&stdio).await,
        "HTTP and stdio differ"
    );
    assert_eq!(
        m.json(json!({"action": "help"})).await["data"]["tool"],
        "k_pty"
    );
    let id = crate::mcp::create_talk_and_run(&m, "web").await;
    let since = m
        .json(json!({"action": "read", "session_id": id, "max_bytes": 1, "timeout_ms": 0}))
        .await["next_offset"]
        .as_u64()
        .expect("offset");
    assert_ok(
        &m,
        json!({"action": "send_line", "session_id": id, "data": "echo typed-$((6*7))"}),
    )
    .await;
    let w = m
        .json(json!({"action": "wait_for", "session_id": id, "pattern": "typed-42", "timeout_ms": 10000}))
        .await;
    assert_eq!(w["matched"], true, "{w}");
    let rd = m
        .json(json!({"action": "read", "session_id": id, "since": since, "max_bytes": 100000, "timeout_ms": 2000}))
        .await;
    assert!(
        rd["output"]
            .as_str()
            .is_some_and(|o| o.contains("typed-42")),
        "{rd}"
    );
    let tr = m
        .json(json!({"action": "term_read", "session_id": id, "mode": "viewport"}))
        .await;
    assert!(tr.to_string().contains("typed-42"), "{tr}");
    assert_ok(
        &m,
        json!({"action": "send_keys", "session_id": id, "keys": ["C-c"]}),
    )
    .await;
    assert_ok(
        &m,
        json!({"action": "resize", "session_id": id, "cols": 100, "rows": 30}),
    )
    .await;
    let c = m
        .json(json!({"action": "check", "command": "rm -rf /"}))
        .await;
    assert_eq!(c["ok"], true, "{c}");
    let l = m.json(json!({"action": "list"})).await;
    assert_eq!(l["count"], 1);
    // The registry actions: ownership and routing of a local session, a desktop session.
    assert_ok(
        &m,
        json!({"action": "update_ownership", "session_id": id, "owner_agent_id": "agent-h"}),
    )
    .await;
    let rs = m
        .json(json!({"action": "resolve", "agent_id": "agent-h"}))
        .await;
    assert!(rs.to_string().contains(&id), "{rs}");
    let sa = m
        .json(json!({"action": "send_line_to_agent", "agent_id": "agent-h", "data": "true"}))
        .await;
    assert_eq!(sa["ok"], true, "{sa}");
    let desk = "pty_0000abcd";
    assert_ok(
        &m,
        json!({"action": "register", "session_id": desk, "desktop_url": serve.url,
                  "owner_agent_id": "desk"}),
    )
    .await;
    assert_ok(&m, json!({"action": "heartbeat", "session_id": desk})).await;
    assert_ok(&m, json!({"action": "prune"})).await;
    assert_ok(&m, json!({"action": "unregister", "session_id": desk})).await;
    // Failures are isError results with the seeds' codes, as over stdio.
    for (args, code) in [
        (
            json!({"action": "write", "session_id": id, "data": "x"}),
            "DEPRECATED",
        ),
        (
            json!({"action": "talk", "session_id": "../../etc", "command": "ls"}),
            "INVALID_PARAMS",
        ),
        (
            json!({"action": "talk", "session_id": id, "command": "rm -rf /"}),
            "DANGEROUS_COMMAND_BLOCKED",
        ),
    ] {
        let v = m.json(args.clone()).await;
        assert_eq!(v["error_code"], code, "{args} → {v}");
    }
    let k = m.json(json!({"action": "kill", "session_id": id})).await;
    assert_eq!(k["ok"], true, "{k}");
    m.close().await;
    stdio.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_made_over_http_is_the_clis_and_stdio_mcps() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let m = connect(&serve).await;
    let id = m.json(json!({"action": "create", "label": "hub"})).await["session_id"]
        .as_str()
        .expect("id")
        .to_string();
    assert_ok(
        &m,
        json!({"action": "talk", "session_id": id, "command": "X=from-http"}),
    )
    .await;
    assert_eq!(
        env.ok(&["talk", "-s", "hub", "echo $X"]).trim(),
        "from-http"
    );
    let stdio = crate::mcp::start(&env).await;
    let v = stdio
        .json(json!({"action": "talk", "session_id": id, "command": "echo $X-too"}))
        .await;
    assert_eq!(v["output"], "from-http-too");
    env.ok(&["talk", "-s", &id, "Y=from-cli"]);
    let v = m
        .json(json!({"action": "talk", "session_id": "hub", "command": "echo $Y"}))
        .await;
    assert_eq!(v["output"], "from-cli");
    stdio.close().await;
    m.close().await;
}

fn talk(id: &str, cmd: &str) -> ClientRequest {
    ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("k_pty").with_arguments(
            json!({"action": "talk", "session_id": id, "command": cmd})
                .as_object()
                .expect("obj")
                .clone(),
        ),
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_arrives_over_sse_and_a_cancelled_call_frees_the_session() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let m = connect(&serve).await;
    let id = env.create(&[]);
    let peer = m.client.peer().clone();
    let h = peer
        .send_cancellable_request(
            talk(&id, "for i in 1 2 3; do echo step$i; sleep 0.4; done"),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("send");
    let ServerResult::CallToolResult(r) = h.await_response().await.expect("response") else {
        panic!("not a tool result")
    };
    assert_eq!(
        r.structured_content.expect("content")["output"],
        "step1\nstep2\nstep3"
    );
    let seen = m.handler.progress.lock().expect("lock").clone();
    assert!(
        seen.iter()
            .any(|p| p.message.as_deref().is_some_and(|t| t.contains("step1"))),
        "no progress with the first line over SSE: {seen:?}"
    );
    let h = peer
        .send_cancellable_request(talk(&id, "sleep 30"), PeerRequestOptions::no_options())
        .await
        .expect("send");
    // Cancel once the sleep runs in the session.
    env.read_until(&id, 0, "sleep 30");
    h.cancel(Some("test".into())).await.expect("cancel");
    let t0 = Instant::now();
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo after", "timeout_ms": 10000}))
        .await;
    assert_eq!(v["output"], "after", "{v}");
    assert!(
        t0.elapsed() < Duration::from_secs(8),
        "the cancelled sleep held the session"
    );
    m.close().await;
}

/// Twenty clients, each with its own session, talk at once while one client's long talk
/// runs: every one is answered before the long talk ends.
#[tokio::test(flavor = "multi_thread")]
async fn twenty_clients_at_once_do_not_block_each_other() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let slow_client = connect(&serve).await;
    let slow_id = env.create(&[]);
    let slow = tokio::spawn(async move {
        let v = slow_client
            .json(json!({"action": "talk", "session_id": slow_id, "command": "sleep 6; echo slow"}))
            .await;
        slow_client.close().await;
        v
    });
    let serve = Arc::new(serve);
    let mut tasks = Vec::new();
    for n in 0..20 {
        let serve = serve.clone();
        tasks.push(tokio::spawn(async move {
            let m = connect(&serve).await;
            let id = m.json(json!({"action": "create"})).await["session_id"]
                .as_str()
                .expect("id")
                .to_string();
            for k in 0..3 {
                let v = m
                    .json(json!({"action": "talk", "session_id": id, "command": format!("echo c{n}-{k}")}))
                    .await;
                assert_eq!(v["output"], format!("c{n}-{k}"), "{v}");
            }
            m.json(json!({"action": "kill", "session_id": id})).await;
            m.close().await;
        }));
    }
    for t in tasks {
        t.await.expect("a client failed");
    }
    assert!(
        !slow.is_finished(),
        "twenty clients waited for the slow talk"
    );
    assert_eq!(slow.await.expect("slow")["output"], "slow");
}

/// A raw HTTP/1.1 request to `serve`; (status, headers, body).
fn raw(serve: &Serve, head: &str, body: &str) -> (u16, String, String) {
    let addr = serve.url.trim_start_matches("http://");
    let mut c = TcpStream::connect(addr).expect("connect");
    c.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let req = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    c.write_all(req.as_bytes()).expect("send");
    let mut out = String::new();
    let _ = c.read_to_string(&mut out);
    let (headers, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = headers
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, headers.to_ascii_lowercase(), body.to_string())
}

/// The JSON of a body (chunked transfer undone: the first `{` to the last `}`).
fn body_json(body: &str) -> Value {
    let (a, b) = (body.find('{'), body.rfind('}'));
    match (a, b) {
        (Some(a), Some(b)) if a < b => serde_json::from_str(&body[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

#[test]
fn a_plain_json_post_gets_a_json_answer() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let id = env.create(&[]);
    let auth = format!("Authorization: Bearer {}", serve.secret);
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "k_pty", "arguments": {"action": "talk", "session_id": id, "command": "echo plain"}}});
    for accept in ["Accept: application/json\r\n", "", "Accept: */*\r\n"] {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{accept}Content-Type: application/json\r\n{auth}"
        );
        let (status, headers, body) = raw(&serve, &head, &call.to_string());
        assert_eq!(status, 200, "{accept:?}: {headers}{body}");
        assert!(
            headers.contains("content-type: application/json"),
            "{headers}"
        );
        let v = body_json(&body);
        assert_eq!(v["id"], 7, "{body}");
        assert_eq!(
            v["result"]["structuredContent"]["output"], "plain",
            "{body}"
        );
    }
    // tools/list the same way, and the seeds' other headers
    for h in ["X-Kuroryuu-Desktop-Secret", "X-Kuroryuu-Internal-Secret"] {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nContent-Type: application/json\r\n{h}: {}",
            serve.secret
        );
        let list = json!({"jsonrpc": "2.0", "id": "l", "method": "tools/list"});
        let (status, _, body) = raw(&serve, &head, &list.to_string());
        assert_eq!(status, 200, "{h}: {body}");
        assert_eq!(
            body_json(&body)["result"]["tools"][0]["name"],
            "k_pty",
            "{body}"
        );
    }
}

/// What a hostile or broken client sends gets a JSON-RPC error (or a 4xx), as over stdio,
/// and the server answers the next request.
#[test]
fn hostile_mcp_bodies_get_json_rpc_errors_and_the_server_answers_on() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nContent-Type: application/json\r\nAuthorization: Bearer {}",
        serve.secret
    );
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{}{}}}",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let string_args = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "k_pty", "arguments": "{\"action\":\"list\"}"}});
    let cases: Vec<(String, i64, u16)> = vec![
        ("{not json".into(), -32700, 400),
        ("\u{0}\u{1}\u{ff}binary".into(), -32700, 400),
        (deep, -32600, 400),
        ("[1,2,3]".into(), -32600, 400),
        (
            json!({"jsonrpc": "1.0", "id": 2, "method": "tools/list"}).to_string(),
            -32600,
            400,
        ),
        (string_args.to_string(), -32602, 200),
    ];
    for (body, code, status) in cases {
        let (got, _, b) = raw(&serve, &head, &body);
        let v = body_json(&b);
        assert_eq!(
            (got, v["error"]["code"].as_i64()),
            (status, Some(code)),
            "{:.80}: {b}",
            body
        );
    }
    // Larger than any message kpty takes: 413 before it is read whole.
    let big = format!("{{\"x\":\"{}\"}}", "a".repeat(9 << 20));
    let (got, _, b) = raw(&serve, &head, &big);
    assert_eq!(got, 413, "{b:.200}");
    // An unknown action is a tool result with isError, not a protocol error.
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "k_pty", "arguments": {"action": "explode"}}});
    let (got, _, b) = raw(&serve, &head, &call.to_string());
    let v = body_json(&b);
    assert_eq!((got, &v["result"]["isError"]), (200, &json!(true)), "{b}");
    assert_eq!(
        v["result"]["structuredContent"]["error_code"], "INVALID_PARAMS",
        "{b}"
    );
    let list = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"});
    let (got, _, b) = raw(&serve, &head, &list.to_string());
    assert_eq!(
        (got, body_json(&b)["result"]["tools"][0]["name"].as_str()),
        (200, Some("k_pty"))
    );
}

#[test]
fn every_route_needs_the_secret_and_foreign_hosts_and_origins_are_refused() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let routes = [
        ("POST", "/mcp"),
        ("GET", "/mcp"),
        ("DELETE", "/mcp"),
        ("GET", "/"),
        ("GET", "/tools"),
        ("GET", "/health"),
        ("POST", "/_x9k_desktop_auth"),
        ("POST", "/_x9k_register_leader"),
        ("POST", "/_x9k_deregister_leader"),
        ("GET", "/_x9k_registered_leaders"),
        ("GET", "/pty/list"),
        ("GET", "/v1/pty/sessions"),
        ("GET", "/no/such/route"),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let good = format!("Authorization: Bearer {}", serve.secret);
    let wrong = format!("Authorization: Bearer {}", &serve.secret[..63]);
    for (method, path) in routes {
        for cred in ["", &wrong, "X-Kuroryuu-Desktop-Secret: nope"] {
            let head = format!(
                "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{cred}"
            );
            let (status, headers, b) = raw(&serve, head.trim_end(), &body);
            assert_eq!(status, 401, "{method} {path} with {cred:?}: {b}");
            assert!(headers.contains("www-authenticate: bearer"), "{headers}");
            assert_eq!(body_json(&b)["error_code"], "UNAUTHORIZED", "{b}");
        }
        // With the secret but a foreign Host (DNS rebinding) or a browser Origin: 403.
        for (extra, code) in [
            ("Host: evil.example", "FORBIDDEN_HOST"),
            (
                "Host: 127.0.0.1\r\nOrigin: http://evil.example",
                "FORBIDDEN_ORIGIN",
            ),
        ] {
            let head = format!(
                "{method} {path} HTTP/1.1\r\n{extra}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{good}"
            );
            let (status, _, b) = raw(&serve, &head, &body);
            assert_eq!(
                (status, body_json(&b)["error_code"].clone()),
                (403, json!(code)),
                "{method} {path} {extra:?}: {b}"
            );
        }
    }
    // The seeds' server endpoints with the secret.
    let (status, v) = serve.http("GET", "/", Some(&serve.secret), None);
    assert_eq!(
        (status, v["name"].as_str(), v["tool_count"].as_u64()),
        (200, Some("kpty"), Some(1)),
        "{v}"
    );
    let (_, v) = serve.http("GET", "/tools", Some(&serve.secret), None);
    assert_eq!(v["tools"][0]["name"], "k_pty", "{v}");
    assert!(
        v["tools"][0]["inputSchema"]["properties"]["action"].is_object(),
        "{v}"
    );
    let (status, v) = serve.http("GET", "/health", Some(&serve.secret), None);
    assert_eq!((status, v["status"].as_str()), (200, Some("ok")), "{v}");
}

#[test]
fn allowed_hosts_and_origins_are_let_in() {
    let env = Env::new();
    let serve = Serve::start_args(
        &env,
        &[
            "--allow-host",
            "kpty.internal",
            "--allow-origin",
            "http://app.example",
        ],
        &[],
    );
    let good = format!("Authorization: Bearer {}", serve.secret);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    for extra in [
        "Host: kpty.internal:8201",
        "Host: 127.0.0.1\r\nOrigin: http://app.example",
        "Host: [::1]:9",
        "Host: localhost",
    ] {
        let head = format!(
            "POST /mcp HTTP/1.1\r\n{extra}\r\nAccept: application/json\r\nContent-Type: application/json\r\n{good}"
        );
        let (status, _, b) = raw(&serve, &head, &list);
        assert_eq!(status, 200, "{extra:?}: {b}");
    }
    let head =
        format!("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://app.example.evil\r\n{good}");
    assert_eq!(raw(&serve, &head, "").0, 403);
}

#[test]
fn desktop_auth_and_registered_leaders() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let k = Some(serve.secret.as_str());
    // A desktop registers its secret; from then on it is accepted as the desktop header.
    let desktop = "ab".repeat(32);
    for bad in [
        json!({"secret": "short"}),
        json!({"secret": "zz".repeat(32)}),
        json!({}),
    ] {
        let (status, v) = serve.http("POST", "/_x9k_desktop_auth", k, Some(bad.clone()));
        assert_eq!(
            (status, v["error_code"].as_str()),
            (400, Some("INVALID_PARAMS")),
            "{bad}: {v}"
        );
    }
    assert_eq!(serve.http("GET", "/health", Some(&desktop), None).0, 401);
    let (status, v) = serve.http(
        "POST",
        "/_x9k_desktop_auth",
        k,
        Some(json!({"secret": desktop})),
    );
    assert_eq!(
        (status, v["registered"].as_bool()),
        (200, Some(true)),
        "{v}"
    );
    assert_eq!(serve.http("GET", "/health", Some(&desktop), None).0, 200);
    // Leaders: registered, listed, persisted, protecting their sessions from unregister.
    let id = "pty_0000beef";
    env.ok_json(&[
        "register",
        id,
        "--desktop-url",
        &serve.url,
        "--owner-agent-id",
        "boss",
    ]);
    let (status, v) = serve.http(
        "POST",
        "/_x9k_register_leader",
        k,
        Some(json!({"agent_id": "boss"})),
    );
    assert_eq!(status, 200, "{v}");
    let (status, v) = serve.http("POST", "/_x9k_register_leader?agent_id=second", k, None);
    assert_eq!(status, 200, "{v}");
    let (status, v) = serve.http("POST", "/_x9k_register_leader", k, Some(json!({})));
    assert_eq!(
        (status, v["error_code"].as_str()),
        (400, Some("INVALID_PARAMS")),
        "{v}"
    );
    let (_, v) = serve.http("GET", "/_x9k_registered_leaders", k, None);
    let ids: Vec<&str> = v["leaders"]
        .as_array()
        .expect("leaders")
        .iter()
        .map(|l| s(l, "agent_id"))
        .collect();
    assert_eq!(ids, ["boss", "second"], "{v}");
    assert!(env.state().join("_leaders.json").is_file());
    let (status, v) = serve.http("DELETE", &format!("/v1/pty/unregister/{id}"), k, None);
    assert_eq!(
        (status, v["error_code"].as_str()),
        (403, Some("PTY_ACCESS_DENIED")),
        "{v}"
    );
    env.fails(&["unregister", id], 111, "PTY_ACCESS_DENIED");
    let (_, v) = serve.http("GET", &format!("/pty/is-leader?session_id={id}"), k, None);
    assert_eq!(v["is_leader"], true, "{v}");
    let (status, v) = serve.http(
        "POST",
        "/_x9k_deregister_leader",
        k,
        Some(json!({"agent_id": "boss"})),
    );
    assert_eq!((status, v["removed"].as_bool()), (200, Some(true)), "{v}");
    let (status, v) = serve.http("DELETE", &format!("/v1/pty/unregister/{id}"), k, None);
    assert_eq!(status, 200, "{v}");
}

#[test]
fn print_config_gives_a_ready_claude_line_and_a_client_config() {
    let env = Env::new();
    let file = env.ok_json(&["serve", "--new-secret"])["secret_file"]
        .as_str()
        .expect("secret_file")
        .to_string();
    let out = env.ok(&["serve", "--print-config", "--port", "8765"]);
    let secret = std::fs::read_to_string(file).expect("secret");
    assert!(
        out.contains(&format!(
            "claude mcp add --transport http kpty-http http://127.0.0.1:8765/mcp --header \"Authorization: Bearer {secret}\""
        )),
        "{out}"
    );
    let v = env.ok_json(&["serve", "--print-config", "--port", "8765"]);
    let server = &v["config"]["mcpServers"]["kpty-http"];
    assert_eq!(server["url"], "http://127.0.0.1:8765/mcp", "{v}");
    assert_eq!(
        server["headers"]["Authorization"],
        format!("Bearer {secret}"),
        "{v}"
    );
    // The web console's login link: the same one `kpty console` prints.
    let console = env.ok(&["console", "--port", "8765"]);
    assert_eq!(v["console_url"], console.trim(), "{v}");
    assert!(console.starts_with("http://127.0.0.1:8765/console/#token="));
    assert!(out.contains(console.trim()), "{out}");
    env.fails(
        &["serve", "--print-config", "--port", "0"],
        115,
        "INVALID_PARAMS",
    );
}

/// SIGTERM: the server exits within its grace period even with a call in flight, and the
/// sessions live on.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_stops_the_server_and_keeps_the_sessions() {
    let env = Env::new();
    let mut serve = Serve::start(&env);
    let m = connect(&serve).await;
    let id = env.create(&[]);
    let peer = m.client.peer().clone();
    let _h = peer
        .send_cancellable_request(talk(&id, "sleep 60"), PeerRequestOptions::no_options())
        .await
        .expect("send");
    env.read_until(&id, 0, "sleep 60");
    // A bridge talk in flight too (the seeds' `POST /pty/talk`).
    let id2 = env.create(&[]);
    let (url, secret, sid) = (
        format!("{}/pty/talk", serve.url),
        serve.secret.clone(),
        id2.clone(),
    );
    let bridge = tokio::spawn(async move {
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let body = json!({"session_id": sid, "command": "sleep 70"});
        http.post(url).bearer_auth(secret).json(&body).send().await
    });
    env.read_until(&id2, 0, "sleep 70");
    let pid = rustix::process::Pid::from_raw(serve.child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
    let mut status = None;
    wait_for(20_000, "kpty serve exits after SIGTERM", || {
        status = serve.child.try_wait().expect("wait");
        status.is_some()
    });
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{status:?}");
    drop(m);
    // The session is alive, and the call in flight was cancelled: its command interrupted.
    let v = env.talk_args(&["-s", &id, "--timeout-ms", "5000", "echo still-here"]);
    assert_eq!(v["output"], "still-here", "{v}");
    let v = env.talk_args(&["-s", &id2, "--timeout-ms", "5000", "echo bridge-free"]);
    assert_eq!(v["output"], "bridge-free", "{v}");
    bridge.abort();
}

/// Secrets a command prints never reach an HTTP client in clear: not in a result, not in a
/// progress notification over SSE, not in a plain POST's JSON answer.
#[tokio::test(flavor = "multi_thread")]
async fn results_and_progress_over_http_are_redacted() {
    use crate::support::{leaked, private_key, secret_lines};
    let env = Env::new();
    let all = secret_lines();
    let lines: Vec<String> = all.iter().map(|(l, _)| l.clone()).collect();
    let mut must_not: Vec<String> = all.iter().map(|(_, s)| s.clone()).collect();
    std::fs::write(env.home().join("secrets.txt"), lines.join("\n\n") + "\n").expect("write");
    let (pem, body) = private_key(8);
    must_not.extend(body);
    std::fs::write(env.home().join("key.pem"), pem).expect("write");
    let serve = Serve::start(&env);
    let m = connect(&serve).await;
    let id = env.create(&[]);
    let cmd = "cat secrets.txt; sleep 0.5; cat key.pem; sleep 0.5";
    let h = m
        .client
        .peer()
        .send_cancellable_request(talk(&id, cmd), PeerRequestOptions::no_options())
        .await
        .expect("send");
    let ServerResult::CallToolResult(r) = h.await_response().await.expect("response") else {
        panic!("not a tool result")
    };
    let text = serde_json::to_string(&r).expect("json");
    assert!(
        leaked(&text, &must_not).is_empty(),
        "{:?}",
        leaked(&text, &must_not)
    );
    assert!(text.contains("[REDACTED:"), "{text}");
    let progress = format!("{:?}", m.handler.progress.lock().expect("lock"));
    assert!(
        progress.contains("REDACTED"),
        "no progress seen: {progress}"
    );
    assert!(leaked(&progress, &must_not).is_empty(), "{progress}");
    m.close().await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nContent-Type: application/json\r\nAuthorization: Bearer {}",
        serve.secret
    );
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "k_pty",
        "arguments": {"action": "talk", "session_id": id, "command": "cat secrets.txt key.pem"}}});
    let (status, _, b) = raw(&serve, &head, &call.to_string());
    assert_eq!(status, 200, "{b}");
    assert!(
        leaked(&b, &must_not).is_empty(),
        "{:?}",
        leaked(&b, &must_not)
    );
    assert!(b.contains("[REDACTED:private_key]"), "{b}");
}

/// Every `Accept` a plain client sends × every method, `initialize` included: JSON whenever
/// the client does not accept `text/event-stream` (no session opened, progress dropped), an
/// MCP session over SSE when it does; closing that session answers 204, as the SDKs expect.
#[test]
fn every_method_answers_json_to_a_client_that_does_not_accept_sse() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let id = env.create(&[]);
    let auth = format!("Authorization: Bearer {}", serve.secret);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "plain", "version": "0"}}});
    let calls = [
        init.clone(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "k_pty", "arguments": {"action": "list"}}}),
        // A progress token: a JSON-only client still gets its one JSON answer.
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "_meta": {"progressToken": "p1"},
            "name": "k_pty", "arguments": {"action": "talk", "session_id": id, "command": "echo prog"}}}),
    ];
    let json_only = [
        "Accept: application/json\r\n",
        "Accept: */*\r\n",
        "",
        "Accept: application/json;q=0.9, */*;q=0.1\r\n",
        "accept: APPLICATION/JSON\r\n",
    ];
    for accept in json_only {
        for call in &calls {
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{accept}Content-Type: application/json\r\n{auth}"
            );
            let (status, headers, body) = raw(&serve, &head, &call.to_string());
            assert_eq!(
                status, 200,
                "{accept:?} {}: {headers}{body}",
                call["method"]
            );
            assert!(
                headers.contains("content-type: application/json"),
                "{accept:?} {}: {headers}",
                call["method"]
            );
            assert!(
                !headers.contains("mcp-session-id"),
                "no session for a JSON-only client: {headers}"
            );
            let v: Value = serde_json::from_str(body.trim()).unwrap_or_else(|_| body_json(&body));
            assert_eq!(v["id"], call["id"], "{body}");
            assert!(
                v["result"].is_object(),
                "{accept:?} {}: {body}",
                call["method"]
            );
        }
    }
    // With SSE accepted, initialize opens a session; DELETE closes it with 204.
    for accept in [
        "Accept: application/json, text/event-stream\r\n",
        "Accept: text/event-stream\r\nAccept: application/json\r\n",
    ] {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{accept}Content-Type: application/json\r\n{auth}"
        );
        let (status, headers, body) = raw(&serve, &head, &init.to_string());
        assert_eq!(status, 200, "{headers}{body}");
        assert!(headers.contains("text/event-stream"), "{headers}");
        let session = headers
            .lines()
            .find_map(|l| l.strip_prefix("mcp-session-id:"))
            .map(str::trim)
            .expect("a session id")
            .to_string();
        let head = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: {session}\r\n{auth}"
        );
        let (status, headers, _) = raw(&serve, &head, "");
        assert!(matches!(status, 200 | 204), "{status}: {headers}");
    }
}

/// A failure that quotes a secret the caller sent leaves `kpty serve` without it: over MCP
/// (each place a tool call can fail, as over stdio) and from the bridge and registry
/// endpoints (a session id, a command, data, a mode, an identity), for every kind of token the
/// redaction knows by its shape. Each answer is redacted once, at the edge; none is missed.
#[tokio::test(flavor = "multi_thread")]
async fn failures_that_quote_a_secret_are_redacted_over_http() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let m = connect(&serve).await;
    crate::mcp::quoted_secrets_stay_hidden(&m).await;
    m.close().await;
    let id = env.create(&[]);
    let k = Some(serve.secret.as_str());
    for (line, secret) in crate::support::secret_lines() {
        if line.contains(' ') {
            continue;
        }
        let calls = [
            (
                "POST",
                "/pty/talk",
                Some(json!({"session_id": line, "command": "true"})),
            ),
            (
                "POST",
                "/pty/talk",
                Some(json!({"session_id": id, "command": "true", "agent_id": format!("a {line}")})),
            ),
            (
                "POST",
                "/pty/write",
                Some(json!({"session_id": line, "data": "x"})),
            ),
            (
                "POST",
                "/pty/read",
                Some(json!({"session_id": line, "timeout_ms": 0})),
            ),
            (
                "POST",
                "/pty/buffer",
                Some(json!({"session_id": id, "mode": line})),
            ),
            (
                "POST",
                "/v1/pty/heartbeat",
                Some(json!({"session_id": line})),
            ),
            (
                "POST",
                "/v1/pty/update-ownership",
                Some(json!({"session_id": line, "owner_agent_id": "a"})),
            ),
            ("GET", &format!("/v1/pty/sessions/{line}"), None),
        ];
        for (method, path, body) in calls {
            let (status, v) = serve.http(method, path, k, body.clone());
            assert_ne!(status, 200, "{path} {body:?} → {v}");
            assert_eq!(v["ok"], false, "{path} {body:?} → {v}");
            assert!(
                !v.to_string().contains(&secret),
                "{secret} leaked: {method} {path} {body:?} → {v}"
            );
        }
    }
}
