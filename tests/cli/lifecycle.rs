//! Agent programs (`create --command`): a program instead of a shell, its exit, auto-restart
//! with back-off and seed 002's notices, kill while restarting, and what talk says.

use crate::support::{Env, pid_gone, s, wait_for};
use crate::tty::Tty;
use serde_json::Value;

fn process(env: &Env, id: &str) -> Value {
    env.entry(id)["process"].clone()
}

#[test]
fn a_program_without_restart_ends_with_its_exit_code() {
    let env = Env::new();
    let id = env.create(&["--command", r#"sh -c "echo started-$((2*3)); exit 7""#]);
    wait_for(10_000, "the program to end", || {
        env.entry(&id)["state"] == "exited"
    });
    let e = env.entry(&id);
    assert_eq!(e["exit_code"], 7, "{e}");
    let out = env.ok(&["read", "-s", &id, "--max-bytes", "10000"]);
    assert!(out.contains("started-6"), "{out}");
    assert!(
        out.contains("\x1b[2m[process exited (code 7)]\x1b[0m"),
        "{out:?}"
    );
    let meta: Value = serde_json::from_slice(
        &std::fs::read(env.state().join("sessions").join(&id).join("metadata.json"))
            .expect("metadata"),
    )
    .expect("json");
    assert_eq!(meta["process"]["state"], "dead", "{meta}");
    assert_eq!(meta["process"]["last_exit_code"], 7, "{meta}");
}

/// Programs that print from one line to 30 000 and exit at once, many sessions ending
/// together: once each holder is gone, each session is `exited` with its own code, and what it
/// printed and the exit notice are still there to read (from disk: the holder's last save is
/// the last word there, never overwritten by a save begun while the program ran).
#[test]
fn quick_programs_end_exited_with_their_output_and_notice_kept() {
    let env = Env::new();
    let sizes = [0u32, 2_000, 30_000];
    let sessions: Vec<(String, u64, i32)> = (0..9)
        .map(|i| {
            let (lines, code) = (sizes[i % sizes.len()], 1 + i as i32);
            let script = format!("echo begin-{i}; seq 1 {lines}; echo end-{i}; exit {code}");
            let made = env.ok_json(&["create", "--command", &format!("sh -c {script:?}")]);
            let holder = made["holder_pid"].as_u64().expect("a holder pid");
            (s(&made, "session_id").to_string(), holder, code)
        })
        .collect();
    for (i, (id, holder, code)) in sessions.iter().enumerate() {
        wait_for(20_000, "the holder to end", || pid_gone(*holder));
        let e = env.entry(id);
        assert_eq!(e["state"], "exited", "{i}: {e}");
        assert_eq!(e["exit_code"], *code, "{i}: {e}");
        let out = env.ok(&["read", "-s", id, "--max-bytes", "100000"]);
        assert!(out.contains(&format!("end-{i}")), "{i}: {out:?}");
        let notice = format!("\x1b[2m[process exited (code {code})]\x1b[0m");
        let tail: String = out
            .chars()
            .rev()
            .take(300)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(out.contains(&notice), "{i}: {tail:?}");
    }
}

#[test]
fn auto_restart_restarts_with_notices_and_backs_off() {
    let env = Env::new();
    let id = env.create(&[
        "--command",
        r#"sh -c "echo run; exit 3""#,
        "--auto-restart",
        "--restart-delay-ms",
        "50",
    ]);
    wait_for(15_000, "three restarts", || {
        process(&env, &id)["restart_count"].as_u64() >= Some(3)
    });
    let p = process(&env, &id);
    assert_eq!(p["last_exit_code"], 3, "{p}");
    let out = env.ok(&["read", "-s", &id, "--max-bytes", "100000"]);
    assert!(
        out.contains("\x1b[2m[process exited (code 3)]\x1b[0m\r\n"),
        "{out:?}"
    );
    // Each run's output comes before the notice of its exit.
    let first_notice = out.find("[process exited").expect("a notice");
    assert!(out[..first_notice].contains("run"), "{out:?}");
    // Quick exits double the delay: 50, 100, 200 …
    for ms in [50, 100, 200] {
        assert!(
            out.contains(&format!("\x1b[2m[restarting in {ms}ms...]\x1b[0m\r\n")),
            "{ms}: {out:?}"
        );
    }
    let events =
        std::fs::read_to_string(env.state().join("sessions").join(&id).join("events.jsonl"))
            .expect("events");
    assert!(
        events.contains("\"process_exited\"") && events.contains("\"process_restarted\""),
        "{events}"
    );
    // Killed while waiting to restart: it ends at once.
    let killed = env.ok_json(&["kill", &id]);
    assert_eq!(killed["killed"], true, "{killed}");
    assert_eq!(env.ok_json(&["list"])["count"], 0);
    // Every exit is announced once, with its restart notice (the last one too: the kill came
    // during its delay), in the saved buffer and in the trail.
    let dir = env.state().join("sessions").join(&id);
    let saved = std::fs::read_to_string(dir.join("buffer.txt")).expect("buffer.txt");
    let exits = saved.matches("[process exited").count();
    assert_eq!(exits, saved.matches("[restarting in").count(), "{saved:?}");
    let events = std::fs::read_to_string(dir.join("events.jsonl")).expect("events");
    assert_eq!(
        events.matches("\"process_exited\"").count(),
        exits,
        "{events}"
    );
}

#[test]
fn a_program_is_driven_with_send_line_and_wait_for_not_talk() {
    let env = Env::new();
    let id = env.create(&["--command", "cat", "--no-input-filter"]);
    env.send_line(&id, "ping-$((1+1))");
    let v = env.ok_json(&["wait-for", "-s", &id, "-t", "10000", "ping-\\$"]);
    assert_eq!(v["matched"], true, "{v}");
    let refused = env.fails(&["talk", "-s", &id, "ls"], 115, "INVALID_PARAMS");
    assert!(s(&refused, "message").contains("not a shell"), "{refused}");
    let term = env.ok_json(&["term-read", "-s", &id]);
    assert!(
        term["lines"].to_string().contains("ping-$((1+1))"),
        "{term}"
    );
    // An unknown program is a clear spawn failure.
    let bad = env.fails(
        &["create", "--command", "no-such-program-kpty"],
        120,
        "PTY_SPAWN_FAILED",
    );
    assert!(s(&bad, "message").contains("no-such-program-kpty"), "{bad}");
    env.fails(&["create", "--command", "sh -c 'x"], 115, "INVALID_PARAMS");
}

#[test]
fn an_attached_client_stays_through_a_restart() {
    let env = Env::new();
    let script = env.dir.path().join("prog.sh");
    std::fs::write(&script, "read line; echo \"got-$line\"; exit 5\n").expect("script");
    let cmd = format!("sh {}", script.display());
    let id = env.create(&[
        "--command",
        &cmd,
        "--auto-restart",
        "--restart-delay-ms",
        "100",
    ]);
    let mut tty = Tty::kpty(&env, &["attach", &id], (120, 30));
    tty.expect("attached to");
    tty.keys(b"one\r");
    tty.expect("got-one");
    tty.expect("[process exited (code 5)]");
    tty.expect("[restarting in 100ms...]");
    wait_for(10_000, "the restart", || {
        process(&env, &id)["restart_count"] == 1
    });
    tty.keys(b"two\r");
    tty.expect("got-two");
    tty.keys(b"\x1c");
    assert_eq!(tty.exit_code(), 0);
}

/// A talk that ends the shell (`exit N`, in every shell kpty knows) answers with the shell's
/// code; its output is the shell's, never kpty's notice — which the stream (`read`) has.
#[test]
fn a_talk_that_ends_the_shell_reports_its_code_and_never_the_notice_as_output() {
    let env = Env::new();
    for sh in crate::support::shells() {
        for code in [0, 3, 42] {
            let id = env.create(&["--shell", sh]);
            let args = ["--json", "talk", "-s", &id, &format!("exit {code}")];
            let out = env.kpty(&args);
            let v = crate::support::parse(&out, &args);
            let exited = (v["error_code"] == "PTY_PROCESS_EXITED"
                && v["details"]["exit_code"] == code)
                || (v["ok"] == true && v["exit_code"] == code);
            assert!(exited, "{sh} exit {code}: {v}");
            for field in [&v["output"], &v["details"]["partial_output"]] {
                let text = field.as_str().unwrap_or_default();
                assert!(!text.contains("[process exited"), "{sh} exit {code}: {v}");
            }
            wait_for(10_000, "the session to end", || {
                env.entry(&id)["state"] == "exited"
            });
            let stream = env.ok(&["read", "-s", &id, "--max-bytes", "10000"]);
            assert!(
                stream.contains(&format!("[process exited (code {code})]")),
                "{sh} exit {code}: {stream:?}"
            );
        }
    }
}
