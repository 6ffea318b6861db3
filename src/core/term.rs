//! `term_read`: the rendered terminal screen of a session (no escape codes) — the last lines
//! of scrollback + screen (`tail`), the visible screen (`viewport`), or only what was added
//! since a marker (`delta`). Local sessions are rendered by their holder's screen model;
//! bridged (desktop) sessions by their bridge's `POST /pty/buffer`. Either way the caps (and,
//! on a redacted channel, secret redaction with the holder's context around the lines, so a
//! private-key block cut by the window is still replaced whole) are applied here.

use super::sessions::{self, Liveness};
use super::{Ctx, config};
use crate::error::{Cause, Error, ErrorCode, Result};
use crate::proto::{Request, TermReadBody, TermReadRequest};
use crate::store::RegistryEntry;
use serde_json::{Value, json};

/// Default `max_lines`.
pub const DEFAULT_MAX_LINES: usize = 40;
/// Largest `max_lines`.
pub const MAX_LINES: usize = 200;
/// Default `max_chars`.
pub const DEFAULT_MAX_CHARS: usize = 12_000;
/// Largest `max_chars`.
pub const MAX_CHARS: usize = 50_000;

/// The validated request (caps applied: values above a cap are lowered to it).
pub fn request(p: &crate::api::Params) -> Result<TermReadRequest> {
    let mode = p.mode.clone().unwrap_or_else(|| "tail".into());
    if !matches!(mode.as_str(), "tail" | "viewport" | "delta") {
        return Err(Error::invalid(format!(
            "mode {mode:?} must be tail, viewport or delta"
        )));
    }
    let max_lines = p.max_lines.unwrap_or(DEFAULT_MAX_LINES);
    let max_chars = p.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
    if max_lines == 0 || max_chars == 0 {
        return Err(Error::invalid("max_lines and max_chars must be at least 1"));
    }
    if p.marker_id.is_some() && mode != "delta" {
        return Err(Error::invalid(
            "marker_id is only used with mode=delta (every term_read returns a new marker_id)",
        ));
    }
    Ok(TermReadRequest {
        mode,
        max_lines: max_lines.min(MAX_LINES),
        max_chars: max_chars.min(MAX_CHARS),
        merge_wrapped: p.merge_wrapped.unwrap_or(true),
        marker_id: p.marker_id,
    })
}

/// True when `err` (the answer to a `TermRead`) says the holder does not know the request.
/// Newer holders say so with [`Cause::UnknownRequest`]; older ones answer `INVALID_PARAMS`
/// without a cause, and predate `term_read` exactly when their status has no screen (both
/// came with the same holder version).
fn predates_term_read(ctx: &Ctx, e: &RegistryEntry, err: &Error) -> bool {
    match err.cause {
        Some(Cause::UnknownRequest) => true,
        Some(_) => false,
        None if err.code != ErrorCode::InvalidParams => false,
        None => matches!(sessions::probe(ctx, e), Liveness::Running(s) if s.screen.is_none()),
    }
}

/// Run `term_read`.
pub fn term_read(ctx: &Ctx, p: &crate::api::Params) -> Result<Value> {
    if config::term_buffer_access() == "off" {
        return Err(Error::new(
            ErrorCode::TermReadDisabled,
            "term_read is disabled (KURORYUU_TERM_BUFFER_ACCESS=off); set it to on, or use read",
        ));
    }
    let req = request(p)?;
    let e = sessions::target(ctx, p, false)?;
    if crate::bridge::is_remote(&e) {
        return bridged(&e, &req, ctx.redact);
    }
    let v = sessions::call(
        ctx,
        &e,
        &Request::TermRead(req.clone()),
        sessions::SHORT_CALL,
    )
    .map_err(|err| {
        if predates_term_read(ctx, &e, &err) {
            Error::new(
                ErrorCode::PtyReadFailed,
                format!(
                    "the holder of {} predates term_read (it was started by an older kpty); \
                         recreate the session to read its screen",
                    e.session_id
                ),
            )
        } else {
            err
        }
    })?;
    let b: TermReadBody = serde_json::from_value(v).map_err(|err| {
        Error::new(
            ErrorCode::PtyReadFailed,
            format!("malformed term_read reply: {err}"),
        )
    })?;
    let lines = if ctx.redact {
        redact_lines(b.lines, &b.context_before, &b.context_after)
    } else {
        b.lines
    };
    let (lines, text, truncated, dropped) =
        finish(lines, req.max_chars, b.truncated, b.dropped_chars);
    let mut out = json!({
        "ok": true,
        "session_id": e.session_id,
        "mode": req.mode,
        "text": text,
        "lines": lines,
        "truncated": truncated,
        "dropped_chars": dropped,
        "cursor_line": b.cursor_line,
        "cursor_col": b.cursor_col,
        "viewport_y": b.viewport_y,
        "rows": b.rows,
        "cols": b.cols,
        "buffer_type": b.buffer_type,
        "first_line": b.first_line,
        "marker_id": b.marker_id,
        "marker_line": b.marker_line,
        "marker_disposed": b.marker_disposed,
        "title": b.title,
        "terminal_state": b.terminal_state,
        "scrollback": b.scrollback,
    });
    if req.mode == "delta" {
        out["lines_lost"] = json!(b.lines_lost);
        out["more"] = json!(b.more);
    }
    Ok(out)
}

/// The lines redacted as one text with the window's context: a private-key block is
/// replaced whole (its lines become one placeholder line), also when the lines start or end
/// inside it.
fn redact_lines(lines: Vec<String>, before: &str, after: &str) -> Vec<String> {
    let text = lines.join("\n");
    match crate::safety::redact_window(before, &text, after) {
        std::borrow::Cow::Borrowed(_) => lines,
        std::borrow::Cow::Owned(t) => t.split('\n').map(str::to_string).collect(),
    }
}

/// Enforce `max_chars` again (redaction can lengthen a line): returns the lines, the text,
/// and the truncation fields.
fn finish(
    mut lines: Vec<String>,
    max_chars: usize,
    truncated: bool,
    dropped: u64,
) -> (Vec<String>, String, bool, u64) {
    let mut dropped = dropped;
    let mut total: usize =
        lines.iter().map(|l| l.chars().count()).sum::<usize>() + lines.len().saturating_sub(1);
    while total > max_chars {
        let count = lines.len();
        let Some(last) = lines.last_mut() else { break };
        let n = last.chars().count();
        let over = total - max_chars;
        if over > n && count > 1 {
            lines.pop();
            total -= n + 1;
            dropped += (n + 1) as u64;
        } else {
            let keep = n.saturating_sub(over);
            *last = last.chars().take(keep).collect();
            total -= n - keep;
            dropped += (n - keep) as u64;
        }
    }
    let text = lines.join("\n");
    (lines, text, truncated || dropped > 0, dropped)
}

/// A bridged session's buffer, with kpty's caps and redaction.
fn bridged(e: &crate::store::RegistryEntry, req: &TermReadRequest, redact: bool) -> Result<Value> {
    let bp = crate::bridge::BufferParams {
        mode: req.mode.clone(),
        max_lines: req.max_lines as u32,
        merge_wrapped: req.merge_wrapped,
        marker_id: req.marker_id.map(|m| json!(m)),
    };
    let mut v = crate::bridge::buffer(e, &bp)?;
    let lines: Vec<String> = match v["lines"].as_array() {
        Some(a) => a
            .iter()
            .map(|l| l.as_str().unwrap_or_default().to_string())
            .collect(),
        None => v["text"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect(),
    };
    // Keep the newest lines within max_lines, as the local screen does.
    let skip = lines.len().saturating_sub(req.max_lines);
    let lines = lines[skip..].to_vec();
    let lines = if redact {
        redact_lines(lines, "", "")
    } else {
        lines
    };
    let already = v["dropped_chars"].as_u64().unwrap_or(0);
    let (lines, text, truncated, dropped) = finish(lines, req.max_chars, false, already);
    v["ok"] = json!(true);
    v["session_id"] = json!(e.session_id);
    v["mode"] = json!(req.mode);
    v["text"] = json!(text);
    v["lines"] = json!(lines);
    v["truncated"] = json!(truncated || v["truncated"] == true);
    v["dropped_chars"] = json!(dropped);
    for k in [
        "marker_id",
        "marker_line",
        "cursor_line",
        "viewport_y",
        "rows",
        "cols",
    ] {
        if v.get(k).is_none() {
            v[k] = Value::Null;
        }
    }
    if v.get("buffer_type").is_none() {
        v["buffer_type"] = json!("normal");
    }
    if v.get("marker_disposed").is_none() {
        v["marker_disposed"] = json!(false);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_and_defaults() {
        let p = crate::api::Params::default();
        let r = request(&p).expect("defaults");
        assert_eq!(
            (r.mode.as_str(), r.max_lines, r.max_chars),
            ("tail", 40, 12_000)
        );
        assert!(r.merge_wrapped);
        let p = crate::api::Params {
            max_lines: Some(10_000),
            max_chars: Some(1 << 30),
            ..Default::default()
        };
        let r = request(&p).expect("capped");
        assert_eq!((r.max_lines, r.max_chars), (200, 50_000));
        let bad = crate::api::Params {
            mode: Some("all".into()),
            ..Default::default()
        };
        assert!(request(&bad).is_err());
    }

    #[test]
    fn redacts_then_caps() {
        let lines = vec![
            "token sk-abcdefghijklmnopqrstuvwx".to_string(),
            "export GITHUB_TOKEN=abc".into(),
        ];
        let (l, text, truncated, dropped) = finish(redact_lines(lines, "", "\n"), 1000, false, 0);
        assert!(!text.contains("sk-abc") && !text.contains("=abc"), "{text}");
        assert_eq!(l.len(), 2);
        assert!(!truncated && dropped == 0);
        let (l, text, truncated, dropped) = finish(vec!["abcdef".into(), "gh".into()], 4, false, 0);
        assert_eq!(
            (l.len(), text.as_str(), truncated, dropped),
            (1, "abcd", true, 5)
        );
    }

    #[test]
    fn a_key_block_becomes_one_line_also_when_the_lines_start_inside_it() {
        let lines: Vec<String> = ["MIIEbody", "-----END RSA PRIVATE KEY-----", "$ ls"]
            .map(String::from)
            .to_vec();
        let before = "-----BEGIN RSA PRIVATE KEY-----\nMIIEfirst\n";
        assert_eq!(
            redact_lines(lines, before, ""),
            vec!["[REDACTED:private_key]", "$ ls"]
        );
        let open: Vec<String> = ["$ cat k", "-----BEGIN EC PRIVATE KEY-----", "MHcC"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            redact_lines(open, "", ""),
            vec!["$ cat k", "[REDACTED:private_key]"]
        );
    }
}
