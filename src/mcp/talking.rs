//! `kpty mcp`'s talks, waited for on its own event loop ([`OnLoop`]): the talk's flow is the
//! core's ([`crate::core::converse`]), and only the exchange with the holder — one request
//! frame out, progress frames and the answer in — is asynchronous, so a talk costs the server
//! no hand-off to another thread and back. The frames are the holder protocol's, read and
//! decoded by the same code as the blocking client's ([`client::next_reply`],
//! [`client::answer`]).
//!
//! A connection whose talk was answered is kept for the next talk in its session (a holder
//! serves any number of requests on one connection, one after the other): the next call
//! costs no socket, connect, accept or close on either side. A kept connection found closed
//! (its holder exited) is dropped and a new one made, as for a first call; one that fails
//! mid-call, times out or is cancelled is never kept.

use super::holder_conn::HolderConn;
use crate::bridge::Talked;
use crate::core::converse::{Converse, Sink};
use crate::core::running::Running;
use crate::core::{Ctx, sessions};
use crate::error::{Error, Result};
use crate::proto::{Call, TalkBody, TalkRequest, client, frame};
use crate::store::RegistryEntry;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Talks that wait on the calling task's event loop (a tokio runtime's), with the
/// connections kept from answered talks (shared by clones).
#[derive(Clone, Default)]
pub struct OnLoop {
    idle: Arc<Mutex<Vec<Kept>>>,
}

/// A connection kept after an answered talk: its session (state directory and id) and the
/// stream, registered with the loop that made it.
struct Kept {
    key: (PathBuf, String),
    stream: HolderConn,
}

/// Most connections kept at once (one per session talked to; the oldest goes first).
const KEEP: usize = 64;

impl OnLoop {
    /// A kept connection to the holder of session `key`, still open on the holder's side.
    fn reuse(&self, key: &(PathBuf, String)) -> Option<HolderConn> {
        let stream = {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            let at = idle.iter().position(|k| k.key == *key)?;
            idle.swap_remove(at).stream
        };
        (!stream.hung_up()).then_some(stream)
    }

    /// Keep `stream`, whose talk was answered, for the next talk in session `key`.
    fn keep(&self, key: (PathBuf, String), stream: HolderConn) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() >= KEEP {
            idle.remove(0);
        }
        idle.push(Kept { key, stream });
    }

    /// A new connection to the holder of `e`, on the loop's reactor.
    async fn connect(ctx: &Ctx, e: &RegistryEntry, io_timeout: Duration) -> Result<HolderConn> {
        let stream = match sessions::connect_at_once(ctx, e)? {
            Some(s) => s,
            // The holder's queue is full (a stopped holder): its wait, to the deadline, on
            // the pool rather than this loop.
            None => {
                let (ctx, e) = (ctx.clone(), e.clone());
                let waited =
                    tokio::task::spawn_blocking(move || sessions::connect(&ctx, &e, io_timeout));
                waited
                    .await
                    .unwrap_or_else(|j| Err(Error::internal(format!("connecting panicked: {j}"))))?
            }
        };
        HolderConn::new(stream).map_err(|e| client::io_err("set up the connection to", e))
    }
}

impl Converse for OnLoop {
    async fn local<'a>(
        &'a self,
        ctx: &'a Ctx,
        e: &'a RegistryEntry,
        req: TalkRequest,
        io_timeout: Duration,
        sink: Sink<'a>,
        // No wake-up to watch: this front end cancels with `Running::stop` from another task.
        _running: &'a Running,
    ) -> Result<TalkBody> {
        let started = jiff::Timestamp::now();
        let deadline = tokio::time::Instant::now() + io_timeout;
        let key = (ctx.state.path().to_path_buf(), e.session_id.clone());
        let stream = match self.reuse(&key) {
            Some(s) => s,
            None => Self::connect(ctx, e, io_timeout).await?,
        };
        let talked =
            tokio::time::timeout_at(deadline, exchange(&stream, req, sink, deadline)).await;
        let answer = talked
            .unwrap_or_else(|_| Err(client::timed_out()))
            .map_err(|err| sessions::call_failed(ctx, e, started, err))?;
        self.keep(key, stream);
        Ok(answer)
    }

    fn bridged<'a>(
        &'a self,
        e: &'a RegistryEntry,
        req: &'a TalkRequest,
    ) -> impl Future<Output = Result<Talked>> + Send + 'a {
        // The bridge's client blocks: on the runtime's pool, not on its loop.
        let (e, req) = (e.clone(), req.clone());
        async move {
            tokio::task::spawn_blocking(move || crate::bridge::talk(&e, &req))
                .await
                .unwrap_or_else(|j| Err(Error::internal(format!("bridged talk panicked: {j}"))))
        }
    }
}

/// Send `req` over `stream` and read frames until its answer. The connection stays open for
/// writing: the holder then waits on it for a next request, which a kept connection sends.
async fn exchange(
    s: &HolderConn,
    req: TalkRequest,
    sink: Sink<'_>,
    deadline: tokio::time::Instant,
) -> Result<TalkBody> {
    let frame = client::request_frame(&req.into_request())?;
    let sent = s.write_all(&frame, deadline).await;
    sent.map_err(|e| client::io_err("send a request to", e))?;
    let mut buf = Vec::new();
    loop {
        let reply = match read_frame(s, &mut buf).await {
            Ok(false) => None,
            Ok(true) => client::next_reply(&mut &buf[..])?,
            Err(e) => return Err(client::io_err("read the reply of", e)),
        };
        if let Some(answer) = client::answer::<TalkRequest>(reply, &mut *sink)? {
            return Ok(answer);
        }
    }
}

/// Read one whole frame (its length prefix too) into `buf`; false on a clean end before it.
async fn read_frame(s: &HolderConn, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut len = [0u8; 4];
    match s.read_exact(&mut len).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(false),
        Err(e) => return Err(e),
    }
    let n = frame::body_len(len)?;
    buf.clear();
    buf.extend_from_slice(&len);
    buf.resize(4 + n, 0);
    s.read_exact(&mut buf[4..]).await?;
    Ok(true)
}
