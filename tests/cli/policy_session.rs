//! The policy judges a line in the session it runs in: a destructive act split across
//! writes (`cd /` then `rm -rf *`, a variable, a function, an alias, `pushd`, a climb from a
//! deep directory) is refused at the write that does it, through talk and send-line; a person
//! typing in `kpty attach` makes values unknown; and `create` judges what it would start
//! (command, shell, environment) on the CLI and over MCP, before anything starts.
//!
//! Safety net: the test shell's `rm` is a function that only prints, so a policy failure
//! shows as `FAKE-RM` in the output instead of removing anything.

use crate::mcp;
use crate::support::{Env, s};
use crate::tty::Tty;
use serde_json::json;

const FAKE_RM: &str = "rm() { echo \"FAKE-RM $*\"; }\nexport -f rm\n";

fn refused(env: &Env, id: &str, line: &str) -> serde_json::Value {
    let v = env.fails(&["talk", "-s", id, line], 116, "DANGEROUS_COMMAND_BLOCKED");
    assert!(s(&v, "error").contains("nothing was typed"), "{line}: {v}");
    v
}

#[test]
fn acts_split_across_talks_are_refused_in_the_session_state() {
    let env = Env::with_bashrc(FAKE_RM);
    let id = env.create(&[]);
    let home = env.home().display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["cd /"], "rm -rf *"),
        (&["D=/"], "rm -rf $D"),
        (&["f(){ rm -rf \"$@\"; }"], "f /"),
        (&["alias nuke='rm -rf'"], "nuke /etc"),
        (&["pushd / >/dev/null"], "rm -rf ./*"),
        (&["export T=/usr"], "bash -c 'rm -rf $T'"),
        (&["cd /usr", "cd lib"], "rm -rf ."),
        (&["D=/", "D=/tmp/safe true"], "rm -rf \"$D\""),
    ];
    for (setup, act) in cases {
        for line in *setup {
            env.talk(&id, line);
        }
        let v = refused(&env, &id, act);
        assert_eq!(
            s(&v["details"], "pattern"),
            "rm_recursive_root",
            "{act}: {v}"
        );
        env.talk(&id, &format!("cd '{home}'"));
    }
    // The same through send-line.
    env.send_line(&id, "cd /");
    env.fails(
        &["send-line", "-s", &id, "rm -rf *"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    env.talk(&id, &format!("cd '{home}'"));
    // Benign sequences run.
    let out = env.out(
        &id,
        "mkdir -p proj/build && cd proj && command rm -rf build && ls -A | wc -l",
    );
    assert_eq!(out.trim(), "0");
    let all = env.ok(&["read", "-s", &id, "--max-bytes", "1000000", "--strip-ansi"]);
    assert!(
        !all.contains("FAKE-RM"),
        "a refused line reached the shell: {all}"
    );
}

#[test]
fn the_sessions_environment_is_known() {
    let env = Env::with_bashrc(FAKE_RM);
    let id = env.create(&["--env", "TARGET=/", "--env", "BUILD=build"]);
    refused(&env, &id, "rm -rf \"$TARGET\"");
    let out = env.out(&id, "rm -rf $BUILD");
    assert_eq!(out.trim(), "FAKE-RM -rf build");
}

#[test]
fn a_climb_from_a_deep_directory_is_resolved_where_the_shell_is() {
    let env = Env::with_bashrc(FAKE_RM);
    let deep = env.home().join("a/b/c/d/e/f/g/h");
    std::fs::create_dir_all(&deep).expect("deep dir");
    let id = env.create(&["--cwd", deep.to_str().expect("utf-8")]);
    let depth = deep.components().count();
    let up = vec![".."; depth + 2].join("/");
    refused(&env, &id, &format!("cd {up} && rm -rf *"));
    // Split across writes, and the directory reached through /proc, not only the lines.
    env.talk(&id, &format!("cd {up}"));
    refused(&env, &id, "rm -rf *");
    env.talk(&id, &format!("cd '{}'", deep.display()));
    assert_eq!(
        env.out(&id, "cd ../.. && rm -rf * && pwd")
            .trim_end()
            .lines()
            .count(),
        2
    );
}

#[test]
fn a_person_typing_in_attach_makes_values_unknown() {
    let env = Env::with_bashrc(FAKE_RM);
    let id = env.create(&[]);
    env.talk(&id, "D=build");
    assert!(s(&env.talk(&id, "rm -rf $D"), "output").contains("FAKE-RM -rf build"));
    let mut tty = Tty::kpty(&env, &["attach", &id], (90, 20));
    tty.expect("attached to");
    tty.keys(b"D=/; echo person-$((2+2))\r");
    tty.expect("person-4");
    tty.keys(b"\x1c");
    tty.expect("detached from");
    let v = refused(&env, &id, "rm -rf $D");
    assert!(s(&v["details"], "seen").contains("taken as /"), "{v}");
    // Assigned again by kpty: known again.
    env.talk(&id, "D=build");
    assert!(s(&env.talk(&id, "rm -rf $D"), "output").contains("FAKE-RM -rf build"));
}

/// Every field `create` starts something with, one dangerous value each.
const CREATE_FIELDS: &[(&[&str], &str, &str)] = &[
    (&["--command", "rm -rf ~"], "command", "rm_recursive_root"),
    (
        &["--command", "sh -c 'rm -rf /'"],
        "command",
        "rm_recursive_root",
    ),
    (
        &["--command", "env X=1 rm -rf /", "--auto-restart"],
        "command",
        "rm_recursive_root",
    ),
    (
        &["--shell", "bash -c 'rm -rf /'"],
        "shell",
        "rm_recursive_root",
    ),
    (
        &["--env", "PROMPT_COMMAND=rm -rf ~"],
        "env.PROMPT_COMMAND",
        "rm_recursive_root",
    ),
    (
        &["--env", "PROMPT_COMMAND=rm -rf *"],
        "env.PROMPT_COMMAND",
        "rm_recursive_root",
    ),
    (
        &["--env", "PS1=$(rm -rf ~) $ "],
        "env.PS1",
        "rm_recursive_root",
    ),
    (&["--env", "PS0=`rm -rf /`"], "env.PS0", "rm_recursive_root"),
    (
        &["--env", "BASH_ENV=/tmp/evil.sh"],
        "env.BASH_ENV",
        "env_runs_unjudged_code",
    ),
    (
        &["--env", "ENV=/tmp/evil.sh"],
        "env.ENV",
        "env_runs_unjudged_code",
    ),
    (
        &["--env", "LD_PRELOAD=/tmp/evil.so"],
        "env.LD_PRELOAD",
        "env_runs_unjudged_code",
    ),
    (
        &["--env", "ZDOTDIR=/tmp/evil"],
        "env.ZDOTDIR",
        "env_runs_unjudged_code",
    ),
    (
        &["--env", "BASH_FUNC_ls%%=() { rm -rf ~; }"],
        "env.BASH_FUNC_ls%%",
        "env_runs_unjudged_code",
    ),
    (
        &["--env", "GIT_SSH_COMMAND=rm -rf ~"],
        "env.GIT_SSH_COMMAND",
        "rm_recursive_root",
    ),
];

#[test]
fn create_judges_command_shell_and_environment_before_starting() {
    let env = Env::new();
    for (args, field, pattern) in CREATE_FIELDS {
        let all: Vec<&str> = ["create"].iter().chain(*args).copied().collect();
        let v = env.fails(&all, 116, "DANGEROUS_COMMAND_BLOCKED");
        assert_eq!(s(&v["details"], "field"), *field, "{args:?}: {v}");
        assert_eq!(s(&v["details"], "pattern"), *pattern, "{args:?}: {v}");
        assert!(s(&v, "error").contains("nothing was started"), "{v}");
    }
    let list = env.ok_json(&["list"]);
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(0), "{list}");
    // Benign values start.
    let id = env.create(&["--env", "PS1=$(echo ok) $ ", "--env", "EDITOR=vim"]);
    assert_eq!(s(&env.talk(&id, "echo $EDITOR"), "output"), "vim");
}

#[test]
fn a_program_is_found_on_the_sessions_path() {
    let env = Env::new();
    let bin = env.home().join("tools");
    std::fs::create_dir_all(&bin).expect("tools");
    let tool = bin.join("kpty-only-here");
    std::fs::write(&tool, "#!/bin/sh\necho found-$((40+2)); exec cat\n").expect("tool");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let id = env.create(&[
        "--env",
        &format!("PATH={path}"),
        "--command",
        "kpty-only-here",
    ]);
    env.read_until(&id, 0, "found-42");
    // Relative PATH entries are the session's directory's.
    let id2 = env.create(&["--env", "PATH=tools:/bin", "--command", "kpty-only-here"]);
    env.read_until(&id2, 0, "found-42");
    let v = env.fails(
        &[
            "create",
            "--env",
            "PATH=/nowhere",
            "--command",
            "kpty-only-here",
        ],
        120,
        "PTY_SPAWN_FAILED",
    );
    assert!(s(&v, "error").contains("/nowhere"), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_create_is_judged_too() {
    let env = Env::new();
    let m = mcp::start(&env).await;
    for args in [
        json!({"action": "create", "command": "rm -rf ~"}),
        json!({"action": "create", "env": {"PROMPT_COMMAND": "rm -rf ~"}}),
        json!({"action": "create", "env": {"LD_PRELOAD": "/tmp/x.so"}}),
    ] {
        let v = m.json(args.clone()).await;
        assert_eq!(v["error_code"], "DANGEROUS_COMMAND_BLOCKED", "{args}: {v}");
        assert!(v["details"]["field"].is_string(), "{v}");
    }
    m.close().await;
}

/// `kpty --json talk ARGS` (any outcome): the JSON and the exit code.
fn talk_any(env: &Env, args: &[&str]) -> (serde_json::Value, Option<i32>) {
    let all: Vec<&str> = ["--json", "talk"].iter().chain(args).copied().collect();
    let out = env.kpty(&all);
    (crate::support::parse(&out, &all), out.status.code())
}

#[test]
fn a_shell_at_its_continuation_prompt_is_waiting_for_input() {
    let env = Env::new();
    let id = env.create(&[]);
    // A raw write leaves the shell at PS2 on purpose; a talk would land in the continuation:
    // it is refused at once (the watchdog is the talk's own long timeout), nothing typed.
    env.ok(&["send-keys", "-s", &id, "-l", "echo \"open"]);
    env.ok(&["send-keys", "-s", &id, "Enter"]);
    let (v, code) = talk_any(&env, &["-s", &id, "--timeout-ms", "60000", "echo next"]);
    assert_eq!((code, s(&v, "error_code")), (Some(117), "PTY_BUSY"), "{v}");
    assert_eq!(v["details"]["waiting_for_input"], true, "{v}");
    assert_eq!(s(&v["details"], "terminal_state"), "waiting_input", "{v}");
    let term = env.ok_json(&["term-read", "-s", &id]);
    assert_eq!(s(&term, "terminal_state"), "waiting_input", "{term}");
    // The rest of the line ends it; the session works again.
    env.send_line(&id, "closed\"");
    assert_eq!(env.out(&id, "echo after-$((1+1))"), "after-2");
}

#[test]
fn an_unfinished_line_is_refused_at_once_and_nothing_is_typed() {
    let env = Env::new();
    let id = env.create(&[]);
    let (v, code) = talk_any(
        &env,
        &[
            "-s",
            &id,
            "--timeout-ms",
            "60000",
            "if true; then echo in-$((2*3))",
        ],
    );
    // A POSIX-family shell's unfinished line is refused before it is typed (nothing lands in
    // a continuation), at once rather than after the timeout.
    assert_eq!(code, Some(115), "{v}");
    assert_eq!(v["details"]["pattern"], "incomplete_line", "{v}");
    assert_eq!(env.out(&id, "echo done-$((3+4))"), "done-7");
    let all = env.ok(&["read", "-s", &id, "--max-bytes", "100000", "--strip-ansi"]);
    assert!(!all.contains("in-6"), "{all}");
}

#[test]
fn a_shell_without_integration_carries_its_state_too() {
    let env = Env::new();
    let id = env.create(&["--shell", "/bin/sh"]);
    // Talks run through the sentinel's `eval`: what they assign lasts.
    env.talk(&id, "D=build");
    env.talk(&id, "rm -rf $D");
    env.talk(&id, "D=/");
    // (GNU rm keeps `/` itself even if this failed: --preserve-root is its default.)
    let v = refused(&env, &id, "rm -rf $D");
    assert_eq!(s(&v["details"], "pattern"), "rm_recursive_root", "{v}");
}
