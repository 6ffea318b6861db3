//! The seeds' server endpoints about the server itself (004 "Server"): `GET /` (name,
//! version, tool count) and `GET /tools` (the MCP tool list as plain JSON). `GET /health`
//! is the bridge's ([`super::pty`]).

use super::{Shared, respond};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

pub(super) fn routes() -> axum::Router<Shared> {
    axum::Router::new()
        .route("/", get(root))
        .route("/tools", get(tools))
}

/// `GET /`: what this server is and where its MCP endpoint is.
async fn root(State(app): State<Shared>) -> Response {
    respond(
        StatusCode::OK,
        json!({
            "ok": true,
            "name": "kpty",
            "version": env!("CARGO_PKG_VERSION"),
            "tool_count": 1,
            "tools": [crate::mcp::schema::TOOL_NAME],
            "mcp": {"endpoint": "/mcp", "transport": "streamable-http"},
            "port": app.port,
        }),
    )
}

/// `GET /tools`: the tools as `tools/list` gives them (`name`, `description`,
/// `inputSchema`, `annotations`).
async fn tools() -> Response {
    let tool = serde_json::to_value(crate::mcp::schema::tool()).unwrap_or_default();
    respond(StatusCode::OK, json!({"ok": true, "tools": [tool]}))
}
