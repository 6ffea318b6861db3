//! "Did you mean …?": a mistyped session (by label or id), action or parameter gets the
//! closest real names — the same on the CLI, MCP over stdio and MCP over HTTP, in the
//! message and in `details.did_you_mean` — and never a name from another state directory.
//! A parameter of the wrong type is named, with the type it takes.

use crate::bridge::Serve;
use crate::mcp::{self, Mcp};
use crate::support::{Env, s, stderr};
use serde_json::{Value, json};
use std::path::Path;

const LABELS: &[&str] = &["work", "build-server", "api-tests", "frontend"];

/// A registry written by hand: sessions to be named (no holder needed to be not found).
fn write_registry(dir: &Path, labels: &[&str]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut map = serde_json::Map::new();
    for (i, label) in labels.iter().enumerate() {
        let id = format!("pty_{:08x}", 0xabc0_0000u32 + i as u32);
        map.insert(
            id.clone(),
            json!({"session_id": id, "source": "local", "label": label}),
        );
    }
    let reg = json!({"schema": "pty_registry_v1", "sessions": map});
    std::fs::write(dir.join("_registry.json"), reg.to_string()).unwrap();
}

/// Typos of `name`: one deletion, insertion, substitution and transposition each, at the
/// start, middle and end.
fn typos(name: &str) -> Vec<String> {
    let c: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    for at in [0, c.len() / 2, c.len() - 1] {
        let mut v = c.clone();
        v.remove(at);
        out.push(v);
        let mut v = c.clone();
        v.insert(at, 'q');
        out.push(v);
        let mut v = c.clone();
        v[at] = if v[at] == 'z' { 'y' } else { 'z' };
        out.push(v);
        if at + 1 < c.len() && c[at] != c[at + 1] {
            let mut v = c.clone();
            v.swap(at, at + 1);
            out.push(v);
        }
    }
    out.into_iter()
        .map(|v| v.into_iter().collect::<String>())
        .filter(|t| !LABELS.contains(&t.as_str()))
        .collect()
}

fn suggested(v: &Value) -> Vec<String> {
    v["details"]["did_you_mean"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// What each front end answers to `args` (the MCP form), as its error JSON.
struct Fronts {
    stdio: Mcp,
    http: Mcp,
}

impl Fronts {
    async fn each(&self, args: Value) -> [Value; 2] {
        [
            self.stdio.json(args.clone()).await,
            self.http.json(args).await,
        ]
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mistyped_session_gets_the_near_label_on_every_front_end() {
    let env = Env::new();
    write_registry(env.state(), LABELS);
    // Another state directory's sessions are never suggested.
    let other = env.dir.path().join("elsewhere");
    write_registry(&other, &["secret-project"]);
    let serve = Serve::start(&env);
    let fronts = Fronts {
        stdio: mcp::start(&env).await,
        http: crate::serve_mcp::connect(&serve).await,
    };
    for label in LABELS {
        for typo in typos(label) {
            let v = env.fails(&["read", "-s", &typo], 119, "PTY_SESSION_NOT_FOUND");
            assert!(suggested(&v).contains(&label.to_string()), "{typo}: {v}");
            assert!(
                s(&v, "message").contains(&format!("did you mean \"{label}\"")),
                "{v}"
            );
            for v in fronts
                .each(json!({"action": "read", "session_id": typo}))
                .await
            {
                assert_eq!(v["error_code"], "PTY_SESSION_NOT_FOUND", "{typo}: {v}");
                assert!(suggested(&v).contains(&label.to_string()), "{typo}: {v}");
            }
        }
    }
    for far in ["zzzzzz", "secret-projet", "q"] {
        let v = env.fails(&["read", "-s", far], 119, "PTY_SESSION_NOT_FOUND");
        assert!(suggested(&v).is_empty(), "{far}: {v}");
        assert!(!s(&v, "message").contains("did you mean"), "{v}");
        for v in fronts
            .each(json!({"action": "read", "session_id": far}))
            .await
        {
            assert!(suggested(&v).is_empty(), "{far}: {v}");
        }
    }
    // Human output says it too; a mistyped --label as well.
    let human = stderr(&env.kpty(&["send-line", "-s", "wrok", "hi"]));
    assert!(human.contains("did you mean \"work\""), "{human}");
    let v = env.fails(&["read", "--label", "fronted"], 119, "NOT_FOUND");
    assert_eq!(suggested(&v), ["frontend"], "{v}");
    fronts.stdio.close().await;
    fronts.http.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mistyped_actions_and_parameters_and_wrong_types_over_stdio_and_http() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let fronts = Fronts {
        stdio: mcp::start(&env).await,
        http: crate::serve_mcp::connect(&serve).await,
    };
    let cases = [
        (json!({"action": "tlak", "command": "ls"}), "talk"),
        (json!({"action": "sendline", "data": "x"}), "send_line"),
        (json!({"action": "term-read"}), "term_read"),
        (json!({"action": "rename", "sesion_id": "x"}), "session_id"),
        (json!({"action": "talk", "timeout": 5}), "timeout_ms"),
        (json!({"action": "read", "max_byte": 5}), "max_bytes"),
    ];
    for (args, near) in cases {
        for v in fronts.each(args.clone()).await {
            assert_eq!(v["error_code"], "INVALID_PARAMS", "{args}: {v}");
            assert!(suggested(&v).contains(&near.to_string()), "{args}: {v}");
            assert!(
                s(&v, "message").contains(&format!("did you mean \"{near}\"")),
                "{v}"
            );
        }
    }
    for (args, named) in [
        (
            json!({"action": "talk", "command": "ls", "timeout_ms": "abc"}),
            "timeout_ms: expected an integer",
        ),
        (
            json!({"action": "read", "strip_ansi": "maybe"}),
            "strip_ansi: expected true or false",
        ),
        (
            json!({"action": "create", "cols": 70000}),
            "cols: expected an integer from 2 to 1000",
        ),
        (
            json!({"action": "send_keys", "keys": [1]}),
            "keys: expected an array of strings",
        ),
        (
            json!({"action": "create", "label": 7}),
            "label: expected a string, got 7",
        ),
    ] {
        for v in fronts.each(args.clone()).await {
            assert_eq!(v["error_code"], "INVALID_PARAMS", "{args}: {v}");
            assert!(s(&v, "message").starts_with(named), "{args}: {v}");
        }
    }
    fronts.stdio.close().await;
    fronts.http.close().await;
}

/// The CLI's own usage errors (a mistyped command or flag) carry clap's suggestion in the
/// same place with --json: the message and `details.did_you_mean`.
#[test]
fn a_mistyped_command_or_flag_gets_the_near_name_in_json() {
    let env = Env::new();
    let help = env.ok(&["--help"]);
    let section = help.split("Commands:\n").nth(1).expect("Commands");
    let commands: Vec<&str> = section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(commands.len() > 20, "{commands:?}");
    for cmd in commands {
        let mut c: Vec<char> = cmd.chars().collect();
        let at = c.len() / 2;
        c.swap(at - 1, at);
        let typo: String = c.into_iter().collect();
        let out = env.kpty(&["--json", &typo]);
        assert_eq!(out.status.code(), Some(2), "{typo}: {out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
        assert!(suggested(&v).contains(&cmd.to_string()), "{typo}: {v}");
        assert!(
            s(&v, "message").contains(&format!("did you mean \"{cmd}\"")),
            "{v}"
        );
    }
    for (verb, typo, flag) in [
        ("talk", "--timeot-ms", "--timeout-ms"),
        ("read", "--max-byte", "--max-bytes"),
        ("create", "--lable", "--label"),
        ("term-read", "--max-line", "--max-lines"),
    ] {
        let out = env.kpty(&["--json", verb, typo, "1", "x"]);
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert!(
            suggested(&v).contains(&flag.to_string()),
            "{verb} {typo}: {v}"
        );
    }
}
