//! What the console shows, pushed: every session kpty knows, as `kpty list --json` shows it
//! (redacted, as every answer of the server), as one JSON text. One watcher looks at the
//! sessions every half second while at least one page is open and publishes the text when it
//! changed; each page's WebSocket sends the text it has not seen yet. A page costs the server
//! no `list` of its own, and a page that stops reading never holds the watcher up (it is sent
//! only the newest text when it reads again).

use super::super::{Shared, blocking, reply};
use super::hosts::{Hosts, Rows};
use super::places::Places;
use crate::api::TermMode;
use crate::api::queries::TermReadRequest;
use crate::api::request::TermReadArgs;
use crate::core::Ctx;
use crate::error::Result;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
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
    streams: Places,
    /// The sessions on other hosts.
    hosts: Arc<Hosts>,
}

impl Live {
    /// Start watching `ctx`'s sessions, and the known hosts' (only while a page is open),
    /// until `stop`.
    pub fn start(ctx: Ctx, stop: CancellationToken) -> Arc<Self> {
        let (tx, _) = watch::channel(Arc::<str>::from(""));
        let live = Arc::new_cyclic(|me: &std::sync::Weak<Live>| {
            let me = me.clone();
            let open = move || me.upgrade().is_some_and(|l| l.tx.receiver_count() > 0);
            Live {
                tx,
                streams: Places::new(MAX_STREAMS, "console pages"),
                hosts: Hosts::start(open, stop.clone()),
            }
        });
        tokio::spawn(watch_sessions(ctx, live.clone(), stop));
        live
    }
}

/// `list`'s JSON with the other hosts' sessions after this machine's, and the hosts that did
/// not answer as `hosts_down` (when there are any).
fn with_hosts(mut v: serde_json::Value, remote: Rows) -> serde_json::Value {
    let (sessions, down) = remote.into_parts();
    if let Some(all) = v["sessions"].as_array_mut() {
        all.extend(sessions);
        let n = all.len();
        v["count"] = n.into();
    }
    if let Some(down) = down {
        v["hosts_down"] = down;
    }
    v
}

/// The sessions as one JSON text: `{"ok":true,"count":…,"sessions":[…]}` (redacted), each
/// running local session with `miniature`: the rendered lines of its visible screen (read
/// again only when its output moved on since `screens` last had it).
fn snapshot(ctx: &Ctx, screens: &mut Screens, remote: Rows) -> Result<String> {
    let mut v = crate::core::to_json(crate::core::list::list(ctx))?;
    let mut shown = HashSet::new();
    for s in v["sessions"].as_array_mut().into_iter().flatten() {
        let (Some(id), Some(offset)) = (s["session_id"].as_str(), s["output_offset"].as_u64())
        else {
            continue;
        };
        if s["state"] != "running" || s["source"] != "local" {
            continue;
        }
        let id = id.to_string();
        let lines = match screens.get(&id) {
            Some((at, lines)) if *at == offset => lines.clone(),
            _ => {
                let lines = miniature(ctx, &id);
                screens.insert(id.clone(), (offset, lines.clone()));
                lines
            }
        };
        s["miniature"] = lines.into();
        shown.insert(id);
    }
    screens.retain(|id, _| shown.contains(id));
    let mut v = with_hosts(v, remote);
    crate::safety::redact_value(&mut v);
    serde_json::to_string(&v).map_err(|e| crate::error::Error::internal(e.to_string()))
}

/// The screens last read, by session: the output offset they were read at, their lines.
type Screens = HashMap<String, (u64, Option<Vec<String>>)>;

/// Session `id`'s visible screen as rendered lines (redacted), trailing blank lines left
/// out; `None` when it cannot be read (the tile shows no miniature).
fn miniature(ctx: &Ctx, id: &str) -> Option<Vec<String>> {
    let args = TermReadArgs {
        target: crate::api::request::Target::Named(id.to_string()),
        request: TermReadRequest {
            mode: TermMode::Viewport.into(),
            max_lines: super::MINI_LINES,
            max_chars: super::MINI_CHARS,
            merge_wrapped: false,
            marker_id: None,
        },
    };
    let redacting = Ctx {
        redact: true,
        ..ctx.clone()
    };
    let lines = crate::core::term::term_read(&redacting, &args).ok()?.lines;
    Some(super::miniature_of(lines))
}

async fn watch_sessions(ctx: Ctx, live: Arc<Live>, stop: CancellationToken) {
    let mut screens = Screens::new();
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
        let mut mine = std::mem::take(&mut screens);
        let remote = live.hosts.rows();
        let read = blocking(move || snapshot(&c, &mut mine, remote).map(|t| (t, mine))).await;
        match read.map(|(text, mine)| {
            screens = mine;
            text
        }) {
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
    let remote = app.console.live.hosts.rows();
    reply(
        blocking(move || {
            crate::core::to_json(crate::core::list::list(&ctx)).map(|v| with_hosts(v, remote))
        })
        .await,
    )
}

/// `GET /console/ws`: the sessions now, then each change (the login and the `Origin` were
/// checked before: see [`super::check`]).
pub(super) async fn socket(
    State(app): State<Shared>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let place = match app.console.live.streams.take() {
        Ok(p) => p,
        Err(full) => return *full,
    };
    let rx = app.console.live.tx.subscribe();
    let ctx = app.ctx.clone();
    let remote = app.console.live.hosts.rows();
    let login = super::login::presented(&headers)
        .unwrap_or_default()
        .to_string();
    ws.max_message_size(super::OVERVIEW_MAX_MESSAGE)
        .read_buffer_size(super::WS_READ_BUFFER)
        .on_upgrade(move |socket| async move {
            push(socket, ctx, login, rx, remote).await;
            drop(place);
        })
}

async fn push(
    mut socket: WebSocket,
    ctx: Ctx,
    login: String,
    mut rx: watch::Receiver<Arc<str>>,
    remote: Rows,
) {
    let state = ctx.state.clone();
    // The first view is made for this page (the watcher may have nothing yet).
    let first = blocking(move || snapshot(&ctx, &mut Screens::new(), remote)).await;
    let mut text: Arc<str> = match first {
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
