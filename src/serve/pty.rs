//! The bridge endpoints (seed 000 §6): `POST /pty/talk|write|read|buffer`, `GET /pty/list`,
//! `GET /pty/is-leader`, `GET /health` — over this state directory's local sessions only.
//! `/pty/buffer` is `term_read` (the holder's screen model) in the bridge's shape.

use super::{JsonBody, Shared, blocking, reply, respond};
use crate::api::http::BridgeTalkReply;
use crate::api::{Action, Params};
use crate::core::handle::{self, Handle};
use crate::core::talk::run_talk;
use crate::core::{Ctx, io, list, run, sessions};
use crate::error::{Error, ErrorCode, Result};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;

/// The longest `/pty/read` collects output, as the seed's bridge.
const READ_WINDOW_MS: u64 = 5_000;

pub(super) fn routes() -> axum::Router<Shared> {
    axum::Router::new()
        .route("/pty/talk", post(talk))
        .route("/pty/write", post(write))
        .route("/pty/read", post(read))
        .route("/pty/buffer", post(buffer))
        .route("/pty/list", get(pty_list))
        .route("/pty/is-leader", get(is_leader))
        .route("/health", get(health))
}

/// What the `/pty/*` requests carry (unknown fields are ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PtyReq {
    session_id: Option<String>,
    command: Option<String>,
    data: Option<String>,
    sentinel: Option<String>,
    timeout_ms: Option<u64>,
    /// Who is calling, for the audit trail (else `KPTY_AGENT_ID` of the server).
    agent_id: Option<String>,
}

/// The named session, which must be one of this state directory's own (local) sessions: a
/// registered one would be proxied on, perhaps back here.
fn local(ctx: &Ctx, id: Option<&str>) -> Result<Handle> {
    let id = id
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| Error::invalid("the bridge needs `session_id`"))?;
    let e = sessions::resolve(ctx, id)?;
    if !e.is_local() {
        return Err(Error::new(
            ErrorCode::PtySessionNotFound,
            format!(
                "{} is a registered {} session, not one this bridge holds",
                e.session_id, e.source
            ),
        ));
    }
    Ok(e)
}

/// `POST /pty/talk` → `{ok, output, sentinel_found, exit_code, duration_ms, …}`. Completion
/// comes from the session's own detection; the requested sentinel is echoed back. A timeout
/// answers 504 with `sentinel_found: false` and the partial output.
async fn talk(State(app): State<Shared>, JsonBody(r): JsonBody<PtyReq>) -> Response {
    let ctx = app.ctx.clone();
    let ticket = app.talks.start();
    // A caller that leaves mid-talk (its connection closed) has its command interrupted, so
    // the session is free again.
    let _left = ticket.cancel_on_drop();
    let res = blocking(move || {
        let e = local(&ctx, r.session_id.as_deref())?;
        let p = Params {
            session_id: Some(e.into_entry().session_id),
            command: r.command,
            timeout_ms: r.timeout_ms,
            agent_id: caller(r.agent_id)?,
            ..Default::default()
        };
        let t = run_talk(&ctx, &p, None, &ticket)?;
        crate::core::to_json(Ok(BridgeTalkReply::from_talk(t, r.sentinel)))
    })
    .await;
    match res {
        Err(e) if e.code == ErrorCode::PtyTimeout => {
            let mut v = e.to_json();
            v["sentinel_found"] = json!(false);
            v["output"] = e.details.as_ref().map_or(json!(""), |d| {
                d.partial_output().map_or(json!(null), |s| json!(s))
            });
            respond(StatusCode::GATEWAY_TIMEOUT, v)
        }
        r => reply(r),
    }
}

/// `POST /pty/write`: raw data, no Enter appended, still dangerous-command checked; in the
/// session's audit trail as the action `write` (accepted, blocked or refused alike).
async fn write(State(app): State<Shared>, JsonBody(r): JsonBody<PtyReq>) -> Response {
    let ctx = app.ctx.clone();
    reply(
        blocking(move || {
            let data = r
                .data
                .ok_or_else(|| Error::invalid("/pty/write needs `data`"))?;
            let e = local(&ctx, r.session_id.as_deref())?;
            let p = Params {
                session_id: Some(e.session_id.clone()),
                data: Some(data),
                agent_id: caller(r.agent_id)?,
                ..Default::default()
            };
            let data = p.data.as_deref().unwrap_or_default();
            let w = crate::core::audited(&ctx, Action::Write, &p, || {
                io::write_raw(&ctx, &e.session_id, data)
            });
            crate::core::to_json(w)
        })
        .await,
    )
}

/// The caller's agent id as a request names it, checked as an owner identity is (the trail
/// keeps it in clear).
fn caller(agent_id: Option<String>) -> Result<Option<String>> {
    let Some(id) = agent_id.filter(|s| !s.trim().is_empty()) else {
        return Ok(None);
    };
    crate::core::validate::check_identity("agent_id", &id)?;
    Ok(Some(id))
}

/// `POST /pty/read`: everything the session prints during `min(timeout_ms, 5000)` ms from now
/// → `{ok, output, bytes_read}`. Each holder read wakes on new output (no polling).
async fn read(State(app): State<Shared>, JsonBody(r): JsonBody<PtyReq>) -> Response {
    let ctx = app.ctx.clone();
    reply(blocking(move || collect(&ctx, r.session_id.as_deref(), r.timeout_ms)).await)
}

fn collect(ctx: &Ctx, id: Option<&str>, timeout_ms: Option<u64>) -> Result<Value> {
    let e = local(ctx, id)?;
    crate::core::to_json(io::read_window(
        ctx,
        &e.session_id,
        timeout_ms,
        READ_WINDOW_MS,
    ))
}

/// What `/pty/buffer` takes (seed 000 §6).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct BufferReq {
    session_id: Option<String>,
    mode: Option<String>,
    max_lines: Option<usize>,
    merge_wrapped: Option<bool>,
    marker_id: Option<Value>,
}

/// `POST /pty/buffer`: the session's rendered screen — `term_read`'s answer (lines, text,
/// cursor, marker_id …), redacted and capped. Refused with 403 when
/// `KPTY_TERM_READ=off`.
async fn buffer(State(app): State<Shared>, JsonBody(r): JsonBody<BufferReq>) -> Response {
    let ctx = app.ctx.clone();
    reply(
        blocking(move || {
            let marker_id = match &r.marker_id {
                None | Some(Value::Null) => None,
                Some(m) => Some(
                    m.as_u64()
                        .or_else(|| m.as_str().and_then(|s| s.parse().ok()))
                        .ok_or_else(|| Error::invalid(format!("marker_id {m} is not a marker")))?,
                ),
            };
            let e = local(&ctx, r.session_id.as_deref())?;
            let p = Params {
                session_id: Some(e.into_entry().session_id),
                mode: r.mode,
                max_lines: r.max_lines,
                merge_wrapped: r.merge_wrapped,
                marker_id,
                ..Default::default()
            };
            crate::core::to_json(run(&ctx, Action::TermRead, &p))
        })
        .await,
    )
}

/// `GET /pty/list`: the running local sessions.
async fn pty_list(State(app): State<Shared>) -> Response {
    let ctx = app.ctx.clone();
    reply(blocking(move || crate::core::to_json(list::running_local(&ctx))).await)
}

/// `GET /pty/is-leader?session_id=`: from the registry's `owner_role == "leader"`.
async fn is_leader(
    State(app): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let Some(id) = q.get("session_id").filter(|s| !s.is_empty()).cloned() else {
        return reply(Err(Error::invalid("is-leader needs ?session_id=")));
    };
    let ctx = app.ctx.clone();
    reply(blocking(move || crate::core::to_json(crate::core::routing::leader(&ctx, &id))).await)
}

/// `GET /health`.
async fn health(State(app): State<Shared>) -> Response {
    let (ctx, port) = (app.ctx.clone(), app.port);
    reply(
        blocking(move || {
            let local = handle::all(&ctx.state)?.iter().filter(|h| h.is_local()).count();
            Ok(json!({"ok": true, "status": "ok", "service": "kpty", "port": port, "sessions": local,
                      "mode": "kpty", "daemonConnected": true, "version": env!("CARGO_PKG_VERSION"),
                      "mcp": "/mcp", "tools": 1}))
        })
        .await,
    )
}
