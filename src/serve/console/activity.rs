//! A session's activity for the console: its audit trail as a timeline — commands with their
//! exit codes and durations, who did each (an agent, the CLI, a web login), blocked attempts,
//! web joins and leaves. Read from the journals `kpty log` reads (redacted when written, and
//! again on the way out, as every answer of the server).

use super::super::{Shared, blocking, reply};
use crate::core::Ctx;
use crate::core::trail::{self, Filter};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::response::Response;
use serde::Serialize;
use std::collections::VecDeque;

/// The most recent events a timeline shows.
const LAST: usize = 200;

/// One line of the timeline.
#[derive(Debug, Serialize)]
struct Item {
    ts: Option<String>,
    action: Option<String>,
    /// Who: the agent id (a web login is `web:…`); none for a person's CLI.
    agent_id: Option<String>,
    command: Option<String>,
    /// A command's exit code, when the action ran one to its end.
    exit_code: Option<i64>,
    duration_ms: Option<u64>,
    success: Option<bool>,
    blocked: Option<bool>,
    error_code: Option<String>,
}

/// The timeline's answer.
#[derive(Debug, Serialize)]
struct Activity {
    ok: bool,
    session_id: String,
    /// Events left out before the first one shown.
    earlier: usize,
    events: Vec<Item>,
}

/// `GET /console/api/sessions/{id}/activity`: the session's last [`LAST`] events, oldest
/// first.
pub(super) async fn activity(State(app): State<Shared>, Path(id): Path<String>) -> Response {
    let ctx = app.ctx.clone();
    reply(
        blocking(move || {
            let mut v = serde_json::to_value(timeline(&ctx, &id)?)
                .map_err(|e| Error::internal(e.to_string()))?;
            crate::safety::redact_value(&mut v);
            Ok(v)
        })
        .await,
    )
}

fn timeline(ctx: &Ctx, reference: &str) -> Result<Activity> {
    let session_id = trail::session_of(ctx, reference)?;
    let f = Filter {
        session: Some(session_id.clone()),
        ..Filter::default()
    };
    let mut last = VecDeque::with_capacity(LAST);
    let mut earlier = 0;
    trail::query(ctx, &f, &mut |e| {
        if last.len() == LAST {
            last.pop_front();
            earlier += 1;
        }
        last.push_back(Item {
            ts: e.ts.clone(),
            action: e.action.clone(),
            agent_id: e.agent_id.clone(),
            command: e.command.clone(),
            exit_code: e.response.as_deref().and_then(exit_code),
            duration_ms: e.duration_ms,
            success: e.success,
            blocked: e.blocked,
            error_code: e.error_code.clone(),
        });
    })?;
    Ok(Activity {
        ok: true,
        session_id,
        earlier,
        events: last.into(),
    })
}

/// The exit code in an action's recorded answer (a talk's), when it was kept whole.
fn exit_code(response: &str) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Answer {
        exit_code: Option<i64>,
    }
    serde_json::from_str::<Answer>(response).ok()?.exit_code
}
