//! `talk` and the shell's input line: text someone left there (a person in `kpty attach`, a
//! `send-keys` without Enter) makes a talk `PTY_BUSY` naming it, `--force` clears it first
//! and says so; and a talk never reports or shows its own typing (typed before the prompt was
//! drawn, timed out before the command started, long commands that wrap).

use crate::support::{Env, s, skip, wait_for};
use crate::tty::Tty;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

/// PTY_BUSY's exit code.
const BUSY: i32 = 117;

fn have(shell: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {shell}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The shells to try: bash always, the others when installed (skipped, or failed in CI).
fn shells() -> Vec<&'static str> {
    let mut out = vec!["bash"];
    for sh in ["zsh", "fish", "sh"] {
        if have(sh) {
            out.push(sh);
        } else {
            skip(&format!("{sh} is not installed"));
        }
    }
    out
}

/// A test environment every shell starts in quietly (zsh without a `.zshrc` would ask
/// its new-user questions).
fn env() -> Env {
    let env = Env::new();
    std::fs::write(env.home().join(".zshrc"), "PROMPT='%n %# '\n").expect("zshrc");
    env
}

/// The session's visible screen, lines joined.
fn screen(env: &Env, id: &str) -> String {
    let v = env.ok_json(&["term-read", "-s", id, "--mode", "viewport"]);
    s(&v, "text").to_string()
}

/// How text got onto the input line.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `send-keys -l TEXT` (no Enter).
    SendKeys,
    /// A person typing in `kpty attach`.
    Attach,
    /// An unfinished quote through `send-keys -l` (no Enter: the line is still open).
    OpenQuote,
}

/// Put `text` on the session's input line from `src` (`tty` is the attached terminal).
fn put(env: &Env, id: &str, tty: &mut Tty, src: Source, text: &str) {
    match src {
        Source::SendKeys | Source::OpenQuote => {
            env.ok_json(&["send-keys", "-l", "-s", id, text]);
        }
        Source::Attach => {
            tty.keys(text.as_bytes());
            // (fish redraws its line in pieces: the screen shows it whole.)
            wait_for(10_000, "the person's keys on the screen", || {
                screen(env, id).contains(text)
            });
        }
    }
}

#[test]
fn text_left_on_the_input_line_is_busy_and_force_clears_it() {
    let env = env();
    let mut n = 0;
    for sh in shells() {
        let id = env.create(&["--shell", sh, "--cols", "120"]);
        assert_eq!(env.out(&id, "printf 'ready-%s\\n' 42"), "ready-42", "{sh}");
        let mut tty = Tty::kpty(&env, &["attach", &id], (120, 30));
        tty.expect("attached to");
        for src in [Source::SendKeys, Source::Attach, Source::OpenQuote] {
            for force in [false, true] {
                n += 1;
                let text = match src {
                    Source::OpenQuote => format!("echo 'half-{n}"),
                    _ => format!("echo HUMAN-{n}"),
                };
                let case = format!("{sh} {src:?} force={force}");
                put(&env, &id, &mut tty, src, &text);
                let cmd = format!("printf 'agent-%s\\n' {n}");
                if !force {
                    let v = env.fails(&["talk", "-s", &id, &cmd], BUSY, "PTY_BUSY");
                    assert_eq!(v["details"]["line"], text.as_str(), "{case}: {v}");
                    assert!(s(&v, "message").contains(&text), "{case}: {v}");
                    // Nothing was typed: the line still holds the text alone.
                    let shown = screen(&env, &id);
                    assert!(!shown.contains(&format!("agent-{n}")), "{case}: {shown}");
                    // The person (or agent) clears it: the session is free again.
                    env.ok_json(&["send-keys", "-s", &id, "C-e", "C-u"]);
                    assert_eq!(env.out(&id, &cmd), format!("agent-{n}"), "{case}");
                    continue;
                }
                let v = env.talk_args(&["--force", "-s", &id, &cmd]);
                assert_eq!(s(&v, "output"), format!("agent-{n}"), "{case}: {v}");
                assert_eq!(v["cleared_line"], text.as_str(), "{case}: {v}");
                // The human's text never ran, glued or alone.
                let shown = screen(&env, &id);
                let glued = shown
                    .lines()
                    .any(|l| l.contains(&text) && l.contains("agent-%s"));
                assert!(!glued, "{case}: {shown}");
            }
        }
        tty.keys(b"\x1c");
        assert_eq!(tty.exit_code(), 0, "{sh}");
    }
}

#[test]
fn a_line_emptied_again_or_typed_and_submitted_is_free() {
    let env = env();
    for sh in shells() {
        let id = env.create(&["--shell", sh]);
        assert_eq!(env.out(&id, "printf 'ready-%s\\n' 42"), "ready-42", "{sh}");
        // Typed, then erased key by key; typed, then Ctrl-C; typed and submitted.
        env.ok_json(&["send-keys", "-l", "-s", &id, "abc"]);
        env.ok_json(&["send-keys", "-s", &id, "BSpace", "BSpace", "BSpace"]);
        assert_eq!(env.out(&id, "printf 'one-%s\\n' 1"), "one-1", "{sh}");
        env.ok_json(&["send-keys", "-l", "-s", &id, "echo never"]);
        env.ok_json(&["send-keys", "-s", &id, "C-c"]);
        let v = env.talk_when_free(&id, "printf 'two-%s\\n' 2");
        assert_eq!(s(&v, "output"), "two-2", "{sh}: {v}");
        // (No `\\n` here: the CLI would type it as a newline.)
        env.ok_json(&["send-keys", "-l", "-s", &id, "echo sent-3"]);
        env.ok_json(&["send-keys", "-s", &id, "Enter"]);
        let v = env.talk_when_free(&id, "printf 'three-%s\\n' 3");
        assert_eq!(s(&v, "output"), "three-3", "{sh}: {v}");
        assert!(v.get("cleared_line").is_none(), "{sh}: {v}");
    }
}

/// How a line gets submitted just before a talk.
#[derive(Debug, Clone, Copy)]
enum Submit {
    /// `send-keys -l TEXT`, then `send-keys Enter`.
    KeysThenEnter,
    /// `send-line TEXT`.
    SendLine,
    /// `send-keys -l` with a carriage return at the end of the text.
    CarriageReturn,
    /// `send-keys -l` with a line feed at the end of the text.
    LineFeed,
}

/// Submit `text` with `how`.
fn submit(env: &Env, id: &str, how: Submit, text: &str) {
    match how {
        Submit::KeysThenEnter => {
            env.ok_json(&["send-keys", "-l", "-s", id, text]);
            env.ok_json(&["send-keys", "-s", id, "Enter"]);
        }
        Submit::SendLine => {
            env.send_line(id, text);
        }
        Submit::CarriageReturn => {
            env.ok_json(&["send-keys", "-l", "-s", id, &format!("{text}\r")]);
        }
        Submit::LineFeed => {
            env.ok_json(&["send-keys", "-l", "-s", id, &format!("{text}\n")]);
        }
    }
}

/// A quick command submitted just before a talk (a `cd`, however it was typed) is not a
/// busy session: the talk waits the moment it takes, runs at once, and sees its effect — in
/// every shell, every way of submitting a line.
#[test]
fn a_talk_right_after_a_quick_submitted_command_runs_after_it() {
    let env = env();
    let ways = [
        Submit::KeysThenEnter,
        Submit::SendLine,
        Submit::CarriageReturn,
        Submit::LineFeed,
    ];
    let dirs: Vec<std::path::PathBuf> = (0..ways.len())
        .map(|i| {
            let d = env.home().join(format!("quick-{i}"));
            std::fs::create_dir_all(&d).expect("dir");
            d
        })
        .collect();
    for sh in shells() {
        let id = env.create(&["--shell", sh]);
        assert_eq!(env.out(&id, "printf 'ready-%s\\n' 42"), "ready-42", "{sh}");
        for (how, dir) in ways.into_iter().zip(&dirs) {
            let case = format!("{sh} {how:?}");
            submit(&env, &id, how, &format!("cd {}", dir.display()));
            let v = env.talk(&id, "pwd");
            assert_eq!(s(&v, "output"), dir.display().to_string(), "{case}: {v}");
        }
    }
}

#[test]
fn a_talk_right_after_a_submitted_line_never_takes_that_commands_output() {
    // A slow hook before each command starts (zsh's preexec, fish's fish_preexec: a prompt
    // framework's timer, a history sync) holds the shell between taking the line and its
    // output-start marker: a talk typed meanwhile must not take that command's markers.
    let env = env();
    std::fs::write(
        env.home().join(".zshrc"),
        "PROMPT='%n %# '\npreexec() { sleep 0.4 }\n",
    )
    .expect("zshrc");
    let fish = env.home().join(".config/fish");
    std::fs::create_dir_all(&fish).expect("fish config dir");
    std::fs::write(
        fish.join("config.fish"),
        "function __slow --on-event fish_preexec\n    sleep 0.4\nend\n",
    )
    .expect("config.fish");
    let ways = [
        Submit::KeysThenEnter,
        Submit::SendLine,
        Submit::CarriageReturn,
        Submit::LineFeed,
    ];
    let mut n = 0;
    for sh in shells() {
        let id = env.create(&["--shell", sh]);
        assert_eq!(env.out(&id, "printf 'ready-%s\\n' 42"), "ready-42", "{sh}");
        for how in ways {
            n += 1;
            let case = format!("{sh} {how:?}");
            submit(&env, &id, how, &format!("echo sub-{n}"));
            let v = env.talk_when_free(&id, &format!("printf 'talk-%s\\n' {n}"));
            assert_eq!(s(&v, "output"), format!("talk-{n}"), "{case}: {v}");
            assert!(v.get("cleared_line").is_none(), "{case}: {v}");
            // The submitted command ran, once, by itself.
            let shown = screen(&env, &id);
            let runs = shown
                .lines()
                .filter(|l| l.trim() == format!("sub-{n}"))
                .count();
            assert_eq!(runs, 1, "{case}: {shown}");
        }
    }
}

/// A command for the back-to-back property: a quick one, a long one that wraps, or a slow one
/// that a short timeout cuts off (printing before it sleeps, or not).
fn command() -> impl Strategy<Value = (String, Option<String>, bool)> {
    let word = "[a-z]{1,12}";
    prop_oneof![
        word.prop_map(|w| (format!("echo q-{w}"), Some(format!("q-{w}")), false)),
        (word, 90usize..260).prop_map(|(w, n)| {
            let long = format!("{w}{}", "x".repeat(n));
            (format!("echo {long}"), Some(long), false)
        }),
        word.prop_map(|w| (format!("echo early-{w}; sleep 2"), None, true)),
        word.prop_map(|w| (format!("sleep 2; echo silent-{w} >/dev/null"), None, true)),
    ]
}

/// What a talk returned: its output, or a failed talk's partial output.
fn talk_once(env: &Env, id: &str, cmd: &str, slow: bool) -> (bool, String) {
    let t = if slow { "300" } else { "20000" };
    let v = env.json(&["talk", "-s", id, "-t", t, cmd]);
    if v["ok"] == true {
        return (true, s(&v, "output").to_string());
    }
    assert_eq!(v["error_code"], "PTY_TIMEOUT", "{cmd}: {v}");
    (
        false,
        v["details"]["partial_output"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

/// Wait until a timed-out command is over and the prompt is back.
fn settle(env: &Env, id: &str) {
    env.ok_json(&["send-keys", "-s", id, "C-c"]);
    wait_for(20_000, "the prompt after Ctrl-C", || {
        env.json(&["talk", "-s", id, "-t", "5000", "true"])["ok"] == true
    });
}

#[test]
fn back_to_back_talks_never_report_or_show_their_own_typing() {
    for sh in shells() {
        let env = env();
        let id = env.create(&["--shell", sh, "--cols", "60", "--rows", "40"]);
        let mut runner = TestRunner::new(Config {
            cases: 10,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&proptest::collection::vec(command(), 1..5), |cmds| {
            let before = env.ok_json(&["term-read", "-s", &id]);
            let marker = before["marker_id"].as_u64().expect("a marker").to_string();
            for (cmd, want, slow) in &cmds {
                let (done, out) = talk_once(&env, &id, cmd, *slow);
                prop_assert!(
                    !out.contains(cmd.as_str()),
                    "{sh}: {cmd:?} in its own output {out:?}"
                );
                prop_assert!(!out.contains("echo "), "{sh}: typing in the output {out:?}");
                match want {
                    Some(w) => prop_assert_eq!(&out, w, "{}: {}", sh, cmd),
                    None => {
                        prop_assert!(!done, "{sh}: {cmd} completed within 300 ms");
                        prop_assert!(
                            out.is_empty() || out.starts_with("early-"),
                            "{sh}: {cmd}: partial {out:?}"
                        );
                        settle(&env, &id);
                    }
                }
            }
            // The screen shows each command typed once: never echoed before its prompt too.
            let v = env.ok_json(&[
                "term-read",
                "-s",
                &id,
                "--mode",
                "delta",
                "--marker",
                &marker,
                "--max-lines",
                "200",
            ]);
            let lines: Vec<String> = v["lines"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            for (cmd, _, _) in &cmds {
                let typed = cmds.iter().filter(|(c, _, _)| c == cmd).count();
                // A command line ends with the command (`echo q-z` is inside `echo q-za`).
                let shown = lines
                    .iter()
                    .filter(|l| l.trim_end().ends_with(cmd.as_str()))
                    .count();
                prop_assert!(
                    shown <= typed,
                    "{sh}: {cmd:?} shown {shown} times: {lines:#?}"
                );
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_a_busy_line_is_named_and_force_clears_it() {
    use serde_json::json;
    let env = env();
    let m = crate::mcp::start(&env).await;
    for sh in shells() {
        let id = env.create(&["--shell", sh]);
        let talk = |force: bool, n: u32| {
            json!({"action": "talk", "session_id": id, "force": force,
                   "command": format!("printf 'mcp-%s\\n' {n}")})
        };
        assert_eq!(m.json(talk(false, 0)).await["output"], "mcp-0", "{sh}");
        // A secret on the line: named, but redacted.
        let typed = "echo ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let keys =
            json!({"action": "send_keys", "session_id": id, "keys": [typed], "literal": true});
        assert_eq!(m.json(keys).await["ok"], true, "{sh}");
        let v = m.json(talk(false, 1)).await;
        assert_eq!(v["error_code"], "PTY_BUSY", "{sh}: {v}");
        let line = v["details"]["line"].as_str().unwrap_or_default();
        assert!(line.starts_with("echo "), "{sh}: {v}");
        assert!(
            !line.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            "{sh}: {v}"
        );
        let v = m.json(talk(true, 2)).await;
        assert_eq!(v["output"], "mcp-2", "{sh}: {v}");
        assert_eq!(v["cleared_line"].as_str(), Some(line), "{sh}: {v}");
        // The line is empty now: a plain talk is free, and says nothing was cleared.
        let v = m.json(talk(false, 3)).await;
        assert_eq!(v["output"], "mcp-3", "{sh}: {v}");
        assert!(v.get("cleared_line").is_none(), "{sh}: {v}");
    }
    m.close().await;
}

#[test]
fn a_slow_prompt_is_waited_for_so_the_command_is_echoed_once_and_never_output() {
    // A prompt that takes a while to draw after the command-finished marker (a busy
    // PROMPT_COMMAND, as a git-status prompt is): a talk right after another one must not
    // type before it.
    let env = Env::with_bashrc("PROMPT_COMMAND='for ((__i=0;__i<60000;__i++)); do :; done'\n");
    let id = env.create(&[]);
    let before = env.ok_json(&["term-read", "-s", &id]);
    let marker = before["marker_id"].as_u64().expect("marker").to_string();
    for i in 0..5 {
        assert_eq!(
            env.out(&id, &format!("echo v-$(({i}+0))")),
            format!("v-{i}")
        );
    }
    let v = env.ok_json(&[
        "term-read",
        "-s",
        &id,
        "--mode",
        "delta",
        "--marker",
        &marker,
    ]);
    let typed = v["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter(|l| l.as_str().is_some_and(|l| l.contains("echo v-$((")))
        .count();
    assert_eq!(typed, 5, "each command shown once: {v}");
    // A timeout shorter than the prompt: refused untyped, or timed out with no output —
    // never the typed command as output.
    for t in ["150", "600"] {
        env.out(&id, "true");
        let v = env.json(&["talk", "-s", &id, "-t", t, "sleep 3"]);
        match v["error_code"].as_str() {
            Some("PTY_BUSY") => {}
            Some("PTY_TIMEOUT") => {
                assert_eq!(v["details"]["partial_output"], "", "{v}");
                env.ok_json(&["send-keys", "-s", &id, "C-c"]);
                wait_for(20_000, "the prompt after Ctrl-C", || {
                    env.json(&["talk", "-s", &id, "-t", "5000", "true"])["ok"] == true
                });
            }
            _ => panic!("-t {t} sleep 3: {v}"),
        }
    }
}

#[test]
fn a_key_a_program_took_without_enter_does_not_make_the_line_busy() {
    // `read -n1` takes one key with no Enter: kpty's record of the line still holds it, but
    // the shell's line (and screen) is empty once the prompt is back — also after keys
    // typed and erased there since.
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "read -n1 k; echo; echo took-$k");
    wait_for(10_000, "read -n1 to wait for its key", || {
        env.json(&["read", "-s", &id, "--timeout-ms", "100"])["terminal_state"] != "prompt"
    });
    env.ok_json(&["send-keys", "-l", "-s", &id, "y"]);
    let v = env.talk_when_free(&id, "echo free-$((1+1))");
    assert_eq!(s(&v, "output"), "free-2", "{v}");
    env.ok_json(&["send-keys", "-l", "-s", &id, "a"]);
    env.ok_json(&["send-keys", "-s", &id, "BSpace"]);
    let v = env.talk_when_free(&id, "echo free-$((1+2))");
    assert_eq!(s(&v, "output"), "free-3", "{v}");
    assert!(screen(&env, &id).contains("took-y"));
}
