//! `kpty talk` behaves as `ssh host CMD`: SIGINT, SIGTERM and SIGHUP interrupt the command in
//! the session (not only kpty), leave the shell at its prompt, record the talk as cancelled
//! and exit 130; a piped stdin is the command's standard input, then EOF.

use crate::support::{Env, parse, s, spawn, stderr, stdout, wait_child, wait_for};
use serde_json::Value;
use std::io::Write;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// A command that prints `started` once it runs (the typed text never contains the word
/// whole), then sleeps far longer than any test waits.
const LONG: &str = "echo sta''rted; sleep 30";

/// Start `kpty [--json] talk -s SESSION LONG` and wait until the command runs.
fn start_long(env: &Env, session: &str, json: bool) -> Child {
    let from = env.offset(session);
    let mut args = vec!["talk", "-s", session, LONG];
    if json {
        args.insert(0, "--json");
    }
    let child = spawn(env.cmd(&args));
    env.read_until(session, from, "started");
    child
}

/// Send `signal` (e.g. `INT`) to a process.
fn send(signal: &str, pid: u32) {
    let st = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(st.success(), "kill -{signal} {pid} failed");
}

/// Signal a running `kpty talk`; it must end with 130 within a few seconds.
fn interrupt(child: Child, signal: &str) -> Output {
    let pid = child.id();
    let began = Instant::now();
    send(signal, pid);
    let out = wait_child(child, &["talk", LONG]);
    assert_eq!(
        out.status.code(),
        Some(130),
        "SIG{signal}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "SIG{signal} took {:?} to end the talk",
        began.elapsed()
    );
    out
}

/// The session is usable at once: the next talk answers promptly (no wait for `sleep`).
fn next_talk_is_immediate(env: &Env, session: &str) {
    let began = Instant::now();
    let v = env.talk_args(&["-s", session, "--timeout-ms", "20000", "echo ok"]);
    assert_eq!(v["output"].as_str().map(str::trim), Some("ok"), "{v}");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "the next talk waited {:?}",
        began.elapsed()
    );
}

/// The audit trail's events for talks running LONG.
fn long_talk_events(env: &Env) -> Vec<Value> {
    let log = env.ok(&["--json", "log", "--action", "talk"]);
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["command"] == LONG)
        .collect()
}

fn assert_recorded_cancelled(env: &Env) {
    let events = long_talk_events(env);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["success"], false, "{events:?}");
    assert_eq!(events[0]["error_code"], "CANCELLED", "{events:?}");
}

#[test]
fn sigint_interrupts_the_command_and_frees_the_session() {
    let env = Env::new();
    let id = env.create(&[]);
    let out = interrupt(start_long(&env, &id, false), "INT");
    let err = stderr(&out);
    assert!(err.contains("CANCELLED") && err.contains("SIGINT"), "{err}");
    assert!(err.contains("back at its prompt"), "{err}");
    assert_eq!(s(&env.entry(&id), "terminal_state"), "prompt");
    next_talk_is_immediate(&env, &id);
    assert_recorded_cancelled(&env);
}

#[test]
fn a_second_signal_ends_kpty_without_waiting_for_the_prompt() {
    // The command ignores Ctrl-C, so the first signal's interrupt waits for a prompt that
    // does not come; each kind of second signal ends kpty at once with 130, before that
    // wait would have said so.
    let env = Env::new();
    for (first, second) in [("INT", "INT"), ("INT", "TERM"), ("HUP", "INT")] {
        let id = env.create(&[]);
        let from = env.offset(&id);
        let child = spawn(env.cmd(&["talk", "-s", &id, "trap '' INT; echo sta''rted; sleep 30"]));
        env.read_until(&id, from, "started");
        let pid = child.id();
        send(first, pid);
        // The first signal is being handled once the holder has typed its Ctrl-C.
        env.read_until(&id, from, "^C");
        send(second, pid);
        let out = wait_child(child, &["talk", LONG]);
        assert_eq!(
            out.status.code(),
            Some(130),
            "SIG{first} then SIG{second}: {out:?}"
        );
        let err = stderr(&out);
        assert!(
            !err.contains("Ctrl-C was sent"),
            "SIG{first} then SIG{second}: {err}"
        );
        env.ok(&["kill", &id]);
    }
}

#[test]
fn sigterm_in_json_mode_answers_a_cancelled_object() {
    let env = Env::new();
    let id = env.create(&[]);
    let out = interrupt(start_long(&env, &id, true), "TERM");
    let v = parse(&out, &["--json", "talk"]);
    assert_eq!(
        (v["ok"].as_bool(), s(&v, "error_code")),
        (Some(false), "CANCELLED")
    );
    assert_eq!(v["details"]["signal"], "SIGTERM", "{v}");
    assert_eq!(v["details"]["session_id"], id.as_str(), "{v}");
    assert_eq!(v["details"]["at_prompt"], true, "{v}");
    next_talk_is_immediate(&env, &id);
    assert_recorded_cancelled(&env);
}

#[test]
fn sighup_interrupts_a_talk_in_a_posix_shell() {
    // The sentinel completion method (sh) is interrupted the same way.
    let env = Env::new();
    let id = env.create(&["--shell", "/bin/sh"]);
    interrupt(start_long(&env, &id, false), "HUP");
    next_talk_is_immediate(&env, &id);
    assert_recorded_cancelled(&env);
}

#[test]
fn sigint_interrupts_a_talk_in_the_default_session() {
    let env = Env::new();
    let child = spawn(env.cmd(&["talk", LONG]));
    let mut id = String::new();
    wait_for(15_000, "the default session to appear", || {
        let list = env.ok_json(&["list"]);
        match list["sessions"].as_array().and_then(|a| a.first()) {
            Some(e) => {
                id = s(e, "session_id").to_string();
                true
            }
            None => false,
        }
    });
    env.read_until(&id, 0, "started");
    interrupt(child, "INT");
    let began = Instant::now();
    let v = env.ok_json(&["talk", "echo ok"]);
    assert_eq!(
        (s(&v, "session_id"), s(&v, "output").trim()),
        (id.as_str(), "ok")
    );
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
}

/// `kpty [--json] talk ARGS` with `input` piped to its stdin (closed after it).
fn talk_piped(env: &Env, args: &[&str], input: &[u8]) -> Output {
    let mut cmd = env.cmd(args);
    cmd.stdin(Stdio::piped());
    let mut child = spawn(cmd);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = wait_child(child, args);
    writer.join().expect("writer");
    out
}

/// The JSON of a piped talk that succeeded with `exit`.
fn piped_json(env: &Env, args: &[&str], input: &[u8], exit: i32) -> Value {
    let all: Vec<&str> = ["--json", "talk"].iter().chain(args).copied().collect();
    let out = talk_piped(env, &all, input);
    let v = parse(&out, &all);
    assert_eq!(
        (out.status.code(), v["ok"].as_bool()),
        (Some(exit), Some(true)),
        "{v}"
    );
    v
}

#[test]
fn piped_stdin_is_the_commands_stdin() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = piped_json(&env, &["-s", &id, "wc -l"], b"a\nb\n", 0);
    assert_eq!(s(&v, "output").trim(), "2");
    // Without a trailing newline, and the command sees the end of it.
    let v = piped_json(&env, &["-s", &id, "cat; echo END"], b"abc", 0);
    assert_eq!(s(&v, "output").trim(), "abcEND");
    // Every part of a list reads the same stdin; the exit code is the command's.
    let v = piped_json(
        &env,
        &["-s", &id, "read a; read b; echo \"$b$a\""],
        b"1\n2\n3\n",
        0,
    );
    assert_eq!(s(&v, "output").trim(), "21");
    piped_json(&env, &["-s", &id, "grep -q zzz"], b"abc\n", 1);
    // The human form prints the output as usual.
    let out = talk_piped(&env, &["talk", "-s", &id, "tr a-z A-Z"], b"shout\n");
    assert_eq!((out.status.code(), stdout(&out).trim()), (Some(0), "SHOUT"));
}

#[test]
fn large_and_binary_stdin_round_trips() {
    let env = Env::new();
    let id = env.create(&[]);
    // 3 MB of every byte value (no trailing newline, far past the line discipline's limit).
    let data: Vec<u8> = (0..3_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let file = env.dir.path().join("input.bin");
    std::fs::write(&file, &data).expect("write input");
    let mut cmd = env.cmd(&["--json", "talk", "-s", &id, "cat > copy.bin"]);
    cmd.stdin(std::fs::File::open(&file).expect("open input"));
    let out = wait_child(spawn(cmd), &["talk", "cat > copy.bin"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let copy = std::fs::read(env.home().join("copy.bin")).expect("read the copy");
    assert!(
        copy == data,
        "the copy differs ({} of {} bytes)",
        copy.len(),
        data.len()
    );
}

#[test]
fn stdin_that_is_not_read_or_never_ends_changes_nothing() {
    let env = Env::new();
    let id = env.create(&[]);
    // /dev/null (the default here): typed as before, output unchanged.
    assert_eq!(env.out(&id, "echo hi").trim(), "hi");
    // An empty pipe: the command sees EOF at once.
    let v = piped_json(&env, &["-s", &id, "cat; echo done"], b"", 0);
    assert_eq!(s(&v, "output").trim(), "done");
    // A pipe that never closes, to a command that does not read it: no hang.
    let mut cmd = env.cmd(&["--json", "talk", "-s", &id, "echo fine"]);
    cmd.stdin(Stdio::piped());
    let mut child = spawn(cmd);
    let open = child.stdin.take();
    let out = wait_child(child, &["talk", "echo fine"]);
    drop(open);
    let v = parse(&out, &["talk"]);
    assert_eq!(
        (out.status.code(), s(&v, "output").trim()),
        (Some(0), "fine")
    );
    // The next talk finds the session free.
    assert_eq!(env.out(&id, "echo next").trim(), "next");
}

#[test]
fn no_stdin_leaves_the_pipe_to_the_caller() {
    // -n (as ssh -n): the command reads the terminal, the pipe's bytes are not taken.
    let env = Env::new();
    let id = env.create(&[]);
    let v = piped_json(&env, &["-n", "-s", &id, "echo kept"], b"not for kpty\n", 0);
    assert_eq!(s(&v, "output").trim(), "kept");
    let screen = env.ok(&["term-read", "-s", &id]);
    assert!(!screen.contains("kpty-stdin"), "{screen}");
}

#[test]
fn piped_stdin_in_a_posix_shell() {
    let env = Env::new();
    let id = env.create(&["--shell", "/bin/sh"]);
    let v = piped_json(&env, &["-s", &id, "wc -l"], b"x\ny\nz\n", 0);
    assert_eq!(s(&v, "output").trim(), "3");
}

#[test]
fn piped_stdin_does_not_get_a_dangerous_command_past_the_check() {
    let env = Env::new();
    let id = env.create(&[]);
    let all = ["--json", "talk", "-s", &id, "rm -rf /"];
    let out = talk_piped(&env, &all, b"y\n");
    let v = parse(&out, &all);
    assert_eq!(
        (out.status.code(), s(&v, "error_code")),
        (Some(116), "DANGEROUS_COMMAND_BLOCKED"),
        "{v}"
    );
}
