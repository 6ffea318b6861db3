//! The blocking client side: connect to a holder's socket, send one request, read the reply,
//! every step bounded by a deadline.

use super::{Envelope, PROTOCOL_VERSION, Reply, Request, frame};
use crate::error::{Error, ErrorCode, Result};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// Why a holder could not be reached.
#[derive(Debug)]
pub enum Unreachable {
    /// No socket file, or nothing listening on it (the holder is gone).
    Gone(std::io::Error),
    /// Something else (permissions, timeouts, protocol).
    Other(Error),
}

/// Connect with a deadline on every later read and write.
pub fn connect(
    socket: &Path,
    io_timeout: Duration,
) -> std::result::Result<UnixStream, Unreachable> {
    let s = UnixStream::connect(socket).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
            Unreachable::Gone(e)
        }
        _ => Unreachable::Other(Error::new(
            ErrorCode::PtyReadFailed,
            format!(
                "cannot connect to the session holder at {}: {e}",
                socket.display()
            ),
        )),
    })?;
    let t = Some(io_timeout.max(Duration::from_millis(1)));
    s.set_read_timeout(t)
        .and_then(|_| s.set_write_timeout(t))
        .map_err(|e| {
            Unreachable::Other(Error::new(
                ErrorCode::PtyReadFailed,
                format!("socket setup failed: {e}"),
            ))
        })?;
    Ok(s)
}

/// A frame that started arriving just before the deadline may still finish within this.
const FRAME_GRACE: Duration = Duration::from_millis(250);

/// Send `req` over `stream` and return the reply body (or the holder's error), handing each
/// intermediate progress frame's body to `on_progress`. The whole exchange is bounded by
/// `deadline`: every read waits only for what is left of it (a frame already arriving gets a
/// short grace), so a stopped or stalled holder costs the caller no more than its own timeout.
pub fn call_until(
    stream: &mut UnixStream,
    req: &Request,
    deadline: Instant,
    on_progress: &mut dyn FnMut(serde_json::Value),
) -> Result<serde_json::Value> {
    let bound = |s: &UnixStream| -> Result<()> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        let t = Some(left.max(FRAME_GRACE));
        s.set_read_timeout(t)
            .and_then(|_| s.set_write_timeout(t))
            .map_err(|e| {
                Error::new(
                    ErrorCode::PtyReadFailed,
                    format!("socket setup failed: {e}"),
                )
            })
    };
    bound(stream)?;
    send(stream, req)?;
    loop {
        bound(stream)?;
        let reply = next_reply(stream)?.ok_or_else(|| {
            Error::new(
                ErrorCode::PtyReadFailed,
                "the session holder closed the connection without replying (it may have just exited)",
            )
        })?;
        if reply.progress {
            on_progress(reply.body);
            continue;
        }
        return into_result(reply);
    }
}

/// Send `req` (bounded by the stream's own timeouts).
pub fn send(stream: &mut UnixStream, req: &Request) -> Result<()> {
    let env = Envelope {
        v: PROTOCOL_VERSION,
        req: serde_json::to_value(req).map_err(|e| Error::internal(e.to_string()))?,
    };
    let body = serde_json::to_vec(&env).map_err(|e| Error::internal(e.to_string()))?;
    frame::write_frame(stream, &body).map_err(|e| io_err("send a request to", e))
}

/// The next reply frame on `stream` (bounded by its read timeout); `None` when the holder
/// closed the connection.
pub fn next_reply(stream: &mut UnixStream) -> Result<Option<Reply>> {
    let Some(frame) = frame::read_frame(stream).map_err(|e| io_err("read the reply of", e))? else {
        return Ok(None);
    };
    serde_json::from_slice(&frame).map(Some).map_err(|e| {
        Error::new(
            ErrorCode::PtyReadFailed,
            format!("malformed reply from the session holder: {e}"),
        )
    })
}

/// A reply's body, or the holder's error.
pub fn into_result(reply: Reply) -> Result<serde_json::Value> {
    if reply.ok {
        Ok(reply.body)
    } else {
        Err(reply.error.unwrap_or_else(|| {
            Error::new(
                ErrorCode::PtyReadFailed,
                "the session holder failed without saying why",
            )
        }))
    }
}

/// Connect, call, close.
pub fn call(
    socket: &Path,
    req: &Request,
    io_timeout: Duration,
) -> std::result::Result<serde_json::Value, Unreachable> {
    let deadline = Instant::now() + io_timeout;
    let mut s = connect(socket, io_timeout)?;
    call_until(&mut s, req, deadline, &mut |_| {}).map_err(Unreachable::Other)
}

/// The holder did not answer before the caller's deadline.
fn timed_out() -> Error {
    Error::new(
        ErrorCode::PtyTimeout,
        "the session holder did not answer within the call's timeout",
    )
    .with_hint(crate::error::Hint::HolderStopped)
}

/// A failed exchange; a read or write that ran into the deadline is `PTY_TIMEOUT`.
fn io_err(what: &str, e: std::io::Error) -> Error {
    if matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    ) {
        return timed_out();
    }
    Error::new(
        ErrorCode::PtyReadFailed,
        format!("could not {what} the session holder: {e}"),
    )
}
