//! Failures: each has its stable error code and exit code, names the thing at fault, leaves no
//! state behind, and never panics. Dangerous commands are blocked before any byte is typed.

use crate::support::{Env, s, stderr};
use std::collections::BTreeSet;

/// File names directly under `dir`.
fn names(dir: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_unknown_session_is_not_found() {
    let env = Env::new();
    env.create(&[]);
    for args in [
        &["talk", "-s", "pty_00000000", "true"][..],
        &["send-line", "-s", "pty_00000000", "true"],
        &["read", "-s", "pty_00000000"],
        &[
            "resize",
            "-s",
            "nosuchlabel",
            "--cols",
            "80",
            "--rows",
            "24",
        ],
        &["kill", "pty_00000000"],
    ] {
        let v = env.fails(args, 119, "PTY_SESSION_NOT_FOUND");
        assert!(s(&v, "message").contains("kpty list"), "{v}");
    }
}

#[test]
fn a_path_as_session_name_is_invalid_and_touches_nothing() {
    let env = Env::new();
    env.create(&[]);
    let before = names(env.dir.path());
    let sessions_before = names(&env.state().join("sessions"));
    for args in [
        &["talk", "-s", "../../etc", "true"][..],
        &["read", "-s", "../../etc"],
        &["send-line", "-s", "../../etc", "true"],
        &["kill", "../../etc"],
    ] {
        env.fails(args, 115, "INVALID_PARAMS");
    }
    assert_eq!(names(env.dir.path()), before);
    assert_eq!(names(&env.state().join("sessions")), sessions_before);
}

#[test]
fn a_missing_shell_fails_to_spawn_and_leaves_no_entry() {
    let env = Env::new();
    let v = env.fails(
        &["create", "--shell", "/nonexistent/sh"],
        120,
        "PTY_SPAWN_FAILED",
    );
    assert!(s(&v, "message").contains("/nonexistent/sh"), "{v}");
    let reg = env.registry();
    assert!(
        reg.is_null() || reg["sessions"].as_object().is_some_and(|m| m.is_empty()),
        "{reg}"
    );
    assert_eq!(env.ok_json(&["list"])["count"], 0);
}

#[test]
fn a_missing_cwd_fails_to_spawn() {
    let env = Env::new();
    let v = env.fails(
        &["create", "--cwd", "/nonexistent/dir"],
        120,
        "PTY_SPAWN_FAILED",
    );
    assert!(s(&v, "message").contains("/nonexistent/dir"), "{v}");
    assert_eq!(env.ok_json(&["list"])["count"], 0);
}

#[test]
fn dangerous_commands_are_blocked_before_typing() {
    let env = Env::new();
    let id = env.create(&[]);
    let dangerous = [
        "rm -rf /",
        "mkfs.ext4 /dev/sda1",
        ":(){ :|:& };:",
        "cat ~/.ssh/id_rsa",
        "shutdown -h now",
    ];
    for cmd in dangerous {
        for verb in ["talk", "send-line"] {
            let v = env.fails(&[verb, "-s", &id, cmd], 116, "DANGEROUS_COMMAND_BLOCKED");
            let pattern = s(&v["details"], "pattern");
            assert!(
                !pattern.is_empty() && s(&v, "message").contains(pattern),
                "{verb} {cmd}: {v}"
            );
        }
    }
    assert_eq!(env.out(&id, "echo still-here"), "still-here");
    let all = env.read(&id, &["--since", "0", "--max-bytes", "1000000"]);
    let typed = s(&all, "output");
    for needle in ["rm -rf", "mkfs", ":(){", "id_rsa", "shutdown"] {
        assert!(
            !typed.contains(needle),
            "{needle:?} reached the terminal: {typed:?}"
        );
    }
}

#[test]
fn benign_look_alikes_pass() {
    let env = Env::new();
    std::fs::write(env.home().join("README.md"), "readme body\n").expect("write README.md");
    let id = env.create(&[]);
    env.talk(&id, "mkdir -p build/deep && touch build/deep/file");
    assert_eq!(env.talk(&id, "rm -rf ./build")["exit_code"], 0);
    assert!(!env.home().join("build").exists());
    assert_eq!(env.out(&id, "echo format"), "format");
    assert_eq!(env.out(&id, "cat README.md"), "readme body");
    env.send_line(&id, "echo shutdown is a word");
}

#[test]
fn a_corrupt_registry_is_a_state_error_naming_the_file() {
    let env = Env::new();
    std::fs::create_dir_all(env.state()).expect("create the state dir");
    std::fs::write(env.state().join("_registry.json"), "{not json").expect("corrupt the registry");
    let v = env.fails(&["list"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("_registry.json"), "{v}");
    let out = env.kpty(&["list"]);
    assert_eq!(out.status.code(), Some(113));
    let err = stderr(&out);
    assert!(
        err.contains("STATE_ERROR") && err.contains("_registry.json"),
        "{err}"
    );
    env.fails(&["talk", "true"], 113, "STATE_ERROR");
}

#[test]
fn parameter_checks_are_invalid_params() {
    let env = Env::new();
    let id = env.create(&["--label", "taken"]);
    for args in [
        &["talk", "-s", &id, ""][..],
        &["talk", "-s", &id, "   "],
        &["talk", "-s", &id, "-t", "0", "true"],
        &["talk", "-s", &id, "--sentinel", "no spaces", "true"],
        &["talk", "-s", &id, "--max-chars", "0", "true"],
        &["create", "--scrollback", "1000001"],
        &["read", "-s", &id, "--max-bytes", "0"],
        &["read", "-s", &id, "--max-bytes", "1048577"],
        &["create", "--label", "taken"],
        &["create", "--cols", "1"],
        &["create", "--env", "NOEQUALS"],
    ] {
        env.fails(args, 115, "INVALID_PARAMS");
    }
    assert_eq!(env.ok_json(&["list"])["count"], 1);
}

#[test]
fn a_command_over_the_size_limit_is_refused() {
    let env = Env::new();
    let id = env.create(&[]);
    // A single argument may not exceed 128 KiB on Linux: eleven words make 1.1 MB.
    let word = "x".repeat(100_000);
    let mut args = vec!["talk", "-s", &id, "echo"];
    args.extend(std::iter::repeat_n(word.as_str(), 11));
    let v = env.fails(&args, 115, "INVALID_PARAMS");
    assert!(s(&v, "message").contains("limit"), "{}", s(&v, "message"));
    assert_eq!(env.out(&id, "echo fine"), "fine");
}

#[test]
fn usage_errors_exit_2() {
    let env = Env::new();
    let out = env.kpty(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Usage"), "{}", stderr(&out));
    // `write` is an MCP-only action.
    assert_eq!(env.kpty(&["write", "x"]).status.code(), Some(2));
    assert_eq!(env.kpty(&["talk"]).status.code(), Some(2));
}

#[test]
fn control_bytes_in_send_line_do_not_crash() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    env.send_line(&id, "\u{1}\u{7f}abc-nonexistent-cmd");
    env.read_until(&id, from, "command not found");
    assert_eq!(env.talk_when_free(&id, "echo alive")["output"], "alive");
}

#[test]
fn help_lists_actions_and_exit_codes() {
    let env = Env::new();
    let v = env.ok_json(&["help"]);
    assert_eq!(v["data"]["tool"], "k_pty");
    for action in [
        "talk",
        "send_line",
        "read",
        "create",
        "list",
        "kill",
        "resize",
    ] {
        assert!(
            v["data"]["actions"].get(action).is_some(),
            "{action} missing: {v}"
        );
    }
    let codes = &v["data"]["exit_codes"];
    for (code, exit) in [
        ("PTY_TIMEOUT", 124),
        ("PTY_SESSION_NOT_FOUND", 119),
        ("DANGEROUS_COMMAND_BLOCKED", 116),
        ("PTY_BUSY", 117),
        ("PTY_PROCESS_EXITED", 118),
        ("PTY_SPAWN_FAILED", 120),
        ("INVALID_PARAMS", 115),
        ("STATE_ERROR", 113),
        ("AMBIGUOUS", 114),
    ] {
        assert_eq!(codes[code], exit, "{code}");
    }
}
