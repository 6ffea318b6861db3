//! `talk`: exit codes, exact clean output (no echo, prompt, ANSI, `\r` or sentinel), shell
//! syntax, long lines, custom prompts, look-alike sentinels, timeouts, busy sessions,
//! concurrency, both completion methods, escapes, invalid UTF-8 and a megabyte of output.

use crate::support::{Env, s, stdout, wait_for};

/// Assert `output` is clean text: no escape sequences, carriage returns or sentinels.
fn assert_clean(output: &str) {
    assert!(
        !output.contains(['\x1b', '\r', '\x07']) && !output.contains("__KR_DONE_"),
        "{output:?}"
    );
}

/// One megabyte of `a`, 100 per line.
const MEGABYTE_CMD: &str = r"head -c 1000000 /dev/zero | tr '\0' a | fold -w 100";

#[test]
fn exit_codes_come_back() {
    let env = Env::new();
    let id = env.create(&[]);
    for (cmd, code) in [
        ("true", 0),
        ("false", 1),
        ("(exit 42)", 42),
        ("echo x; false", 1),
    ] {
        assert_eq!(env.talk(&id, cmd)["exit_code"], code, "{cmd}");
    }
}

#[test]
fn the_cli_exits_with_the_commands_code_and_prints_its_output() {
    let env = Env::new();
    let id = env.create(&[]);
    let out = env.kpty(&["talk", "-s", &id, "echo hi; (exit 42)"]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(42), "hi\n".to_string())
    );
    let out = env.kpty(&["run", "-s", &id, "echo", "several", "words"]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "several words\n".to_string())
    );
}

#[test]
fn output_has_no_echo_prompt_or_ansi() {
    let env = Env::new();
    let id = env.create(&[]);
    std::fs::create_dir(env.home().join("subdir")).expect("mkdir");
    std::fs::write(env.home().join("file.txt"), "x").expect("write a file");
    let v = env.talk(&id, r"printf '\033[31mred\033[0m\\n'");
    assert_eq!(s(&v, "output"), "red");
    assert!(s(&v, "raw_output").contains("\x1b[31m"), "{v}");
    assert_eq!(s(&v, "completion"), "osc133");
    let out = env.out(&id, "ls --color=always -1");
    assert_clean(&out);
    assert_eq!(out, "file.txt\nsubdir");
    let out = env.out(&id, "echo plain");
    assert_eq!(out, "plain");
}

#[test]
fn a_trailing_comment_does_not_swallow_completion() {
    let env = Env::new();
    let id = env.create(&[]);
    assert_eq!(env.out(&id, "echo a # note"), "a");
    assert_eq!(env.talk(&id, "false # why")["exit_code"], 1);
    assert_eq!(env.out(&id, "# only a comment"), "");
}

#[test]
fn shell_syntax_passes_through() {
    let env = Env::new();
    let id = env.create(&[]);
    let cases = [
        ("echo x; echo y", "x\ny"),
        ("true && echo and", "and"),
        ("false || echo or", "or"),
        ("false && echo never", ""),
        (r"printf 'b\\na\\n' | sort | tr a-z A-Z", "A\nB"),
        (
            r#"echo 'single $HOME' "double $((1+2))""#,
            "single $HOME double 3",
        ),
        (r#"echo "it's" 'say "hi"'"#, r#"it's say "hi""#),
    ];
    for (cmd, want) in cases {
        assert_eq!(env.out(&id, cmd), want, "{cmd}");
    }
}

#[test]
fn a_command_longer_than_the_terminal_is_exact() {
    let env = Env::new();
    let id = env.create(&["--cols", "80"]);
    let long: String = (0..300)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let v = env.talk(&id, &format!("echo {long}"));
    assert_eq!(s(&v, "output"), long);
    assert_eq!(v["exit_code"], 0);
}

#[test]
fn a_coloured_prompt_and_a_noisy_prompt_command_change_nothing() {
    let env = Env::with_bashrc(concat!(
        r"PS1='\[\e[1;32m\]\u@\h\[\e[0m\]:\w\$ '",
        "\n",
        "PROMPT_COMMAND='echo prompt-noise'\n",
    ));
    let id = env.create(&[]);
    let v = env.talk(&id, "echo exact");
    assert_eq!((s(&v, "output"), s(&v, "completion")), ("exact", "osc133"));
    assert_eq!(env.talk(&id, "(exit 5)")["exit_code"], 5);
    assert_eq!(env.out(&id, "echo a; echo b"), "a\nb");
}

#[test]
fn sentinel_look_alikes_do_not_end_a_talk_early() {
    let env = Env::new();
    let id = env.create(&[]);
    let cmd = "echo __KR_DONE_; echo __KR_DONE_deadbeef__0; echo after";
    let v = env.talk(&id, cmd);
    assert_eq!(s(&v, "output"), "__KR_DONE_\n__KR_DONE_deadbeef__0\nafter");
    assert_eq!(v["exit_code"], 0);
}

#[test]
fn sentinel_look_alikes_do_not_end_a_sentinel_talk_early() {
    let env = Env::new();
    let id = env.create(&["--shell", "/bin/sh"]);
    let cmd = "echo __KR_DONE_; echo __KR_DONE_deadbeef__0; echo after; (exit 4)";
    let v = env.talk(&id, cmd);
    assert_eq!(s(&v, "output"), "__KR_DONE_\n__KR_DONE_deadbeef__0\nafter");
    assert_eq!(v["exit_code"], 4);
}

#[test]
fn earlier_output_is_not_lost() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    env.send_line(&id, "echo before");
    env.read_until(&id, from, "before\r\n");
    assert_eq!(env.talk_when_free(&id, "echo mine")["output"], "mine");
    let read = env.read(&id, &["--max-bytes", "100000"]);
    let text = s(&read, "output");
    assert!(
        text.contains("before\r\n") && text.contains("mine"),
        "{read}"
    );
}

#[test]
fn a_timeout_returns_partial_output_and_frees_the_session() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(
        &[
            "talk",
            "-s",
            &id,
            "-t",
            "700",
            "echo early; sleep 1.5; echo late",
        ],
        124,
        "PTY_TIMEOUT",
    );
    let partial = s(&v["details"], "partial_output");
    assert!(
        partial.contains("early") && !partial.contains("late"),
        "{v}"
    );
    assert_eq!(v["details"]["timeout_ms"], 700);
    // The sleep is still running: talk is refused (PTY_BUSY) until it ends.
    let mine = env.talk_when_free(&id, "echo mine");
    assert_eq!(s(&mine, "output"), "mine");
}

#[test]
fn a_timed_out_talk_prints_its_partial_output() {
    let env = Env::new();
    let id = env.create(&[]);
    let out = env.kpty(&["talk", "-s", &id, "-t", "500", "echo early; sleep 2"]);
    assert_eq!(out.status.code(), Some(124));
    assert_eq!(stdout(&out), "early\n");
}

#[test]
fn talk_refuses_a_busy_terminal_and_types_nothing() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "sleep 5");
    wait_for(10_000, "sleep in the foreground", || {
        env.entry(&id)["foreground_command"] == "sleep"
    });
    let from = env.offset(&id);
    let v = env.fails(&["talk", "-s", &id, "echo SHOULD_NOT_RUN"], 117, "PTY_BUSY");
    assert!(s(&v, "message").contains("sleep"), "{v}");
    assert_eq!(v["details"]["foreground_command"], "sleep");
    // Typed-ahead text is echoed at once; anything talk had typed would come before it.
    env.send_line(&id, "echo AFTER");
    let text = env.read_until(&id, from, "AFTER");
    assert!(!text.contains("SHOULD_NOT_RUN"), "{text:?}");
}

/// A nested shell (here `bash` inside the session's bash, as ssh or `su` would give) holds
/// the foreground: a plain talk is refused, a forced one runs in it and completes by
/// sentinel with the right output and exit code.
#[test]
fn forced_talk_runs_in_a_nested_shell() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "env PS1='nested> ' bash --norc --noprofile");
    wait_for(10_000, "the nested bash in the foreground", || {
        env.entry(&id)["foreground_command"] == "bash"
    });
    env.fails(&["talk", "-s", &id, "echo plain"], 117, "PTY_BUSY");
    let v = env.talk_args(&["-s", &id, "--force", "echo in-$((6*7)); echo $$ >/dev/null"]);
    assert_eq!(
        (s(&v, "output"), &v["exit_code"]),
        ("in-42", &serde_json::json!(0)),
        "{v}"
    );
    assert_eq!(v["completion"], "sentinel");
    let v = env.talk_args(&["-s", &id, "--force", "ls /nonexistent-kpty-path"]);
    assert_eq!(v["exit_code"], 2, "{v}");
    assert!(s(&v, "output").contains("nonexistent-kpty-path"), "{v}");
    // Leaving the nested shell gives the session's own shell (and plain talk) back.
    env.send_line(&id, "exit");
    wait_for(
        10_000,
        "the session's shell in the foreground again",
        || env.entry(&id)["foreground_command"].is_null(),
    );
    let v = env.talk_when_free(&id, "echo back");
    assert_eq!(s(&v, "output"), "back");
}

#[test]
fn concurrent_talks_on_one_session_do_not_interleave() {
    let env = Env::new();
    let id = env.create(&[]);
    // The race needs both talks in flight at once: a few rounds make it show.
    for round in 0..8 {
        let (a, b) = std::thread::scope(|scope| {
            let a =
                scope.spawn(|| env.json(&["talk", "-s", &id, "-t", "5000", "sleep 0.5; echo A"]));
            let b = scope.spawn(|| env.json(&["talk", "-s", &id, "-t", "5000", "echo B"]));
            (
                a.join().expect("talk A thread"),
                b.join().expect("talk B thread"),
            )
        });
        for (v, want, other) in [(&a, "A", "echo B"), (&b, "B", "echo A")] {
            if v["ok"] == true {
                assert_eq!(s(v, "output"), want, "round {round}: {v}");
                // its own command line is echoed in raw_output; the other talk's never is
                assert!(!s(v, "raw_output").contains(other), "round {round}: {v}");
            } else {
                assert_eq!(v["error_code"], "PTY_BUSY", "round {round}: {v}");
            }
        }
        assert!(a["ok"] == true || b["ok"] == true, "round {round}: {a} {b}");
    }
}

#[test]
fn a_command_waiting_for_input_can_be_answered() {
    let env = Env::new();
    let id = env.create(&[]);
    // A timeout shorter than the quiet window waiting-for-input detection needs wins (the
    // early return itself is tested in waiting.rs).
    env.fails(
        &["talk", "-s", &id, "-t", "200", r#"read x; echo "got:$x""#],
        124,
        "PTY_TIMEOUT",
    );
    let from = env.offset(&id);
    env.send_line(&id, "hello");
    env.read_until(&id, from, "got:hello");
    assert_eq!(env.talk_when_free(&id, "echo next")["output"], "next");
}

#[test]
fn sentinel_method_on_a_posix_shell() {
    let env = Env::new();
    let created = env.ok_json(&["create", "--shell", "/bin/sh"]);
    assert_eq!(
        (s(&created, "integration"), s(&created, "shell_kind")),
        ("sentinel", "posix")
    );
    let id = s(&created, "session_id");
    for (cmd, code) in [
        ("true", 0),
        ("false", 1),
        ("(exit 42)", 42),
        ("false # why", 1),
    ] {
        let v = env.talk(id, cmd);
        assert_eq!(
            (&v["exit_code"], s(&v, "completion")),
            (&code.into(), "sentinel"),
            "{cmd}"
        );
    }
    let v = env.talk(id, "echo a # note");
    assert_eq!(s(&v, "output"), "a");
    let out = env.out(id, r#"echo x; echo 'y  z' | tr y Y; echo "$((6*7))""#);
    assert_eq!(out, "x\nY  z\n42");
    assert_clean(&out);
}

#[test]
fn a_caller_sentinel_forces_the_sentinel_method() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.talk_args(&[
        "-s",
        &id,
        "--sentinel",
        "__MY_SENT__",
        "echo forced; (exit 6)",
    ]);
    assert_eq!(
        (
            s(&v, "output"),
            &v["exit_code"],
            s(&v, "completion"),
            s(&v, "sentinel")
        ),
        ("forced", &6.into(), "sentinel", "__MY_SENT__")
    );
    let v = env.talk_when_free(&id, "echo back");
    assert_eq!(s(&v, "output"), "back");
}

#[test]
fn escaped_newlines_make_a_multi_line_command() {
    let env = Env::new();
    for shell in ["/bin/bash", "/bin/sh"] {
        let id = env.create(&["--shell", shell]);
        let v = env.talk(&id, r"echo one\n echo two");
        assert_eq!(s(&v, "output"), "one\ntwo", "{shell}: {v}");
    }
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.talk(&id, r"printf '\\xff\\xfe ok\\n'");
    assert_eq!(s(&v, "output"), "\u{fffd}\u{fffd} ok");
    assert_eq!(v["exit_code"], 0);
    let read = env.read(&id, &["--max-bytes", "4096"]);
    assert!(s(&read, "output").contains("\u{fffd}\u{fffd} ok"), "{read}");
}

#[test]
fn a_megabyte_through_talk_is_exact() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.talk(&id, MEGABYTE_CMD);
    let out = s(&v, "output");
    let line = "a".repeat(100);
    assert_eq!(
        out.len(),
        1_000_000 + 9_999,
        "truncated: {}",
        v["truncated"]
    );
    assert!(out.split('\n').all(|l| l == line));
    assert_eq!(out.split('\n').count(), 10_000);
    assert_eq!(
        (&v["exit_code"], &v["truncated"]),
        (&0.into(), &false.into())
    );
    // The default ring (100 KiB) cannot hold it all: a read from the talk's start says so.
    let start = v["start_offset"].as_u64().expect("start_offset");
    let read = env.read(&id, &["--since", &start.to_string(), "--max-bytes", "1000"]);
    assert!(read["dropped"].as_u64().expect("dropped") > 0, "{read}");
}

#[test]
fn a_megabyte_through_paged_reads_is_lossless() {
    let env = Env::new();
    let id = env.create_with_env(&[("KURORYUU_PTY_BUFFER_SIZE", "4000000")], &[]);
    let v = env.talk(&id, MEGABYTE_CMD);
    let (start, end) = (
        v["start_offset"].as_u64().expect("start_offset"),
        v["end_offset"].as_u64().expect("end_offset"),
    );
    let mut text = String::new();
    let mut offset = start;
    let mut pages = 0;
    while offset < end {
        let r = env.read(
            &id,
            &["--since", &offset.to_string(), "--max-bytes", "300000"],
        );
        assert_eq!(
            (&r["dropped"], &r["start_offset"]),
            (&0.into(), &offset.into()),
            "{r}"
        );
        let next = r["next_offset"].as_u64().expect("next_offset");
        assert_eq!(r["bytes_read"].as_u64(), Some(next - offset));
        text.push_str(s(&r, "output"));
        offset = next;
        pages += 1;
    }
    assert!(pages >= 4, "{pages} pages");
    assert!(text.len() as u64 >= end - start);
    // The command's output sits between the OSC 133 output-start and finished markers.
    let (_, body) = text
        .split_once("\x1b]133;C\x07")
        .expect("output-start marker");
    let (body, _) = body.split_once("\x1b]133;D").expect("finished marker");
    let expected = vec!["a".repeat(100); 10_000].join("\r\n");
    assert!(
        body == expected,
        "{} bytes differ from the expected {}",
        body.len(),
        expected.len()
    );
}

/// Options are parsed, not typed into the shell: an unknown option before the command is a
/// usage error (exit 2, with a suggestion) and nothing is typed; `--` starts the command.
#[test]
fn unknown_options_before_the_command_are_usage_errors() {
    let env = Env::new();
    let out = env.kpty(&["talk", "--timeout", "100", "echo hi"]);
    assert_eq!(out.status.code(), Some(2));
    let err = crate::support::stderr(&out);
    assert!(
        err.contains("--timeout-ms"),
        "suggests the real flag: {err}"
    );
    assert!(
        env.json(&["list"])["sessions"]
            .as_array()
            .is_some_and(|s| s.is_empty()),
        "nothing ran"
    );
    let v = env.talk_args(&["-t", "10000", "--", "-n"]);
    assert_ne!(v["exit_code"], 0, "`-n` ran as a command: {v}");
    assert_eq!(
        env.talk_args(&["echo", "-n", "x"])["output"],
        "x",
        "hyphens after the command are its own"
    );
}

/// A command that ends the shell (`exit 3`): kpty exits with its code, as ssh does, and says
/// on stderr that the session has ended and what the next talk will do.
#[test]
fn a_command_that_ends_the_shell_exits_with_its_code() {
    let env = Env::new();
    let out = env.kpty(&["talk", "exit 3"]);
    assert_eq!(out.status.code(), Some(3));
    let err = crate::support::stderr(&out);
    assert!(
        err.contains("has ended") && err.contains("new default session"),
        "{err}"
    );
    assert_eq!(env.talk_args(&["echo again"])["output"], "again");
    let id = env.create(&[]);
    let out = env.kpty(&["--json", "talk", "-s", &id, "exit 4"]);
    assert_eq!(out.status.code(), Some(4));
    let v = crate::support::parse(&out, &["talk"]);
    assert_eq!(v["error_code"], "PTY_PROCESS_EXITED", "{v}");
    // A session that had already ended is still an error (118), not its old exit code.
    let out = env.kpty(&["talk", "-s", &id, "echo hi"]);
    assert_eq!(
        out.status.code(),
        Some(118),
        "{}",
        crate::support::stderr(&out)
    );
}

/// However the default session ended — a talk's own `exit`, a line typed into it, a signal to
/// its shell — and however soon the next talk comes (its holder may still be winding down),
/// a talk without `-s` starts a new default session and runs there, in every shell.
#[test]
fn a_talk_after_the_default_session_ended_starts_a_new_one_at_once() {
    let env = Env::new();
    for sh in crate::support::shells() {
        let talk_coded = |cmd: &str| {
            let args = ["--json", "talk", cmd];
            let mut c = env.cmd(&args);
            c.env("KPTY_SHELL", sh);
            let out = crate::support::run(c, &args);
            (crate::support::parse(&out, &args), out.status.code())
        };
        let talk = |cmd: &str| talk_coded(cmd).0;
        for (round, end) in ["talk", "send-line", "SIGKILL"].into_iter().enumerate() {
            let first = talk(&format!("echo first{round}"));
            assert_eq!(first["output"], format!("first{round}"), "{sh}: {first}");
            let id = s(&first, "session_id").to_string();
            match end {
                "talk" => {
                    // The talk's own command ended the shell: its code, and no retry of it in
                    // a new session.
                    let (v, code) = talk_coded("exit 3");
                    assert_eq!(v["error_code"], "PTY_PROCESS_EXITED", "{sh} {end}: {v}");
                    assert_eq!(code, Some(3), "{sh} {end}: {v}");
                    let listed = env.ok_json(&["list"]);
                    let ids: Vec<&str> = listed["sessions"]
                        .as_array()
                        .expect("sessions")
                        .iter()
                        .filter_map(|x| x["session_id"].as_str())
                        .collect();
                    assert_eq!(ids, [id.as_str()], "{sh} {end}: {listed}");
                }
                "send-line" => {
                    env.send_line(&id, "exit");
                }
                _ => {
                    let pid = env.entry(&id)["pid"].as_u64().expect("the shell's pid");
                    crate::support::kill_9(pid);
                }
            }
            let next = talk("echo again");
            assert_eq!(next["output"], "again", "{sh} after {end}: {next}");
            assert_ne!(next["session_id"], id.as_str(), "{sh} after {end}: {next}");
        }
    }
}

/// Flags are consistent: `--follow` (alias `--watch`) on read and term-read; `log --action`
/// takes `send-line` and `send_line`, and refuses an action that does not exist.
#[test]
fn follow_watch_and_log_action_spellings() {
    let env = Env::new();
    for cmd in ["read", "term-read"] {
        let help = env.ok(&[cmd, "--help"]);
        assert!(
            help.contains("--follow") && help.contains("--watch"),
            "{cmd}: {help}"
        );
    }
    let id = env.create(&[]);
    env.send_line(&id, "true");
    let dash = env.ok(&["log", "--action", "send-line"]);
    let under = env.ok(&["log", "--action", "send_line"]);
    assert_eq!(dash, under);
    assert!(dash.contains("send_line"), "{dash}");
    let out = env.kpty(&["log", "--action", "send-lines"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        crate::support::stderr(&out)
    );
}

/// With `--json`, a usage error is JSON too (`INVALID_PARAMS`, exit 2).
#[test]
fn usage_errors_are_json_with_json() {
    let env = Env::new();
    for args in [
        vec!["--json", "talk", "--timeout", "5", "ls"],
        vec!["log", "--json", "--action", "nope"],
    ] {
        let out = env.kpty(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = crate::support::parse(&out, &args);
        assert_eq!(
            (v["ok"].as_bool(), s(&v, "error_code")),
            (Some(false), "INVALID_PARAMS"),
            "{v}"
        );
        assert!(s(&v["details"], "usage").contains("--help"), "{v}");
    }
    let out = env.kpty(&["talk", "--timeout", "5", "ls"]);
    assert!(
        crate::support::stdout(&out).is_empty(),
        "human usage errors stay on stderr"
    );
}

/// `kpty help` lists every command, also those without an action (log, serve, mcp).
#[test]
fn help_lists_every_command() {
    let env = Env::new();
    let help = env.ok(&["help"]);
    for cmd in ["talk", "send-line", "check", "log", "serve", "mcp"] {
        assert!(
            help.contains(&format!("\n  {cmd} ")),
            "{cmd} missing: {help}"
        );
    }
    assert!(
        !help.contains("\n  write "),
        "the deprecated write is not listed"
    );
}

/// `term-read --follow` into a pipe draws plain text, no clear-screen codes.
#[test]
fn term_read_follow_into_a_pipe_has_no_clear_screen_codes() {
    use std::time::Duration;
    let env = Env::new();
    let id = env.create(&[]);
    let mut child = crate::support::spawn(env.cmd(&["term-read", "-s", &id, "--follow"]));
    let mut stream = crate::support::Stream::new(child.stdout.take().expect("stdout"));
    env.talk(&id, "echo follow-$((6*7))");
    stream.until("follow-42", Duration::from_secs(10));
    let _ = child.kill();
    let _ = child.wait();
    let text = &stream.seen;
    assert!(text.contains("follow-42"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "escape codes in piped output: {text:?}"
    );
}
