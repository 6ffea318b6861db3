//! What the console shows, pushed: every session kpty knows, as `kpty list --json` shows it
//! (redacted, as every answer of the server), as one JSON text. One watcher looks at the
//! sessions every half second while at least one page is open and publishes the text when it
//! changed; each page's WebSocket sends the text it has not seen yet. A page costs the server
//! no `list` of its own, and a page that stops reading never holds the watcher up (it is sent
//! only the newest text when it reads again).

use super::super::{Shared, blocking, reply};
use crate::core::Ctx;
use crate::error::Result;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How often the sessions are looked at while a page is open.
const EVERY: Duration = Duration::from_millis(500);
/// How often an open stream's login is looked at again (a `--revoke` or its expiry ends the
/// stream within this).
const RECHECK: Duration = Duration::from_secs(2);
/// The close code of a stream whose login ended (4000–4999: the application's own).
const LOGGED_OUT: u16 = 4001;

/// The most overview streams open at once (upgraded connections leave the server's
/// connection table, so they are counted here); one more is answered 503.
const MAX_STREAMS: usize = 32;

/// The sessions, as the pages are sent them.
pub struct Live {
    tx: watch::Sender<Arc<str>>,
    /// Streams open now.
    streams: Arc<AtomicUsize>,
}

/// One open stream, counted until it ends.
struct Stream(Arc<AtomicUsize>);

impl Stream {
    /// A place among the open streams, if one is free.
    fn open(count: &Arc<AtomicUsize>) -> Option<Self> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_STREAMS).then_some(n + 1)
            })
            .ok()
            .map(|_| Stream(count.clone()))
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Live {
    /// Start watching `ctx`'s sessions (only while a page is open) until `stop`.
    pub fn start(ctx: Ctx, stop: CancellationToken) -> Arc<Self> {
        let (tx, _) = watch::channel(Arc::<str>::from(""));
        let live = Arc::new(Live {
            tx,
            streams: Arc::default(),
        });
        tokio::spawn(watch_sessions(ctx, live.clone(), stop));
        live
    }
}

/// The sessions as one JSON text: `{"ok":true,"count":…,"sessions":[…]}` (redacted).
fn snapshot(ctx: &Ctx) -> Result<String> {
    let mut v = crate::core::to_json(crate::core::list::list(ctx))?;
    crate::safety::redact_value(&mut v);
    serde_json::to_string(&v).map_err(|e| crate::error::Error::internal(e.to_string()))
}

async fn watch_sessions(ctx: Ctx, live: Arc<Live>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        if live.tx.receiver_count() == 0 {
            continue;
        }
        let c = ctx.clone();
        match blocking(move || snapshot(&c)).await {
            Ok(text) => {
                live.tx.send_if_modified(|cur| {
                    let changed = **cur != *text;
                    if changed {
                        *cur = Arc::from(text);
                    }
                    changed
                });
            }
            Err(e) => tracing::warn!("the console cannot list the sessions: {e}"),
        }
    }
}

/// `GET /console/api/sessions`: the sessions now (the page's first view, and for scripts).
pub(super) async fn sessions(State(app): State<Shared>) -> Response {
    let ctx = app.ctx.clone();
    reply(blocking(move || crate::core::to_json(crate::core::list::list(&ctx))).await)
}

/// `GET /console/ws`: the sessions now, then each change (the login and the `Origin` were
/// checked before: see [`super::check`]).
pub(super) async fn socket(
    State(app): State<Shared>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let Some(place) = Stream::open(&app.console.live.streams) else {
        return super::super::fail(
            StatusCode::SERVICE_UNAVAILABLE,
            "TOO_MANY_STREAMS",
            &format!("{MAX_STREAMS} console pages are open already: close one"),
        );
    };
    let rx = app.console.live.tx.subscribe();
    let ctx = app.ctx.clone();
    let login = super::login::presented(&headers)
        .unwrap_or_default()
        .to_string();
    ws.on_upgrade(move |socket| async move {
        push(socket, ctx, login, rx).await;
        drop(place);
    })
}

async fn push(mut socket: WebSocket, ctx: Ctx, login: String, mut rx: watch::Receiver<Arc<str>>) {
    let state = ctx.state.clone();
    // The first view is made for this page (the watcher may have nothing yet).
    let mut text: Arc<str> = match blocking(move || snapshot(&ctx)).await {
        Ok(t) => Arc::from(t),
        Err(e) => {
            tracing::warn!("the console cannot list the sessions: {e}");
            return;
        }
    };
    let mut recheck = tokio::time::interval(RECHECK);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        if socket
            .send(Message::Text(text.as_ref().into()))
            .await
            .is_err()
        {
            return;
        }
        loop {
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    let now = rx.borrow_and_update().clone();
                    if now.is_empty() || now == text {
                        continue;
                    }
                    text = now;
                    break;
                }
                msg = socket.recv() => match msg {
                    // The page says nothing the server acts on; it only keeps the socket.
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                    Some(Ok(_)) => {}
                },
                _ = recheck.tick() => {
                    if !super::login::still_good(&state, &login) {
                        let bye = CloseFrame { code: LOGGED_OUT, reason: "logged out".into() };
                        let _ = socket.send(Message::Close(Some(bye))).await;
                        return;
                    }
                }
            }
        }
    }
}
