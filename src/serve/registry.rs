//! The registry endpoints (seed 000 §13): register, unregister, list and show sessions,
//! heartbeat, update ownership, and reset (every session ended or forgotten, their files removed).

use super::{JsonBody, Shared, blocking, reply};
use crate::api::reply::Success;
use crate::api::sessions::ResolveReply;
use crate::api::{Action, Params};
use crate::core::sessions;
use crate::core::{list, run};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::routing::{delete, get, post};
use std::collections::HashMap;

pub(super) fn routes() -> axum::Router<Shared> {
    axum::Router::new()
        .route("/v1/pty/register", post(register))
        .route("/v1/pty/unregister/{id}", delete(unregister))
        .route("/v1/pty/sessions", get(all))
        .route("/v1/pty/sessions/{id}", get(one))
        .route("/v1/pty/heartbeat", post(heartbeat_body))
        .route("/v1/pty/heartbeat/{id}", post(heartbeat_path))
        .route("/v1/pty/update-ownership", post(update_ownership))
        .route("/v1/pty/reset", delete(reset))
}

/// Run one action with `p` on a blocking thread and answer its result.
async fn act(app: Shared, action: Action, p: Params) -> Response {
    reply(blocking(move || crate::core::to_json(run(&app.ctx, action, &p))).await)
}

async fn register(State(app): State<Shared>, JsonBody(p): JsonBody<Params>) -> Response {
    act(app, Action::Register, p).await
}

async fn unregister(
    State(app): State<Shared>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let force = q.get("force").is_some_and(|v| v == "true" || v == "1");
    let p = Params {
        session_id: Some(id),
        force: Some(force),
        ..Default::default()
    };
    act(app, Action::Unregister, p).await
}

async fn all(State(app): State<Shared>) -> Response {
    act(app, Action::List, Params::default()).await
}

async fn one(State(app): State<Shared>, Path(id): Path<String>) -> Response {
    reply(
        blocking(move || {
            let e = sessions::resolve(&app.ctx, &id)?;
            let live = sessions::probe(&app.ctx, &e);
            crate::core::to_json(Ok(ResolveReply {
                ok: Success,
                session: list::session_view(&e, &live),
                session_id: e.into_entry().session_id,
            }))
        })
        .await,
    )
}

async fn heartbeat_body(State(app): State<Shared>, JsonBody(p): JsonBody<Params>) -> Response {
    let p = Params {
        session_id: p.session_id,
        ..Default::default()
    };
    act(app, Action::Heartbeat, p).await
}

async fn heartbeat_path(State(app): State<Shared>, Path(id): Path<String>) -> Response {
    let p = Params {
        session_id: Some(id),
        ..Default::default()
    };
    act(app, Action::Heartbeat, p).await
}

async fn update_ownership(State(app): State<Shared>, JsonBody(p): JsonBody<Params>) -> Response {
    act(app, Action::UpdateOwnership, p).await
}

/// `DELETE /v1/pty/reset[?agent_id=]`: end and forget every session, local and registered,
/// and remove their files (seed 000: "Clear all sessions + persistence"); audited as `reset`.
async fn reset(State(app): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    reply(
        blocking(move || {
            let ctx = &app.ctx;
            let p = Params {
                agent_id: q.get("agent_id").filter(|s| !s.trim().is_empty()).cloned(),
                ..Default::default()
            };
            if let Some(a) = &p.agent_id {
                crate::core::validate::check_identity("agent_id", a)?;
            }
            let r = crate::core::audited_as(ctx, crate::core::audit::RESET, &p, || {
                crate::core::reset::reset(ctx)
            });
            crate::core::to_json(r)
        })
        .await,
    )
}
