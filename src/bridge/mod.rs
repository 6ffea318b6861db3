//! Sessions kpty does not hold itself (`source != "local"`, e.g. a desktop app's), reached
//! through their HTTP bridge (seed 000 §6): `send_line`, `talk`, `read` and the terminal
//! buffer map onto `POST /pty/write|talk|read|buffer`, returning what the bridge told; the
//! core builds each action's reply from it, as it does for local sessions. Desktop terminals
//! are not resized from here. Nothing here knows of holders.

pub mod allow;
pub mod client;

use crate::error::{Error, ErrorCode, Result};
use crate::proto::TalkRequest;
use crate::store::RegistryEntry;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Deadline of a bridge call that waits for nothing on the bridge's side: a whole
/// `send_line` (both writes) or a buffer snapshot. Connecting and reading the answer count.
pub const SHORT_CALL: Duration = Duration::from_secs(3);
/// What a `talk` or `read` through a bridge may take beyond the wait it asked the bridge for
/// (its `timeout_ms`): connecting, sending, and reading the answer.
const MARGIN: Duration = Duration::from_secs(1);
/// The longest wait a bridge's `read` honours (seed 000 §6).
const READ_WINDOW_MAX_MS: u64 = 5_000;

/// `send_line`: the (checked, escape-processed) line, then Enter, as two raw writes, both
/// within one [`SHORT_CALL`]; the bytes each wrote.
pub fn send_line(e: &RegistryEntry, line: &str) -> Result<(u64, u64)> {
    let deadline = Instant::now() + SHORT_CALL;
    let typed = write(e, line, deadline)?;
    let enter = write(e, "\r", deadline)?;
    Ok((typed, enter))
}

/// `send_keys`: the (checked) bytes as one raw write within a [`SHORT_CALL`]; the bytes
/// written.
pub fn send_raw(e: &RegistryEntry, data: &str) -> Result<u64> {
    write(e, data, Instant::now() + SHORT_CALL)
}

/// One `POST /pty/write`, done by `deadline`; the bytes written (as the bridge reports, else
/// the data's length).
fn write(e: &RegistryEntry, data: &str, deadline: Instant) -> Result<u64> {
    let v = client::post(
        e,
        "/pty/write",
        &json!({"session_id": e.session_id, "data": data, "agent_id": caller()}),
        deadline.saturating_duration_since(Instant::now()),
    )?;
    if v["ok"] == false {
        return Err(client::refused(e, "/pty/write", &v));
    }
    Ok(v["bytes_written"].as_u64().unwrap_or(data.len() as u64))
}

/// The acting agent (`KPTY_AGENT_ID`), sent with writes so a kpty bridge names it in its
/// audit trail; left out when a kpty bridge would refuse it as an identity (blank, longer than
/// 256 characters, control characters, or a secret).
fn caller() -> Option<String> {
    crate::api::config::var("KPTY_AGENT_ID").filter(|a| {
        !a.trim().is_empty()
            && a.chars().count() <= 256
            && !a.chars().any(char::is_control)
            && matches!(crate::safety::redact(a), std::borrow::Cow::Borrowed(_))
    })
}

/// Hex digits in a bridged talk's sentinel (bridges have always been sent 12).
const BRIDGE_SENTINEL_HEX: usize = 12;

/// What a bridge's `POST /pty/talk` told of a finished command (the core builds the reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Talked {
    /// The clean output.
    pub output: String,
    /// The output as the bridge returned it.
    pub raw_output: String,
    /// The sentinel asked for.
    pub sentinel: String,
    /// The exit code, only when the bridge reports one (as `kpty serve` does).
    pub exit_code: Option<i64>,
    /// As the bridge reports, else as measured here.
    pub duration_ms: u64,
    /// The bridge cut the output.
    pub truncated: bool,
}

/// `talk` through `POST /pty/talk` (completion `bridge`; the offsets are unknown).
/// No sentinel found (or `ok: false`) is `PTY_TIMEOUT` with `details.partial_output`; a
/// bridge that does not answer within `timeout_ms` + `MARGIN` is `BRIDGE_UNAVAILABLE`.
pub(crate) fn talk(e: &RegistryEntry, req: &TalkRequest) -> Result<Talked> {
    let sentinel = req
        .sentinel
        .clone()
        .unwrap_or_else(|| crate::proto::new_sentinel(BRIDGE_SENTINEL_HEX));
    let started = Instant::now();
    let v = client::post(
        e,
        "/pty/talk",
        &json!({"session_id": e.session_id, "command": req.command, "sentinel": sentinel,
                "timeout_ms": req.timeout_ms, "agent_id": caller()}),
        Duration::from_millis(req.timeout_ms) + MARGIN,
    )?;
    let duration_ms = started.elapsed().as_millis() as u64;
    let raw = v["output"].as_str().unwrap_or_default();
    let output = crate::text::clean_text(raw.as_bytes());
    if v["ok"] != true || v["sentinel_found"] == false {
        return Err(Error::new(
            ErrorCode::PtyTimeout,
            format!(
                "the command in session {} did not finish within {} ms (its bridge found no completion)",
                e.session_id, req.timeout_ms
            ),
        )
        .with_details(crate::error::details::TalkStop {
            session_id: e.session_id.clone(),
            command: req.command.clone(),
            partial_output: output,
            timeout_ms: req.timeout_ms,
            duration_ms,
            sentinel,
            completion: "bridge".into(),
            // The bridge's own words: a string (anything else as its JSON text).
            bridge_error: Some(v.get("error").filter(|x| !x.is_null()).map(|x| {
                x.as_str().map_or_else(|| x.to_string(), str::to_string)
            })),
            exit_code: None,
            dropped_chars: None,
            signal: None,
            at_prompt: None,
        }));
    }
    Ok(Talked {
        output,
        raw_output: raw.to_string(),
        sentinel,
        exit_code: v["exit_code"].as_i64(),
        duration_ms: v["duration_ms"].as_u64().unwrap_or(duration_ms),
        truncated: v["truncated"].as_bool().unwrap_or(false),
    })
}

/// What a bridge's `POST /pty/read` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadWindow {
    /// The output, the last `max_bytes` kept.
    pub output: String,
    /// Bytes read (as the bridge reports, else the output's length).
    pub bytes_read: u64,
}

/// `read` through `POST /pty/read`: what the session prints during the bridge's window (at
/// most 5 s there), within that window + `MARGIN`; `since` does not apply, and only the
/// last `max_bytes` are kept.
pub(crate) fn read(
    e: &RegistryEntry,
    timeout_ms: u64,
    max_bytes: usize,
    strip: bool,
) -> Result<ReadWindow> {
    let v = client::post(
        e,
        "/pty/read",
        &json!({"session_id": e.session_id, "timeout_ms": timeout_ms}),
        Duration::from_millis(timeout_ms.min(READ_WINDOW_MAX_MS)) + MARGIN,
    )?;
    if v["ok"] == false {
        return Err(client::refused(e, "/pty/read", &v));
    }
    let mut output = v["output"].as_str().unwrap_or_default().to_string();
    let mut bytes_read = v["bytes_read"].as_u64().unwrap_or(output.len() as u64);
    if output.len() > max_bytes {
        let mut cut = output.len() - max_bytes;
        while !output.is_char_boundary(cut) {
            cut += 1;
        }
        output.drain(..cut);
        bytes_read = output.len() as u64;
    }
    if strip {
        output = crate::text::strip_ansi(output.as_bytes());
    }
    Ok(ReadWindow { output, bytes_read })
}

/// What `POST /pty/buffer` takes (seed 000 §6), for `term_read` of a bridged session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferParams {
    /// `tail`, `viewport` or `delta`.
    pub mode: String,
    /// Most lines to return.
    pub max_lines: u32,
    /// Join soft-wrapped lines.
    pub merge_wrapped: bool,
    /// For `delta`: the marker to read from.
    pub marker_id: Option<Value>,
}

/// The terminal buffer snapshot from `POST /pty/buffer`, as the bridge answers it within
/// [`SHORT_CALL`] (the caller applies its caps and redaction).
pub fn buffer(e: &RegistryEntry, p: &BufferParams) -> Result<Value> {
    let v = client::post(
        e,
        "/pty/buffer",
        &json!({"session_id": e.session_id, "mode": p.mode, "max_lines": p.max_lines,
                "merge_wrapped": p.merge_wrapped, "marker_id": p.marker_id}),
        SHORT_CALL,
    )?;
    if v["ok"] == false {
        return Err(client::refused(e, "/pty/buffer", &v));
    }
    Ok(v)
}

/// `resize` of a bridged session: refused, as in the seeds.
pub fn resize_disabled(e: &RegistryEntry) -> Error {
    Error::new(
        ErrorCode::DesktopResizeDisabled,
        format!(
            "session {} is a {} terminal: resize it in the desktop UI (kpty does not resize terminals it does not hold)",
            e.session_id, e.source
        ),
    )
    .with_details(crate::error::details::Source {
        session_id: e.session_id.clone(),
        source: e.source.clone(),
        untrusted: None,
    })
}
