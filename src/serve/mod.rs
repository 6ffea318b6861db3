//! `kpty serve`: one hub for the agents of a machine, on 127.0.0.1 (or `--bind`, with TLS:
//! `listen.rs`) — MCP over Streamable
//! HTTP at `/mcp` (`mcp.rs`), the server endpoints of seed 004 (`/`, `/tools`, `/health`, the
//! `_x9k_*` desktop and leader endpoints: `info.rs`, `leaders.rs`), and the desktop-bridge API
//! (seed 000 §6 and the registry endpoints of §13) over this state directory's own local
//! sessions. Every request passes `guard.rs` (host, origin, secret) first. Another kpty reaches
//! these sessions by registering them with `--desktop-url`. Handlers translate HTTP to the
//! core and run it on blocking threads. Every JSON answer leaves through one function, which
//! redacts its secrets: the handlers hand it the core's results as they are (not through
//! [`crate::core::outgoing`]), so each answer is redacted once, there. `/mcp` answers are
//! redacted where the MCP handler's results leave the core ([`crate::mcp::server`]).

mod body;
mod conns;
pub mod console;
mod guard;
mod info;
mod leaders;
pub mod listen;
mod mcp;
mod pty;
mod registry;
pub mod secret;

use crate::core::Ctx;
use crate::error::{Error, ErrorCode, Result};
use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Json, Request};
use axum::http::StatusCode;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The port tried first without `--port` or `KPTY_PORT`.
pub(crate) const DEFAULT_PORT: u16 = 8201;
/// How many following ports are tried when the first is taken.
pub(crate) const PORT_TRIES: u16 = 20;
/// Largest request body accepted (larger: 413).
pub(crate) const MAX_BODY: usize = 2 << 20;
/// How long requests in flight may run on after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What every handler shares.
struct App {
    ctx: Ctx,
    /// Host, origin and secret checks.
    access: guard::Access,
    /// The services behind `/mcp`.
    mcp: mcp::Mcp,
    /// Talks running (MCP and `POST /pty/talk`): cancelled at shutdown.
    talks: crate::core::running::Runs,
    /// The sessions as the web console's pages are sent them.
    console: std::sync::Arc<console::Console>,
    port: u16,
    /// Whether the server speaks TLS (the console's cookie is then `Secure`, its origin
    /// `https://`).
    tls: bool,
    /// How long a request body may take to arrive (the header timeout).
    body_timeout: Duration,
}

type Shared = Arc<App>;

/// How `kpty serve` runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The port tried first (`None`: `KPTY_PORT`, else `DEFAULT_PORT`).
    pub port: Option<u16>,
    /// The address, and TLS.
    pub listen: listen::Listen,
    /// Host names accepted besides the loopback ones (`*`: any).
    pub allow_hosts: Vec<String>,
    /// Browser origins accepted (none by default; `*`: any).
    pub allow_origins: Vec<String>,
    /// Bridge hosts besides loopback this server may register and call.
    pub allow_bridges: Vec<String>,
}

/// Run the server until SIGTERM or Ctrl-C; returns the exit code.
pub fn run(ctx: Ctx, opts: Options) -> i32 {
    match serve(ctx.on(crate::core::Channel::Http), opts) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("kpty serve: error[{}]: {}", e.code, e.message);
            e.code.exit_code()
        }
    }
}

/// The port tried first: `port`, else `KPTY_PORT`, else `DEFAULT_PORT`.
pub fn first_port(port: Option<u16>) -> Result<u16> {
    Ok(match port {
        Some(p) => p,
        None => match crate::api::config::var("KPTY_PORT") {
            Some(s) => s.trim().parse().map_err(|_| {
                let name = crate::api::config::var_name("KPTY_PORT");
                Error::invalid(format!("{name}={s:?} is not a port number"))
            })?,
            None => DEFAULT_PORT,
        },
    })
}

fn serve(ctx: Ctx, opts: Options) -> Result<()> {
    let first = first_port(opts.port)?;
    crate::core::registered::prune_at_start(&ctx);
    let limits = conns::Limits::from_env()?;
    let secret = secret::load_or_create(&ctx.state)?;
    let secret_file = secret::path(&ctx.state)?;
    crate::bridge::allow::allow_hosts(&opts.allow_bridges);
    let tls = opts.listen.acceptor()?;
    let access =
        guard::Access::new(secret, opts.allow_hosts, opts.allow_origins).bound_to(opts.listen.addr);
    // One thread for the async side (connections, the guard, rmcp's sessions, a talk's wait
    // for its holder): other work runs on the blocking pool, so more workers only add
    // hand-offs between them.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("cannot start the runtime: {e}")))?;
    let res = rt.block_on(async move {
        let listener = bind(opts.listen.addr, first).await?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::internal(format!("no local address: {e}")))?
            .port();
        let url = opts.listen.base(port);
        // Written by hand to keep the documented key order: ok, url, secret_file.
        let line = format!(
            "{{\"ok\":true,\"url\":{},\"secret_file\":{}}}",
            json!(url),
            json!(secret_file.display().to_string())
        );
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}").and_then(|_| out.flush());
        drop(out);
        tracing::info!("kpty serve: listening on {url} (MCP at {url}/mcp)");
        verify_bridges_in_background(&ctx);
        let stop = CancellationToken::new();
        let talks = crate::core::running::Runs::default();
        let app = router(Arc::new(App {
            mcp: mcp::Mcp::new(&ctx, &access, &stop, &talks),
            talks: talks.clone(),
            console: console::Console::start(ctx.clone(), stop.clone()),
            ctx,
            access,
            port,
            tls: tls.is_some(),
            body_timeout: limits.header_timeout,
        }));
        let server = conns::serve(listener, tls, app, limits, stop.clone(), SHUTDOWN_GRACE);
        let mut server = std::pin::pin!(server);
        tokio::select! {
            () = &mut server => {}
            () = shutdown_signal() => {
                let deadline = std::time::Instant::now() + SHUTDOWN_GRACE;
                stop.cancel();
                // Let requests in flight finish, but not forever (a talk may wait an hour).
                server.await;
                // Talks still running are cancelled, so their sessions are left free.
                let left = tokio::task::spawn_blocking(move || talks.cancel_all(deadline))
                    .await
                    .unwrap_or(0);
                if left > 0 {
                    tracing::warn!("kpty serve: {left} talks did not stop in time; they run on in their sessions");
                }
            }
        }
        Ok(())
    });
    // Blocking handlers still running (a long talk) must not hold the exit.
    rt.shutdown_timeout(Duration::from_millis(500));
    res
}

/// Startup step 5 of seed 004 ([`crate::core::bridges`]), on a thread of its own: serving
/// does not wait for it, and each bridge has its own short deadline.
fn verify_bridges_in_background(ctx: &Ctx) {
    let ctx = ctx.clone();
    std::thread::spawn(
        move || match crate::core::bridges::verify_registered(&ctx) {
            Ok(pruned) if pruned.is_empty() => tracing::info!("registered bridges verified"),
            Ok(pruned) => tracing::warn!(
                "pruned {} sessions of unreachable bridges: {pruned:?}",
                pruned.len()
            ),
            Err(e) => tracing::warn!("cannot verify the registered bridges: {e}"),
        },
    );
}

/// Bind `addr` at `first`, else the next free port up to `first + PORT_TRIES` (0: any).
async fn bind(addr: std::net::IpAddr, first: u16) -> Result<tokio::net::TcpListener> {
    let last = if first == 0 {
        0
    } else {
        first.saturating_add(PORT_TRIES)
    };
    let mut why = String::new();
    for port in first..=last {
        let at = std::net::SocketAddr::new(addr, port);
        match tokio::net::TcpListener::bind(at).await {
            Ok(l) => return Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                why = e.to_string();
                tracing::info!("port {port} is taken; trying the next");
            }
            Err(e) if e.kind() == std::io::ErrorKind::AddrNotAvailable => {
                return Err(Error::invalid(format!(
                    "cannot listen on {at}: no interface of this machine has the address {addr}"
                )));
            }
            Err(e) => {
                return Err(Error::internal(format!("cannot listen on {at}: {e}")));
            }
        }
    }
    Err(Error::invalid(format!(
        "ports {first}..={last} on {addr} are all taken ({why}); pick another with --port"
    )))
}

/// SIGTERM or Ctrl-C (SIGINT).
async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let term = async {
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
    tracing::info!("kpty serve: shutting down");
}

fn router(app: Shared) -> Router {
    Router::new()
        .route("/mcp", axum::routing::any(mcp::handle))
        .merge(info::routes())
        .merge(leaders::routes())
        .merge(pty::routes())
        .merge(registry::routes())
        .merge(console::routes())
        .fallback(|| async {
            fail(
                StatusCode::NOT_FOUND,
                "NOT_FOUND",
                "no such endpoint: kpty serve answers /mcp, /, /tools, /health, /_x9k_{desktop_auth,register_leader,deregister_leader,registered_leaders}, /pty/{talk,write,read,buffer,list,is-leader}, /v1/pty/{register,unregister,sessions,heartbeat,update-ownership,reset} and the web console at /console/",
            )
        })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(app.clone(), guard::check))
        .with_state(app)
}

/// Every JSON answer: its strings redacted (the bridge is an agent channel), then sent.
fn respond(status: StatusCode, mut v: Value) -> Response {
    crate::safety::redact_value(&mut v);
    (status, Json(v)).into_response()
}

/// A failure answer that is not a core error: `{ok:false, error_code, error, message}`.
fn fail(status: StatusCode, code: &str, message: &str) -> Response {
    respond(
        status,
        json!({"ok": false, "error_code": code, "error": message, "message": message}),
    )
}

/// The HTTP status of a core error.
fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotFound | ErrorCode::PtySessionNotFound => StatusCode::NOT_FOUND,
        ErrorCode::InvalidParams => StatusCode::BAD_REQUEST,
        ErrorCode::DangerousCommandBlocked
        | ErrorCode::TermReadDisabled
        | ErrorCode::InputBlocked
        | ErrorCode::SandboxRequired
        | ErrorCode::PtyAccessDenied => StatusCode::FORBIDDEN,
        ErrorCode::PtyTimeout => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An action's result as an answer: 200 with its JSON, or the error's status with its JSON.
fn reply(r: Result<Value>) -> Response {
    match r {
        Ok(v) => respond(StatusCode::OK, v),
        Err(e) => respond(status_of(e.code), e.to_json()),
    }
}

/// Run blocking core work off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(Error::internal(format!("the request's worker failed: {e}"))))
}

/// A JSON request body; a malformed one is refused with 400, one over [`MAX_BODY`] with 413,
/// one that does not arrive within the header timeout with 408, in the usual
/// `{ok:false, error_code, …}` shape.
struct JsonBody<T>(T);

impl<T: serde::de::DeserializeOwned> FromRequest<Shared> for JsonBody<T> {
    type Rejection = Response;

    async fn from_request(req: Request, app: &Shared) -> std::result::Result<Self, Response> {
        match tokio::time::timeout(app.body_timeout, Json::<T>::from_request(req, app)).await {
            Ok(Ok(Json(v))) => Ok(Self(v)),
            Ok(Err(rej)) => Err(refuse(rej)),
            Err(_) => Err(fail(
                StatusCode::REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT",
                &format!(
                    "the request body did not arrive within {} ms",
                    app.body_timeout.as_millis()
                ),
            )),
        }
    }
}

fn refuse(rej: JsonRejection) -> Response {
    if body::timed_out(&rej) {
        return fail(
            StatusCode::REQUEST_TIMEOUT,
            "REQUEST_TIMEOUT",
            "the request body did not arrive within its deadline",
        );
    }
    let status = rej.status();
    let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
        "PAYLOAD_TOO_LARGE"
    } else {
        "INVALID_PARAMS"
    };
    fail(status, code, &rej.body_text())
}
