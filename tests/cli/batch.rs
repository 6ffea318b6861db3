//! The batch verbs are core actions, so every front end has them: `kill` with `all` and
//! `list` with `all` over MCP (stdio, and HTTP in `kpty serve`) answer as `kpty kill --all`
//! and `kpty list --all` do (the CLI's own are in `housekeeping`).

use crate::bridge::Serve;
use crate::mcp::Mcp;
use crate::support::{Env, s};
use serde_json::{Value, json};
use std::path::Path;

#[derive(Clone, Copy, Debug)]
enum Front {
    McpStdio,
    McpHttp,
}

/// `kpty --json ARGS` in `env` with `run` as the runtime directory (shared: one index).
fn cli(env: &Env, run: &Path, args: &[&str]) -> Value {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    let out = env
        .cmd(&full)
        .env("KPTY_RUNTIME_DIR", run)
        .output()
        .expect("run kpty");
    crate::support::parse(&out, args)
}

/// The (state_dir, session_id) pairs of a `list` with `all`, sorted.
fn by_dir(v: &Value) -> Vec<(String, String)> {
    let sessions = v["sessions"].as_array().expect("sessions");
    let mut out: Vec<(String, String)> = sessions
        .iter()
        .map(|x| (s(x, "state_dir").into(), s(x, "session_id").into()))
        .collect();
    out.sort();
    out
}

/// An MCP client of `env`'s state directory through `front` (and the server, for HTTP).
async fn connect(front: Front, env: &Env, run: &Path) -> (Mcp, Option<Serve>) {
    let run = run.display().to_string();
    match front {
        Front::McpStdio => {
            let mut cmd = env.cmd(&["mcp"]);
            cmd.env("KPTY_RUNTIME_DIR", &run);
            (crate::mcp::start_cmd(cmd).await, None)
        }
        Front::McpHttp => {
            let serve = Serve::start_args(env, &[], &[("KPTY_RUNTIME_DIR", &run)]);
            (crate::serve_mcp::connect(&serve).await, Some(serve))
        }
    }
}

async fn batch_verbs_over(front: Front) {
    let (a, b) = (Env::new(), Env::new());
    let run = a.dir.path().join("run");
    let id = |env: &Env, label: &str| {
        s(&cli(env, &run, &["create", "--label", label]), "session_id").to_string()
    };
    let (a1, a2, b1) = (id(&a, "a1"), id(&a, "a2"), id(&b, "b1"));
    let (da, db) = (
        a.state().display().to_string(),
        b.state().display().to_string(),
    );
    let (m, _serve) = connect(front, &a, &run).await;
    // list with all: both state directories, each session with its own.
    let v = m.json(json!({"action": "list", "all": true})).await;
    let mut want = vec![
        (da.clone(), a1.clone()),
        (da.clone(), a2.clone()),
        (db.clone(), b1.clone()),
    ];
    want.sort();
    assert_eq!(
        (v["ok"].clone(), by_dir(&v)),
        (json!(true), want),
        "{front:?}: {v}"
    );
    assert_eq!(v["count"], 3, "{front:?}: {v}");
    // list without all stays this state directory's.
    let v = m.json(json!({"action": "list"})).await;
    assert_eq!(v["count"], 2, "{front:?}: {v}");
    // kill with all: this state directory's sessions only.
    let v = m.json(json!({"action": "kill", "all": true})).await;
    let mut killed: Vec<&str> = v["killed"]
        .as_array()
        .expect("killed")
        .iter()
        .map(|k| s(k, "session_id"))
        .collect();
    killed.sort();
    let mut want = vec![a1.as_str(), a2.as_str()];
    want.sort();
    assert_eq!(killed, want, "{front:?}: {v}");
    assert_eq!(
        (v["ok"].clone(), v["failed"].clone()),
        (json!(true), json!([])),
        "{v}"
    );
    assert_eq!(cli(&a, &run, &["list"])["count"], 0, "{front:?}");
    let left = cli(&b, &run, &["list"]);
    assert_eq!(left["sessions"][0]["state"], "running", "{front:?}: {left}");
    // kill with all names no session.
    let v = m
        .json(json!({"action": "kill", "all": true, "session_id": b1}))
        .await;
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{front:?}: {v}");
    m.close().await;
    cli(&b, &run, &["kill", "--all"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_all_and_list_all_over_mcp_stdio() {
    batch_verbs_over(Front::McpStdio).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_all_and_list_all_over_mcp_http() {
    batch_verbs_over(Front::McpHttp).await;
}
