//! The web console's terminal view from the outside: a WebSocket client (as a page, and as a
//! hostile script that ignores the page's buttons) and a real headless chromium, against a
//! real `kpty serve` and real shells. A view watches until it takes control, and only then do
//! its keys reach the session; a watching view never resizes the terminal; taking control
//! tells the page that wrote before; an agent session's input filter keeps a web `exit` (every
//! way of typing it) from the program and warns that page only; everything is audited with
//! the login that did it.

use crate::bridge::Serve;
use crate::console::{frame, http, logged_in, port, websocket_at};
use crate::support::*;
use crate::tty::Tty;
use serde_json::{Value, json};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Seed 002's warning to a web writer whose keys were blocked, byte for byte.
pub(crate) const WEB_WARNING: &str =
    "\r\n\x1b[1;33m⚠  Blocked from web. Use local terminal to exit.\x1b[0m\r\n";

/// One terminal view over a raw WebSocket.
pub(crate) struct View {
    r: BufReader<TcpStream>,
    /// Every output byte received so far.
    pub(crate) output: Vec<u8>,
    /// Every JSON message received so far.
    pub(crate) events: Vec<Value>,
    /// The session's output offset this view has everything before, as the server last said
    /// (a binary message's 8-byte head, or an `offset` message); `None`: not known.
    pub(crate) at: Option<u64>,
    /// Every offset a binary message's head said, in order.
    heads: Vec<Option<u64>>,
    /// The close frame's code, once the server closed the view.
    pub(crate) closed: Option<u16>,
}

impl View {
    /// Join session `id` as the logged-in `cookie` from `origin`; waits for `joined`.
    pub(crate) fn join(serve: &Serve, id: &str, cookie: &str, origin: &str) -> (Self, Value) {
        Self::join_at(serve, &format!("/console/ws/session/{id}"), cookie, origin)
    }

    /// [`View::join`] at `path` (a query: `?from=` to come back).
    pub(crate) fn join_at(serve: &Serve, path: &str, cookie: &str, origin: &str) -> (Self, Value) {
        let (ws, r) = websocket_at(serve, path, &[("Cookie", cookie), ("Origin", origin)]);
        assert_eq!(ws.status, 101, "{path}");
        let mut v = View {
            r,
            output: Vec::new(),
            events: Vec::new(),
            at: None,
            heads: Vec::new(),
            closed: None,
        };
        let joined = v.until_event("joined", |e| e["type"] == "joined");
        (v, joined)
    }

    /// Send one JSON message (client frames are masked).
    pub(crate) fn send(&mut self, msg: Value) {
        let payload = msg.to_string().into_bytes();
        let mask = [0x5a, 0xa5, 0x3c, 0xc3];
        let mut f = vec![0x81];
        match payload.len() {
            n if n < 126 => f.push(0x80 | n as u8),
            n if n <= usize::from(u16::MAX) => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                f.push(0x80 | 127);
                f.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.r.get_mut().write_all(&f).expect("send to the view");
    }

    /// Read messages until one is closed (false) or a message arrived (true).
    pub(crate) fn read_one(&mut self) -> bool {
        match frame(&mut self.r) {
            Ok((_, 0x2, bytes)) => {
                let (head, rest) = bytes.split_at(8);
                let head = u64::from_be_bytes(head.try_into().unwrap());
                self.at = (head != u64::MAX).then_some(head);
                self.heads.push(self.at);
                self.output.extend_from_slice(rest);
            }
            Ok((_, 0x1, text)) => {
                let e: Value = serde_json::from_slice(&text).expect("a JSON event");
                match e["type"].as_str() {
                    Some("offset") => self.at = e["at"].as_u64(),
                    Some("resync") => self.at = None,
                    _ => {}
                }
                self.events.push(e);
            }
            Ok((_, 0x8, body)) => {
                self.closed = body.get(..2).map(|c| u16::from_be_bytes([c[0], c[1]]));
                return false;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return false,
            Err(e) => {
                let out = String::from_utf8_lossy(&self.output);
                let tail = &out[out.floor_char_boundary(out.len().saturating_sub(400))..];
                panic!("the view said nothing: {e}; its output ends {tail:?}")
            }
        }
        true
    }

    /// Read until the output holds `text`.
    pub(crate) fn until_output(&mut self, text: &str) {
        self.until(text, |out| out.contains(text));
    }

    /// Read until `done` accepts the output (`what` names it in the failure).
    pub(crate) fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done(&String::from_utf8_lossy(&self.output)) {
            assert!(
                Instant::now() < deadline && self.read_one(),
                "no {what:?} in the view's output: {:?}",
                String::from_utf8_lossy(&self.output)
            );
        }
    }

    /// Read until an event `pick` accepts arrives (events seen before are not looked at
    /// again); returns it.
    pub(crate) fn until_event(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = self.events.len();
        loop {
            if let Some(e) = self.events[seen..].iter().find(|e| pick(e)) {
                return e.clone();
            }
            seen = self.events.len();
            assert!(
                Instant::now() < deadline && self.read_one(),
                "no {what} event; had {:?}",
                self.events
            );
        }
    }
}

/// The session's whole output as `kpty read` has it.
fn everything(env: &Env, id: &str) -> String {
    env.ok(&[
        "read",
        "-s",
        id,
        "--since",
        "0",
        "--max-bytes",
        "1048576",
        "--strip-ansi",
    ])
}

/// The audit trail of session `id`, actions named `web_*`.
fn web_trail(env: &Env, id: &str) -> Vec<Value> {
    env.ok(&["--json", "log", "-s", id])
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["action"].as_str().is_some_and(|a| a.starts_with("web_")))
        .collect()
}

#[test]
fn a_view_watches_until_it_takes_control_and_only_a_writing_view_sizes_the_terminal() {
    let env = Env::new();
    let id = env.create(&["--cols", "100", "--rows", "30"]);
    env.talk(&id, "seq 101 160");
    assert_eq!(env.out(&id, "echo before-$((2*21))"), "before-42");
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let (mut v, joined) = View::join(&serve, &id, &cookie, &own);
    // The scrollback first (rows long gone from the 30-row screen), then the screen.
    v.until_output("101\r\n102\r\n");
    assert_eq!(
        (joined["cols"].as_u64(), joined["rows"].as_u64()),
        (Some(100), Some(30))
    );
    assert_eq!(joined["can_write"], true, "{joined}");
    let who = joined["who"].as_str().expect("the login").to_string();
    assert!(who.starts_with("web:") && who.len() > 4, "{who}");
    // The screen first: what was there before the page came.
    v.until_output("before-42");

    // A watching page's keys and size reach nothing, whatever the page sends (the server
    // decides, not the page's buttons). A redraw asked after them proves they were handled.
    v.send(json!({"type": "resize", "cols": 50, "rows": 10}));
    v.send(json!({"type": "input", "data": "echo sneaky-$((4*4))\r"}));
    v.send(json!({"type": "redraw"}));
    v.until_event("resync", |e| e["type"] == "resync");
    assert_eq!(
        env.out(&id, "stty size"),
        "30 100",
        "a watcher resized the terminal"
    );

    // Take control: the page's size counts now, its keys are typed.
    v.send(json!({"type": "write"}));
    v.until_event("write mode", |e| {
        e["type"] == "mode" && e["mode"] == "write"
    });
    v.until_event("the page's size", |e| {
        e["type"] == "size" && e["cols"] == 50
    });
    assert_eq!(env.out(&id, "stty size"), "10 50");
    v.send(json!({"type": "input", "data": "echo ws-$((3*3))\r"}));
    v.until_output("ws-9");

    // Release: back to watching, the terminal back to its own size.
    v.send(json!({"type": "read"}));
    v.until_event("read mode", |e| e["type"] == "mode" && e["mode"] == "read");
    v.until_event("the size back", |e| e["type"] == "size" && e["cols"] == 100);
    assert_eq!(env.out(&id, "stty size"), "30 100");
    v.send(json!({"type": "input", "data": "echo sneaky-again\r"}));
    v.send(json!({"type": "redraw"}));
    v.until_event("resync", |e| e["type"] == "resync");
    drop(v);

    let all = everything(&env, &id);
    assert!(all.contains("ws-9"), "{all}");
    assert!(!all.contains("sneaky"), "a watching page typed: {all}");

    // Audited with the login: join, control, the line typed, release, leave.
    wait_for(20_000, "web_leave in the trail", || {
        web_trail(&env, &id)
            .iter()
            .any(|e| e["action"] == "web_leave")
    });
    let trail = web_trail(&env, &id);
    let actions: Vec<&str> = trail.iter().filter_map(|e| e["action"].as_str()).collect();
    assert_eq!(
        actions,
        [
            "web_join",
            "web_control",
            "web_write",
            "web_control",
            "web_leave"
        ],
        "{trail:?}"
    );
    assert!(
        trail.iter().all(|e| e["agent_id"] == who.as_str()),
        "{trail:?}"
    );
    assert_eq!(trail[2]["command"], "echo ws-$((3*3))\r", "{trail:?}");
    assert_eq!(
        (&trail[1]["command"], &trail[3]["command"]),
        (&json!("write"), &json!("read"))
    );

    // The activity timeline has the same, with the commands' exit codes, and needs a login.
    let path = format!("/console/api/sessions/{id}/activity");
    let a = http(&serve, "GET", &path, &[("Cookie", &cookie)], "");
    assert_eq!(a.status, 200, "{}", a.body);
    let events = a.json()["events"].as_array().cloned().unwrap_or_default();
    let talk = events
        .iter()
        .find(|e| e["action"] == "talk" && e["command"] == "stty size")
        .unwrap_or_else(|| panic!("the talk in {events:?}"));
    assert_eq!(talk["exit_code"], 0, "{talk}");
    assert!(
        events
            .iter()
            .any(|e| e["action"] == "web_write" && e["agent_id"] == who.as_str()),
        "{events:?}"
    );
    assert_eq!(http(&serve, "GET", &path, &[], "").status, 401);
}

/// A page's message arrives whole whatever its size against the server's read buffer
/// (4 KiB): one byte, around the buffer's size, several buffers, past 64 KiB (a long paste).
#[test]
fn a_pasted_message_of_any_size_reaches_the_session_whole() {
    let env = Env::new();
    let id = env.create(&[]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let (mut v, _) = View::join(&serve, &id, &cookie, &own);
    v.send(json!({"type": "write"}));
    v.until_event("write mode", |e| {
        e["type"] == "mode" && e["mode"] == "write"
    });
    // The message's JSON is 40 bytes longer than the paste (`{"type":"input","data":…}`).
    for n in [1usize, 4000, 4056, 4057, 4100, 12_345, 70_000] {
        let paste = format!("x{}", "y".repeat(n - 1));
        let line = format!("printf %s {paste} | wc -c | sed 's/^/len=/'\r");
        v.send(json!({"type": "input", "data": line}));
        // After a resync (the echo of a long paste can outrun the view) the line comes in
        // the screen's redraw, its blanks as repeats: the count, then no other digit.
        let counted = regex::Regex::new(&format!("len={n}[^0-9]")).unwrap();
        v.until(&format!("len={n}"), |out| counted.is_match(out));
    }
}

#[test]
fn taking_control_tells_the_page_that_wrote_before() {
    let env = Env::new();
    let id = env.create(&[]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let mut tty = Tty::kpty(&env, &["attach", &id], (100, 30));
    tty.expect("attached to");
    let (mut a, _) = View::join(&serve, &id, &cookie, &own);
    let (cookie_b, _) = logged_in(&env, &serve);
    let (mut b, joined_b) = View::join(&serve, &id, &cookie_b, &own);
    a.send(json!({"type": "write"}));
    a.until_event("a writes", |e| e["type"] == "mode" && e["mode"] == "write");
    b.send(json!({"type": "write"}));
    b.until_event("b writes", |e| e["type"] == "mode" && e["mode"] == "write");
    let told = a.until_event("a told", |e| e["type"] == "mode" && e["mode"] == "read");
    // A person at the session's terminal is told too, on their screen.
    tty.expect(&format!(
        "{} took control from the web console",
        joined_b["who"].as_str().unwrap()
    ));
    assert_eq!(told["by"], joined_b["who"], "{told}");
    assert!(
        told["notice"]
            .as_str()
            .unwrap_or_default()
            .contains("took control"),
        "{told}"
    );
    // A's keys no longer reach the session; B's do.
    a.send(json!({"type": "input", "data": "echo from-a\r"}));
    b.send(json!({"type": "input", "data": "echo from-b-$((2*4))\r"}));
    b.until_output("from-b-8");
    a.until_output("from-b-8");
    assert!(!everything(&env, &id).contains("from-a"));
}

#[test]
fn an_agent_sessions_filter_keeps_every_web_exit_from_the_program_and_warns_that_page_only() {
    let env = Env::new();
    let id = env.create(&["--command", "sh -i"]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let (mut writer, _) = View::join(&serve, &id, &cookie, &own);
    let (mut watcher, _) = View::join(&serve, &id, &cookie, &own);
    writer.send(json!({"type": "write"}));
    writer.until_event("write mode", |e| {
        e["type"] == "mode" && e["mode"] == "write"
    });
    // Every way in of the category: the word and Enter, padded, pasted, split over messages,
    // quit and /exit, Ctrl-D.
    let ways: [&[&str]; 6] = [
        &["exit\r"],
        &["  exit \r"],
        &["\x1b[200~exit\r\x1b[201~"],
        &["ex", "it", "\r"],
        &["quit\r"],
        &["\x04"],
    ];
    for (n, way) in ways.iter().enumerate() {
        let before = writer.events.len();
        for part in *way {
            writer.send(json!({"type": "input", "data": part}));
        }
        let blocked = writer.until_event("blocked", |e| e["type"] == "blocked");
        assert!(writer.events.len() > before);
        assert_eq!(blocked["warning"], WEB_WARNING, "{way:?}");
        writer.until_output(WEB_WARNING);
        writer.output.clear();
        // The program lives on: the next command runs.
        writer.send(json!({"type": "input", "data": "\x15"}));
        writer.send(json!({"type": "input", "data": format!("echo alive-{n}-$((6*7))\r")}));
        writer.until_output(&format!("alive-{n}-42"));
        watcher.until_output(&format!("alive-{n}-42"));
    }
    assert!(
        !String::from_utf8_lossy(&watcher.output).contains("Blocked from web"),
        "the warning went to another page"
    );
    assert_eq!(env.entry(&id)["state"], "running", "{}", env.entry(&id));
    // The blocked attempts are in the trail, failed with INPUT_BLOCKED.
    let trail = web_trail(&env, &id);
    let blocked = trail
        .iter()
        .filter(|e| e["action"] == "web_write" && e["error_code"] == "INPUT_BLOCKED")
        .count();
    assert!(blocked >= ways.len(), "{trail:?}");
}

#[test]
fn a_page_that_lost_its_connection_carries_on_from_its_offset() {
    let env = Env::new();
    let id = env.create(&[]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    let (mut a, joined) = View::join(&serve, &id, &cookie, &own);
    assert_eq!(joined["resumed"], false, "{joined}");
    // Joining: the screen, then where it leaves the page.
    let first = a.until_event("offset", |e| e["type"] == "offset");
    let start = first["at"].as_u64().expect("an offset");
    assert!(a.heads.iter().all(Option::is_none), "{:?}", a.heads);
    env.send_line(&id, "echo one-$((6*7))");
    a.until_output("one-42");
    let from = a.at.expect("live output carries its offset");
    assert!(from > start, "{from} after {start}");
    // Every head moves forward, never back.
    let known: Vec<u64> = a.heads.iter().flatten().copied().collect();
    assert!(known.windows(2).all(|w| w[0] <= w[1]), "{known:?}");
    // The connection drops; the session carries on without the page.
    drop(a);
    assert_eq!(env.out(&id, "echo two-$((7*7))"), "two-49");

    // Back with ?from=: just what it missed, no scrollback, no screen.
    let path = format!("/console/ws/session/{id}?from={from}");
    let (mut b, joined) = View::join_at(&serve, &path, &cookie, &own);
    assert_eq!(joined["resumed"], true, "{joined}");
    b.until_output("two-49");
    let missed = String::from_utf8_lossy(&b.output).into_owned();
    assert!(!missed.contains("one-42"), "sent again: {missed:?}");
    assert!(b.at.is_some_and(|at| at > from), "{:?}", b.at);
    drop(b);

    // An offset the holder does not have (ahead of the output, or not a number): the
    // scrollback and the screen afresh, or a refusal before the upgrade.
    for bad in [u64::MAX - 1, from + (1 << 40)] {
        let path = format!("/console/ws/session/{id}?from={bad}");
        let (mut c, joined) = View::join_at(&serve, &path, &cookie, &own);
        assert_eq!(joined["resumed"], false, "{bad}: {joined}");
        c.until_output("one-42");
        c.until_event("offset", |e| e["type"] == "offset");
    }
    // More output than the holder keeps (100 KiB by default) since: the offset is gone.
    env.talk(&id, "seq 1 40000");
    let path = format!("/console/ws/session/{id}?from={from}");
    let (mut d, joined) = View::join_at(&serve, &path, &cookie, &own);
    assert_eq!(joined["resumed"], false, "{joined}");
    d.until_output("40000");
    let bad = websocket_at(
        &serve,
        &format!("/console/ws/session/{id}?from=-1"),
        &[("Cookie", &cookie), ("Origin", &own)],
    )
    .0;
    assert_eq!(bad.status, 400);
    // Coming back is in the trail.
    wait_for(20_000, "a resumed web_join", || {
        web_trail(&env, &id).iter().any(|e| {
            e["action"] == "web_join"
                && e["response"]
                    .as_str()
                    .is_some_and(|r| r.contains("\"resumed\":true"))
        })
    });
}

#[test]
fn a_view_of_a_session_that_is_not_there_is_told_so_and_closed() {
    let env = Env::new();
    env.create(&[]);
    let serve = Serve::start(&env);
    let (cookie, own) = logged_in(&env, &serve);
    for id in [
        "no-such-session",
        "..%2F..%2Fetc",
        "%00",
        "x".repeat(300).as_str(),
    ] {
        let path = format!("/console/ws/session/{id}");
        let (ws, mut r) = websocket_at(&serve, &path, &[("Cookie", &cookie), ("Origin", &own)]);
        assert_eq!(ws.status, 101, "{id}");
        let (_, op, text) = frame(&mut r).expect("an answer");
        assert_eq!(op, 0x1, "{id}");
        let v: Value = serde_json::from_slice(&text).expect("JSON");
        assert_eq!(v["type"], "error", "{v}");
        assert!(
            v["error_code"].as_str().is_some_and(|c| !c.is_empty()),
            "{v}"
        );
        let (_, op, _) = frame(&mut r).expect("a close");
        assert_eq!(op, 0x8, "{id}: closed");
    }
    // The server lives on.
    let (_, joined) = View::join(&serve, &env.create(&[]), &cookie, &own);
    assert_eq!(joined["type"], "joined");
}

/// In the page: wait until the terminal's rows show `arguments[0]`; returns them.
const ROWS_SHOW: &str = r#"
const [text, done] = arguments;
const rows = () => { const e = document.querySelector('#terminal .xterm-rows'); return e ? e.textContent.replace(/\u00a0/g, ' ') : ''; };
if (rows().includes(text)) { done(rows()); return; }
const o = new MutationObserver(() => { if (rows().includes(text)) { o.disconnect(); done(rows()); } });
o.observe(document.body, { subtree: true, childList: true, characterData: true });
"#;

/// In the page: wait until `arguments[0]` matches an element; returns true.
const MATCHES: &str = r#"
const [sel, done] = arguments;
if (document.querySelector(sel)) { done(true); return; }
const o = new MutationObserver(() => { if (document.querySelector(sel)) { o.disconnect(); done(true); } });
o.observe(document.body, { subtree: true, childList: true, attributes: true });
"#;

/// Wait until an element the selector in `sel` names is in the page.
pub(crate) fn shows(b: &crate::webdriver::Browser, sel: Value) {
    let v = b.run_async(MATCHES, sel.clone());
    assert_eq!(v, true, "{sel} never showed: {v}");
}

pub(crate) fn rows_show(b: &crate::webdriver::Browser, text: &str) -> String {
    let v = b.run_async(ROWS_SHOW, json!([text]));
    v.as_str()
        .unwrap_or_else(|| panic!("the terminal never showed {text:?}: {v}"))
        .to_string()
}

#[test]
fn in_a_real_browser_the_terminal_shows_the_screen_then_types_after_take_control() {
    let Some(b) = crate::webdriver::Browser::start() else {
        skip("chromium and chromedriver are not installed");
        return;
    };
    let env = Env::new();
    let id = env.create(&["--label", "web-term"]);
    assert_eq!(env.out(&id, "echo earlier-$((7*6))"), "earlier-42");
    let agent = env.create(&["--command", "sh -i", "--label", "agent"]);
    let serve = Serve::start(&env);
    let origin = format!("http://127.0.0.1:{}", port(&serve));
    let link = env.ok(&["console", "--port", &port(&serve)]);
    b.go(link.trim());

    // From the overview, the tile's link opens the terminal: the screen, then live output.
    shows(
        &b,
        json!([format!("[data-session-id=\"{id}\"] a[data-action=open]")]),
    );
    b.click(&format!("[data-session-id=\"{id}\"] a[data-action=open]"));
    rows_show(&b, "earlier-42");
    assert_eq!(
        b.run(
            "return document.getElementById('terminal').dataset.mode",
            Value::Null
        ),
        "read"
    );
    env.send_line(&id, "echo live-$((5*5))");
    rows_show(&b, "live-25");

    // Watching: keys typed into the terminal reach nothing.
    b.type_into(
        "#terminal .xterm-helper-textarea",
        "echo watched-$((1+1))\n",
    );
    // Take control; a typed command runs.
    b.click("[data-action=write]");
    shows(&b, json!(["#terminal[data-mode=write]"]));
    b.type_into("#terminal .xterm-helper-textarea", "echo typed-$((8*8))\n");
    rows_show(&b, "typed-64");
    let all = everything(&env, &id);
    assert!(
        all.contains("typed-64") && !all.contains("watched"),
        "{all}"
    );
    // Search (the search box) finds text in the terminal and selects it.
    b.type_into("#search", "earlier-42\n");
    shows(&b, json!(["#terminal .xterm-selection div"]));

    // An agent session: `exit` + Enter from the web is blocked with the seed's warning, in
    // this page, and the program lives on.
    b.go(&format!("{origin}/console/session/{agent}"));
    shows(&b, json!(["[data-action=write]:not([hidden])"]));
    b.click("[data-action=write]");
    shows(&b, json!(["#terminal[data-mode=write]"]));
    b.type_into("#terminal .xterm-helper-textarea", "exit\n");
    rows_show(&b, "Blocked from web. Use local terminal to exit.");
    b.type_into("#terminal .xterm-helper-textarea", "echo still-$((4*4))\n");
    rows_show(&b, "still-16");
    assert_eq!(env.entry(&agent)["state"], "running");
    // The activity timeline shows the blocked attempt, by this page's login.
    b.click("[data-action=activity]");
    shows(
        &b,
        json!(["#events li[data-action=web_write][data-failed=true]"]),
    );

    // Nothing the page loaded came from anywhere but its own origin.
    let elsewhere = b.run(
        "return performance.getEntriesByType('resource').map((e) => e.name)\
         .filter((n) => !n.startsWith(location.origin + '/'))",
        Value::Null,
    );
    assert_eq!(elsewhere, json!([]), "{elsewhere}");
}

#[test]
fn in_a_real_browser_a_page_carries_on_after_the_server_restarts() {
    let Some(b) = crate::webdriver::Browser::start() else {
        skip("chromium and chromedriver are not installed");
        return;
    };
    let env = Env::new();
    let id = env.create(&["--label", "comes-back"]);
    let serve = Serve::start(&env);
    let port = port(&serve);
    let link = env.ok(&["console", "--port", &port]);
    b.go(link.trim());
    b.go(&format!("http://127.0.0.1:{port}/console/session/{id}"));
    shows(&b, json!(["#terminal[data-joined=fresh]"]));
    env.send_line(&id, "echo one-$((6*7))");
    rows_show(&b, "one-42");

    // The server goes away; the session goes on; the server comes back on its port.
    drop(serve);
    assert_eq!(env.out(&id, "echo two-$((7*7))"), "two-49");
    let again = Serve::start_args(&env, &["--port", &port], &[]);
    assert!(again.url.ends_with(&format!(":{port}")), "{}", again.url);

    // The page comes back on its own, from where it was: what it missed, not the screen.
    rows_show(&b, "two-49");
    shows(&b, json!(["#terminal[data-joined=resumed]"]));
    let rows = rows_show(&b, "one-42");
    assert_eq!(rows.matches("one-42").count(), 1, "{rows}");
}
