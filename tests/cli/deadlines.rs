//! Every call gives up on a holder that does not answer within the caller's timeout: a
//! holder stopped with SIGSTOP (it still owns its socket, the kernel queues connections), and
//! a socket someone listens on and never accepts from (a full backlog, where a plain
//! `connect(2)` waits for ever). Each `kpty` run has a watchdog of its timeout + 5 s: a run
//! that outlives it fails the test (the promise is timeout + 1 s; the slack is for a loaded
//! machine, not for kpty).

use crate::support::{Env, kill_9, parse, pid_gone, spawn, stderr, wait_for};
use serde_json::Value;
use std::process::{Command, Output};
use std::sync::mpsc;
use std::time::Duration;

/// Stops a process on creation and lets it go on when dropped (even when the test failed).
pub(crate) struct Stopped(u64);

impl Stopped {
    pub(crate) fn new(pid: u64) -> Self {
        signal("-STOP", pid);
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        signal("-CONT", self.0);
    }
}

fn signal(sig: &str, pid: u64) {
    let st = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(st.success(), "kill {sig} {pid} failed");
}

/// Run `kpty --json ARGS`; the watchdog kills it and fails the test after `timeout_ms` + 5 s.
fn within(env: &Env, args: &[&str], timeout_ms: u64) -> (Output, Value) {
    let all: Vec<&str> = std::iter::once("--json")
        .chain(args.iter().copied())
        .collect();
    let child = spawn(env.cmd(&all));
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let watchdog = Duration::from_millis(timeout_ms) + Duration::from_secs(5);
    let out = match rx.recv_timeout(watchdog) {
        Ok(out) => out.expect("wait for kpty"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("kpty {args:?} still ran after {watchdog:?} (timeout {timeout_ms} ms)");
        }
    };
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    let v = parse(&out, &all);
    (out, v)
}

/// The calls that reach a holder, each with the timeout it promises to keep (its
/// `--timeout-ms`, else the 5 s budget of a short call).
fn calls(id: &str) -> Vec<(Vec<String>, u64)> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        (v(&["talk", "-s", id, "-t", "3000", "echo hi"]), 3000),
        (v(&["talk", "-s", id, "-t", "500", "echo hi"]), 500),
        (v(&["read", "-s", id, "--timeout-ms", "1000"]), 1000),
        (v(&["read", "-s", id]), 5000),
        (v(&["term-read", "-s", id]), 5000),
        (v(&["send-line", "-s", id, "echo x"]), 5000),
        (
            v(&["resize", "-s", id, "--cols", "90", "--rows", "20"]),
            5000,
        ),
        (v(&["send-keys", "-s", id, "C-c"]), 5000),
        (v(&["list"]), 5000),
    ]
}

/// Each call against the unanswering holder of `id` ends in time; the ones that fail say
/// `PTY_TIMEOUT` (`list` answers, marking the session unresponsive).
fn every_call_ends_in_time(env: &Env, id: &str) {
    for (args, timeout) in calls(id) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, v) = within(env, &args, timeout);
        if args[0] == "list" {
            assert_eq!(v["ok"], true, "{v}");
            let e = v["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["session_id"] == id)
                .cloned()
                .unwrap_or_default();
            assert_ne!(e["state"], "running", "{v}");
            continue;
        }
        assert_eq!(v["ok"], false, "{args:?}: {v}");
        assert_eq!(v["error_code"], "PTY_TIMEOUT", "{args:?}: {v}");
    }
}

#[test]
fn a_stopped_holder_ends_every_call_within_its_timeout() {
    let env = Env::new();
    let id = env.create(&[]);
    let holder = env.entry(&id)["holder_pid"].as_u64().unwrap();
    {
        let _stopped = Stopped::new(holder);
        every_call_ends_in_time(&env, &id);
        // kill proves the stopped holder is the session's and ends it, in time too.
        let (_, v) = within(&env, &["kill", &id], 5000);
        assert_eq!(v["ok"], true, "{v}");
    }
    crate::support::wait_for(10_000, "the stopped holder to be gone", || {
        crate::support::pid_gone(holder)
    });
}

#[test]
fn a_socket_nobody_accepts_on_ends_every_call_within_its_timeout() {
    let env = Env::new();
    let id = env.create(&[]);
    let entry = env.entry(&id);
    let sock = std::path::PathBuf::from(entry["socket"].as_str().unwrap());
    kill_9(entry["holder_pid"].as_u64().unwrap());
    crate::support::wait_for(10_000, "the holder to be gone", || {
        crate::support::pid_gone(entry["holder_pid"].as_u64().unwrap())
    });
    let _ = std::fs::remove_file(&sock);
    // A listener with the smallest backlog, never accepting: once the queue is full, a
    // plain connect(2) waits for ever.
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketType};
    let listener = rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None).unwrap();
    rustix::net::bind(&listener, &SocketAddrUnix::new(&sock).unwrap()).unwrap();
    rustix::net::listen(&listener, 0).unwrap();
    let mut queued = Vec::new();
    for _ in 0..4 {
        match kpty::proto::client::connect_within(&sock, Duration::from_millis(200)) {
            Ok(s) => queued.push(s),
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}"),
        }
    }
    every_call_ends_in_time(&env, &id);
    drop(queued);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_calls_on_a_stopped_holder_end_within_their_timeout() {
    let env = Env::new();
    let id = env.create(&[]);
    let holder = env.entry(&id)["holder_pid"].as_u64().unwrap();
    let m = crate::mcp::start(&env).await;
    {
        let _stopped = Stopped::new(holder);
        let calls = [
            (
                serde_json::json!({"action": "talk", "session_id": id, "command": "echo hi", "timeout_ms": 1000}),
                1000,
            ),
            (
                serde_json::json!({"action": "read", "session_id": id, "timeout_ms": 500}),
                500,
            ),
            (
                serde_json::json!({"action": "term_read", "session_id": id}),
                5000,
            ),
            (
                serde_json::json!({"action": "send_line", "session_id": id, "data": "echo x"}),
                5000,
            ),
        ];
        for (args, timeout) in calls {
            let watchdog = Duration::from_millis(timeout) + Duration::from_secs(5);
            let v = tokio::time::timeout(watchdog, m.json(args.clone()))
                .await
                .unwrap_or_else(|_| panic!("{args} still ran after {watchdog:?}"));
            assert_eq!(v["error_code"], "PTY_TIMEOUT", "{args}: {v}");
        }
    }
    m.close().await;
}

#[test]
fn list_answers_for_every_session_when_more_holders_hang_than_it_probes_at_once() {
    // `list` probes every holder at once with one deadline; hung holders must neither cost it
    // a probe's timeout each nor hide the sessions that answer. Ten stopped holders, and
    // sessions that answer before and after them in its order.
    let env = Env::new();
    let ids: Vec<String> = (0..12).map(|_| env.create(&[])).collect();
    let list = env.ok_json(&["list"]);
    let holder = |id: &str| {
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == id)
            .and_then(|s| s["holder_pid"].as_u64())
            .unwrap_or_else(|| panic!("no holder for {id}: {list}"))
    };
    let hung: Vec<&String> = ids[1..11].iter().collect();
    let _stopped: Vec<Stopped> = hung.iter().map(|id| Stopped::new(holder(id))).collect();
    let (_, v) = within(&env, &["list"], 5000);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["count"], 12, "{v}");
    for s in v["sessions"].as_array().unwrap() {
        let id = s["session_id"].as_str().unwrap().to_string();
        if hung.contains(&&id) {
            assert_eq!(s["state"], "unresponsive", "{id}: {s}");
        } else {
            assert_eq!(s["state"], "running", "{id}: {s}");
        }
    }
}

/// What becomes of the `i`th of many sessions before they are listed, and the state `list`
/// must then show.
fn fate(i: usize) -> &'static str {
    match i % 8 {
        5 => "unresponsive",
        6 => "dead",
        7 => "exited",
        _ => "running",
    }
}

#[test]
fn list_shows_each_of_many_sessions_as_it_is_among_hung_killed_and_ended_holders() {
    // 32 sessions, made four at a time; every eighth from the sixth on has a stopped holder,
    // a SIGKILLed one, or a shell that exited. One `list` (within its probe deadline) shows
    // every one of them as it is, the running ones with their own shell's pid, in both forms.
    let env = Env::new();
    // A registered (desktop) session first in list's order: it has no holder to ask, and
    // must not shift the answers of the sessions after it.
    env.ok(&["register", "ext", "--desktop-url", "http://127.0.0.1:9"]);
    let ids: Vec<String> = std::thread::scope(|s| {
        let makers: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..8).map(|_| env.create(&[])).collect::<Vec<_>>()))
            .collect();
        makers.into_iter().flat_map(|m| m.join().unwrap()).collect()
    });
    let entry = |list: &Value, id: &str| -> Value {
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} is not listed: {list}"))
    };
    // Setup: every new session answers as running (a host loaded by other tests may make a
    // fresh holder late for one list; the listing under test is the one below).
    let mut first = Value::Null;
    wait_for(20_000, "every new session to be listed as running", || {
        first = env.ok_json(&["list"]);
        ids.iter().all(|id| entry(&first, id)["state"] == "running")
    });
    assert_eq!(first["count"], 33, "{first}");
    let pids: Vec<(u64, u64)> = ids
        .iter()
        .map(|id| {
            let e = entry(&first, id);
            assert_eq!(e["state"], "running", "{e}");
            (
                e["holder_pid"].as_u64().unwrap(),
                e["pid"].as_u64().unwrap(),
            )
        })
        .collect();
    for (i, id) in ids.iter().enumerate().filter(|(i, _)| fate(*i) == "exited") {
        env.send_line(id, "exit 3");
        wait_for(10_000, "the shell to exit", || {
            pid_gone(pids[i].1) && env.entry(id)["state"] == "exited"
        });
    }
    for (i, _) in ids.iter().enumerate().filter(|(i, _)| fate(*i) == "dead") {
        kill_9(pids[i].0);
        wait_for(5_000, "the holder to be gone", || pid_gone(pids[i].0));
    }
    let _stopped: Vec<Stopped> = (0..ids.len())
        .filter(|i| fate(*i) == "unresponsive")
        .map(|i| Stopped::new(pids[i].0))
        .collect();
    // Each listing (within its deadline) shows every session as it is. A running holder
    // late for one listing on a host loaded by other tests is asked again (three listings
    // at most); any other difference fails at once.
    for attempt in 1..=3 {
        let (_, v) = within(&env, &["list"], 1000);
        assert_eq!(v["count"], 33, "{v}");
        assert_eq!(entry(&v, "ext")["state"], "registered", "{v}");
        let table = env.ok(&["list"]);
        let mut late = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let e = entry(&v, id);
            let row = table
                .lines()
                .find(|l| l.starts_with(id.as_str()))
                .unwrap_or_else(|| panic!("{id} has no row:\n{table}"));
            let shown = match fate(i) {
                "exited" => "exited(3)",
                f => f,
            };
            let as_is = e["state"] == fate(i) && row.split_whitespace().nth(1) == Some(shown);
            if !as_is && fate(i) == "running" && attempt < 3 {
                late.push(id);
                continue;
            }
            assert_eq!(e["state"], fate(i), "{id}: {e}");
            assert_eq!(row.split_whitespace().nth(1), Some(shown), "{row}");
            match fate(i) {
                "running" => assert_eq!(e["pid"], pids[i].1, "{e}"),
                "exited" => assert_eq!(e["exit_code"], 3, "{e}"),
                _ => {}
            }
        }
        if late.is_empty() {
            return;
        }
        eprintln!("listing {attempt}: running sessions not shown as running: {late:?}");
    }
}
