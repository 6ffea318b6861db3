//! `kpty term-read --watch`: the visible screen, redrawn each time the session's output moves
//! on.

use super::follow::still_there;
use super::render::out;
use crate::api::reply::{TermReadReply, TermView};
use crate::api::{BufferType, Params, TermMode};
use crate::core::{self, Ctx};
use crate::error::Result;
use serde_json::Value;

/// `kpty term-read --watch`: clear the terminal and draw the visible screen each time the
/// session's output moves on. New output is waited for with `read --since` (the holder wakes
/// the read on output), not on a timer. Calls the core directly: a watch is not audited.
pub fn watch(ctx: &Ctx, p: Params) -> Result<i32> {
    let view = Params {
        mode: Some(TermMode::Viewport.as_str().into()),
        max_lines: Some(p.max_lines.unwrap_or(crate::core::term::MAX_LINES)),
        marker_id: None,
        ..p.clone()
    };
    let reader = |since: Option<u64>, timeout_ms: u64| {
        core::io::read(
            ctx,
            &Params {
                since,
                max_bytes: Some(1),
                timeout_ms: Some(timeout_ms),
                mode: None,
                max_lines: None,
                max_chars: None,
                merge_wrapped: None,
                ..p.clone()
            },
        )
    };
    // On a terminal each draw replaces the last; into a pipe or file, draws follow each other
    // as plain text (no clear-screen codes), each after its header line.
    let clear = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        "\x1b[H\x1b[2J"
    } else {
        ""
    };
    // The offset is taken before each draw, so output during the draw wakes the next wait.
    let mut since = reader(None, 0)?.next_offset.unwrap_or(0);
    loop {
        let Some(v) = still_there(core::term::term_read(ctx, &view))? else {
            return Ok(0);
        };
        out(format!("{clear}{}\n{}\n", screen_head(&v), v.text).as_bytes());
        loop {
            let Some(r) = still_there(reader(Some(since), 60_000))? else {
                return Ok(0);
            };
            if !r.session_alive {
                return Ok(0);
            }
            let next = r.next_offset.unwrap_or(since);
            if next > since {
                // Redraw from the newest state: skip straight to the current end.
                since = reader(None, 0)?.next_offset.unwrap_or(next).max(next);
                break;
            }
        }
    }
}

/// The watch's header line: session, terminal state, screen size, title.
fn screen_head(v: &TermReadReply) -> String {
    let (state, alternate, cols, rows, title) = match &v.view {
        TermView::Local(l) => (
            l.terminal_state.to_string(),
            l.buffer_type == BufferType::Alternate,
            l.cols.to_string(),
            l.rows.to_string(),
            l.title.clone().unwrap_or_default(),
        ),
        // A bridge's open shape: shown as it answered.
        TermView::Bridged(m) => {
            let get = |k: &str| m.get(k).cloned().unwrap_or(Value::Null);
            (
                get("terminal_state").as_str().unwrap_or("?").to_string(),
                get("buffer_type") == "alternate",
                get("cols").to_string(),
                get("rows").to_string(),
                get("title").as_str().unwrap_or("").to_string(),
            )
        }
    };
    format!(
        "{} [{state}{}] {cols}x{rows}{}",
        v.session_id,
        if alternate { ", alternate screen" } else { "" },
        if title.is_empty() {
            String::new()
        } else {
            format!(" — {title}")
        }
    )
}
