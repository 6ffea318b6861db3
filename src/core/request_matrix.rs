//! Every action × a generated matrix of good and bad parameters, run through the core's one
//! entry ([`super::run`]) in a fresh state directory of its own: the reply's error code (or
//! `ok`) must be what it was before requests were typed (`request_matrix.golden`, recorded
//! from the flat-`Params` core; `UPDATE_GOLDEN=1` writes it again). No session exists there,
//! so a call whose parameters pass validation ends at resolving its session
//! (`PTY_SESSION_NOT_FOUND`), and `create` / a default session at starting a holder from an
//! executable that does not exist.

use super::{Channel, Ctx};
use crate::api::{Action, Params};
use crate::store::StateDir;
use serde_json::{Map, Value, json};

/// The values tried for each parameter: good ones and bad ones.
fn candidates(name: &str) -> Vec<Value> {
    let text = || {
        vec![
            json!(""),
            json!("x"),
            json!("echo hi"),
            json!("\\xZZ"),
            json!("rm -rf /"),
            json!("a".repeat(65)),
        ]
    };
    let count = || list(json!([0, 1, 100, 3_600_000, 3_600_001, 2_000_000_000u64]));
    match name {
        "session_id" => list(json!([
            "pty_0000dead",
            "",
            "  ",
            "../etc",
            "nolabel",
            "pty_0000dead:1",
            "pty_0000dead:0",
            "a:b:c",
            "pt"
        ])),
        "mode" => list(json!(["tail", "viewport", "delta", "all", ""])),
        "owner_role" => list(json!(["leader", "worker", "boss", ""])),
        "source" => list(json!(["desktop", "local", "vscode", ""])),
        "desktop_url" => list(json!([
            "http://127.0.0.1:9",
            "ftp://x",
            "",
            "http://example.com:80"
        ])),
        "sentinel" => list(json!(["abcd", "ab", "a b c d", "x".repeat(65)])),
        "pattern" => list(json!(["hi", "(", "^\\$ $", ""])),
        "cwd" => list(json!(["/", "/nonexistent/kpty-matrix", "", "relative"])),
        "shell" => list(json!(["/bin/sh", "", "/nonexistent/sh"])),
        "label" => list(json!([
            "work",
            "",
            "a\u{7}b",
            "x".repeat(65),
            "sk-abcdefghijklmnopqrstuvwx"
        ])),
        "cols" | "rows" => list(json!([0, 1, 2, 80, 1000, 1001])),
        "pid" => list(json!([0, 1])),
        "env" => list(json!([{}, {"A": "1"}, {"": "x"}, {"A=B": "1"}])),
        "keys" => list(json!([
            [],
            ["C-c"],
            ["Up", "Enter"],
            ["Nope-key"],
            ["0xZZ"]
        ])),
        "allow_write" | "deny_read" => list(json!([[], ["/tmp"], ["/nonexistent/x"], [""]])),
        "block_sequences" => list(json!([[], ["\\x07"], ["\\xZZ"], [""]])),
        "sandbox" | "network" | "input_filter" | "auto_restart" | "literal" | "strip_ansi"
        | "force" | "include_raw" | "merge_wrapped" | "prompt" | "screen" => {
            vec![json!(true), json!(false)]
        }
        "scrollback" | "ctrl_c_debounce_ms" | "restart_delay_ms" | "timeout_ms" | "max_bytes"
        | "since" | "max_lines" | "max_chars" | "marker_id" | "quiet_ms" => count(),
        _ => text(),
    }
}

/// The elements of a JSON array.
fn list(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a,
        other => vec![other],
    }
}

/// A small deterministic generator (the golden file must not change from run to run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// The cases of `action`: each parameter's each value on its own, then random combinations of
/// two to four of them — all against a session that does not exist unless the case names one.
fn cases(action: Action, names: &[String]) -> Vec<Map<String, Value>> {
    let base = || {
        let mut m = Map::new();
        m.insert("session_id".into(), json!("pty_0000dead"));
        // What the action needs, so that one value changed is judged on its own.
        let needs = match action {
            Action::Talk | Action::Run | Action::Check => json!({"command": "echo hi"}),
            Action::SendLine => json!({"data": "x"}),
            Action::SendKeys => json!({"keys": ["C-c"]}),
            Action::Resize => json!({"cols": 80, "rows": 24}),
            Action::WaitFor => json!({"pattern": "hi"}),
            Action::Rename => json!({"label": "work"}),
            Action::Resolve => json!({"agent_id": "a"}),
            Action::SendLineToAgent => json!({"agent_id": "a", "data": "x"}),
            Action::Register => json!({"desktop_url": "http://127.0.0.1:9"}),
            Action::UpdateOwnership => json!({"owner_agent_id": "a"}),
            Action::Create => json!({"cwd": "/"}),
            _ => json!({}),
        };
        if let Value::Object(n) = needs {
            m.extend(n);
        }
        m
    };
    let mut out = vec![base()];
    for n in names {
        for v in candidates(n) {
            let mut m = base();
            m.insert(n.clone(), v);
            out.push(m);
        }
    }
    let mut rng = Lcg(action as u64 + 7);
    for _ in 0..120 {
        let mut m = base();
        for _ in 0..2 + rng.below(3) {
            let n = &names[rng.below(names.len())];
            let c = candidates(n);
            m.insert(n.clone(), c[rng.below(c.len())].clone());
        }
        out.push(m);
    }
    out
}

/// The outcome of one case: `ok`, or the error code (and, for `INVALID_PARAMS`, the message).
fn outcome(action: Action, case: &Map<String, Value>) -> String {
    let p: Params = serde_json::from_value(Value::Object(case.clone())).expect("a valid shape");
    let dir = tempfile::tempdir().expect("temp dir");
    let state = StateDir::at(dir.path().join("state")).expect("state dir");
    let mut ctx = Ctx::new(state).expect("ctx").on(Channel::Mcp);
    // Nothing here may start a holder: the executable does not exist.
    ctx.exe = dir.path().join("no-such-kpty");
    ctx.env_identity = false;
    match super::run(&ctx, action, &p) {
        Ok(_) => "ok".into(),
        Err(e) if e.code == crate::error::ErrorCode::InvalidParams => {
            let dir = dir.path().display().to_string();
            format!("{} {}", e.code.as_str(), e.message.replace(&dir, "<dir>"))
        }
        Err(e) => e.code.as_str().into(),
    }
}

fn table() -> String {
    // `all` (the batch verbs), `screenshot` with its `format`, `record`, and `recording` and
    // `evidence` with `from`, `note` (and talk's `evidence`) came after the golden file: their
    // cases are in tests/cli/batch.rs, screenshot.rs, recording.rs and evidence.rs.
    let names: Vec<String> = Params::names()
        .into_iter()
        .filter(|n| {
            ![
                "all", "format", "record", "from", "note", "evidence", "host",
            ]
            .contains(&n.as_str())
        })
        .collect();
    // One thread per action: each case has its own state directory.
    let tables: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = Action::ALL
            .iter()
            .filter(|&&a| !matches!(a, Action::Screenshot | Action::Recording | Action::Evidence))
            .map(|&action| {
                let names = &names;
                scope.spawn(move || {
                    let mut out = String::new();
                    for case in cases(action, names) {
                        let code = outcome(action, &case);
                        let case = Value::Object(case);
                        out.push_str(&format!("{} {case} => {code}\n", action.as_str()));
                    }
                    out
                })
            })
            .collect();
        running
            .into_iter()
            .map(|t| t.join().expect("no panic"))
            .collect()
    });
    tables.concat()
}

#[test]
fn every_action_answers_every_generated_request_as_before() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core/request_matrix.golden");
    let got = table();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).expect("write the golden file");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("the golden file");
    for (g, w) in got.lines().zip(want.lines()) {
        assert_eq!(g, w, "a request answered differently than before");
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
