//! The blocking client side: connect to a holder's socket, send one request, read the reply,
//! every step bounded by a deadline.

use super::{Call, Envelope, PROTOCOL_VERSION, ProgressBody, Reply, Request, frame};
use crate::error::{Error, ErrorCode, Result};
use serde_json::value::RawValue;
use std::io::{Read, Write};
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
    let s = connect_within(socket, io_timeout).map_err(|e| unreachable(socket, e))?;
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

/// Why connecting to `socket` failed with `e`.
fn unreachable(socket: &Path, e: std::io::Error) -> Unreachable {
    match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
            Unreachable::Gone(e)
        }
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            Unreachable::Other(timed_out())
        }
        _ => Unreachable::Other(Error::new(
            ErrorCode::PtyReadFailed,
            format!(
                "cannot connect to the session holder at {}: {e}",
                socket.display()
            ),
        )),
    }
}

/// Connect without waiting, for an event loop: the stream is non-blocking, with no timeouts
/// of its own. `Ok(None)` when the listener's queue is full (a stopped holder): then only
/// [`connect`], which waits, can tell.
pub fn connect_at_once(socket: &Path) -> std::result::Result<Option<UnixStream>, Unreachable> {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )
    .map_err(|e| unreachable(socket, e.into()))?;
    let addr = SocketAddrUnix::new(socket).map_err(|e| unreachable(socket, e.into()))?;
    loop {
        match rustix::net::connect(&fd, &addr) {
            Ok(()) | Err(rustix::io::Errno::ISCONN) => return Ok(Some(UnixStream::from(fd))),
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => return Ok(None),
            Err(e) => return Err(unreachable(socket, e.into())),
        }
    }
}

/// Connect to the Unix socket at `path`, waiting at most `timeout` (`std`'s connect waits
/// without end while the listener's backlog is full: a stopped holder, or a socket that is
/// listened on and never accepted from). The kernel bounds a Unix `connect(2)` by the
/// socket's send timeout, set before it; running out is `WouldBlock`.
pub fn connect_within(path: &Path, timeout: Duration) -> std::io::Result<UnixStream> {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType, sockopt};
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )?;
    let deadline = Instant::now() + timeout.max(Duration::from_millis(1));
    let addr = SocketAddrUnix::new(path)?;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        sockopt::set_socket_timeout(&fd, sockopt::Timeout::Send, Some(left))?;
        match rustix::net::connect(&fd, &addr) {
            Ok(()) | Err(rustix::io::Errno::ISCONN) => break,
            // Interrupted by a signal: the connection may go on; ask again.
            Err(rustix::io::Errno::INTR | rustix::io::Errno::ALREADY) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(UnixStream::from(fd))
}

/// Send `req` over `stream` and return its typed reply body (or the holder's error), handing
/// each intermediate progress frame's body to `on_progress`. The whole exchange is bounded by
/// `deadline`: every single read and write waits only for what is left of it, so a stopped
/// holder, or one that sends a frame a byte at a time, costs the caller no more than its own
/// deadline.
pub fn call_until<C: Call>(
    stream: &mut UnixStream,
    req: C,
    deadline: Instant,
    on_progress: &mut dyn FnMut(ProgressBody),
) -> Result<C::Reply> {
    call_woken(stream, req, deadline, on_progress, None)
}

/// What else a call watches while it waits for its reply: a descriptor that becomes
/// readable (the CLI's signals, written to a socket by their handler), and what to do then,
/// on the waiting thread, before waiting on. `on_wake` must drain the descriptor.
#[derive(Clone, Copy)]
pub struct Wake<'a> {
    /// Readable when something happened.
    pub fd: std::os::fd::BorrowedFd<'a>,
    /// Called on the waiting thread each time `fd` is readable.
    pub on_wake: &'a dyn Fn(),
}

/// [`call_until`], calling `wake`'s `on_wake` whenever its descriptor is readable while the
/// reply is awaited (the wait goes on until the reply or the deadline).
pub fn call_woken<C: Call>(
    stream: &mut UnixStream,
    req: C,
    deadline: Instant,
    on_progress: &mut dyn FnMut(ProgressBody),
    wake: Option<Wake<'_>>,
) -> Result<C::Reply> {
    let mut bounded = Bounded {
        stream,
        deadline,
        wake,
    };
    send(&mut bounded, &req.into_request())?;
    if C::HALF_CLOSE {
        // Nothing more goes this way (see `Call::HALF_CLOSE`); a holder that already hung up
        // is found by the read that follows.
        let _ = bounded.stream.shutdown(std::net::Shutdown::Write);
    }
    loop {
        if let Some(answer) = answer::<C>(next_reply(&mut bounded)?, on_progress)? {
            return Ok(answer);
        }
    }
}

/// What one reply frame read for a call of `C` says (`None` from [`next_reply`]: the holder
/// hung up): a progress body, handed to `on_progress` (then `Ok(None)`: read on), or the
/// call's answer, or the holder's error.
pub fn answer<C: Call>(
    reply: Option<Reply>,
    on_progress: &mut dyn FnMut(ProgressBody),
) -> Result<Option<C::Reply>> {
    let reply = reply.ok_or_else(|| {
        Error::new(
            ErrorCode::PtyReadFailed,
            "the session holder closed the connection without replying (it may have just exited)",
        )
    })?;
    if reply.progress {
        on_progress(decode_body(reply.body.as_deref(), "talk progress")?);
        return Ok(None);
    }
    into_result::<C>(reply).map(Some)
}

/// `req` as the frame [`send`] writes.
pub fn request_frame(req: &Request) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    send(&mut out, req)?;
    Ok(out)
}

/// A stream whose every read and write waits at most until `deadline` (then `TimedOut`).
struct Bounded<'a> {
    /// The connection.
    pub stream: &'a mut UnixStream,
    /// When every operation gives up.
    pub deadline: Instant,
    /// Watched while a read waits.
    pub wake: Option<Wake<'a>>,
}

impl Bounded<'_> {
    /// What is left of the deadline (`TimedOut` when nothing is).
    fn left(&self) -> std::io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        Ok(left)
    }
}

impl Read for Bounded<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.wake.is_some() {
            self.wait_readable()?;
            return self.stream.read(buf);
        }
        // Only the direction about to be used is armed: one system call, not two.
        self.stream.set_read_timeout(Some(self.left()?))?;
        self.stream.read(buf)
    }
}

impl Bounded<'_> {
    /// Wait (`poll(2)`, to the deadline) until the connection has something to read, doing
    /// the wake's work each time its descriptor is readable meanwhile.
    fn wait_readable(&mut self) -> std::io::Result<()> {
        use rustix::event::{PollFd, PollFlags};
        while let Some(wake) = self.wake {
            self.left()?;
            let mut fds = [
                PollFd::new(&*self.stream, PollFlags::IN),
                PollFd::from_borrowed_fd(wake.fd, PollFlags::IN),
            ];
            if crate::eintr::poll_until(&mut fds, self.deadline)? == 0 {
                return Err(std::io::ErrorKind::TimedOut.into());
            }
            let (conn, woken) = (fds[0].revents(), fds[1].revents());
            if woken.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) {
                // Nothing can write to the wake's descriptor any more (its other end closed, or
                // it broke): wait on the connection alone, rather than be woken for ever.
                self.wake = None;
            } else if woken.contains(PollFlags::IN) {
                (wake.on_wake)();
            }
            if !conn.is_empty() {
                return Ok(());
            }
        }
        self.stream.set_read_timeout(Some(self.left()?))
    }
}

impl Write for Bounded<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        self.stream.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

/// Send `req` (bounded by the stream's own timeouts, or a `Bounded` deadline).
pub fn send(stream: &mut impl Write, req: &Request) -> Result<()> {
    let env = Envelope {
        v: PROTOCOL_VERSION,
        req,
    };
    let body = serde_json::to_vec(&env).map_err(|e| Error::internal(e.to_string()))?;
    frame::write_frame(stream, &body).map_err(|e| io_err("send a request to", e))
}

/// The next reply frame on `stream` (bounded by its read timeout, or a `Bounded`
/// deadline); `None` when the holder closed the connection.
pub fn next_reply(stream: &mut impl Read) -> Result<Option<Reply>> {
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

/// A reply's body decoded into the reply type of `C`, or the holder's error.
pub fn into_result<C: Call>(reply: Reply) -> Result<C::Reply> {
    if reply.ok {
        decode_body(reply.body.as_deref(), C::OP)
    } else {
        Err(reply.error.unwrap_or_else(|| {
            Error::new(
                ErrorCode::PtyReadFailed,
                "the session holder failed without saying why",
            )
        }))
    }
}

/// The one decoding policy for reply bodies: a body that is not the reply type (or is
/// missing) is `PTY_READ_FAILED` naming the request. Fields an older holder may leave out
/// are `#[serde(default)]` on the body types, so only a body of another shape fails.
fn decode_body<B: serde::de::DeserializeOwned>(body: Option<&RawValue>, op: &str) -> Result<B> {
    serde_json::from_str(body.map_or("null", RawValue::get)).map_err(|e| {
        Error::new(
            ErrorCode::PtyReadFailed,
            format!("malformed {op} reply from the session holder: {e}"),
        )
    })
}

/// Connect, call, close.
pub fn call<C: Call>(
    socket: &Path,
    req: C,
    io_timeout: Duration,
) -> std::result::Result<C::Reply, Unreachable> {
    let deadline = Instant::now() + io_timeout;
    let mut s = connect(socket, io_timeout)?;
    call_until(&mut s, req, deadline, &mut |_| {}).map_err(Unreachable::Other)
}

/// The holder did not answer before the caller's deadline.
pub(crate) fn timed_out() -> Error {
    Error::new(
        ErrorCode::PtyTimeout,
        "the session holder did not answer within the call's timeout",
    )
    .with_hint(crate::error::Hint::HolderStopped)
}

/// A failed exchange; a read or write that ran into the deadline is `PTY_TIMEOUT`.
pub(crate) fn io_err(what: &str, e: std::io::Error) -> Error {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketType};

    /// A socket listened on (a backlog of 0) that nobody accepts from: its folder, its path,
    /// and the listener to keep.
    fn never_accepting() -> (tempfile::TempDir, std::path::PathBuf, std::os::fd::OwnedFd) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let l = rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None).unwrap();
        rustix::net::bind(&l, &SocketAddrUnix::new(&path).unwrap()).unwrap();
        rustix::net::listen(&l, 0).unwrap();
        (dir, path, l)
    }

    #[test]
    fn a_full_backlog_ends_the_connect_at_its_timeout() {
        let (_dir, path, _l) = never_accepting();
        // Nobody accepts: after the queue fills, every connect gives up (WouldBlock).
        let mut kept = Vec::new();
        let mut refused = 0;
        for _ in 0..4 {
            match connect_within(&path, Duration::from_millis(50)) {
                Ok(s) => kept.push(s),
                Err(e) => {
                    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}");
                    refused += 1;
                }
            }
        }
        assert!(refused >= 2, "{} connected", kept.len());
        // And a call through it is PTY_TIMEOUT, not a hang.
        let Err(Unreachable::Other(e)) = call(
            &path,
            crate::proto::StatusRequest,
            Duration::from_millis(50),
        ) else {
            panic!("a full backlog must time out");
        };
        assert_eq!(e.code, ErrorCode::PtyTimeout);
    }

    #[test]
    fn connecting_at_once_never_waits() {
        // A full backlog is `None` at once (the caller then waits elsewhere); a socket nobody
        // listens on is the holder gone; one that accepts is a non-blocking stream.
        let (dir, path, _l) = never_accepting();
        let mut kept = Vec::new();
        let full = loop {
            match connect_at_once(&path) {
                Ok(Some(s)) => kept.push(s),
                Ok(None) => break true,
                Err(_) => break false,
            }
            assert!(kept.len() < 64, "the backlog never filled");
        };
        assert!(full, "a full backlog is None");
        let first = kept.first().expect("one queued");
        let mut buf = [0u8; 1];
        let e = (&*first).read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "non-blocking");
        assert!(matches!(
            connect_at_once(&dir.path().join("none")),
            Err(Unreachable::Gone(_))
        ));
    }

    #[test]
    fn a_reply_dribbled_a_byte_at_a_time_ends_at_the_deadline() {
        let (mut a, b) = UnixStream::pair().unwrap();
        // The peer announces a 1000-byte reply and sends it a byte every 20 ms (a reset
        // timeout per read would wait 20 s): the call gives up at its deadline.
        std::thread::spawn(move || {
            let mut b = b;
            let _ = b.write_all(&1000u32.to_be_bytes());
            for _ in 0..1000 {
                if b.write_all(b" ").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let deadline = Instant::now() + Duration::from_millis(150);
        let e = call_until(&mut a, crate::proto::StatusRequest, deadline, &mut |_| {}).unwrap_err();
        assert_eq!(e.code, ErrorCode::PtyTimeout);
    }
}
