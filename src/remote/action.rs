//! An action run by the kpty on a host, for the front ends that speak actions (MCP's `host`
//! parameter): the action and its parameters go to `kpty __action` there as one JSON object
//! on its standard input; its JSON answer (the action's object, or the error's) comes back
//! on its standard output. The channel travels with it: redaction and the talk cap are the
//! caller's, applied by the host.

use super::{Host, master};
use crate::api::{Action, Params};
use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{Read, Write};
use std::process::Stdio;
use std::time::Duration;

/// The hidden verb the host runs.
pub const SUBCOMMAND: &str = "__action";

/// What travels to the host.
#[derive(Debug, Serialize, Deserialize)]
struct Call {
    action: Action,
    params: Params,
    /// The caller's channel: `mcp`, `http` or `json`.
    channel: String,
}

/// Run `action` with `params` (their `host` cleared) by the kpty on `host`; the action's
/// JSON, or its error.
pub fn call(host: &Host, action: Action, mut params: Params, channel: &str) -> Result<Value> {
    params.host = None;
    master::ensure(host)?;
    let kpty = super::install::ensure(host)?;
    let body = serde_json::to_vec(&Call {
        action,
        params,
        channel: channel.to_string(),
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    let mut c = super::ssh()?;
    c.arg(host.as_str())
        .arg(match super::remote_dir() {
            Some(d) => format!("cd {} && exec {kpty} {SUBCOMMAND}", super::shell_line(&[d])),
            None => format!("exec {kpty} {SUBCOMMAND}"),
        })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c
        .spawn()
        .map_err(|e| super::unreachable(host, &format!("cannot run ssh: {e}")))?;
    let within = Duration::from_millis(params_timeout(&body)) + Duration::from_secs(30);
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&body);
        });
    }
    let mut stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.take(256 << 20).read_to_end(&mut out);
        }
        let _ = tx.send(out);
    });
    // The action's own timeout, and the connection's, bound the wait.
    let (_, said) = master::finish(child, within);
    let out = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
    serde_json::from_slice(&out).map_err(|_| super::unreachable(host, &said))
}

/// The call's `timeout_ms`, if it has one.
fn params_timeout(body: &[u8]) -> u64 {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v["params"]["timeout_ms"].as_u64())
        .unwrap_or(30_000)
        .min(3_600_000)
}

/// `kpty __action` on the host: one call on stdin, its JSON on stdout; exit 0 (the answer
/// says whether it succeeded).
pub fn main() -> i32 {
    let mut input = Vec::new();
    if std::io::stdin()
        .take(64 << 20)
        .read_to_end(&mut input)
        .is_err()
    {
        return 1;
    }
    let answer = match serde_json::from_slice::<Call>(&input) {
        Ok(c) => run(c),
        Err(e) => Error::invalid(format!("a remote call kpty could not read: {e}")).to_json(),
    };
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer(&mut out, &answer);
    let _ = out.write_all(b"\n");
    0
}

fn run(c: Call) -> Value {
    let ctx = match std::env::current_dir()
        .map_err(|e| Error::internal(e.to_string()))
        .and_then(|cwd| crate::core::Ctx::new(crate::store::StateDir::discover(&cwd)))
    {
        Ok(ctx) => ctx,
        Err(e) => return e.to_json(),
    };
    let channel = match c.channel.as_str() {
        "mcp" => crate::core::Channel::Mcp,
        "http" => crate::core::Channel::Http,
        _ => crate::core::Channel::Json { no_redact: false },
    };
    if c.params.host.is_some() {
        return Error::new(
            ErrorCode::InvalidParams,
            "a remote call cannot name another host",
        )
        .to_json();
    }
    crate::core::dispatch_json(&ctx.on(channel), c.action, &c.params)
}
