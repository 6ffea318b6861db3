//! `term_read`: the rendered terminal screen of a session (no escape codes) — the last lines
//! of scrollback + screen (`tail`), the visible screen (`viewport`), or only what was added
//! since a marker (`delta`). Local sessions are rendered by their holder's screen model;
//! bridged (desktop) sessions by their bridge's `POST /pty/buffer`. Either way the caps (and,
//! on a redacted channel, secret redaction with the holder's context around the lines, so a
//! private-key block cut by the window is still replaced whole) are applied here.

use super::handle::Place;
use super::sessions::{self, Liveness};
use super::{Ctx, wire};
use crate::api::TermMode;
use crate::api::reply::{LocalView, Success, TermReadReply, TermView};
use crate::api::request::TermReadArgs;
use crate::error::{Cause, Error, ErrorCode, Result};
use crate::proto::TermReadRequest;
use crate::store::RegistryEntry;
use serde_json::{Map, Value, json};

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
pub fn term_read(ctx: &Ctx, a: &TermReadArgs) -> Result<TermReadReply> {
    let h = super::target::target(ctx, &a.target, false)?;
    match h.place() {
        Place::Bridged => bridged(&h, &a.request, ctx.redact),
        Place::Local(_) => local(ctx, &h, &a.request),
    }
}

/// A local session's screen, from its holder's screen model.
fn local(ctx: &Ctx, e: &RegistryEntry, req: &TermReadRequest) -> Result<TermReadReply> {
    let b = sessions::call(ctx, e, req.clone(), sessions::SHORT_CALL).map_err(|err| {
        if predates_term_read(ctx, e, &err) {
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
    let lines = if ctx.redact {
        redact_lines(
            b.lines,
            (&b.wraps, b.cols),
            &b.context_before,
            &b.context_after,
        )
    } else {
        b.lines
    };
    let delta = req.mode == TermMode::Delta.into();
    let view = TermView::Local(LocalView {
        cursor_line: b.cursor_line,
        cursor_col: b.cursor_col,
        viewport_y: b.viewport_y,
        rows: b.rows,
        cols: b.cols,
        buffer_type: wire::buffer_type(&b.buffer_type),
        first_line: b.first_line,
        marker_id: b.marker_id,
        marker_line: b.marker_line,
        marker_disposed: b.marker_disposed,
        title: b.title,
        terminal_state: wire::terminal_state(&b.terminal_state),
        scrollback: b.scrollback,
        lines_lost: delta.then_some(b.lines_lost),
        more: delta.then_some(b.more),
    });
    let cut = (b.truncated, b.dropped_chars);
    Ok(reply(&e.session_id, req, lines, cut, view))
}

/// The one place a `term_read` reply is made, whichever side rendered the screen: `max_chars`
/// enforced again (redaction can lengthen a line), on top of the cut (`truncated`,
/// `dropped_chars`) already made there.
fn reply(
    session_id: &str,
    req: &TermReadRequest,
    lines: Vec<String>,
    (truncated, dropped): (bool, u64),
    view: TermView,
) -> TermReadReply {
    let (lines, text, truncated, dropped) = finish(lines, req.max_chars, truncated, dropped);
    TermReadReply {
        ok: Success,
        session_id: session_id.to_string(),
        mode: mode_of(req),
        text,
        lines,
        truncated,
        dropped_chars: dropped,
        view,
    }
}

/// The request's mode (validated by [`request`]).
fn mode_of(req: &TermReadRequest) -> TermMode {
    req.mode.or(TermMode::Tail)
}

/// The lines redacted as one text with the window's context, rows that soft-wrap into the
/// next (`wraps`, from an unmerged read) read as one logical line: a private-key block is
/// replaced whole (its lines become one placeholder line), also when the lines start or end
/// inside it, and a secret wrapped over rows is found.
fn redact_lines(
    lines: Vec<String>,
    wraps: (&[bool], u64),
    before: &str,
    after: &str,
) -> Vec<String> {
    let cols = usize::try_from(wraps.1).unwrap_or(0);
    crate::safety::redact::redact_rows(before, lines, (wraps.0, cols), after)
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

/// A bridged session's buffer, with kpty's caps and redaction: the bridge's own fields are
/// passed on, with those kpty promises filled in.
fn bridged(e: &RegistryEntry, req: &TermReadRequest, redact: bool) -> Result<TermReadReply> {
    let bp = crate::bridge::BufferParams {
        mode: req.mode.to_string(),
        max_lines: req.max_lines as u32,
        merge_wrapped: req.merge_wrapped,
        marker_id: req.marker_id.map(|m| json!(m)),
    };
    let mut v = match crate::bridge::buffer(e, &bp)? {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let lines: Vec<String> = match v.get("lines").and_then(Value::as_array) {
        Some(a) => a
            .iter()
            .map(|l| l.as_str().unwrap_or_default().to_string())
            .collect(),
        None => v
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect(),
    };
    // Keep the newest lines within max_lines, as the local screen does.
    let skip = lines.len().saturating_sub(req.max_lines);
    let lines = lines[skip..].to_vec();
    let lines = if redact {
        redact_lines(lines, (&[], 0), "", "")
    } else {
        lines
    };
    let cut = (
        v.get("truncated") == Some(&Value::Bool(true)),
        v.get("dropped_chars").and_then(Value::as_u64).unwrap_or(0),
    );
    for k in [
        "ok",
        "session_id",
        "mode",
        "text",
        "lines",
        "truncated",
        "dropped_chars",
    ] {
        v.remove(k);
    }
    for k in [
        "marker_id",
        "marker_line",
        "cursor_line",
        "viewport_y",
        "rows",
        "cols",
    ] {
        v.entry(k).or_insert(Value::Null);
    }
    v.entry("buffer_type")
        .or_insert(json!(crate::api::BufferType::Normal.as_str()));
    v.entry("marker_disposed").or_insert(json!(false));
    Ok(reply(&e.session_id, req, lines, cut, TermView::Bridged(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_then_caps() {
        let lines = vec![
            "token sk-abcdefghijklmnopqrstuvwx".to_string(),
            "export GITHUB_TOKEN=abc".into(),
        ];
        let (l, text, truncated, dropped) =
            finish(redact_lines(lines, (&[], 0), "", "\n"), 1000, false, 0);
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
            redact_lines(lines, (&[], 0), before, ""),
            vec!["[REDACTED:private_key]", "$ ls"]
        );
        let open: Vec<String> = ["$ cat k", "-----BEGIN EC PRIVATE KEY-----", "MHcC"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            redact_lines(open, (&[], 0), "", ""),
            vec!["$ cat k", "[REDACTED:private_key]"]
        );
    }
}
