//! MCP over Streamable HTTP at `/mcp`: rmcp's own server transport, serving the same
//! `k_pty` handler as `kpty mcp` (schema, results, progress, cancellation, concurrency).
//!
//! Two rmcp services share the route. Clients that open an MCP session (`initialize`, then
//! `Mcp-Session-Id` on every request: Claude Code, the SDKs, the Inspector) get a stateful
//! one, answered over SSE. A request without a session (the seeds' plain clients, `POST /mcp`
//! with one JSON-RPC call, and clients of the sessionless protocol revision) gets a stateless
//! one with rmcp's JSON-response mode: a plain `application/json` answer, or SSE when the
//! call reports progress first. A client that does not accept `text/event-stream` is always
//! answered in JSON, whatever the method (`initialize` too, which then opens no session; its
//! calls' progress tokens are dropped); the transport wants both media types named, so the
//! missing one is added to its `Accept`. Closing a session (`DELETE`) answers 204.
//! Host and origin checks, and the secret, ran before ([`super::guard`]).

use super::{Shared, fail};
use crate::core::Ctx;
use crate::core::running::Runs;
use crate::mcp::server::KptyServer;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The two services behind `/mcp`.
pub struct Mcp {
    sessions: StreamableHttpService<KptyServer, LocalSessionManager>,
    plain: StreamableHttpService<KptyServer, LocalSessionManager>,
}

/// The session header of Streamable HTTP.
const SESSION_HEADER: &str = "mcp-session-id";
/// What a plain client's `Accept` becomes.
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// Largest MCP message: as over stdio (room for the largest input kpty takes, escaped).
const MAX_MESSAGE: usize = crate::mcp::guard::MAX_LINE;
/// How long an MCP session may sit idle before it is closed (rmcp's default is 5 minutes: an
/// agent's client left idle over lunch would find its session gone). Longer than the longest
/// call (`MAX_TIMEOUT_MS`, an hour), which counts as idle to rmcp while it runs.
const SESSION_IDLE: Duration = Duration::from_secs(24 * 3600);
/// SSE keep-alive comments while a long call runs.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

impl Mcp {
    /// The services over `ctx` (as `kpty mcp` serves it), stopped with `stop`, accepting the
    /// hosts and origins `access` accepts, listing their talks in `talks`.
    pub fn new(
        ctx: &Ctx,
        access: &super::guard::Access,
        stop: &CancellationToken,
        talks: &Runs,
    ) -> Self {
        let ctx = ctx.clone().on(crate::core::Channel::Mcp);
        let config = |stateful: bool| {
            let c = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(stateful)
                .with_json_response(!stateful)
                .with_sse_keep_alive(Some(KEEP_ALIVE))
                .with_cancellation_token(stop.child_token())
                .with_max_request_body_bytes(MAX_MESSAGE)
                .with_allowed_hosts(access.allowed_hosts());
            // The guard refused any other origin already; rmcp checks the same list again.
            if access.origins.iter().any(|o| o == "*") {
                c.disable_allowed_origins()
            } else {
                c.with_allowed_origins(access.origins.clone())
                    .enforce_origin_validation()
            }
        };
        let factory = |ctx: Ctx| {
            let talks = talks.clone();
            move || Ok(KptyServer::new(ctx.clone()).listing_talks_in(talks.clone()))
        };
        // The guard checked the host first; with any IP address accepted (`--bind 0.0.0.0`)
        // rmcp's list, which names hosts one by one, cannot say the same.
        let hosts_any = access.any_host() || access.any_address();
        let finish = |c: StreamableHttpServerConfig| {
            if hosts_any {
                c.disable_allowed_hosts()
            } else {
                c
            }
        };
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(SESSION_IDLE);
        Mcp {
            sessions: StreamableHttpService::new(
                factory(ctx.clone()),
                Arc::new(manager),
                finish(config(true)),
            ),
            plain: StreamableHttpService::new(
                factory(ctx),
                Arc::new(LocalSessionManager::default()),
                finish(config(false)),
            ),
        }
    }
}

/// `/mcp` (any method): a POST body is judged as `kpty mcp` judges a line (not JSON, too
/// deep, arguments that are not an object: a JSON-RPC error); then to the stateful service
/// when the request belongs to an MCP session (or opens one), else to the stateless one.
pub async fn handle(State(app): State<Shared>, req: Request) -> Response {
    let mcp = &app.mcp;
    if req.method() != Method::POST {
        let closing = req.method() == Method::DELETE;
        let mut resp = mcp
            .sessions
            .handle(req)
            .await
            .map(Body::new)
            .into_response();
        // rmcp answers a closed session 202; the MCP SDKs expect 200 or 204 (the Python SDK
        // logs "Session termination failed: 202" on every close).
        if closing && resp.status() == StatusCode::ACCEPTED {
            *resp.status_mut() = StatusCode::NO_CONTENT;
        }
        return resp;
    }
    let (mut parts, body) = req.into_parts();
    let bytes = match read_body(&app, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    if let Some(reply) = crate::mcp::guard::refusal(&bytes) {
        let status = if crate::mcp::guard::refuses_the_message(&reply) {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        return (status, axum::Json(reply)).into_response();
    }
    let in_session = parts.headers.contains_key(SESSION_HEADER);
    let sse = accepts(&parts.headers, "text/event-stream");
    let opens_session = !in_session
        && sse
        && serde_json::from_slice::<serde_json::Value>(&bytes)
            .is_ok_and(|v| v.get("method").and_then(|m| m.as_str()) == Some("initialize"));
    let stateful = in_session || opens_session;
    let mut bytes = bytes;
    if !stateful {
        if !sse {
            // Answered in JSON only: no progress notifications, which would need SSE.
            bytes = without_progress(bytes);
        }
        accept_both(&mut parts.headers);
    }
    let req = Request::from_parts(parts, Body::from(bytes));
    let service = if stateful { &mcp.sessions } else { &mcp.plain };
    service.handle(req).await.map(Body::new).into_response()
}

/// A POST body, whole: at most [`MAX_MESSAGE`] bytes (413), arrived within the header
/// timeout (408).
async fn read_body(app: &Shared, body: Body) -> Result<axum::body::Bytes, Response> {
    match tokio::time::timeout(app.body_timeout, axum::body::to_bytes(body, MAX_MESSAGE)).await {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(_)) => Err(fail(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            &format!("an MCP message is at most {MAX_MESSAGE} bytes"),
        )),
        Err(_) => Err(fail(
            StatusCode::REQUEST_TIMEOUT,
            "REQUEST_TIMEOUT",
            "the request body did not arrive in time",
        )),
    }
}

/// Whether the request's `Accept` names `media` (a wildcard is not taken for SSE: a client
/// that names no event stream is answered in JSON).
fn accepts(h: &axum::http::HeaderMap, media: &str) -> bool {
    h.get_all(header::ACCEPT).iter().any(|v| {
        v.to_str()
            .is_ok_and(|s| s.to_ascii_lowercase().contains(media))
    })
}

/// A plain client that names only JSON (or nothing, or `*/*`) is answered all the same:
/// rmcp wants both media types named, and answers JSON in this mode unless the call
/// reports progress.
fn accept_both(h: &mut axum::http::HeaderMap) {
    if !(accepts(h, "application/json") && accepts(h, "text/event-stream")) {
        h.insert(header::ACCEPT, HeaderValue::from_static(ACCEPT_BOTH));
    }
}

/// The message without `params._meta.progressToken`: a client that does not accept an
/// event stream gets its one JSON answer, not progress notifications first (which rmcp
/// would send over SSE). Bytes that are not such an object pass unchanged.
fn without_progress(bytes: axum::body::Bytes) -> axum::body::Bytes {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return bytes;
    };
    let removed = v
        .pointer_mut("/params/_meta")
        .and_then(serde_json::Value::as_object_mut)
        .and_then(|m| m.remove("progressToken"))
        .is_some();
    if !removed {
        return bytes;
    }
    serde_json::to_vec(&v).map_or(bytes, axum::body::Bytes::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Just, Strategy};
    use serde_json::{Value, json};

    proptest::proptest! {
        /// Only `params._meta.progressToken` goes: the rest of the message, and bytes that are
        /// not such a message, pass as they are.
        #[test]
        fn only_the_progress_token_is_dropped(
            id in 0i64..1000,
            token in proptest::prop_oneof![Just(None), "[a-z0-9]{1,8}".prop_map(Some)],
            other in proptest::option::of("[a-z]{1,8}"),
            junk in proptest::collection::vec(proptest::num::u8::ANY, 0..32),
        ) {
            let mut meta = serde_json::Map::new();
            if let Some(t) = &token {
                meta.insert("progressToken".into(), json!(t));
            }
            if let Some(o) = &other {
                meta.insert("other".into(), json!(o));
            }
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                             "params": {"_meta": meta, "name": "k_pty", "arguments": {"action": "list"}}});
            let bytes = axum::body::Bytes::from(msg.to_string());
            let out: Value = serde_json::from_slice(&without_progress(bytes)).expect("json");
            let mut want = msg.clone();
            if let Some(m) = want.pointer_mut("/params/_meta").and_then(Value::as_object_mut) {
                m.remove("progressToken");
            }
            proptest::prop_assert_eq!(out, want);
            let junk = axum::body::Bytes::from(junk);
            proptest::prop_assert_eq!(without_progress(junk.clone()), junk);
        }
    }
}
