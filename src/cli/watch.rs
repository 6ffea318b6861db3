//! `kpty term-read --watch`: the visible screen, redrawn each time the session's output moves
//! on.

use super::follow::still_there;
use super::output::out;
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
        max_lines: Some(p.max_lines.unwrap_or(crate::core::queries::MAX_LINES)),
        marker_id: None,
        ..p.clone()
    };
    let reader = |since: Option<u64>, timeout_ms: u64| {
        core::request::read(&Params {
            since,
            max_bytes: Some(1),
            timeout_ms: Some(timeout_ms),
            mode: None,
            max_lines: None,
            max_chars: None,
            merge_wrapped: None,
            ..p.clone()
        })
        .and_then(|a| core::io::read(ctx, &a))
    };
    // On a terminal each draw replaces the last; into a pipe or file, draws follow each other
    // as plain text (no clear-screen codes), each after its header line.
    let clear = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        "\x1b[H\x1b[2J"
    } else {
        ""
    };
    let draw = || -> Result<bool> {
        let v = match core::request::term_read(&view).and_then(|a| core::term::term_read(ctx, &a)) {
            // The shell ended between the output that woke this draw and the draw: the
            // watch is over, as when the stream says so.
            Err(e) if e.code == crate::error::ErrorCode::PtyProcessExited => return Ok(false),
            r => r,
        };
        let Some(v) = still_there(v)? else {
            return Ok(false);
        };
        out(format!("{clear}{}\n{}\n", screen_head(&v), v.text).as_bytes());
        Ok(true)
    };
    // The offset is taken before each draw, so output during the draw wakes the next wait.
    let first = reader(None, 0)?;
    let since = first.next_offset.unwrap_or(0);
    let local = match core::sessions::resolve(ctx, &first.session_id) {
        Ok(e) if e.is_local() => Some(e),
        _ => None,
    };
    let since = match local {
        Some(e) => match streamed(ctx, &e, since, &draw)? {
            Watched::Over => return Ok(0),
            Watched::Broken { at } => at,
        },
        None => since,
    };
    // A bridged session, or a holder older than the stream: wait with reads.
    let mut since = since;
    loop {
        if !draw()? {
            return Ok(0);
        }
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

/// How a streamed watch ended.
enum Watched {
    /// The shell ended, the session went, or the terminal was closed.
    Over,
    /// The stream broke off at offset `at` (the holder does not know it, or it died).
    Broken { at: u64 },
}

/// Draw, then again each time the holder's follow stream ([`core::follow::stream`], offsets
/// only) says the output moved on; pieces that arrive during a draw are taken together, so a
/// flood costs one draw per draw's time, never a queue of them.
fn streamed(
    ctx: &Ctx,
    e: &crate::store::RegistryEntry,
    since: u64,
    draw: &dyn Fn() -> Result<bool>,
) -> Result<Watched> {
    let (tx, rx) = std::sync::mpsc::channel::<(u64, bool)>();
    // Not a scoped thread: a watch that ends on its own (a failed draw) must not wait for
    // the stream's next heartbeat.
    let (ctx, e) = (ctx.clone(), e.clone());
    let follower = std::thread::spawn(move || {
        let opts = core::follow::Stream {
            offsets_only: true,
            strip_ansi: false,
            max_bytes: 1,
            wait_ms: 60_000,
        };
        let mut emit = |r: &crate::api::reply::ReadReply| {
            let _ = tx.send((r.next_offset.unwrap_or(since), r.session_alive));
        };
        core::follow::stream(&ctx, &e, since, &opts, &mut emit)
    });
    let mut drawn = since;
    loop {
        if !draw()? {
            return Ok(Watched::Over);
        }
        let mut moved = None;
        while moved.is_none() {
            let Ok(first) = rx.recv() else { break };
            let (end, alive) = rx.try_iter().fold(first, |_, u| u);
            if !alive {
                return Ok(Watched::Over);
            }
            moved = (end > drawn).then_some(end);
        }
        match moved {
            Some(end) => drawn = end,
            // The stream ended: how, its thread says.
            None => {
                return match follower.join() {
                    Ok(Ok(core::follow::Streamed::Broken { at })) => Ok(Watched::Broken { at }),
                    Ok(Ok(core::follow::Streamed::Ended)) => Ok(Watched::Over),
                    Ok(Err(err)) => Err(err),
                    Err(_) => Err(crate::error::Error::internal("the watch's follower failed")),
                };
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
