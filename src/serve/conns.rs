//! The connections of `kpty serve`: the accept loop, a cap on open connections, a header
//! read timeout, a body deadline, and graceful shutdown. At the cap, a new connection
//! displaces the oldest one that is not working on a request (an idle keep-alive, a client
//! still sending its header, or one still sending its body: `body.rs`), so a flood of idle
//! or slow connections — even authenticated ones dribbling a body — cannot keep a real
//! request out; when every connection is working on a request, the new one is closed at
//! once. The header timeout runs whenever a connection waits for a request header, so it is
//! also the keep-alive idle timeout; a request body gets as long, in total. With TLS, the
//! handshake is made in the connection's own task within the header timeout too.

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Most connections open at once.
pub(crate) const MAX_CONNECTIONS: usize = 256;
/// How long a client may take to send a request header, and how long a keep-alive
/// connection may sit idle, unless `KPTY_SERVE_HEADER_TIMEOUT_MS` says otherwise.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait after a failed accept for a connection to close before accepting again.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);
/// The environment variable that overrides [`HEADER_TIMEOUT`] (milliseconds).
pub(crate) const HEADER_TIMEOUT_ENV: &str = "KPTY_SERVE_HEADER_TIMEOUT_MS";

/// How the accept loop behaves.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Deadline for a request header (and for an idle keep-alive connection).
    pub header_timeout: Duration,
}

impl Limits {
    /// The defaults, with the header timeout from [`HEADER_TIMEOUT_ENV`] when it is set.
    pub fn from_env() -> crate::error::Result<Self> {
        let header_timeout = match std::env::var(HEADER_TIMEOUT_ENV) {
            Ok(s) if !s.trim().is_empty() => match s.trim().parse::<u64>() {
                Ok(ms) if ms > 0 => Duration::from_millis(ms),
                _ => {
                    return Err(crate::error::Error::invalid(format!(
                        "{HEADER_TIMEOUT_ENV}={s:?} is not a positive number of milliseconds"
                    )));
                }
            },
            _ => HEADER_TIMEOUT,
        };
        Ok(Self {
            max_connections: MAX_CONNECTIONS,
            header_timeout,
        })
    }
}

/// One open connection, as the accept loop sees it.
struct Slot {
    /// Cancelled to close the connection at once (it was displaced).
    evict: CancellationToken,
    /// Requests it is serving now.
    busy: Arc<AtomicUsize>,
    /// Of those, the ones whose body is still arriving.
    receiving: Arc<AtomicUsize>,
}

impl Slot {
    /// Whether the connection does no work yet: idle, or only waiting for bodies.
    fn displaceable(&self) -> bool {
        let busy = self.busy.load(Ordering::Acquire);
        busy == 0 || busy <= self.receiving.load(Ordering::Acquire)
    }
}

/// The open connections, oldest first (ids only grow).
#[derive(Default)]
struct Table {
    next: u64,
    open: BTreeMap<u64, Slot>,
}

impl Table {
    /// Room for one more connection: true when under `max`, or when the oldest connection not
    /// serving a request was told to close to make room.
    fn make_room(&mut self, max: usize) -> bool {
        if self.open.len() < max {
            return true;
        }
        let idle = self
            .open
            .iter()
            .find(|(_, s)| s.displaceable())
            .map(|(id, _)| *id);
        match idle.and_then(|id| self.open.remove(&id)) {
            Some(slot) => {
                slot.evict.cancel();
                true
            }
            None => false,
        }
    }
}

/// Counts a request as in progress while it lives.
struct Busy(Arc<AtomicUsize>);

impl Busy {
    fn new(n: &Arc<AtomicUsize>) -> Self {
        n.fetch_add(1, Ordering::AcqRel);
        Self(n.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What the accept loop and every connection task share.
#[derive(Clone)]
struct Shared {
    app: Router,
    stop: CancellationToken,
    table: Arc<Mutex<Table>>,
    /// Told whenever a connection closes (frees a descriptor).
    closed: Arc<tokio::sync::Notify>,
    /// Deadline for a request header (and for an idle keep-alive connection).
    header_timeout: Duration,
    /// The TLS side, when the server speaks TLS.
    tls: Option<tokio_rustls::TlsAcceptor>,
}

/// A connection's place in the [`Table`], as its task holds it.
struct Ticket {
    id: u64,
    evict: CancellationToken,
    busy: Arc<AtomicUsize>,
    receiving: Arc<AtomicUsize>,
}

/// Serve `app` on `listener` until `stop` is cancelled; then stop accepting, let each
/// connection finish its request in progress, and return once all are closed or `grace` is
/// over.
pub async fn serve(
    listener: TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    app: Router,
    limits: Limits,
    stop: CancellationToken,
    grace: Duration,
) {
    let shared = Shared {
        app,
        stop,
        table: Arc::new(Mutex::new(Table::default())),
        closed: Arc::new(tokio::sync::Notify::new()),
        header_timeout: limits.header_timeout,
        tls,
    };
    // Each connection task holds a sender; all are gone when every connection is closed.
    let (alive, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    while let Some((stream, peer)) = accept(&listener, &shared).await {
        let Some(ticket) = admit(&shared.table, limits.max_connections) else {
            tracing::warn!(
                "kpty serve: {} connections are all serving requests; closing {peer}",
                limits.max_connections
            );
            drop(stream);
            continue;
        };
        tokio::spawn(connection(
            stream,
            peer,
            ticket,
            shared.clone(),
            alive.clone(),
        ));
    }
    drop(listener);
    drop(alive);
    // Requests in flight may finish, but not forever (a talk may wait an hour).
    let _ = tokio::time::timeout(grace, all_closed.recv()).await;
}

/// The next connection, or `None` once `stop` is cancelled.
async fn accept(listener: &TcpListener, shared: &Shared) -> Option<(TcpStream, SocketAddr)> {
    loop {
        tokio::select! {
            () = shared.stop.cancelled() => return None,
            r = listener.accept() => match r {
                Ok(x) => {
                    // An answer streamed as SSE leaves in several small writes: without this,
                    // Nagle holds the last one for the client's delayed ACK (~40 ms).
                    if let Err(e) = x.0.set_nodelay(true) {
                        tracing::debug!("kpty serve: TCP_NODELAY not set: {e}");
                    }
                    return Some(x);
                }
                Err(e) => {
                    // Out of descriptors, or a connection reset while queued. Without a pause
                    // the first would spin: wait for a connection to close, briefly.
                    tracing::warn!("kpty serve: accept failed: {e}");
                    let _ = tokio::time::timeout(ACCEPT_RETRY, shared.closed.notified()).await;
                }
            },
        }
    }
}

/// A place in `table` for a new connection when [`Table::make_room`] finds one.
fn admit(table: &Mutex<Table>, max: usize) -> Option<Ticket> {
    let mut t = match table.lock() {
        Ok(t) => t,
        Err(poisoned) => poisoned.into_inner(),
    };
    if !t.make_room(max) {
        return None;
    }
    let id = t.next;
    t.next += 1;
    let slot = Slot {
        evict: CancellationToken::new(),
        busy: Arc::default(),
        receiving: Arc::default(),
    };
    let ticket = Ticket {
        id,
        evict: slot.evict.clone(),
        busy: slot.busy.clone(),
        receiving: slot.receiving.clone(),
    };
    t.open.insert(id, slot);
    Some(ticket)
}

/// Serve one connection (after its TLS handshake, when the server speaks TLS) until it ends or
/// is displaced; then give up its place.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    ticket: Ticket,
    shared: Shared,
    alive: tokio::sync::mpsc::Sender<()>,
) {
    let (id, evict) = (ticket.id, ticket.evict.clone());
    match shared.tls.clone() {
        None => http(stream, peer, ticket, &shared).await,
        Some(tls) => {
            let handshake = tokio::time::timeout(shared.header_timeout, tls.accept(stream));
            tokio::select! {
                r = handshake => match r {
                    Ok(Ok(stream)) => http(stream, peer, ticket, &shared).await,
                    Ok(Err(e)) => tracing::debug!("kpty serve: TLS handshake with {peer}: {e}"),
                    Err(_) => tracing::debug!("kpty serve: TLS handshake with {peer} timed out"),
                },
                () = evict.cancelled() => {}
            }
        }
    }
    if let Ok(mut t) = shared.table.lock() {
        t.open.remove(&id);
    }
    shared.closed.notify_one();
    drop(alive);
}

/// Serve HTTP on one connection with the header timeout, each request counted as busy, until
/// it ends, is displaced, or finishes its request in progress after `stop`.
async fn http<S>(stream: S, peer: SocketAddr, ticket: Ticket, shared: &Shared)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let Ticket {
        evict,
        busy,
        receiving,
        ..
    } = ticket;
    let app = shared.app.clone();
    let body_timeout = shared.header_timeout;
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let req = req
            .map(|b| axum::body::Body::new(super::body::Tracked::new(b, &receiving, body_timeout)));
        let guard = Busy::new(&busy);
        let svc = TowerToHyperService::new(app.clone());
        async move {
            let r = hyper::service::Service::call(&svc, req).await;
            drop(guard);
            r
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(shared.header_timeout);
    // A console WebSocket takes the connection over once upgraded: from then on it is the
    // console's (it needs a login: see `super::console`), outside this table.
    let conn = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    let mut stopping = false;
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!("kpty serve: connection {peer}: {e}");
                }
                break;
            }
            () = evict.cancelled() => {
                tracing::debug!("kpty serve: closing idle connection {peer} to make room");
                break;
            }
            () = shared.stop.cancelled(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_oldest_idle_connection_makes_room() {
        let mut t = Table::default();
        let mut tokens = Vec::new();
        for id in 0..3 {
            let slot = Slot {
                evict: CancellationToken::new(),
                busy: Arc::new(AtomicUsize::new(usize::from(id == 0))),
                receiving: Arc::default(),
            };
            tokens.push(slot.evict.clone());
            t.open.insert(id, slot);
        }
        assert!(t.make_room(4), "under the cap");
        assert!(t.make_room(3));
        assert!(
            !tokens[0].is_cancelled(),
            "a busy connection is never displaced"
        );
        assert!(tokens[1].is_cancelled(), "the oldest idle one is");
        assert_eq!(t.open.len(), 2);
        for s in t.open.values() {
            s.busy.store(1, Ordering::Release);
        }
        assert!(!t.make_room(2), "all busy: no room");
        // A connection whose requests are all still receiving their bodies does no work
        // yet: it makes room (the oldest such one).
        let newest = t.open.keys().last().copied().unwrap();
        t.open[&newest].receiving.store(1, Ordering::Release);
        assert!(t.make_room(2));
        assert!(!t.open.contains_key(&newest));
    }
}
