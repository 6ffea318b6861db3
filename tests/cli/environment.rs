//! kpty's environment variables and the k_pty names read in their place: kpty's name wins,
//! the k_pty name is read when kpty's is unset, an empty value counts as unset.

use crate::support::{Env, parse, run, s};

/// How a variable is given to one `kpty` invocation.
#[derive(Debug, Clone, Copy)]
enum Given {
    Ours,
    Theirs,
    Both,
    OursEmptyTheirsSet,
}

const GIVEN: [Given; 4] = [
    Given::Ours,
    Given::Theirs,
    Given::Both,
    Given::OursEmptyTheirsSet,
];

/// `kpty --json ARGS` with `ours`/`theirs` set as `given` says: `ours` gets `want`, the
/// other name `other`.
fn json_with(
    env: &Env,
    args: &[&str],
    (ours, theirs): (&str, &str),
    given: Given,
    (want, other): (&str, &str),
) -> (Option<i32>, serde_json::Value) {
    let mut c = env.cmd(args);
    match given {
        Given::Ours => c.env(ours, want),
        Given::Theirs => c.env(theirs, want),
        Given::Both => c.env(ours, want).env(theirs, other),
        Given::OursEmptyTheirsSet => c.env(ours, "").env(theirs, want),
    };
    let out = run(c, args);
    (out.status.code(), parse(&out, args))
}

#[test]
fn sizes_and_shell_come_from_kpty_names_else_k_pty_names() {
    let env = Env::new();
    for given in GIVEN {
        let args = ["--json", "create"];
        let (_, v) = json_with(
            &env,
            &args,
            ("KPTY_COLS", "KURORYUU_PTY_COLS"),
            given,
            ("97", "81"),
        );
        assert_eq!(v["cols"], 97, "{given:?}: {v}");
        env.ok(&["kill", s(&v, "session_id")]);
        let (_, v) = json_with(
            &env,
            &args,
            ("KPTY_ROWS", "KURORYUU_PTY_ROWS"),
            given,
            ("41", "23"),
        );
        assert_eq!(v["rows"], 41, "{given:?}: {v}");
        env.ok(&["kill", s(&v, "session_id")]);
        let (_, v) = json_with(
            &env,
            &args,
            ("KPTY_SHELL", "KURORYUU_PTY_SHELL"),
            given,
            ("/bin/sh", "/bin/bash"),
        );
        assert_eq!(s(&v, "shell"), "/bin/sh", "{given:?}: {v}");
        env.ok(&["kill", s(&v, "session_id")]);
    }
}

#[test]
fn term_read_switch_comes_from_kpty_term_read_else_the_k_pty_name() {
    let env = Env::new();
    let id = env.create(&[]);
    let pair = ("KPTY_TERM_READ", "KURORYUU_TERM_BUFFER_ACCESS");
    for given in GIVEN {
        let args = ["--json", "term-read", "-s", &id];
        let (code, v) = json_with(&env, &args, pair, given, ("off", "on"));
        assert_eq!(
            (code, s(&v, "error_code")),
            (Some(107), "TERM_READ_DISABLED"),
            "{given:?}: {v}"
        );
        assert!(s(&v, "error").contains("KPTY_TERM_READ"), "{v}");
        let (code, v) = json_with(&env, &args, pair, given, ("on", "off"));
        assert_eq!(code, Some(0), "{given:?}: {v}");
    }
}

#[test]
fn serve_port_names_the_variable_the_person_set() {
    let env = Env::new();
    let pair = ("KPTY_PORT", "KURORYUU_PTY_BRIDGE_PORT");
    for (given, named) in [
        (Given::Ours, "KPTY_PORT"),
        (Given::Theirs, "KURORYUU_PTY_BRIDGE_PORT"),
    ] {
        let args = ["--json", "serve", "--print-config"];
        let (code, v) = json_with(&env, &args, pair, given, ("not-a-port", ""));
        assert_eq!(
            (code, s(&v, "error_code")),
            (Some(115), "INVALID_PARAMS"),
            "{v}"
        );
        assert!(s(&v, "error").contains(named), "{given:?}: {v}");
    }
}
