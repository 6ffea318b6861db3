//! The MCP Inspector CLI (a real public client, pinned and installed by `.ci/run`) lists and
//! calls `k_pty` over stdio with integer and boolean arguments, as its users type them.
//!
//! The Inspector is found at `$KPTY_INSPECTOR` or where `.ci/run` installs it
//! (`target/ci-tools/inspector/node_modules/.bin/mcp-inspector`). Elsewhere the test says it
//! skipped; under CI (`CI` set) a missing Inspector fails it, so CI never skips silently.

use crate::bridge::Serve;
use crate::support::{Env, s, skip};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn inspector() -> Option<PathBuf> {
    let path = std::env::var_os("KPTY_INSPECTOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/ci-tools/inspector/node_modules/.bin/mcp-inspector")
        });
    if path.is_file() {
        return Some(path);
    }
    skip(&format!(
        "no MCP Inspector at {} (.ci/run installs it)",
        path.display()
    ));
    None
}

/// `mcp-inspector --cli kpty mcp ARGS…` with the test's environment passed to the server
/// (the Inspector gives a stdio server only a minimal environment of its own).
fn call(env: &Env, bin: &PathBuf, args: &[&str]) -> Value {
    let vars = [
        format!("KPTY_STATE_DIR={}", env.state().display()),
        format!("KPTY_RUNTIME_DIR={}", env.dir.path().join("run").display()),
        format!("HOME={}", env.home().display()),
        "SHELL=/bin/bash".to_string(),
        "KPTY_LOG=warn".to_string(),
    ];
    let mut cmd = Command::new(bin);
    cmd.arg("--cli");
    for v in &vars {
        cmd.args(["-e", v]);
    }
    cmd.arg(env!("CARGO_BIN_EXE_kpty"))
        .arg("mcp")
        .args(args)
        .current_dir(env.home())
        .env("HOME", env.home())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(cmd, args)
}

/// Run a prepared Inspector command; its JSON output.
fn finish(mut cmd: Command, args: &[&str]) -> Value {
    let child = cmd.spawn().expect("run the MCP Inspector");
    let out = crate::support::wait_child(child, args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector {args:?} failed ({}): {text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("inspector printed no JSON ({e}): {text}"))
}

/// A `tools/call` of `k_pty` with `--tool-arg key=value` pairs; returns the structured result.
fn tool(env: &Env, bin: &PathBuf, pairs: &[&str]) -> Value {
    tool_with(pairs, |args| call(env, bin, args))
}

/// A `tools/call` through `run` (stdio or HTTP); the structured result, not an error.
fn tool_with(pairs: &[&str], run: impl FnOnce(&[&str]) -> Value) -> Value {
    let mut args = vec!["--method", "tools/call", "--tool-name", "k_pty"];
    for p in pairs {
        args.extend(["--tool-arg", p]);
    }
    let v = run(&args);
    assert_eq!(v["isError"], false, "{pairs:?}: {v}");
    v["structuredContent"].clone()
}

/// `mcp-inspector --cli URL --transport http --header "Authorization: Bearer …" ARGS…`
/// against a running `kpty serve`.
fn call_http(serve: &Serve, bin: &PathBuf, args: &[&str]) -> Value {
    let mut cmd = Command::new(bin);
    cmd.arg("--cli")
        .arg(format!("{}/mcp", serve.url))
        .args(["--transport", "http", "--header"])
        .arg(format!("Authorization: Bearer {}", serve.secret))
        .args(args)
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(cmd, args)
}

/// [`tool`] over HTTP.
fn tool_http(serve: &Serve, bin: &PathBuf, pairs: &[&str]) -> Value {
    tool_with(pairs, |args| call_http(serve, bin, args))
}

#[test]
fn the_inspector_lists_and_calls_k_pty_with_typed_arguments() {
    let Some(bin) = inspector() else { return };
    let env = Env::new();

    let listed = call(&env, &bin, &["--method", "tools/list"]);
    let tools = listed["tools"].as_array().expect("a tool list");
    assert_eq!(tools.len(), 1, "{listed}");
    assert_eq!(tools[0]["name"], "k_pty");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["cols"]["type"],
        "integer"
    );

    let v = tool(
        &env,
        &bin,
        &["action=create", "label=insp", "cols=100", "rows=20"],
    );
    assert_eq!(v["ok"], true, "{v}");
    let id = s(&v, "session_id").to_string();
    let session = format!("session_id={id}");

    let v = tool(
        &env,
        &bin,
        &[
            "action=talk",
            &session,
            "command=tput cols; tput lines; echo $((6*7))",
            "timeout_ms=20000",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        s(&v, "output").split_whitespace().collect::<Vec<_>>(),
        ["100", "20", "42"],
        "{v}"
    );
    assert!(v.get("raw_output").is_none(), "lean over MCP: {v}");

    let v = tool(
        &env,
        &bin,
        &[
            "action=read",
            &session,
            "max_bytes=64",
            "strip_ansi=true",
            "timeout_ms=0",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert!(s(&v, "output").len() <= 64, "{v}");

    let v = tool(
        &env,
        &bin,
        &[
            "action=term_read",
            &session,
            "mode=viewport",
            "max_lines=3",
            "merge_wrapped=false",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");

    let v = tool(&env, &bin, &["action=kill", &session]);
    assert_eq!(v["ok"], true, "{v}");
}

/// The same client over Streamable HTTP against `kpty serve`, with the secret as a header:
/// the same tool list, and a session made over HTTP is the stdio server's too.
#[test]
fn the_inspector_calls_k_pty_over_http_with_the_secret_header() {
    let Some(bin) = inspector() else { return };
    let env = Env::new();
    let serve = Serve::start(&env);
    let listed = call_http(&serve, &bin, &["--method", "tools/list"]);
    assert_eq!(
        listed,
        call(&env, &bin, &["--method", "tools/list"]),
        "HTTP and stdio differ"
    );
    let v = tool_http(
        &serve,
        &bin,
        &["action=create", "label=web", "cols=90", "rows=12"],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = tool_http(
        &serve,
        &bin,
        &[
            "action=talk",
            "session_id=web",
            "command=stty size; echo $((6*7))",
            "timeout_ms=20000",
        ],
    );
    assert_eq!(
        s(&v, "output").split_whitespace().collect::<Vec<_>>(),
        ["12", "90", "42"],
        "{v}"
    );
    let v = tool(
        &env,
        &bin,
        &["action=talk", "session_id=web", "command=echo over-stdio"],
    );
    assert_eq!(v["output"], "over-stdio", "{v}");
    let v = tool_http(&serve, &bin, &["action=kill", "session_id=web"]);
    assert_eq!(v["ok"], true, "{v}");
}
