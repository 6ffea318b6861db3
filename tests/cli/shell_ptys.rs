//! Shell PTYs beside a session's program (seed 002 §8.2.2) and every PTY's exit notice
//! (§8.5): `kpty shell` opens PTY 1, 2 … of a session — its cwd, its environment, its sandbox
//! — and every verb that takes `-s` takes `SESSION:N` for it; `kill SESSION:N` ends one,
//! `kill SESSION` all; `[process exited (code N)]` reaches attached clients and followers of
//! shells too; `list` shows a session's PTYs and their exit codes; malformed addresses are
//! INVALID_PARAMS and missing PTYs SESSION_NOT_FOUND, over the CLI and MCP alike.

use crate::support::{Env, pid_gone, s, wait_child, wait_for};
use crate::tty::Tty;
use serde_json::{Value, json};

/// seed 002's exit notice, byte for byte.
fn notice(code: i32) -> String {
    format!("\r\n\x1b[2m[process exited (code {code})]\x1b[0m\r\n")
}

/// `kpty shell -s SESSION`: the new PTY's address.
fn open_shell(env: &Env, session: &str) -> String {
    let v = env.ok_json(&["shell", "-s", session]);
    let address = s(&v, "address").to_string();
    assert_eq!(
        address,
        format!("{}:{}", s(&v, "session_id"), v["pty"]),
        "{v}"
    );
    address
}

/// The session's `ptys` as `list --json` shows them.
fn ptys(env: &Env, id: &str) -> Vec<Value> {
    env.entry(id)["ptys"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// PTY `n` of `id` in `list`.
fn pty(env: &Env, id: &str, n: u64) -> Value {
    ptys(env, id)
        .into_iter()
        .find(|p| p["pty"] == n)
        .unwrap_or(Value::Null)
}

#[test]
fn shells_start_in_the_sessions_cwd_with_its_environment_and_are_named_session_n() {
    let env = Env::new();
    let work = env.dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let id = env.create(&[
        "--cwd",
        work.to_str().unwrap(),
        "--env",
        "KPTY_TEST_MARK=mark-7",
        "--label",
        "lab:el",
    ]);
    let one = open_shell(&env, &id);
    let two = open_shell(&env, &id);
    assert_eq!(
        (one.as_str(), two.as_str()),
        (&*format!("{id}:1"), &*format!("{id}:2"))
    );
    // The human output is the address alone; a size may be given.
    let three = env.ok(&["shell", "-s", &id, "--cols", "77", "--rows", "11"]);
    assert_eq!(three.trim(), format!("{id}:3"));
    assert_eq!(env.out(&format!("{id}:3"), "stty size").trim(), "11 77");
    let want_cwd = work.canonicalize().unwrap();
    // Every PTY, named every way a session is named (a label with ':' in it too).
    for (address, n) in [
        (id.clone(), 0),
        (format!("{id}:0"), 0),
        (one.clone(), 1),
        (two.clone(), 2),
        ("lab:el:2".to_string(), 2),
        (format!("{}:3", &id[..8]), 3),
    ] {
        let out = env.out(
            &address,
            "echo \"$KPTY_TEST_MARK|$KPTY_SESSION_ID|$PWD|$((40+2))\"",
        );
        let want_id = if n == 0 {
            id.clone()
        } else {
            format!("{id}:{n}")
        };
        assert_eq!(
            out.trim(),
            format!("mark-7|{want_id}|{}|42", want_cwd.display()),
            "{address}"
        );
    }
    // Each PTY has its own terminal: what one prints, another never shows.
    env.out(&one, "echo only-in-$((1))");
    let other = env.read(&two, &["--max-bytes", "100000"]);
    assert!(!s(&other, "output").contains("only-in-1"), "{other}");
    // list shows them all, PTY 0 first, with their pids.
    let all = ptys(&env, &id);
    let numbers: Vec<u64> = all.iter().map(|p| p["pty"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [0, 1, 2, 3], "{all:?}");
    assert!(
        all.iter()
            .all(|p| p["state"] == "running" && p["pid"].is_u64()),
        "{all:?}"
    );
    let human = env.ok(&["list"]);
    assert!(human.contains(&format!("  {id}:2")), "{human}");
}

/// Every verb that takes `-s` reaches PTY N when given `SESSION:N`, and PTY 0 when given the
/// session alone: a matrix of verbs over PTYs.
#[test]
fn every_session_verb_takes_a_pty_address() {
    let env = Env::new();
    let id = env.create(&[]);
    let addresses = [id.clone(), open_shell(&env, &id), open_shell(&env, &id)];
    for (i, a) in addresses.iter().enumerate() {
        let mark = format!("verb-mark-{i}-$((7*{}))", i + 1);
        let shown = format!("verb-mark-{i}-{}", 7 * (i + 1));
        let since = env.read(a, &["--max-bytes", "1"])["next_offset"]
            .as_u64()
            .expect("next_offset");
        env.send_line(a, &format!("echo {mark}"));
        let v = env.ok_json(&[
            "wait-for",
            "-s",
            a,
            "--since",
            &since.to_string(),
            "-t",
            "10000",
            &shown,
        ]);
        assert_eq!(v["matched"], true, "{a}: {v}");
        let r = env.read(a, &["--since", &since.to_string()]);
        assert!(s(&r, "output").contains(&shown), "{a}: {r}");
        let t = env.ok_json(&["term-read", "-s", a]);
        assert!(t["lines"].to_string().contains(&shown), "{a}: {t}");
        env.ok_json(&[
            "resize",
            "-s",
            a,
            "--cols",
            &(90 + i).to_string(),
            "--rows",
            "20",
        ]);
        let out = env.out(a, "stty size");
        assert_eq!(out.trim(), format!("20 {}", 90 + i), "{a}");
        let k = env.ok_json(&["send-keys", "-s", a, "-l", &format!("echo keyed-{i}")]);
        assert_eq!(s(&k, "session_id"), a.as_str(), "{k}");
        env.ok_json(&["send-keys", "-s", a, "Enter"]);
        let v = env.ok_json(&["wait-for", "-s", a, "-t", "10000", &format!("^keyed-{i}")]);
        assert_eq!(v["matched"], true, "{a}: {v}");
        // The others kept their marks to themselves.
        for (j, b) in addresses.iter().enumerate().filter(|(j, _)| *j != i) {
            let r = env.read(b, &["--max-bytes", "1000000"]);
            assert!(
                !s(&r, "output").contains(&shown),
                "{a}'s output in {b} ({j})"
            );
        }
    }
}

#[test]
fn kill_session_n_ends_one_pty_and_kill_session_ends_them_all() {
    let env = Env::new();
    let id = env.create(&[]);
    let (one, two) = (open_shell(&env, &id), open_shell(&env, &id));
    let holder = |n: u64| pty(&env, &id, n)["pid"].as_u64().unwrap();
    let (pid1, pid2) = (holder(1), holder(2));
    let k = env.ok_json(&["kill", &one]);
    assert_eq!(
        (k["session_id"].as_str(), &k["killed"]),
        (Some(one.as_str()), &json!(true)),
        "{k}"
    );
    wait_for(10_000, "PTY 1's shell to go", || pid_gone(pid1));
    wait_for(10_000, "PTY 1 to be listed as exited", || {
        pty(&env, &id, 1)["state"] == "exited"
    });
    assert_eq!(pty(&env, &id, 2)["state"], "running");
    assert_eq!(env.entry(&id)["state"], "running");
    assert_eq!(env.out(&two, "echo still-$((2+2))").trim(), "still-4");
    // An ended PTY is not reopened under its number: the next one is 3.
    let three = open_shell(&env, &id);
    assert_eq!(three, format!("{id}:3"));
    let pid3 = holder(3);
    let k = env.ok_json(&["kill", "-s", &id]);
    let ended: Vec<&str> = k["ended_ptys"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(ended, [two.as_str(), three.as_str()], "{k}");
    for pid in [pid2, pid3] {
        wait_for(10_000, "every shell of the session to go", || pid_gone(pid));
    }
    env.fails(&["talk", "-s", &two, "true"], 119, "PTY_SESSION_NOT_FOUND");
    assert_eq!(env.ok_json(&["list"])["count"], 0);
    // prune then removes the session's folder, its PTYs' with it (once no holder of them is
    // still finishing: such a folder is left for the next prune).
    let dir = env.state().join("sessions").join(&id);
    wait_for(10_000, "prune to remove the session's folder", || {
        env.ok(&["prune"]);
        !dir.exists()
    });
}

/// `exit 3` typed by a person in `kpty attach`, or sent with send-line, in PTY 0's shell and
/// in PTY N: the attached client and a follower get seed 002's notice, `list` the code.
#[test]
fn exit_notices_reach_attached_clients_and_followers_for_every_pty() {
    let env = Env::new();
    let id = env.create(&[]);
    let shell_n = open_shell(&env, &id);
    let spare = open_shell(&env, &id);
    for (address, by_person) in [(shell_n.clone(), true), (id.clone(), false)] {
        let mut follower = env.cmd(&["read", "-s", &address, "--follow"]);
        follower.stdout(std::process::Stdio::piped());
        let follower = crate::support::spawn(follower);
        let mut tty = Tty::kpty(&env, &["attach", &address], (100, 30));
        tty.expect("attached to");
        if by_person {
            tty.keys(b"exit 3\r");
        } else {
            env.send_line(&address, "exit 3");
        }
        tty.expect("[process exited (code 3)]");
        assert!(tty.seen().contains(&notice(3)), "{:?}", tty.seen());
        assert_eq!(tty.exit_code(), 3, "attach exits with the shell's code");
        let out = wait_child(follower, &["read", "--follow"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.ends_with(&notice(3)), "{address}: {text:?}");
    }
    assert_eq!(pty(&env, &id, 1)["exit_code"], 3);
    // PTY 0's end is the session's end: its exit code in list, and its shells gone with it.
    wait_for(10_000, "the session to end", || {
        env.entry(&id)["state"] == "exited"
    });
    assert_eq!(env.entry(&id)["exit_code"], 3);
    wait_for(10_000, "the spare shell to end with the session", || {
        pty(&env, &id, 2)["state"] != "running"
    });
    env.fails(&["talk", "-s", &spare, "true"], 118, "PTY_PROCESS_EXITED");
}

/// Malformed addresses are INVALID_PARAMS, well-formed ones of a PTY that does not exist
/// SESSION_NOT_FOUND with a hint — generated, for the CLI's `-s` and MCP's `session_id`.
#[tokio::test(flavor = "multi_thread")]
async fn malformed_and_missing_addresses_over_cli_and_mcp() {
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    let env = Env::new();
    let id = env.create(&[]);
    open_shell(&env, &id);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let tails = prop_oneof![
        Just(String::new()),
        "-[0-9]{1,4}",
        "0[0-9]{1,3}",
        "[0-9]{1,3}[a-z./ ]{1,3}",
        "[1-9][0-9]{3,11}",
        "\\.\\./[a-z]{1,6}",
        "\\+[1-9]",
    ];
    let mut malformed: Vec<String> = (0..12)
        .map(|_| format!("{id}:{}", tails.new_tree(&mut runner).unwrap().current()))
        .collect();
    malformed.extend([
        ":1".to_string(),
        format!("{id}:99999999999"),
        format!("../../etc:{}", 1),
    ]);
    let missing: Vec<String> = (0..6)
        .map(|_| {
            format!(
                "{id}:{}",
                (2u32..=999).new_tree(&mut runner).unwrap().current()
            )
        })
        .collect();
    let m = crate::mcp::start(&env).await;
    for a in &malformed {
        let v = env.fails(&["talk", "-s", a, "true"], 115, "INVALID_PARAMS");
        assert!(
            s(&v, "message").contains("SESSION:N") || s(&v, "message").contains("malformed"),
            "{a}: {v}"
        );
        let v = m.json(json!({"action": "read", "session_id": a})).await;
        assert_eq!(v["error_code"], "INVALID_PARAMS", "{a}: {v}");
    }
    for a in &missing {
        let v = env.fails(&["read", "-s", a], 119, "PTY_SESSION_NOT_FOUND");
        assert!(s(&v, "message").contains("kpty list"), "{a}: {v}");
        let v = m
            .json(json!({"action": "send_line", "session_id": a, "data": "x"}))
            .await;
        assert_eq!(v["error_code"], "PTY_SESSION_NOT_FOUND", "{a}: {v}");
    }
    // Owner fields belong to the session; `S.N` is never an external id.
    env.fails(
        &[
            "update-ownership",
            &format!("{id}:1"),
            "--owner-role",
            "worker",
        ],
        115,
        "INVALID_PARAMS",
    );
    env.fails(
        &[
            "register",
            &format!("{id}.1"),
            "--desktop-url",
            "http://127.0.0.1:9",
        ],
        115,
        "INVALID_PARAMS",
    );
    m.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_mcp_shell_action_opens_a_pty_every_action_reaches() {
    let env = Env::new();
    let m = crate::mcp::start(&env).await;
    let c = m
        .json(json!({"action": "create", "env": {"KPTY_TEST_MARK": "via-mcp"}}))
        .await;
    let id = s(&c, "session_id").to_string();
    let sh = m.json(json!({"action": "shell", "session_id": id})).await;
    assert_eq!(
        (sh["ok"].clone(), sh["pty"].clone()),
        (json!(true), json!(1)),
        "{sh}"
    );
    let address = s(&sh, "address").to_string();
    let t = m.json(json!({"action": "talk", "session_id": address, "command": "echo $KPTY_TEST_MARK-$((3*3))"})).await;
    assert_eq!(s(&t, "output").trim(), "via-mcp-9", "{t}");
    let prog = m.json(json!({"action": "shell", "session_id": id, "command": "sh -c 'echo from-program; exit 4'"})).await;
    let prog_address = s(&prog, "address").to_string();
    wait_for(10_000, "the program PTY to end", || {
        pty(&env, &id, 2)["exit_code"] == 4
    });
    assert_eq!(
        pty(&env, &id, 2)["command"],
        "sh -c 'echo from-program; exit 4'"
    );
    // The exit notice follows the program's last output into the PTY's buffer: read until
    // both are there (the exit code may be listed a moment before).
    let has_all =
        |r: &Value| s(r, "output").contains("from-program") && s(r, "output").contains(&notice(4));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let r = loop {
        let r = m
            .json(json!({"action": "read", "session_id": prog_address, "max_bytes": 10000}))
            .await;
        if has_all(&r) || std::time::Instant::now() > deadline {
            break r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert!(has_all(&r), "{r}");
    let l = m.json(json!({"action": "list"})).await;
    let listed = l["sessions"][0]["ptys"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(listed.len(), 3, "{l}");
    let k = m.json(json!({"action": "kill", "session_id": id})).await;
    assert_eq!(k["ended_ptys"], json!([address]), "{k}");
    m.close().await;
}

#[test]
fn a_sandboxed_sessions_shell_is_as_confined_as_its_program() {
    let Some(w) =
        crate::sandbox::World::new("a_sandboxed_sessions_shell_is_as_confined_as_its_program")
    else {
        return;
    };
    let id = w.create(&["--sandbox"]);
    let v = w.env.ok_json(&["shell", "-s", &id]);
    assert!(
        v["sandbox"].is_object(),
        "the shell reports the session's sandbox: {v}"
    );
    let shell = s(&v, "address").to_string();
    // The project is writable, as for PTY 0.
    let (code, out) = w.sh(&shell, "echo made > from-shell.txt && cat from-shell.txt");
    assert_eq!((code, out.trim()), (0, "made"));
    assert!(w.project.join("from-shell.txt").exists());
    // Nothing outside is.
    let (code, out) = w.sh(&shell, &format!("touch {}/escaped", w.p(&w.outside)));
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("Permission denied"), "{out}");
    assert!(!w.outside.join("escaped").exists());
    let (code, _) = w.sh(&shell, "touch ~/escaped");
    assert_ne!(code, 0);
    assert!(!w.home.join("escaped").exists());
    // The credential store is hidden (through a script the command policy cannot see).
    std::fs::write(w.project.join("peek.sh"), "cat ~/.ssh/id_rsa\n").expect("write peek.sh");
    let (code, out) = w.sh(&shell, "sh peek.sh");
    assert_ne!(code, 0);
    assert!(
        out.contains("Permission denied") && !out.contains("PRIVATE"),
        "{out}"
    );
}

/// The input filter is PTY 0's (an agent program's, 002 §8.4): a shell beside it types
/// `exit` freely, and its exit is announced and listed.
#[test]
fn a_shell_beside_a_filtered_program_is_not_filtered() {
    let env = Env::new();
    let id = env.create(&["--command", "cat"]);
    env.fails(&["send-line", "-s", &id, "exit"], 106, "INPUT_BLOCKED");
    let shell = open_shell(&env, &id);
    env.send_line(&shell, "exit 5");
    wait_for(10_000, "the shell PTY to end", || {
        pty(&env, &id, 1)["exit_code"] == 5
    });
    let r = env.read(&shell, &["--max-bytes", "100000"]);
    assert!(s(&r, "output").ends_with(&notice(5)), "{r}");
    // PTY 0, the program, runs on.
    assert_eq!(env.entry(&id)["state"], "running");
    assert_eq!(pty(&env, &id, 1)["state"], "exited");
}

/// `kpty serve`'s MCP has the same `shell` action and takes the same addresses.
#[tokio::test(flavor = "multi_thread")]
async fn http_mcp_opens_and_addresses_shell_ptys() {
    let env = Env::new();
    let serve = crate::bridge::Serve::start(&env);
    let m = crate::serve_mcp::connect(&serve).await;
    let c = m.json(json!({"action": "create"})).await;
    let id = s(&c, "session_id").to_string();
    let sh = m.json(json!({"action": "shell", "session_id": id})).await;
    let address = s(&sh, "address").to_string();
    let t = m
        .json(json!({"action": "talk", "session_id": address, "command": "echo http-$((2+3))"}))
        .await;
    assert_eq!(s(&t, "output").trim(), "http-5", "{t}");
    for (session_id, code) in [
        (format!("{id}:x"), "INVALID_PARAMS"),
        (format!("{id}:7"), "PTY_SESSION_NOT_FOUND"),
    ] {
        let v = m
            .json(json!({"action": "read", "session_id": session_id}))
            .await;
        assert_eq!(v["error_code"], code, "{session_id}: {v}");
    }
    let k = m.json(json!({"action": "kill", "session_id": id})).await;
    assert_eq!(k["ended_ptys"], json!([address]), "{k}");
    m.close().await;
}

/// `kill SESSION` ends a shell PTY whose holder is stopped (SIGSTOP: it answers nothing) as
/// it would PTY 0's: the holder proven on the PTY's socket is killed.
#[test]
fn kill_ends_a_stopped_shell_ptys_holder_too() {
    let env = Env::new();
    let id = env.create(&[]);
    let shell = open_shell(&env, &id);
    let meta: Value = serde_json::from_slice(
        &std::fs::read(
            env.state()
                .join("sessions")
                .join(&id)
                .join("ptys/1/metadata.json"),
        )
        .expect("the PTY's metadata"),
    )
    .expect("json");
    let holder = meta["holder_pid"].as_u64().expect("holder_pid");
    let st = std::process::Command::new("kill")
        .args(["-STOP", &holder.to_string()])
        .status()
        .expect("run kill");
    assert!(st.success());
    let k = env.ok_json(&["kill", &id]);
    assert_eq!(k["ended_ptys"], json!([shell]), "{k}");
    wait_for(10_000, "the stopped holder to be killed", || {
        pid_gone(holder)
    });
}
