//! The CLI's flags are the same everywhere: `-t/--timeout-ms` wherever there is a timeout,
//! `-s` takes an id, prefix or label (also in `log`, also for ended sessions), `log --after`
//! is a time (not `read --since`'s offset), and the help texts read like kpty's, not clap's.

use crate::support::{Env, s, stderr, stdout};
use serde_json::Value;

fn help(env: &Env, args: &[&str]) -> String {
    let out = env.kpty(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "kpty {args:?}: {}",
        stderr(&out)
    );
    stdout(&out)
}

#[test]
fn every_timeout_is_t_or_timeout_ms() {
    let env = Env::new();
    for cmd in ["talk", "read", "create"] {
        let h = help(&env, &[cmd, "--help"]);
        assert!(h.contains("-t, --timeout-ms <MS>"), "{cmd}: {h}");
    }
    let id = env.create(&["-t", "20000"]);
    let v = env.ok_json(&["talk", "-s", &id, "-t", "20000", "echo hi"]);
    assert_eq!(s(&v, "output").trim(), "hi");
    // read -t waits at most that long for output that never comes.
    let end = env.offset(&id).to_string();
    let started = std::time::Instant::now();
    let v = env.ok_json(&["read", "-s", &id, "--since", &end, "-t", "300"]);
    assert_eq!(s(&v, "output"), "");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    // The long spelling is --timeout-ms everywhere.
    env.ok_json(&["read", "-s", &id, "--since", &end, "--timeout-ms", "100"]);
    // create -t: how long to wait for the first prompt before going on without it.
    let v = env.fails(&["create", "-t", "0"], 115, "INVALID_PARAMS");
    assert!(s(&v, "message").contains("-t/--timeout-ms"), "{v}");
    let quick = env.ok_json(&["create", "-t", "1"]);
    let v = env.ok_json(&["talk", "-s", s(&quick, "session_id"), "echo late"]);
    assert_eq!(s(&v, "output").trim(), "late");
}

/// The ids of the events `kpty log ARGS` shows.
fn logged(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["--json", "log"];
    full.extend_from_slice(args);
    let out = env.kpty(&full);
    assert_eq!(out.status.code(), Some(0), "log {args:?}: {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn log_session_takes_an_id_prefix_or_label_even_after_the_session_ended() {
    let env = Env::new();
    let a = env.create(&["--label", "web"]);
    let b = env.create(&["--label", "db"]);
    env.talk(&a, "echo from-a");
    env.talk(&b, "echo from-b");
    let only = |v: &[Value], id: &str| !v.is_empty() && v.iter().all(|e| e["session_id"] == id);
    for r in [a.as_str(), &a[..a.len() - 2], "web"] {
        let v = logged(&env, &["-s", r]);
        assert!(only(&v, &a), "log -s {r}: {v:?}");
    }
    assert!(only(&logged(&env, &["--session", "db"]), &b));
    // Ended and forgotten: the trail still knows it by id, prefix and label.
    env.ok_json(&["kill", &a]);
    for r in [a.as_str(), &a[..a.len() - 2], "web"] {
        let v = logged(&env, &["-s", r]);
        assert!(
            v.iter().any(|e| e["action"] == "talk"),
            "log -s {r} after kill: {v:?}"
        );
        assert!(only(&v, &a), "log -s {r} after kill: {v:?}");
    }
    // Nothing by that name anywhere: not found, in the CLI's words.
    let v = env.fails(&["log", "-s", "nosuch"], 119, "PTY_SESSION_NOT_FOUND");
    assert!(s(&v, "message").contains("kpty list"), "{v}");
    env.fails(&["log", "-s", "../../etc"], 115, "INVALID_PARAMS");
}

#[test]
fn log_after_is_a_time_or_an_age() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "true");
    assert!(!logged(&env, &["--after", "1h"]).is_empty());
    assert!(!logged(&env, &["--after", "2020-01-01T00:00:00Z"]).is_empty());
    assert!(logged(&env, &["--after", "2999-01-01T00:00:00Z"]).is_empty());
    // The old spelling is still accepted.
    assert!(!logged(&env, &["--since", "1d"]).is_empty());
    let v = env.fails(&["log", "--after", "1024"], 115, "INVALID_PARAMS");
    assert!(s(&v, "message").contains("--after"), "{v}");
    let h = help(&env, &["log", "--help"]);
    assert!(h.contains("--after <WHEN>"), "{h}");
    assert!(!h.contains("--since"), "{h}");
}

#[test]
fn help_lists_commands_and_each_command_has_kpty_help() {
    let env = Env::new();
    let h = help(&env, &["help"]);
    for cmd in [
        "create",
        "talk",
        "send-line",
        "read",
        "term-read",
        "kill",
        "log",
        "serve",
        "mcp",
    ] {
        assert!(h.contains(&format!("\n  {cmd} ")), "help lacks {cmd}: {h}");
    }
    // `kpty help` is `kpty --help`: one help style, without the deprecated `write`.
    assert_eq!(h, help(&env, &["--help"]));
    assert!(
        !h.lines().any(|l| l.trim_start().starts_with("write")),
        "{h}"
    );
    assert!(!h.contains("clap"), "{h}");
    for (cmd, usage) in [
        ("talk", "Usage: kpty talk [OPTIONS] <COMMAND>..."),
        ("run", "Usage: kpty talk [OPTIONS] <COMMAND>..."),
        (
            "resize",
            "Usage: kpty resize [OPTIONS] --cols <COLS> --rows <ROWS>",
        ),
        ("log", "Usage: kpty log [OPTIONS]"),
    ] {
        let via_help = help(&env, &["help", cmd]);
        assert!(via_help.contains(usage), "help {cmd}: {via_help}");
        assert!(!via_help.contains("Show clap help"), "{via_help}");
    }
    let w = help(&env, &["help", "write"]);
    assert!(
        w.contains("deprecated") && w.contains("kpty send-line"),
        "{w}"
    );
    // resize names its session optionally, as every command does.
    let r = help(&env, &["resize", "--help"]);
    assert!(!r.contains("--session <SESSION> --cols"), "{r}");
    let out = env.kpty(&["help", "nosuch"]);
    assert_eq!(out.status.code(), Some(115));
}

#[test]
fn every_subcommand_help_is_consistent() {
    let env = Env::new();
    let session_verbs = ["talk", "send-line", "read", "term-read", "resize"];
    for cmd in session_verbs {
        let h = help(&env, &[cmd, "--help"]);
        assert!(h.contains("-s, --session <SESSION>"), "{cmd}: {h}");
        assert!(h.contains("$KPTY_SESSION"), "{cmd}: {h}");
        assert!(h.contains(&format!("Usage: kpty {cmd} ")), "{cmd}: {h}");
    }
    for cmd in ["read", "term-read"] {
        let h = help(&env, &[cmd, "--help"]);
        assert!(h.contains("-f, --follow"), "{cmd}: {h}");
        assert!(h.contains("watch"), "{cmd}: {h}");
    }
}

/// An environment default (KPTY_STATE_DIR, KPTY_SESSION) is never shown in a usage line as if
/// typed, nor conflicts with a flag or argument naming another session.
#[test]
fn environment_defaults_stay_out_of_usage_lines() {
    let env = Env::new();
    for args in [
        vec!["talk"],
        vec!["send-line"],
        vec!["send-keys"],
        vec!["resize", "--cols", "80"],
        vec!["rename"],
        vec!["term-read", "--bogus"],
        vec!["update-ownership"],
    ] {
        let out = env
            .cmd(&args)
            .env("KPTY_STATE_DIR", env.state())
            .env("KPTY_SESSION", "somewhere")
            .output()
            .expect("run kpty");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let usage = stderr(&out);
        let line = usage
            .lines()
            .find(|l| l.starts_with("Usage:"))
            .unwrap_or_else(|| panic!("{args:?}: no usage in {usage}"));
        assert!(!line.contains("--state-dir"), "{args:?}: {line}");
        assert!(!line.contains("--session"), "{args:?}: {line}");
    }
    // KPTY_SESSION gives way to --label and to a positional session, without a conflict.
    let id = env.create(&["--label", "named"]);
    let out = env
        .cmd(&["--json", "read", "--label", "named", "--timeout-ms", "0"])
        .env("KPTY_SESSION", "nosuch")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let out = env
        .cmd(&["--json", "read", "--timeout-ms", "0"])
        .env("KPTY_SESSION", &id)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "KPTY_SESSION names the session: {out:?}"
    );
}

/// The CLI's texts: wait-for's output ends its line, send-keys' error names the CLI's flag,
/// an empty prune says so.
#[test]
fn cli_texts_end_their_lines_and_speak_the_cli() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "printf 'no-newline-here'");
    let out = env.ok(&["wait-for", "-s", &id, "no-newline-here", "-t", "10000"]);
    assert!(out.ends_with('\n'), "{out:?}");
    let v = env.fails(&["send-keys", "-s", &id, "Cntrl-c"], 115, "INVALID_PARAMS");
    let m = s(&v, "message");
    assert!(
        m.contains("-l/--literal") && !m.contains("literal=true"),
        "{m}"
    );
    let out = env.kpty(&["prune", "--dry-run"]);
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("nothing to prune"), "{out:?}");
}
