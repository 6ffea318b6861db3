//! The web console of `kpty serve` from the outside, over real HTTP and WebSocket connections:
//! the page holds no session data and everything else needs a login; the link `kpty console`
//! prints trades its token for a cookie, `--revoke` ends every login; only the console's own
//! origin is answered (a matrix of foreign origins × every way in); the overview stream pushes
//! a session's state as it changes.

use crate::bridge::Serve;
use crate::support::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// One HTTP answer: status, headers (names lowercase), body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Answer {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

pub(crate) fn addr(serve: &Serve) -> String {
    serve.url.trim_start_matches("http://").to_string()
}

pub(crate) fn port(serve: &Serve) -> String {
    addr(serve).rsplit(':').next().unwrap().to_string()
}

/// Send a request with exactly these headers (and `Host`, unless given) and read the head of
/// the answer; the stream is returned for a WebSocket's frames.
pub(crate) fn send(
    serve: &Serve,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (Answer, BufReader<TcpStream>) {
    let mut s = TcpStream::connect(addr(serve)).expect("connect to kpty serve");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        req += &format!("Host: {}\r\n", addr(serve));
    }
    for (n, v) in headers {
        req += &format!("{n}: {v}\r\n");
    }
    if !body.is_empty() {
        req += &format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("connection"))
    {
        req += "Connection: close\r\n";
    }
    req += "\r\n";
    req += body;
    s.write_all(req.as_bytes()).unwrap();
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let answer = Answer {
        status,
        headers,
        body: String::new(),
    };
    (answer, r)
}

/// [`send`], the body read too.
pub(crate) fn http(
    serve: &Serve,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let (mut a, mut r) = send(serve, method, path, headers, body);
    if a.status != 101 {
        let _ = r.read_to_string(&mut a.body);
    }
    a
}

/// The headers of a WebSocket upgrade.
const UPGRADE: [(&str, &str); 4] = [
    ("Connection", "Upgrade"),
    ("Upgrade", "websocket"),
    ("Sec-WebSocket-Version", "13"),
    ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
];

/// Open the overview WebSocket with `extra` headers: its answer, and the stream once upgraded.
fn websocket(serve: &Serve, extra: &[(&str, &str)]) -> (Answer, BufReader<TcpStream>) {
    websocket_at(serve, "/console/ws", extra)
}

/// Open the console WebSocket at `path` with `extra` headers.
pub(crate) fn websocket_at(
    serve: &Serve,
    path: &str,
    extra: &[(&str, &str)],
) -> (Answer, BufReader<TcpStream>) {
    let headers: Vec<(&str, &str)> = UPGRADE.iter().chain(extra).copied().collect();
    send(serve, "GET", path, &headers, "")
}

/// The next frame on a server's WebSocket stream (server frames are not masked): its FIN
/// bit, opcode and payload.
pub(crate) fn frame(r: &mut BufReader<TcpStream>) -> std::io::Result<(bool, u8, Vec<u8>)> {
    let mut head = [0u8; 2];
    r.read_exact(&mut head)?;
    let len = match head[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b)?;
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            r.read_exact(&mut b)?;
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    let mut payload = vec![0u8; usize::try_from(len).expect("a frame's length")];
    r.read_exact(&mut payload)?;
    Ok((head[0] & 0x80 != 0, head[0] & 0x0f, payload))
}

/// The next text message on a server's WebSocket stream; `None` once it is closed (a close
/// frame, or the end of the connection). A stream that says nothing for 20 s fails the test.
pub(crate) fn next_text(r: &mut BufReader<TcpStream>) -> Option<String> {
    let mut message = Vec::new();
    loop {
        let (fin, opcode, payload) = match frame(r) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return None,
            Err(e) => panic!("the stream said nothing: {e}"),
        };
        match opcode {
            0x8 => return None,
            0x1 | 0x0 => message.extend_from_slice(&payload),
            _ => continue, // ping, pong
        }
        if fin {
            return String::from_utf8(message).ok();
        }
    }
}

/// The token in the link `kpty console` prints for `serve`.
pub(crate) fn token(env: &Env, serve: &Serve) -> String {
    let link = env.ok(&["console", "--port", &port(serve)]);
    let (_, token) = link.trim().split_once("#token=").expect("a token after #");
    assert!(
        !link.contains('?'),
        "the token stays out of the query: {link}"
    );
    token.to_string()
}

/// Log in with `token`: the cookie's `name=value`, or the refusal.
pub(crate) fn login(serve: &Serve, token: &str) -> Result<String, Answer> {
    let a = http(
        serve,
        "POST",
        "/console/login",
        &[],
        &serde_json::json!({ "token": token }).to_string(),
    );
    match (a.status, a.header("set-cookie")) {
        (204, Some(c)) => Ok(c.split(';').next().unwrap().to_string()),
        _ => Err(a),
    }
}

/// Log in with the link `kpty console` prints: the cookie, and the console's own origin.
pub(crate) fn logged_in(env: &Env, serve: &Serve) -> (String, String) {
    let cookie = login(serve, &token(env, serve)).unwrap_or_else(|a| panic!("{}", a.body));
    (cookie, format!("http://{}", addr(serve)))
}

#[test]
fn the_page_holds_no_session_data_and_everything_else_needs_a_login() {
    let env = Env::new();
    let id = env.create(&["--label", "web-demo"]);
    let serve = Serve::start(&env);
    let page = http(&serve, "GET", "/console/", &[], "");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("kpty console"));
    assert!(!page.body.contains(&id) && !page.body.contains("web-demo"));
    for (name, want) in [
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("x-content-type-options", "nosniff"),
    ] {
        assert_eq!(page.header(name), Some(want), "{name}");
    }
    let csp = page.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.contains("default-src 'self'")
            && csp.contains("script-src 'self'")
            && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    // No inline script: every script the page runs is a file of the console's own.
    assert!(!page.body.contains("<script>"), "inline script in the page");
    let script = http(&serve, "GET", "/console/assets/console.js", &[], "");
    assert_eq!(script.status, 200);
    assert!(
        script
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/javascript"))
    );
    let tag = script.header("etag").expect("an ETag").to_string();
    let again = http(
        &serve,
        "GET",
        "/console/assets/console.js",
        &[("If-None-Match", &tag)],
        "",
    );
    assert_eq!(again.status, 304);

    // Without a login: the sessions, whichever way asked, are 401; forged cookies too.
    let own = format!("http://{}", addr(&serve));
    for cookie in [
        None,
        Some("kpty_console=1.2.3"),
        Some("kpty_console=99999999999.00000000000000000000000000000000.00"),
    ] {
        let mut h = vec![("Origin", own.as_str())];
        if let Some(c) = cookie {
            h.push(("Cookie", c));
        }
        for path in [
            "/console/api/sessions".to_string(),
            format!("/console/api/sessions/{id}/activity"),
        ] {
            let a = http(&serve, "GET", &path, &h, "");
            assert_eq!(a.status, 401, "{cookie:?} {path}: {}", a.body);
            assert!(!a.body.contains(&id));
        }
        for path in [
            "/console/ws".to_string(),
            format!("/console/ws/session/{id}"),
        ] {
            let (ws, _) = websocket_at(&serve, &path, &h);
            assert_eq!(ws.status, 401, "{cookie:?}: {path} without a login");
        }
    }
    // The terminal view's page is served to anyone and holds nothing of the session.
    let term = http(&serve, "GET", &format!("/console/session/{id}"), &[], "");
    assert_eq!(term.status, 200, "{}", term.body);
    assert!(
        term.body.contains("/console/assets/term.js"),
        "{}",
        term.body
    );
    assert!(!term.body.contains("web-demo") && !term.body.contains("<script>"));
    assert!(term.header("content-security-policy").is_some());
    for asset in [
        "xterm.js",
        "xterm.css",
        "addon-fit.js",
        "term.js",
        "asciinema-player.min.js",
        "asciinema-player.css",
    ] {
        let a = http(&serve, "GET", &format!("/console/assets/{asset}"), &[], "");
        assert_eq!(a.status, 200, "{asset}");
        let kind = if asset.ends_with(".css") {
            "text/css"
        } else {
            "text/javascript"
        };
        let got = a.header("content-type").unwrap_or_default();
        assert!(got.starts_with(kind), "{asset}: {got}");
        assert!(a.header("etag").is_some(), "{asset}");
    }
}

#[test]
fn a_login_link_trades_its_token_for_a_cookie_and_revoke_ends_every_login() {
    let env = Env::new();
    let id = env.create(&[]);
    let serve = Serve::start(&env);
    let token = token(&env, &serve);
    assert_eq!(token.len(), 64);
    assert_ne!(
        token, serve.secret,
        "the console token is not the API secret"
    );

    let wrong = login(&serve, &"0".repeat(64)).expect_err("a wrong token");
    assert_eq!(wrong.status, 401);
    assert!(
        login(&serve, &serve.secret).is_err(),
        "the API secret is no console login"
    );

    let a = http(
        &serve,
        "POST",
        "/console/login",
        &[],
        &serde_json::json!({ "token": token }).to_string(),
    );
    let set = a.header("set-cookie").expect("a cookie").to_string();
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age="] {
        assert!(set.contains(attr), "{attr} in {set}");
    }
    let cookie = set.split(';').next().unwrap().to_string();
    let sessions = http(
        &serve,
        "GET",
        "/console/api/sessions",
        &[("Cookie", &cookie)],
        "",
    );
    assert_eq!(sessions.status, 200, "{}", sessions.body);
    let v = sessions.json();
    let mine = v["sessions"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["session_id"] == id.as_str()))
        .unwrap_or_else(|| panic!("{id} in {v}"));
    assert_eq!(mine["terminal_state"], "prompt", "{mine}");

    // --revoke: the old cookie and the old link stop working at once, an open stream ends
    // (closed as logged out); a new link works.
    let own = format!("http://{}", addr(&serve));
    let (ws, mut stream) = websocket(&serve, &[("Cookie", &cookie), ("Origin", &own)]);
    assert_eq!(ws.status, 101);
    assert!(next_text(&mut stream).is_some(), "the first overview");
    env.ok(&["console", "--revoke"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while next_text(&mut stream).is_some() {
        assert!(Instant::now() < deadline, "the stream outlived its login");
    }
    let a = http(
        &serve,
        "GET",
        "/console/api/sessions",
        &[("Cookie", &cookie)],
        "",
    );
    assert_eq!(a.status, 401, "a revoked login: {}", a.body);
    assert!(login(&serve, &token).is_err(), "the old link");
    let fresh = self::token(&env, &serve);
    assert_ne!(fresh, token);
    let cookie = login(&serve, &fresh).unwrap_or_else(|a| panic!("{}", a.body));
    let a = http(
        &serve,
        "GET",
        "/console/api/sessions",
        &[("Cookie", &cookie)],
        "",
    );
    assert_eq!(a.status, 200);
}

#[test]
fn only_the_consoles_own_origin_is_answered() {
    let env = Env::new();
    let id = env.create(&[]);
    let sockets = [
        "/console/ws".to_string(),
        format!("/console/ws/session/{id}"),
    ];
    let serve = Serve::start(&env);
    let cookie = login(&serve, &token(&env, &serve)).unwrap_or_else(|a| panic!("{}", a.body));
    let p = port(&serve);
    let own = format!("http://127.0.0.1:{p}");
    let foreign = [
        format!("http://localhost:{p}"),
        format!("https://127.0.0.1:{p}"),
        format!("http://127.0.0.1:{}", p.parse::<u32>().unwrap() + 1),
        format!("http://127.0.0.1:{p}.evil.example"),
        "http://evil.example".to_string(),
        "null".to_string(),
    ];
    let body = serde_json::json!({"token": "x"}).to_string();
    for origin in &foreign {
        let h = [("Origin", origin.as_str()), ("Cookie", cookie.as_str())];
        let a = http(&serve, "GET", "/console/api/sessions", &h, "");
        assert_eq!(a.status, 403, "{origin}: sessions");
        let a = http(&serve, "POST", "/console/login", &h[..1], &body);
        assert_eq!(a.status, 403, "{origin}: login");
        for path in &sockets {
            let (ws, _) = websocket_at(&serve, path, &h);
            assert_eq!(ws.status, 403, "{origin}: WebSocket {path}");
        }
    }
    // A WebSocket must say where it comes from; the console's own origin is answered.
    for path in &sockets {
        let (ws, _) = websocket_at(&serve, path, &[("Cookie", &cookie)]);
        assert_eq!(ws.status, 403, "{path} without an Origin");
        let (ws, _) = websocket_at(&serve, path, &[("Cookie", &cookie), ("Origin", &own)]);
        assert_eq!(ws.status, 101, "{path}");
    }
    // A foreign Host is refused before anything (DNS rebinding).
    let a = http(
        &serve,
        "GET",
        "/console/",
        &[("Host", &format!("evil.example:{p}"))],
        "",
    );
    assert_eq!(a.status, 403);
}

/// The next overview the stream pushes in which `pick` finds what it looks for.
fn pushed_until(r: &mut BufReader<TcpStream>, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let text = next_text(r).unwrap_or_else(|| panic!("the stream ended before {what}"));
        let v: Value = serde_json::from_str(&text).expect("a JSON overview");
        if pick(&v) {
            return v;
        }
    }
    panic!("no overview with {what} within 30 s");
}

fn state_of(v: &Value, id: &str) -> Option<String> {
    v["sessions"].as_array()?.iter().find_map(|s| {
        (s["session_id"] == id).then(|| {
            s["terminal_state"]
                .as_str()
                .or(s["state"].as_str())
                .unwrap_or_default()
                .to_string()
        })
    })
}

#[test]
fn the_overview_stream_pushes_sessions_as_their_state_changes() {
    let env = Env::new();
    let id = env.create(&["--label", "asks"]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let (ws, mut r) = websocket(&serve, &[("Cookie", &cookie), ("Origin", &own)]);
    assert_eq!(ws.status, 101);
    pushed_until(&mut r, "the session at its prompt", |v| {
        state_of(v, &id).as_deref() == Some("prompt")
    });
    // A command that asks for input: the tile turns waiting_input, pushed.
    env.send_line(&id, "read -p 'name? ' answer");
    let v = pushed_until(&mut r, "the session waiting for input", |v| {
        state_of(v, &id).as_deref() == Some("waiting_input")
    });
    // With how long its command has run: it started at the output-start marker.
    let mine = v["sessions"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["session_id"] == id.as_str()))
        .cloned()
        .unwrap_or_default();
    let since = mine["command_started_at"].as_str().unwrap_or_default();
    assert!(
        since.len() == 24
            && since.ends_with('Z')
            && since >= mine["created_at"].as_str().unwrap_or_default(),
        "{mine}"
    );
    // A new session appears; an ended one says so.
    let other = env.create(&[]);
    pushed_until(&mut r, "the new session", |v| state_of(v, &other).is_some());
    env.ok(&["kill", "-s", &other]);
    pushed_until(&mut r, "the ended session", |v| {
        state_of(v, &other).is_none_or(|s| s != "prompt")
    });
}

/// In the page: wait (a MutationObserver, within the session's script timeout) until the
/// tile of `arguments[0]` shows the state `arguments[1]`; returns every tile's id and state.
const TILE_IS: &str = r#"
const [id, state, done] = arguments;
const tiles = () => [...document.querySelectorAll('[data-session-id]')]
  .map((e) => [e.dataset.sessionId, e.dataset.state]);
const now = () => {
  const e = document.querySelector(`[data-session-id="${CSS.escape(id)}"]`);
  return e !== null && e.dataset.state === state;
};
if (now()) { done(tiles()); return; }
const o = new MutationObserver(() => { if (now()) { o.disconnect(); done(tiles()); } });
o.observe(document.body, { subtree: true, childList: true, attributes: true });
"#;

/// In the page: wait until the element `arguments[0]` is shown; returns the page's text.
const SHOWN: &str = r#"
const [sel, done] = arguments;
const now = () => { const e = document.querySelector(sel); return e !== null && !e.hidden; };
if (now()) { done(document.body.innerText); return; }
const o = new MutationObserver(() => { if (now()) { o.disconnect(); done(document.body.innerText); } });
o.observe(document.body, { subtree: true, childList: true, attributes: true });
"#;

/// In the page: wait until the miniature of session `arguments[0]` shows `arguments[1]`;
/// returns its text.
const MINI_SHOWS: &str = r#"
const [id, text, done] = arguments;
const mini = () => {
  const e = document.querySelector(`[data-session-id="${CSS.escape(id)}"] .mini pre`);
  return e ? e.textContent : '';
};
if (mini().includes(text)) { done(mini()); return; }
const o = new MutationObserver(() => { if (mini().includes(text)) { o.disconnect(); done(mini()); } });
o.observe(document.body, { subtree: true, childList: true, characterData: true });
"#;

pub(crate) fn tiles_once(
    b: &crate::webdriver::Browser,
    id: &str,
    state: &str,
) -> Vec<(String, String)> {
    let v = b.run_async(TILE_IS, serde_json::json!([id, state]));
    serde_json::from_value(v.clone())
        .unwrap_or_else(|_| panic!("the tile of {id} never showed {state}: {v}"))
}

#[test]
fn in_a_real_browser_the_login_link_shows_every_session_live() {
    let Some(b) = crate::webdriver::Browser::start() else {
        skip("chromium and chromedriver are not installed");
        return;
    };
    let env = Env::new();
    let alpha = env.create(&["--label", "alpha"]);
    let beta = env.create(&["--label", "beta"]);
    let serve = Serve::start(&env);
    let origin = format!("http://127.0.0.1:{}", port(&serve));

    // No login: a login prompt, and no session data anywhere on the page.
    b.go(&format!("{origin}/console/"));
    let text = b.run_async(SHOWN, serde_json::json!(["#login"]));
    let text = text.as_str().unwrap_or_default();
    assert!(!text.contains(&alpha) && !text.contains("alpha"), "{text}");
    assert_eq!(
        b.run(
            "return document.querySelectorAll('[data-session-id]').length",
            Value::Null
        ),
        0
    );

    // The link logs in; every session made by the CLI shows with its state.
    let link = env.ok(&["console", "--port", &port(&serve)]);
    b.go(link.trim());
    let tiles = tiles_once(&b, &alpha, "prompt");
    assert!(
        tiles.iter().any(|(id, s)| id == &beta && s == "prompt"),
        "{tiles:?}"
    );
    let href = b.run("return location.href", Value::Null);
    assert!(
        !href.as_str().unwrap_or_default().contains("token"),
        "{href}"
    );
    let cookie = b.run("return document.cookie", Value::Null);
    assert!(
        !cookie.as_str().unwrap_or_default().contains("kpty_console"),
        "the login cookie is HttpOnly: {cookie}"
    );

    // A command that asks for input: its tile turns waiting_input, pushed to the page, and
    // its miniature shows the question.
    env.send_line(&alpha, "read -p 'name? ' answer");
    tiles_once(&b, &alpha, "waiting_input");
    let mini = b.run_async(MINI_SHOWS, serde_json::json!([alpha, "name? "]));
    assert!(
        mini.as_str().is_some_and(|m| m.contains("read -p")),
        "{mini}"
    );

    // The filter narrows the tiles (by label here).
    let shown = b.run(
        "const f = document.getElementById('filter'); f.value = 'beta'; \
         f.dispatchEvent(new Event('input')); \
         return [...document.querySelectorAll('[data-session-id]')].map((e) => e.dataset.sessionId)",
        Value::Null,
    );
    assert_eq!(shown, serde_json::json!([beta]), "{shown}");

    // Nothing the page loaded came from anywhere but its own origin.
    let elsewhere = b.run(
        "return performance.getEntriesByType('resource').map((e) => e.name)\
         .filter((n) => !n.startsWith(location.origin + '/'))",
        Value::Null,
    );
    assert_eq!(elsewhere, serde_json::json!([]), "{elsewhere}");

    // A page of another origin cannot open the console's WebSocket (cross-site WebSocket
    // hijacking), even in the browser that is logged in.
    b.go("data:text/html,<title>elsewhere</title>");
    let got = b.run_async(
        "const [url, done] = arguments; const ws = new WebSocket(url); \
         ws.onopen = () => done('open'); ws.onerror = () => done('refused');",
        serde_json::json!([format!("ws://127.0.0.1:{}/console/ws", port(&serve))]),
    );
    assert_eq!(got, "refused");
}

#[test]
fn open_overview_streams_are_capped_and_a_closed_one_frees_its_place() {
    let env = Env::new();
    let id = env.create(&[]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let h = [("Cookie", cookie.as_str()), ("Origin", own.as_str())];
    // The overview's streams and the terminal views each have 32 places.
    for path in [
        "/console/ws".to_string(),
        format!("/console/ws/session/{id}"),
    ] {
        let mut open = Vec::new();
        for n in 0..32 {
            let (ws, r) = websocket_at(&serve, &path, &h);
            assert_eq!(ws.status, 101, "{path}: stream {n}");
            open.push(r);
        }
        let (ws, _) = websocket_at(&serve, &path, &h);
        assert_eq!(ws.status, 503, "{path}: one stream over the cap");
        // A page that leaves frees its place.
        drop(open.pop());
        wait_for(20_000, "a free place after a stream closed", || {
            websocket_at(&serve, &path, &h).0.status == 101
        });
    }
}
