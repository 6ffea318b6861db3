//! The holder's socket server: one thread per connection, peer uid checked, requests decoded
//! tolerantly (unknown op or version → an error reply, never a panic), answered in order.

use super::session::Shared;
use crate::error::{Cause, Error, ErrorCode};
use crate::proto::{
    Done, Envelope, PROTOCOL_VERSION, ProgressBody, Reply, Request, ResizeBody, frame,
};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Accept connections until the process exits.
pub fn serve(listener: UnixListener, shared: Arc<Shared>) {
    let pool = Arc::new(Pool {
        listener,
        shared,
        accepting: AtomicUsize::new(1),
        me: rustix::process::getuid(),
    });
    pool.accept_loop(true);
}

/// Most threads kept waiting in `accept` for the next connection: enough for a burst of
/// probes (every `list` on the machine at once, each asking every holder) to start no thread.
const IDLE_WORKERS: usize = 8;

/// The threads that serve connections, one connection each at a time, each taking its next
/// connection from `accept` itself (the kernel wakes one waiting thread per connection): a
/// request costs no hand-over between threads, and no thread start while one waits. A
/// thread that takes a connection while no other waits in `accept` first starts one, so a
/// long request (a talk, an attach) never holds up another (a cancel).
struct Pool {
    listener: UnixListener,
    shared: Arc<Shared>,
    /// Threads waiting in `accept` (or about to).
    accepting: AtomicUsize,
    /// This user: the only peer served.
    me: rustix::process::Uid,
}

impl Pool {
    /// Take connections and serve them; the first thread (`forever`) never stops, the others
    /// stop once [`IDLE_WORKERS`] threads already wait.
    fn accept_loop(self: &Arc<Self>, forever: bool) {
        loop {
            // A failed accept (a connection reset before it was taken, no file descriptor
            // left): this thread keeps waiting, as one that never woke.
            let Ok((stream, _)) = self.listener.accept() else {
                continue;
            };
            if self.accepting.fetch_sub(1, Ordering::AcqRel) == 1 {
                self.start_accepter();
            }
            if self.peer_ok(&stream) {
                handle(stream, self.shared.clone());
            }
            let again = self
                .accepting
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (forever || n < IDLE_WORKERS).then_some(n + 1)
                })
                .is_ok();
            if !again {
                return;
            }
        }
    }

    /// Another thread waiting in `accept` (none is started when threads run out: this one
    /// returns to `accept` after its connection).
    fn start_accepter(self: &Arc<Self>) {
        self.accepting.fetch_add(1, Ordering::AcqRel);
        let pool = self.clone();
        let started = std::thread::Builder::new()
            .name("kpty-conn".into())
            .spawn(move || pool.accept_loop(false));
        if let Err(e) = started {
            tracing::warn!("cannot start a connection thread: {e}");
            self.accepting.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Whether the peer is this user.
    fn peer_ok(&self, stream: &UnixStream) -> bool {
        match rustix::net::sockopt::socket_peercred(stream) {
            Ok(cred) if cred.uid == self.me => true,
            Ok(cred) => {
                tracing::warn!("refused a connection from uid {}", cred.uid.as_raw());
                false
            }
            Err(e) => {
                tracing::warn!("cannot check peer credentials: {e}");
                false
            }
        }
    }
}

/// What a request gets: a reply (encoded), or (for `attach` and `follow`) the connection
/// turned into a stream.
enum Answer {
    Reply(Vec<u8>),
    Attach(crate::proto::attach::AttachRequest),
    Follow(crate::proto::follow::FollowRequest),
}

fn handle(mut stream: UnixStream, shared: Arc<Shared>) {
    // A connection counts while a request on it may be pending — from its accept to its
    // first reply, and from each later request to its reply — so that a holder that is
    // exiting still answers a client that connected before the socket went away. Between
    // requests (a client keeping the connection for its next call, as `kpty mcp` does) it
    // does not: an exiting holder does not wait for a call that may never come, and ends
    // the connection when it stops listening ([`end_idle_connections`]), so a kept
    // connection reaches no holder that a new one could not.
    let mut pending = Pending::new(&shared, &stream);
    loop {
        let body = match frame::read_frame(&mut stream) {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => {
                tracing::debug!("connection ended: {e}");
                break;
            }
        };
        pending.count();
        let reply = match answer(&body, &shared, &stream) {
            Answer::Reply(r) => r,
            // The connection is the client's stream from here on.
            Answer::Attach(req) => {
                shared.attach(stream, &req);
                break;
            }
            Answer::Follow(req) => {
                shared.follow(stream, &req);
                break;
            }
        };
        if let Err(e) = frame::write_frame(&mut stream, &reply) {
            tracing::debug!("reply not delivered: {e}");
            break;
        }
        if !pending.uncount() {
            break;
        }
    }
}

/// End the connections that wait for a next request: called once the socket is gone, so
/// that a client keeping one finds it closed, as it would find the socket.
pub(super) fn end_idle_connections(shared: &Shared) {
    let idle = std::mem::take(&mut shared.lock().idle_connections);
    for (_, s) in idle {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
}

/// A connection's place in `State::open_connections` (the calls an exiting holder waits
/// for) and, between requests, in `State::idle_connections` (see [`handle`]).
struct Pending<'s> {
    shared: &'s Shared,
    /// A handle to end the connection with while it waits for a next request (made once).
    handle: Option<Arc<UnixStream>>,
    number: u64,
    counted: bool,
}

impl<'s> Pending<'s> {
    /// A connection just accepted: counted until its first reply.
    fn new(shared: &'s Shared, stream: &UnixStream) -> Self {
        let handle = stream.try_clone().ok().map(Arc::new);
        let mut st = shared.lock();
        st.open_connections += 1;
        let number = st.next_connection;
        st.next_connection += 1;
        Self {
            shared,
            handle,
            number,
            counted: true,
        }
    }

    /// A request came: counted until its reply, and no longer idle.
    fn count(&mut self) {
        if self.counted {
            return;
        }
        let mut st = self.shared.lock();
        st.open_connections += 1;
        let n = self.number;
        st.idle_connections.retain(|(i, _)| *i != n);
        self.counted = true;
    }

    /// Its reply went: idle until the next request, and no longer waited for. False when
    /// the holder's shell has exited (the connection is to end) or it could not be ended
    /// later (no handle).
    fn uncount(&mut self) -> bool {
        self.settle();
        let mut st = self.shared.lock();
        match &self.handle {
            Some(h) if st.exit.is_none() => {
                st.idle_connections.push((self.number, h.clone()));
                true
            }
            _ => false,
        }
    }

    /// No longer counted, waking a holder that waits for its connections.
    fn settle(&mut self) {
        if std::mem::take(&mut self.counted) {
            let mut st = self.shared.lock();
            st.open_connections -= 1;
            if st.exit.is_some() {
                drop(st);
                self.shared.notify();
            }
        }
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.settle();
        let n = self.number;
        self.shared.lock().idle_connections.retain(|(i, _)| *i != n);
    }
}

/// The request in `body`, or the error reply it gets: a malformed envelope or request is
/// `INVALID_PARAMS`, another protocol version says which to use, an unknown op is marked
/// [`Cause::UnknownRequest`] (a newer client then knows this holder is older).
fn decode(body: &[u8]) -> Result<Request, Error> {
    let env: Envelope = match serde_json::from_slice(body) {
        Ok(e) => e,
        Err(e) => {
            // Another version's request may have another shape: say so rather than
            // "malformed".
            #[derive(serde::Deserialize)]
            struct Version {
                v: u32,
            }
            return Err(match serde_json::from_slice::<Version>(body) {
                Ok(Version { v }) if v != PROTOCOL_VERSION => version_mismatch(v),
                _ => Error::new(ErrorCode::InvalidParams, format!("malformed request: {e}")),
            });
        }
    };
    if env.v != PROTOCOL_VERSION {
        return Err(version_mismatch(env.v));
    }
    if env.req == Request::Unknown {
        return Err(Error::new(
            ErrorCode::InvalidParams,
            format!(
                "unknown request: this session's holder (kpty {}) does not know it",
                env!("CARGO_PKG_VERSION")
            ),
        )
        .with_cause(Cause::UnknownRequest));
    }
    Ok(env.req)
}

fn version_mismatch(v: u32) -> Error {
    Error::new(
        ErrorCode::PtyReadFailed,
        format!(
            "this session's holder speaks protocol {PROTOCOL_VERSION} (kpty {}), the client speaks {v}; \
             use the kpty that created the session, or kill and recreate it",
            env!("CARGO_PKG_VERSION"),
        ),
    )
}

fn answer(body: &[u8], shared: &Arc<Shared>, stream: &UnixStream) -> Answer {
    let req = match decode(body) {
        Ok(r) => r,
        Err(e) => return encode(Err::<(), _>(e)),
    };
    match req {
        Request::Attach(a) => Answer::Attach(a),
        Request::Follow(f) => Answer::Follow(f),
        Request::Status => encode(Ok(shared.status())),
        Request::Write(w) => encode(shared.write(&w)),
        Request::Read(r) => encode(Ok(shared.read(
            r.since,
            r.max_bytes,
            r.timeout_ms,
            r.context,
        ))),
        Request::Talk(t) => encode(talk(shared, stream, &t)),
        Request::Cancel(c) => {
            let settle = std::time::Duration::from_millis(c.settle_ms);
            encode(shared.cancel_talk(c.interrupt, settle, c.talk_id.as_deref()))
        }
        Request::Resize(r) => {
            encode(
                shared
                    .resize(r.cols, r.rows)
                    .map(|(cols, rows)| ResizeBody {
                        cols: Some(cols),
                        rows: Some(rows),
                    }),
            )
        }
        Request::Kill(k) => encode(Ok(shared.kill(k.grace_ms))),
        Request::TermRead(t) => encode(shared.term_read(&t)),
        Request::Screen(_) => encode(Ok::<_, crate::error::Error>(shared.screen_cells())),
        Request::WaitFor(w) => {
            let gone = super::wait::watch_hangup(shared, stream);
            let r = shared.wait_for(&w, gone.as_deref());
            shared.record_mark(&super::wait::marker(&w, &r));
            encode(r)
        }
        Request::Spec => encode(
            shared
                .spec
                .get()
                .map(super::shell_spec)
                .ok_or_else(|| Error::internal("this holder kept no launch spec")),
        ),
        Request::SetLabel(l) => encode(shared.set_label(l.label).map(|()| Done {})),
        Request::RecordSync(r) => encode(
            shared
                .record_sync(std::time::Duration::from_millis(r.timeout_ms.min(10_000)))
                .map(|()| Done {}),
        ),
        // Refused by `decode`.
        Request::Unknown => encode(Err::<(), _>(Error::internal("unknown request"))),
    }
}

/// A typed reply (`Reply<T>`), encoded for its frame.
fn encode<T: serde::Serialize>(r: crate::error::Result<T>) -> Answer {
    let reply = match r {
        Ok(b) => serde_json::to_vec(&Reply::ok(b)),
        Err(e) => serde_json::to_vec(&Reply::<()>::err(e)),
    };
    Answer::Reply(reply.unwrap_or_else(|e| {
        let e = Error::internal(format!("the reply could not be encoded: {e}"));
        serde_json::to_vec(&Reply::<()>::err(e)).unwrap_or_default()
    }))
}

/// Run a talk; progress frames go out on a clone of the connection (a failed write means
/// the client is gone, and the talk stops waiting for it).
fn talk(
    shared: &Arc<Shared>,
    stream: &UnixStream,
    t: &crate::proto::TalkRequest,
) -> crate::error::Result<crate::proto::TalkBody> {
    let mut out = t.progress_ms.and_then(|_| stream.try_clone().ok());
    let mut send = |p: &ProgressBody| {
        let Some(s) = out.as_mut() else { return false };
        serde_json::to_vec(&Reply::progress(p)).is_ok_and(|b| frame::write_frame(s, &b).is_ok())
    };
    let progress = t.progress_ms.map(|ms| {
        (
            std::time::Duration::from_millis(ms.max(50)),
            &mut send as &mut dyn FnMut(&ProgressBody) -> bool,
        )
    });
    let by = super::record::writer_name(t.by.as_deref());
    shared.record_mark(&format!(
        "talk by {by}: {}",
        crate::safety::redact::redact(&t.command)
    ));
    let r = shared.talk(t, progress, Some(stream));
    shared.record_mark(&match &r {
        Ok(b) => format!(
            "talk done: {} in {} ms",
            b.exit_code
                .map_or_else(|| "no exit code".into(), |c| format!("exit {c}")),
            b.duration_ms
        ),
        Err(e) => format!("talk failed: {}", e.code.as_str()),
    });
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(wire: &str) -> Error {
        decode(wire.as_bytes()).expect_err(wire)
    }

    #[test]
    fn an_unknown_op_is_an_unknown_request_error() {
        for op in ["teleport", "status2", "", "STATUS"] {
            let e = refused(&format!(r#"{{"v":1,"req":{{"op":"{op}","x":1}}}}"#));
            assert_eq!(e.code, ErrorCode::InvalidParams);
            assert_eq!(e.cause, Some(Cause::UnknownRequest), "{op}");
        }
    }

    #[test]
    fn a_malformed_known_request_is_invalid_params_without_the_unknown_cause() {
        for wire in [
            r#"{"v":1,"req":{"op":"write"}}"#,
            r#"{"v":1,"req":{"op":"resize","cols":"wide","rows":1}}"#,
            r#"{"v":1}"#,
            "not json",
        ] {
            let e = refused(wire);
            assert_eq!(e.code, ErrorCode::InvalidParams, "{wire}");
            assert_eq!(e.cause, None, "{wire}");
        }
    }

    #[test]
    fn another_version_is_told_which_to_speak() {
        for wire in [
            r#"{"v":99,"req":{"op":"status"}}"#,
            // A later version's request may have a shape this one cannot read.
            r#"{"v":2,"req":{"verb":"status"}}"#,
        ] {
            let e = refused(wire);
            assert_eq!(e.code, ErrorCode::PtyReadFailed, "{wire}");
            assert!(e.message.contains("speaks protocol 1"), "{}", e.message);
        }
        assert_eq!(
            decode(br#"{"v":1,"req":{"op":"status","new_field":true}}"#).unwrap(),
            Request::Status
        );
    }
}
