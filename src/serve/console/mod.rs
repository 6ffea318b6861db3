//! The web console at `/console/`: one page where a person watches every session kpty knows,
//! live (`live.rs`), built into the binary (`assets.rs`). `kpty console` prints a login link
//! whose token (after `#`) the page trades for a cookie (`login.rs`).
//!
//! Every console request passes `check` after the server's `Host` check: an `Origin`, when
//! there is one, must be the console's own (`http://`, or `https://` with TLS, + the `Host` asked
//! for) — another page's
//! requests and WebSockets are refused, on 127.0.0.1 too; a WebSocket must name its origin;
//! everything but the page, its assets and the login needs a login. Every answer carries a
//! strict content security policy (`default-src 'self'`, no inline script), `X-Frame-Options:
//! DENY` and `Referrer-Policy: no-referrer`.

mod activity;
mod assets;
mod hosts;
mod link;
mod live;
pub mod login;
mod places;
mod recording;
mod remote;
pub mod term;

use live::Live;
use std::sync::Arc;

/// The console's shared state in `kpty serve`.
pub struct Console {
    /// The sessions, pushed to the overview pages.
    live: Arc<Live>,
    /// The terminal views open now.
    views: term::Views,
}

impl Console {
    /// Start the console of `ctx` (its watcher runs until `stop`).
    pub fn start(ctx: crate::core::Ctx, stop: tokio_util::sync::CancellationToken) -> Arc<Self> {
        Arc::new(Console {
            live: Live::start(ctx, stop),
            views: term::Views::default(),
        })
    }
}

use super::{Shared, fail};
use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Redirect, Response};
use axum::routing::{get, post};

/// Where the console lives.
pub const PREFIX: &str = "/console";

/// The read buffer of a console WebSocket. tungstenite fills its whole read buffer with
/// zeros before each read (128 KiB unless told): a typed key, one small message, would cost
/// a 128 KiB memset and the cache it evicts. A page's messages are small; a paste longer
/// than this is read in several reads.
const WS_READ_BUFFER: usize = 4096;

/// The most lines and characters of a tile's miniature (a local or a remote session's).
const MINI_LINES: usize = 40;
const MINI_CHARS: usize = 8000;

/// A miniature's lines: a screen's rendered lines without its trailing blank ones.
fn miniature_of(mut lines: Vec<String>) -> Vec<String> {
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// The largest message the overview's page may send: it sends nothing the server acts on.
const OVERVIEW_MAX_MESSAGE: usize = 4096;

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route(PREFIX, get(|| async { Redirect::permanent("/console/") }))
        .route("/console/", get(assets::page))
        .route("/console/session/{id}", get(assets::terminal_page))
        .route("/console/assets/{name}", get(assets::asset))
        .route("/console/login", post(login::login))
        .route("/console/logout", post(login::logout))
        .route("/console/api/sessions", get(live::sessions))
        .route(
            "/console/api/sessions/{id}/activity",
            get(activity::activity),
        )
        .route("/console/recording/{id}", get(recording::page))
        .route("/console/ws", get(live::socket))
        .route("/console/ws/session/{id}", get(term::socket))
}

/// Whether `path` is the console's.
pub(super) fn is_console(path: &str) -> bool {
    path == PREFIX || path.starts_with("/console/")
}

/// What needs a login: the sessions, whichever way they are asked for.
fn needs_login(path: &str) -> bool {
    path.starts_with("/console/api/") || path.starts_with("/console/recording/") || is_socket(path)
}

/// The console's WebSockets: the overview's and each terminal view's.
fn is_socket(path: &str) -> bool {
    path == "/console/ws" || path.starts_with("/console/ws/")
}

/// The console's own checks (the `Host` was checked before; `host` is what it named), then the
/// request, then the security headers on whatever answers it.
pub(super) async fn check(app: Shared, host: Option<String>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let h = req.headers();
    let origin = h
        .get(header::ORIGIN)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let scheme = if app.tls { "https" } else { "http" };
    let own = host.as_deref().map(|h| format!("{scheme}://{h}"));
    let mut res = match origin {
        Some(o) if Some(o.to_ascii_lowercase()) != own.map(|o| o.to_ascii_lowercase()) => {
            tracing::warn!("refused a console request from origin {o:?}");
            fail(
                StatusCode::FORBIDDEN,
                "FORBIDDEN_ORIGIN",
                &format!("the console answers its own pages only, not {o:?}"),
            )
        }
        None if is_socket(&path) => fail(
            StatusCode::FORBIDDEN,
            "FORBIDDEN_ORIGIN",
            "a console WebSocket must say where it comes from (Origin)",
        ),
        _ if needs_login(&path) && !login::logged_in(&app.ctx.state, h) => fail(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "log in to the console first: open the link `kpty console` prints",
        ),
        _ => next.run(req).await,
    };
    secure(res.headers_mut());
    res
}

/// The headers every console answer carries.
fn secure(h: &mut HeaderMap) {
    const HEADERS: [(&str, &str); 6] = [
        (
            "content-security-policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
             form-action 'self'; frame-ancestors 'none'",
        ),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("x-content-type-options", "nosniff"),
        ("cross-origin-opener-policy", "same-origin"),
        ("cross-origin-resource-policy", "same-origin"),
    ];
    for (name, value) in HEADERS {
        // A page with a policy of its own (a recording's player: inline, hashed) keeps it.
        if name == "content-security-policy" && h.contains_key(name) {
            continue;
        }
        h.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}
