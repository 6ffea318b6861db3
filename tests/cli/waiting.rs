//! A command that waits for input says so: `talk` returns early (`waiting_for_input`, the
//! prompt, `echo_off` for a password) when the foreground job is blocked reading the
//! terminal, exits 123 on the CLI, `term_read` reports `waiting_input`; the answer typed with
//! `send_line` completes the command and the next talk works. A slow or busy command is not
//! waiting; a pipe reader is not; a short timeout still wins.

use crate::support::{Env, parse, s, skip, stderr, stdout};
use serde_json::{Value, json};

/// `kpty --json talk -s ID CMD`, asserted to return early waiting for input (exit 123).
fn waiting(env: &Env, id: &str, cmd: &str) -> Value {
    let args = ["--json", "talk", "-s", id, cmd];
    let out = env.kpty(&args);
    let v = parse(&out, &args);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        (&v["waiting_for_input"], &v["completed"]),
        (&json!(true), &json!(false)),
        "{cmd}: {v}"
    );
    assert_eq!(v["exit_code"], Value::Null, "{v}");
    assert_eq!(s(&v, "terminal_state"), "waiting_input", "{v}");
    assert_eq!(out.status.code(), Some(123), "{v}");
    v
}

/// The session's terminal state as `term_read` reports it.
fn term_state(env: &Env, id: &str) -> String {
    s(&env.ok_json(&["term-read", "-s", id]), "terminal_state").to_string()
}

#[test]
fn read_p_returns_early_with_its_prompt_and_the_answer_completes_it() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = waiting(&env, &id, r#"read -p "name? " n"#);
    assert_eq!(s(&v, "prompt"), "name? ");
    assert_eq!(v["echo_off"], false);
    assert_eq!(s(&v, "output"), "name?");
    assert_eq!(term_state(&env, &id), "waiting_input");
    assert_eq!(env.entry(&id)["terminal_state"], "waiting_input");
    // Another talk is refused at once while the command still waits, and says why.
    let e = env.fails(&["talk", "-s", &id, "echo no"], 117, "PTY_BUSY");
    assert_eq!(e["details"]["waiting_for_input"], true, "{e}");
    env.send_line(&id, "kpty");
    // The next talk waits for the answered command; its markers do not end this one.
    assert_eq!(env.out(&id, "echo $n"), "kpty");
    assert_eq!(env.out(&id, "echo again; (exit 3)"), "again");
    let v = env.talk(&id, "true");
    assert_eq!(
        (&v["completed"], &v["waiting_for_input"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(term_state(&env, &id), "prompt");
}

#[test]
fn the_cli_says_how_to_answer_on_stderr() {
    let env = Env::new();
    let id = env.create(&[]);
    let out = env.kpty(&["talk", "-s", &id, r#"read -p "city? " c; echo "in $c""#]);
    assert_eq!(out.status.code(), Some(123), "{}", stderr(&out));
    assert_eq!(stdout(&out), "city?\n");
    let err = stderr(&out);
    assert!(err.contains("waiting for input: city?"), "{err}");
    assert!(err.contains("send-line"), "{err}");
    env.send_line(&id, "Oslo");
    let since = 0;
    assert!(env.read_until(&id, since, "in Oslo").contains("in Oslo"));
    assert_eq!(env.out(&id, "echo $c"), "Oslo");
}

#[test]
fn a_password_prompt_reports_echo_off() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = waiting(&env, &id, "read -s -p 'Password: ' pw");
    assert_eq!(s(&v, "prompt"), "Password: ");
    assert_eq!(v["echo_off"], true, "{v}");
    env.send_line(&id, "hunter22");
    assert_eq!(env.out(&id, "echo ${#pw}"), "8");
    // Echo is back on: a later prompt says so.
    let v = waiting(&env, &id, "read -p 'again: ' x");
    assert_eq!(v["echo_off"], false, "{v}");
    env.send_line(&id, "y");
    assert_eq!(env.out(&id, "echo $x"), "y");
}

#[test]
fn programs_reading_the_terminal_are_waiting() {
    let env = Env::new();
    let id = env.create(&[]);
    // A program's stdin, /dev/tty opened by a child, and a pipeline's first stage.
    for (cmd, answer, shows) in [
        ("cat", "meow", "meow"),
        (
            "sh -c 'read x < /dev/tty; echo \"tty said $x\"'",
            "hi",
            "tty said hi",
        ),
        ("head -c1 /dev/tty >/dev/null; echo got-one", "z", "got-one"),
        ("cat | tr a-z A-Z", "shout", "SHOUT"),
    ] {
        let v = waiting(&env, &id, cmd);
        let since = v["end_offset"].as_u64().expect("end_offset");
        env.send_line(&id, answer);
        env.read_until(&id, since, shows);
        if cmd.starts_with("cat") {
            env.send_line(&id, r"\x04");
        }
        assert_eq!(env.out(&id, "echo next"), "next", "after {cmd}");
    }
}

#[test]
fn python_input_is_waiting() {
    let has_python = std::process::Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_ok_and(|s| s.success());
    if !has_python {
        skip("no python3");
        return;
    }
    let env = Env::new();
    let id = env.create(&[]);
    let v = waiting(
        &env,
        &id,
        r#"python3 -c 'print("hello"); x = input("x? "); print("got", x)'"#,
    );
    assert_eq!(s(&v, "prompt"), "x? ");
    assert!(s(&v, "output").starts_with("hello\n"), "{v}");
    env.send_line(&id, "abc");
    assert_eq!(env.out(&id, "echo done"), "done");
    let text = env.read(&id, &["--since", "0", "--max-bytes", "1048576"]);
    assert!(s(&text, "output").contains("got abc"), "{text}");
}

/// `python3` is installed (tests that need it skip without).
fn has(program: &str) -> bool {
    let ok = std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(&format!("no {program}"));
    }
    ok
}

#[test]
fn repls_waiting_in_select_or_an_event_loop_are_waiting() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut repls = vec![];
    if has("python3") {
        // readline waits in pselect6 on the terminal; getpass reads with echo off.
        repls.push(("python3 -q", "print(6*7)", "42", "exit()"));
    }
    if has("node") {
        // libuv's epoll has the terminal among its fds.
        repls.push(("node", "console.log(6*7)", "42", ".exit"));
    }
    for (cmd, line, shows, quit) in repls {
        let v = waiting(&env, &id, cmd);
        // A line editor echoes by itself: not a password prompt.
        assert_eq!(v["echo_off"], false, "{v}");
        let since = v["end_offset"].as_u64().expect("end_offset");
        env.send_line(&id, line);
        env.read_until(&id, since, shows);
        env.send_line(&id, quit);
        assert_eq!(env.talk_when_free(&id, "echo back")["output"], "back");
    }
    if has("python3") {
        let v = waiting(
            &env,
            &id,
            "python3 -c 'import getpass; print(len(getpass.getpass()))'",
        );
        assert_eq!(
            (s(&v, "prompt"), &v["echo_off"]),
            ("Password: ", &json!(true))
        );
        let since = v["end_offset"].as_u64().expect("end_offset");
        env.send_line(&id, "abc");
        env.read_until(&id, since, "3");
        assert_eq!(env.talk_when_free(&id, "echo back")["output"], "back");
        // Waiting on the terminal and a pipe (as ssh waits on its socket too) is not
        // waiting for input: the talk completes.
        let v = env.talk(
            &id,
            "python3 -c 'import os,select; r,w=os.pipe(); select.select([0,r],[],[],2); print(\"t\")'",
        );
        assert_eq!(
            (&v["completed"], s(&v, "output")),
            (&json!(true), "t"),
            "{v}"
        );
    }
}

#[test]
fn slow_or_pipe_reading_commands_are_not_waiting() {
    let env = Env::new();
    let id = env.create(&[]);
    for cmd in ["sleep 3", "sleep 2 | cat", "sleep 1; echo out; sleep 1"] {
        let v = env.talk(&id, cmd);
        assert_eq!(
            (&v["completed"], &v["waiting_for_input"]),
            (&json!(true), &json!(false)),
            "{cmd}: {v}"
        );
        assert_eq!(v["exit_code"], 0);
        assert!(v.get("prompt").is_none(), "{v}");
    }
    // Ongoing output while the terminal is read is not quiet: the talk completes when the
    // read times out (the output goes on past it).
    let v = env.talk(
        &id,
        "(for i in $(seq 60); do echo $i; sleep 0.05; done) & read -t 2 x; wait",
    );
    assert_eq!(v["completed"], true, "{v}");
}

#[test]
fn a_short_timeout_wins_and_ctrl_c_frees_a_left_talk() {
    let env = Env::new();
    let id = env.create(&[]);
    env.fails(
        &["talk", "-s", &id, "--timeout-ms", "100", "read n"],
        124,
        "PTY_TIMEOUT",
    );
    env.send_line(&id, "late");
    assert_eq!(env.talk_when_free(&id, "echo $n")["output"], "late");
    waiting(&env, &id, "cat");
    env.send_line(&id, r"\x03");
    assert_eq!(env.talk_when_free(&id, "echo free")["output"], "free");
}

#[test]
fn a_sentinel_shell_waits_too() {
    let env = Env::new();
    let id = env.create(&["--shell", "/bin/sh"]);
    let v = waiting(&env, &id, "printf 'who? '; read w");
    assert_eq!(s(&v, "prompt"), "who? ");
    env.send_line(&id, "me");
    assert_eq!(env.out(&id, "echo $w"), "me");
    assert_eq!(env.out(&id, "echo twice"), "twice");
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp() {
    let env = Env::new();
    let m = crate::mcp::start(&env).await;
    let id = m.json(json!({"action": "create"})).await["session_id"]
        .as_str()
        .expect("id")
        .to_string();
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "read -p 'name? ' n"}))
        .await;
    assert_eq!(
        (
            &v["ok"],
            &v["completed"],
            &v["waiting_for_input"],
            &v["prompt"]
        ),
        (&json!(true), &json!(false), &json!(true), &json!("name? ")),
        "{v}"
    );
    let t = m
        .json(json!({"action": "term_read", "session_id": id}))
        .await;
    assert_eq!(t["terminal_state"], "waiting_input", "{t}");
    m.json(json!({"action": "send_line", "session_id": id, "data": "kpty"}))
        .await;
    let v = m
        .json(json!({"action": "talk", "session_id": id, "command": "echo $n"}))
        .await;
    assert_eq!(
        (&v["output"], &v["completed"]),
        (&json!("kpty"), &json!(true)),
        "{v}"
    );
    m.close().await;
}

#[test]
fn a_nested_shell_waits_at_its_prompt_and_force_talks_to_it() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = waiting(&env, &id, "PS1='inner$ ' bash --norc --noprofile");
    assert_eq!(s(&v, "prompt"), "inner$ ", "{v}");
    env.fails(&["talk", "-s", &id, "echo no"], 117, "PTY_BUSY");
    let v = env.talk_args(&["-s", &id, "--force", "echo nested"]);
    assert_eq!(s(&v, "output"), "nested", "{v}");
    env.send_line(&id, "exit");
    assert_eq!(env.talk_when_free(&id, "echo outer")["output"], "outer");
}

#[test]
fn a_secret_in_the_prompt_is_redacted() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = waiting(
        &env,
        &id,
        "printf 'gho_0Auth0TokenXyZ0123456789abcdefGHIJKL ok? '; read a",
    );
    assert!(!v.to_string().contains("0Auth0TokenXyZ"), "{v}");
    assert!(s(&v, "prompt").ends_with("ok? "), "{v}");
    let e = env.fails(&["talk", "-s", &id, "echo no"], 117, "PTY_BUSY");
    assert!(!e.to_string().contains("0Auth0TokenXyZ"), "{e}");
    assert!(s(&e["details"], "prompt").ends_with("ok? "), "{e}");
    env.send_line(&id, "y");
    assert_eq!(env.out(&id, "echo $a"), "y");
}

#[test]
fn a_prompt_on_its_own_line_is_the_last_line_printed() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = waiting(&env, &id, "echo one; echo 'Choose [y/n]:'; read yn");
    assert_eq!(s(&v, "prompt"), "Choose [y/n]:", "{v}");
    assert_eq!(s(&v, "output"), "one\nChoose [y/n]:", "{v}");
    env.send_line(&id, "y");
    assert_eq!(env.out(&id, "echo $yn"), "y");
}
