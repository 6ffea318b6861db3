//! The seeds' desktop and leader endpoints (004 "Server", 000 §7): `POST /_x9k_desktop_auth`
//! (a desktop registers its secret), `POST /_x9k_register_leader`,
//! `POST /_x9k_deregister_leader` and `GET /_x9k_registered_leaders` ([`crate::core::leaders`]).
//! Unlike the seeds' server, these need the secret like every other route ([`super::guard`]).
//! The agent id comes as `?agent_id=` (as the desktop sends it) or in a JSON body.

use super::{Shared, blocking, fail, reply, respond, secret};
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;

pub(super) fn routes() -> axum::Router<Shared> {
    axum::Router::new()
        .route("/_x9k_desktop_auth", post(desktop_auth))
        .route("/_x9k_register_leader", post(register))
        .route("/_x9k_deregister_leader", post(deregister))
        .route("/_x9k_registered_leaders", get(list))
}

/// Why a request was refused (answered 400 `INVALID_PARAMS`).
type Refusal = &'static str;

/// A refusal as an answer.
fn refused(why: Refusal) -> Response {
    fail(StatusCode::BAD_REQUEST, "INVALID_PARAMS", why)
}

/// A field from the query, else from a JSON object body (an empty body is none).
fn field(q: &HashMap<String, String>, body: &Bytes, name: &str) -> Result<Option<String>, Refusal> {
    if let Some(v) = q.get(name) {
        return Ok(Some(v.clone()));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m.get(name).and_then(Value::as_str).map(String::from)),
        _ => Err("the body must be a JSON object"),
    }
}

/// The agent id a leader request names.
fn agent_id(q: &HashMap<String, String>, body: &Bytes) -> Result<String, Refusal> {
    field(q, body, "agent_id")?.ok_or("name the agent: ?agent_id=ID or {\"agent_id\": \"ID\"}")
}

async fn register(
    State(app): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    change(app, &q, &body, "registered", crate::core::leaders::register).await
}

async fn deregister(
    State(app): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    change(
        app,
        &q,
        &body,
        "deregistered",
        crate::core::leaders::deregister,
    )
    .await
}

/// Apply `f` to the agent the request names, logging it as `done`.
async fn change(
    app: Shared,
    q: &HashMap<String, String>,
    body: &Bytes,
    done: &'static str,
    f: fn(&crate::core::Ctx, &str) -> crate::error::Result<Value>,
) -> Response {
    let id = match agent_id(q, body) {
        Ok(id) => id,
        Err(why) => return refused(why),
    };
    tracing::info!("leader {done}: {id:?}");
    reply(blocking(move || f(&app.ctx, &id)).await)
}

async fn list(State(app): State<Shared>) -> Response {
    reply(blocking(move || Ok(crate::core::leaders::list(&app.ctx))).await)
}

/// `POST /_x9k_desktop_auth` with `{"secret": "<64 hex>"}` (or `?secret=`): the desktop's
/// secret, accepted from then on in `X-Kuroryuu-Desktop-Secret` and sent with this server's
/// calls to desktop bridges. Kept in memory only, as the seeds' server does.
async fn desktop_auth(
    State(app): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let given = match field(&q, &body, "secret") {
        Ok(Some(s)) => s,
        Ok(None) => {
            return refused("send the desktop secret as {\"secret\": \"<64 hex characters>\"}");
        }
        Err(why) => return refused(why),
    };
    if given.len() != 64 || !given.bytes().all(|b| b.is_ascii_hexdigit()) {
        return refused("the desktop secret must be 64 hexadecimal characters");
    }
    let mut slot = app
        .access
        .desktop
        .write()
        .unwrap_or_else(|p| p.into_inner());
    let same = slot
        .as_deref()
        .is_some_and(|s| secret::matches(given.as_bytes(), s.as_bytes()));
    *slot = Some(given.clone());
    drop(slot);
    crate::bridge::client::use_desktop_secret(given);
    tracing::info!(
        "desktop secret registered{}",
        if same { " (unchanged)" } else { "" }
    );
    respond(
        StatusCode::OK,
        json!({"ok": true, "registered": true, "changed": !same}),
    )
}
