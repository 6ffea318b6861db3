//! Desktop bridges: a session held by env B is served by `kpty serve` and registered in env A
//! with `--desktop-url`, so A's send-line / talk / read / term-read go over HTTP; resize is
//! refused; an unreachable bridge fails fast; `kpty serve` answers nothing without its secret.

use crate::support::{Env, parse, run, s, wait_for};
use serde_json::{Value, json};
use std::io::BufRead;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A running `kpty serve`, killed on Drop (even when the test failed).
pub(crate) struct Serve {
    pub(crate) child: Child,
    pub(crate) url: String,
    pub(crate) secret: String,
}

impl Serve {
    /// `kpty serve --port 0` in `env`; waits for its one stdout line.
    pub(crate) fn start(env: &Env) -> Self {
        Self::start_with(env, &[])
    }

    /// [`Serve::start`] with extra environment for the server.
    fn start_with(env: &Env, vars: &[(&str, &str)]) -> Self {
        Self::start_args(env, &[], vars)
    }

    /// `kpty serve --port 0 ARGS…` in `env` with extra environment (ARGS may name a port).
    pub(crate) fn start_args(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Self {
        let any_port: &[&str] = if args.contains(&"--port") {
            &[]
        } else {
            &["--port", "0"]
        };
        let all: Vec<&str> = ["serve"]
            .iter()
            .chain(any_port)
            .chain(args)
            .copied()
            .collect();
        let mut c = env.cmd(&all);
        c.envs(vars.iter().copied());
        c.stderr(Stdio::null());
        let mut child = c.spawn().expect("start kpty serve");
        let stdout = child.stdout.take().expect("serve's stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let mut serve = Serve {
            child,
            url: String::new(),
            secret: String::new(),
        };
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("kpty serve printed its line");
        let v: Value = serde_json::from_str(&line).expect("serve's first line is JSON");
        serve.url = s(&v, "url").to_string();
        serve.secret = std::fs::read_to_string(s(&v, "secret_file")).expect("secret file");
        assert_eq!(serve.secret.len(), 64, "{v}");
        serve
    }

    /// One HTTP request to the server with this secret header (none: no header).
    pub(crate) fn http(
        &self,
        method: &str,
        path: &str,
        secret: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.try_http(method, path, secret, body)
            .expect("the bridge answers")
    }

    /// [`Serve::http`], with transport errors returned.
    fn try_http(
        &self,
        method: &str,
        path: &str,
        secret: Option<&str>,
        body: Option<Value>,
    ) -> Result<(u16, Value), ureq::Error> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(20)))
            .build()
            .into();
        let url = format!("{}{path}", self.url);
        let h = ("X-Kuroryuu-Desktop-Secret", secret.unwrap_or_default());
        let res = match (method, body) {
            ("GET", _) => agent.get(&url).header(h.0, h.1).call(),
            ("DELETE", _) => agent.delete(&url).header(h.0, h.1).call(),
            (_, Some(b)) => agent.post(&url).header(h.0, h.1).send_json(b),
            (_, None) => agent.post(&url).header(h.0, h.1).send_empty(),
        };
        let mut resp = res?;
        let status = resp.status().as_u16();
        Ok((status, resp.body_mut().read_json().unwrap_or(Value::Null)))
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `kpty --json ARGS` in `env` with `KURORYUU_DESKTOP_SECRET` (or without): (exit, JSON).
pub(crate) fn with_secret(env: &Env, secret: Option<&str>, args: &[&str]) -> (Option<i32>, Value) {
    let all: Vec<&str> = std::iter::once("--json")
        .chain(args.iter().copied())
        .collect();
    let mut c = env.cmd(&all);
    match secret {
        Some(s) => c.env("KURORYUU_DESKTOP_SECRET", s),
        None => c.env_remove("KURORYUU_DESKTOP_SECRET"),
    };
    let out = run(c, &all);
    (out.status.code(), parse(&out, &all))
}

/// B holds session S and serves it; A knows S as a desktop session behind B.
pub(crate) fn setup() -> (Env, Env, String, Serve) {
    let (a, b) = (Env::new(), Env::new());
    let id = b.create(&[]);
    let serve = Serve::start(&b);
    a.ok_json(&["register", &id, "--desktop-url", &serve.url]);
    (a, b, id, serve)
}

#[test]
fn send_line_talk_read_and_resize_go_through_the_bridge() {
    let (a, b, id, serve) = setup();
    let secret = serve.secret.clone();
    let k = Some(secret.as_str());
    let (code, v) = with_secret(&a, k, &["talk", "-s", &id, "echo $((6*7))"]);
    assert_eq!(
        (code, s(&v, "output"), s(&v, "completion")),
        (Some(0), "42", "bridge"),
        "{v}"
    );
    let (code, v) = with_secret(&a, k, &["term-read", "-s", &id, "--max-lines", "5"]);
    assert!(
        code == Some(0) && s(&v, "text").contains("42"),
        "screen via /pty/buffer: {v}"
    );
    let (code, v) = with_secret(&a, k, &["talk", "-s", &id, "(exit 3)"]);
    assert_eq!((code, &v["exit_code"]), (Some(3), &json!(3)), "{v}");

    let from = b.offset(&id);
    let (code, v) = with_secret(&a, k, &["send-line", "-s", &id, "echo sent-$((1+1))"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        (&v["typed"]["bytes_written"], &v["enter"]["bytes_written"]),
        (&json!(18), &json!(1))
    );
    b.read_until(&id, from, "sent-2\r\n");

    let (code, v) = with_secret(
        &a,
        k,
        &["resize", "-s", &id, "--cols", "90", "--rows", "20"],
    );
    assert_eq!(
        (code, s(&v, "error_code")),
        (Some(110), "DESKTOP_RESIZE_DISABLED"),
        "{v}"
    );
    assert_eq!(b.entry(&id)["cols"], 120, "nothing resized in B");

    // `read` collects what is printed during its window: keep the session printing.
    let loop_cmd = "for i in $(seq 30); do echo tick-$i; sleep 0.1; done";
    with_secret(&a, k, &["send-line", "-s", &id, loop_cmd]);
    let (code, v) = with_secret(
        &a,
        k,
        &["read", "-s", &id, "--timeout-ms", "1000", "--strip-ansi"],
    );
    assert_eq!(
        (code, &v["session_alive"], &v["next_offset"]),
        (Some(0), &json!(true), &Value::Null),
        "{v}"
    );
    assert!(s(&v, "output").contains("tick-"), "{v}");

    // Wrong secret: the bridge refuses (401) and A says which bridge failed.
    let (code, v) = with_secret(&a, Some("nope"), &["talk", "-s", &id, "echo no"]);
    assert_eq!(
        (code, s(&v, "error_code")),
        (Some(108), "BRIDGE_ERROR"),
        "{v}"
    );
    assert_eq!(v["details"]["status"], 401, "{v}");

    drop(serve);
    let (code, v) = with_secret(&a, k, &["talk", "-s", &id, "echo gone"]);
    assert_eq!(
        (code, s(&v, "error_code")),
        (Some(109), "BRIDGE_UNAVAILABLE"),
        "{v}"
    );
}

#[test]
fn an_unreachable_bridge_fails_fast_and_blocking_comes_first() {
    let a = Env::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    a.ok_json(&["register", "pty_0000beef", "--desktop-url", &url]);
    for args in [
        &["talk", "-s", "pty_0000beef", "echo hi"][..],
        &["send-line", "-s", "pty_0000beef", "echo hi"],
        &["read", "-s", "pty_0000beef"],
    ] {
        let v = a.fails(args, 109, "BRIDGE_UNAVAILABLE");
        assert!(s(&v, "message").contains(&url), "{v}");
    }
    // Blocked before any HTTP: the answer is the block, not the unreachable bridge.
    a.fails(
        &["send-line", "-s", "pty_0000beef", "rm -rf /"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    a.fails(
        &["talk", "-s", "pty_0000beef", "rm -rf /"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
}

#[test]
fn serve_needs_its_secret_and_serves_the_registry() {
    let b = Env::new();
    let id = b.create(&[]);
    let serve = Serve::start(&b);
    let k = Some(serve.secret.as_str());
    let reg = json!({"session_id": "9ccd99b1bdd8710e", "desktop_url": "http://127.0.0.1:9", "owner_role": "leader"});
    for secret in [None, Some("wrong"), Some(&serve.secret[..63])] {
        let (status, v) = serve.http("POST", "/v1/pty/register", secret, Some(reg.clone()));
        assert_eq!((status, s(&v, "error_code")), (401, "UNAUTHORIZED"), "{v}");
        assert_eq!(serve.http("GET", "/health", secret, None).0, 401);
    }
    assert!(
        b.registry()["sessions"].get("9ccd99b1bdd8710e").is_none(),
        "nothing registered"
    );

    let (status, v) = serve.http("GET", "/health", k, None);
    assert_eq!(
        (status, s(&v, "service"), &v["sessions"]),
        (200, "kpty", &json!(1)),
        "{v}"
    );
    let (_, v) = serve.http("GET", "/pty/list", k, None);
    assert_eq!(
        (&v["count"], &v["sessions"][0]["session_id"]),
        (&json!(1), &json!(id)),
        "{v}"
    );
    // An oversized body is refused with 413 as soon as the limit is passed; a client still
    // sending may see the connection closed under it instead. Either way nothing is typed.
    let big = json!({"session_id": id, "data": "x".repeat(3 << 20)});
    match serve.try_http("POST", "/pty/write", k, Some(big)) {
        Ok((status, _)) => assert_eq!(status, 413),
        Err(ureq::Error::Io(e)) => assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ),
            "{e}"
        ),
        Err(e) => panic!("oversized write: {e}"),
    }
    let typed = b.read(&id, &["--max-bytes", "100000", "--timeout-ms", "0"]);
    assert!(!s(&typed, "output").contains("xxxxxxxx"), "{typed}");
    let (status, v) = serve.http(
        "POST",
        "/pty/write",
        k,
        Some(json!({"session_id": id, "data": "rm -rf /"})),
    );
    assert_eq!(
        (status, s(&v, "error_code")),
        (403, "DANGEROUS_COMMAND_BLOCKED"),
        "{v}"
    );

    assert_eq!(serve.http("POST", "/v1/pty/register", k, Some(reg)).0, 200);
    let (_, v) = serve.http(
        "GET",
        "/pty/is-leader?session_id=9ccd99b1-bdd8-710e-ffff",
        k,
        None,
    );
    assert_eq!(
        (&v["is_leader"], s(&v, "leader_terminal_id")),
        (&json!(true), "9ccd99b1bdd8710e"),
        "{v}"
    );
    let before = b.entry("9ccd99b1bdd8710e")["last_heartbeat"].clone();
    let (status, v) = serve.http("POST", "/v1/pty/heartbeat/9ccd99b1bdd8710e", k, None);
    assert_eq!(status, 200, "{v}");
    assert_ne!(b.entry("9ccd99b1bdd8710e")["last_heartbeat"], before);
    let (status, v) = serve.http("DELETE", "/v1/pty/unregister/9ccd99b1bdd8710e", k, None);
    assert_eq!(
        (status, s(&v, "error_code")),
        (403, "PTY_ACCESS_DENIED"),
        "a leader needs force: {v}"
    );
    let (status, _) = serve.http(
        "DELETE",
        "/v1/pty/unregister/9ccd99b1bdd8710e?force=true",
        k,
        None,
    );
    assert_eq!(status, 200);
    assert!(b.registry()["sessions"].get("9ccd99b1bdd8710e").is_none());

    for x in ["aaaa0001", "aaaa0002"] {
        let r = json!({"session_id": x, "desktop_url": "http://127.0.0.1:9"});
        assert_eq!(serve.http("POST", "/v1/pty/register", k, Some(r)).0, 200);
    }
    // Reset clears everything, the local session too (seed 000: "Clear all sessions +
    // persistence"); serve_registry has the details.
    let (status, v) = serve.http("DELETE", "/v1/pty/reset", k, None);
    assert_eq!((status, &v["count"]), (200, &json!(3)), "{v}");
    assert_eq!(v["killed"], json!([id]), "{v}");
    assert_eq!(b.ok_json(&["list"])["sessions"], json!([]));
}

#[test]
fn a_bridge_that_never_answers_fails_within_the_calls_own_timeout() {
    let a = Env::new();
    // Connections complete in the backlog and are never answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a silent bridge");
    let url = format!("http://{}", silent.local_addr().expect("its address"));
    a.ok_json(&["register", "pty_0000dead", "--desktop-url", &url]);
    // Each call's deadline: talk 1500 ms + 1 s, read 500 ms + 1 s, send-line 3 s in all;
    // allowed: three times the call's own timeout (or that deadline for send-line).
    for (args, limit_ms) in [
        (
            &["talk", "-t", "1500", "-s", "pty_0000dead", "echo hi"][..],
            4_500,
        ),
        (
            &["read", "--timeout-ms", "500", "-s", "pty_0000dead"],
            4_500,
        ),
        (&["send-line", "-s", "pty_0000dead", "echo hi"], 9_000),
    ] {
        let t0 = Instant::now();
        let v = a.fails(args, 109, "BRIDGE_UNAVAILABLE");
        let took = t0.elapsed();
        assert!(
            took < Duration::from_millis(limit_ms),
            "{args:?} took {took:?}: {v}"
        );
        assert!(s(&v, "message").contains("did not answer"), "{v}");
    }
    drop(silent);
}

/// Read from `conn` until the server closes it; returns what it sent before closing (a 408
/// answer, say). Panics when it is still open after `within`.
fn closed_by_server(conn: &mut TcpStream, within: Duration, what: &str) -> String {
    let t0 = Instant::now();
    let mut buf = [0u8; 512];
    let mut got = Vec::new();
    loop {
        let left = within.saturating_sub(t0.elapsed());
        assert!(!left.is_zero(), "{what}: still open after {within:?}");
        conn.set_read_timeout(Some(left))
            .expect("set a read timeout");
        match conn.read(&mut buf) {
            Ok(0) => return String::from_utf8_lossy(&got).into_owned(),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            // A signal to this test process (another test's child ending) is no answer.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::ConnectionReset) => {
                return String::from_utf8_lossy(&got).into_owned();
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                panic!("{what}: still open after {within:?}")
            }
            Err(e) => panic!("{what}: {e}"),
        }
    }
}

/// `host:port` of a running server.
fn addr_of(serve: &Serve) -> String {
    serve.url.trim_start_matches("http://").to_string()
}

#[test]
fn serve_caps_connections_and_idle_ones_make_room_for_requests() {
    let b = Env::new();
    // The default header timeout (10 s): nothing here is closed by it.
    let serve = Serve::start(&b);
    let k = Some(serve.secret.as_str());
    let addr = addr_of(&serve);
    // More idle connections than the server keeps open (256).
    let mut idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&addr).expect("connect to kpty serve"))
        .collect();
    let t0 = Instant::now();
    let (status, v) = serve.http("GET", "/health", k, None);
    assert_eq!((status, s(&v, "service")), (200, "kpty"), "{v}");
    // Not behind the idle connections' 10 s header timeout (what a loaded machine adds to
    // an answer stays well below it).
    assert!(
        t0.elapsed() < Duration::from_secs(8),
        "/health took {:?} behind idle connections",
        t0.elapsed()
    );
    // The oldest idle connection was closed to make room, long before any timeout.
    closed_by_server(
        &mut idle[0],
        Duration::from_secs(5),
        "the oldest idle connection",
    );
}

#[test]
fn serve_closes_slow_header_and_idle_connections_and_still_shuts_down_gracefully() {
    let b = Env::new();
    let serve = Serve::start_with(&b, &[("KPTY_SERVE_HEADER_TIMEOUT_MS", "1000")]);
    let k = Some(serve.secret.as_str());
    let addr = addr_of(&serve);
    let connect = || TcpStream::connect(&addr).expect("connect to kpty serve");
    let mut idle = connect();
    let mut slow: Vec<TcpStream> = (0..3).map(|_| connect()).collect();
    for c in &mut slow {
        c.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half")
            .expect("send half a header");
    }
    // A whole header, then a body that never comes.
    let mut slow_body = connect();
    let head = format!(
        "POST /pty/write HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Kuroryuu-Desktop-Secret: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"session_id\"",
        serve.secret
    );
    slow_body.write_all(head.as_bytes()).expect("send a header");
    let stalled_at = Instant::now();
    let (status, _) = serve.http("GET", "/health", k, None);
    assert_eq!(status, 200);
    // The header timeout (1 s here) closes stalled and idle connections, which otherwise stay
    // open for ever; a loaded machine may take a while to get round to it.
    let within = Duration::from_secs(20);
    for (i, c) in slow.iter_mut().enumerate() {
        let left = within.saturating_sub(stalled_at.elapsed());
        closed_by_server(c, left, &format!("slow-header connection {i}"));
    }
    let left = within.saturating_sub(stalled_at.elapsed());
    closed_by_server(&mut idle, left, "an idle connection");
    let left = within.saturating_sub(stalled_at.elapsed());
    let answer = closed_by_server(&mut slow_body, left, "a stalled body");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
    let (status, _) = serve.http("GET", "/health", k, None);
    assert_eq!(status, 200);

    // Graceful shutdown still works with a connection open: SIGTERM ends the server.
    let _open = connect();
    let mut serve = serve;
    let st = std::process::Command::new("kill")
        .args(["-TERM", &serve.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(st.success());
    let mut code = None;
    wait_for(10_000, "kpty serve to end on SIGTERM", || {
        code = serve.child.try_wait().expect("wait for kpty serve");
        code.is_some()
    });
    assert!(
        code.is_some_and(|c| c.success()),
        "kpty serve exited with {code:?}"
    );
}

#[test]
fn every_serve_reply_is_redacted() {
    use crate::support::{leaked, private_key, secret_lines};
    let b = Env::new();
    let lines: Vec<String> = secret_lines().into_iter().map(|(l, _)| l).collect();
    std::fs::write(b.home().join("secrets.txt"), lines.join("\n\n") + "\n").expect("write");
    let (pem, body) = private_key(12);
    std::fs::write(b.home().join("key.pem"), pem).expect("write");
    let id = b.create(&[]);
    let serve = Serve::start(&b);
    let k = Some(serve.secret.as_str());
    let (status, v) = serve.http(
        "POST",
        "/pty/talk",
        k,
        Some(json!({"session_id": id, "command": "cat secrets.txt; cat key.pem"})),
    );
    assert_eq!(status, 200, "{v}");
    assert!(leaked(&v.to_string(), &body).is_empty(), "{v}");
    assert!(s(&v, "output").contains("[REDACTED:private_key]"), "{v}");
    // /pty/read collects what is printed during its window.
    b.send_line(&id, "sleep 0.3; cat secrets.txt; cat key.pem");
    let (status, v) = serve.http(
        "POST",
        "/pty/read",
        k,
        Some(json!({"session_id": id, "timeout_ms": 1500})),
    );
    assert_eq!(status, 200, "{v}");
    assert!(s(&v, "output").contains("[REDACTED:"), "{v}");
    assert!(leaked(&v.to_string(), &body).is_empty(), "{v}");
    for n in [2, 5, 9] {
        let (status, v) = serve.http(
            "POST",
            "/pty/buffer",
            k,
            Some(json!({"session_id": id, "max_lines": n})),
        );
        assert_eq!(status, 200, "{v}");
        assert!(leaked(&v.to_string(), &body).is_empty(), "{v}");
    }
    // A timed-out talk's partial output (504).
    let (status, v) = serve.http(
        "POST",
        "/pty/talk",
        k,
        Some(json!({"session_id": id, "command": "cat secrets.txt; sleep 5", "timeout_ms": 1000})),
    );
    assert_eq!(status, 504, "{v}");
    assert!(leaked(&v.to_string(), &body).is_empty(), "{v}");
}

#[test]
fn pty_write_and_talk_check_the_lines_the_shell_reads() {
    let b = Env::new();
    let id = b.create(&[]);
    let serve = Serve::start(&b);
    let k = Some(serve.secret.as_str());
    let write = |data: &str| {
        serve.http(
            "POST",
            "/pty/write",
            k,
            Some(json!({"session_id": id, "data": data})),
        )
    };
    let refused = |(status, v): (u16, Value), what: &str| {
        assert_eq!(
            (status, s(&v, "error_code")),
            (403, "DANGEROUS_COMMAND_BLOCKED"),
            "{what:?}: {v}"
        );
        v
    };
    for data in [
        "x\x7fcat ~/.ssh/id_rsa >ran\r",
        "true\rcat ~/.ssh/id_rsa >ran\r", // CR inside the data ends a line
        "true\ncat ~/.ssh/id_rsa >ran",
        "echo safe\x15cat ~/.ssh/id_rsa >ran\r",
        "echo safe\x17\x17cat ~/.ssh/id_rsa >ran\r",
        "c\x16at ~/.ssh/id_rsa >ran\r",
        "true;\x00cat ~/.ssh/id_rsa >ran\r",
        "at ~/.ssh/id_rsa >ran\x01c\r",
        "act ~/.ssh/id_rsa >ran\x01\x06\x14\r",
        "~/.ssh/id_rsa >ran\x01\x0bcat \x19\r",
        "ca\x1b:t ~/.ssh/id_rsa >ran\r",
        "\x1b[200~cat ~/.ssh/id_rsa >ran\x1b[201~\r",
        "cat ~/.ssh/id_rs\t >ran\r",
    ] {
        refused(write(data), data);
    }
    // Split across writes: the holder remembers what the first one left on the line.
    assert_eq!(write("cat ~/.s").0, 200);
    refused(write("sh/id_rsa >ran\r"), "second half");
    b.fails(
        &["send-line", "-s", &id, "sh/id_rsa >ran"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    assert_eq!(write("\x03").0, 200);
    // Completion in one write, Enter in the next: kpty cannot see the line it would submit.
    assert_eq!(write("echo hel\t").0, 200);
    let v = refused(write("\r"), "Enter after Tab");
    assert_eq!(v["details"]["pattern"], "unverifiable_line_edit", "{v}");
    assert_eq!(write("\x03").0, 200);
    // `/pty/talk` takes kpty's escapes and real control characters alike.
    for command in [
        "x\\x7fcat ~/.ssh/id_rsa >ran",
        "x\x7fcat ~/.ssh/id_rsa >ran",
    ] {
        let res = serve.http(
            "POST",
            "/pty/talk",
            k,
            Some(json!({"session_id": id, "command": command})),
        );
        refused(res, command);
    }
    // Keys alone still pass: re-run the last command from history.
    let (_, v) = serve.http(
        "POST",
        "/pty/talk",
        k,
        Some(json!({"session_id": id, "command": "echo again-$((40+2))"})),
    );
    assert_eq!(s(&v, "output"), "again-42", "{v}");
    let from = b.offset(&id);
    assert_eq!(write("\x1b[A\r").0, 200);
    b.read_until(&id, from, "again-42\r\n");
    crate::lineedit::assert_nothing_ran(&b, &id);

    // A session behind the bridge: A refuses before any HTTP, and (seeing no holder of its
    // own) also refuses completion it could not follow.
    let a = Env::new();
    a.ok_json(&["register", &id, "--desktop-url", &serve.url]);
    for data in crate::lineedit::DISGUISED {
        let (code, v) = with_secret(&a, k, &["send-line", "-s", &id, data]);
        assert_eq!(
            (code, s(&v, "error_code")),
            (Some(116), "DANGEROUS_COMMAND_BLOCKED"),
            "{data}: {v}"
        );
    }
    let (code, v) = with_secret(&a, k, &["send-line", "-s", &id, r"echo hel\x09"]);
    assert_eq!(
        (code, &v["details"]["pattern"]),
        (Some(116), &json!("unverifiable_line_edit")),
        "{v}"
    );
    crate::lineedit::assert_nothing_ran(&b, &id);
}

#[test]
fn under_another_program_a_key_and_then_text_pass_as_separate_writes() {
    let b = Env::new();
    let id = b.create(&[]);
    let serve = Serve::start(&b);
    let k = Some(serve.secret.as_str());
    let write = |data: &str| {
        serve
            .http(
                "POST",
                "/pty/write",
                k,
                Some(json!({"session_id": id, "data": data})),
            )
            .0
    };
    // At bash's own prompt an unmodelled key stays on the line: text + Enter after it is
    // refused (readline may bind it to anything).
    assert_eq!(write("\x1b[Z"), 200);
    assert_eq!(write("echo hi\r"), 403);
    assert_eq!(write("\x03"), 200);
    // Back at a fresh prompt first (bash may drop what is typed while it handles the Ctrl-C).
    assert_eq!(b.talk_when_free(&id, "echo ready")["output"], "ready");
    // Under another program (a TUI, a REPL; here `cat`) only one write's keys and edits
    // count: Shift-Tab, then a line of text.
    b.send_line(&id, "cat");
    crate::support::wait_for(10_000, "cat in the foreground", || {
        b.entry(&id)["foreground_command"] == "cat"
    });
    let from = b.offset(&id);
    assert_eq!(write("\x1b[Z"), 200);
    assert_eq!(write("typed-after-a-key\r"), 200);
    b.read_until(&id, from, "typed-after-a-key\r\n");
    // One write holding the key, an edit and Enter is still refused.
    assert_eq!(write("x\tmore\r"), 403);
    assert_eq!(write("\x03"), 200);
}
