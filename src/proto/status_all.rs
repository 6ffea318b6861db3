//! Many holders asked how they are at once, on one thread: every socket connected
//! non-blocking, every `status` request sent, the answers read as they arrive (`poll(2)`),
//! one deadline for them all. `list` probes every session this way: a thread per holder cost
//! more than the answers, and a hung holder costs the list no more than the deadline.

use super::client::{self, Unreachable};
use super::{Call, MAX_FRAME, StatusBody, StatusRequest};
use crate::error::{Error, ErrorCode};
use rustix::event::{PollFd, PollFlags};
use rustix::fd::OwnedFd;
use rustix::io::Errno;
use rustix::net::{AddressFamily, SendFlags, SocketAddrUnix, SocketFlags, SocketType};
use std::path::Path;
use std::time::{Duration, Instant};

/// Sockets open at once (a process's descriptor limit is often 1024); the rest wait for a
/// free place.
const IN_FLIGHT: usize = 256;
/// How often a connect refused for a full backlog (a stopped holder) is tried again.
const RETRY: Duration = Duration::from_millis(10);

/// One holder's answer, or why there is none.
pub type Answer = Result<StatusBody, Unreachable>;

/// Where one exchange stands.
enum Phase {
    /// The listener's backlog was full: connect again.
    Connecting,
    /// Connected; this many bytes of the request are sent.
    Sending(usize),
    /// The request is sent; the reply read so far is in the buffer.
    Reading,
}

struct Probe<'a> {
    index: usize,
    socket: &'a Path,
    fd: OwnedFd,
    addr: SocketAddrUnix,
    phase: Phase,
    buf: Vec<u8>,
}

/// What one step of an exchange came to.
enum Step {
    /// Waiting for the socket (the events to wait for; none while connecting).
    Wait(PollFlags),
    /// Over.
    Done(Box<Answer>),
}

/// The `status` of the holder on each of `sockets`, in their order; every exchange ends by
/// `timeout` (a holder that has not answered by then is `PTY_TIMEOUT`).
pub fn status_all(sockets: &[&Path], timeout: Duration) -> Vec<Answer> {
    let deadline = Instant::now() + timeout;
    let mut request = Vec::new();
    let sent = client::send(&mut request, &StatusRequest.into_request());
    let mut answers: Vec<Option<Answer>> = sockets.iter().map(|_| None).collect();
    if let Err(e) = sent {
        return answers
            .iter()
            .map(|_| Err(Unreachable::Other(e.clone())))
            .collect();
    }
    let mut next = 0;
    let mut live: Vec<(Probe, PollFlags)> = Vec::new();
    loop {
        while live.len() < IN_FLIGHT && next < sockets.len() {
            match start(next, sockets[next]) {
                Ok(p) => live.push((p, PollFlags::empty())),
                Err(e) => answers[next] = Some(Err(connect_failed(sockets[next], e))),
            }
            next += 1;
        }
        live.retain_mut(|(p, wait)| {
            if !wait.is_empty() {
                return true;
            }
            match step(p, &request) {
                Step::Wait(w) => {
                    *wait = w;
                    true
                }
                Step::Done(a) => {
                    answers[p.index] = Some(*a);
                    false
                }
            }
        });
        if (live.is_empty() && next >= sockets.len()) || Instant::now() >= deadline {
            break;
        }
        wait(&mut live, deadline);
    }
    answers
        .into_iter()
        .map(|a| a.unwrap_or_else(|| Err(Unreachable::Other(client::timed_out()))))
        .collect()
}

/// Wait until one of `live` can go on, one of them must connect again, or `deadline`; each
/// that can go on is marked with no events to wait for (so only those take a step).
fn wait(live: &mut [(Probe, PollFlags)], deadline: Instant) {
    let connecting = live.iter().any(|(_, w)| w.is_empty());
    let until = if connecting {
        deadline.min(Instant::now() + RETRY)
    } else {
        deadline
    };
    let mut fds: Vec<PollFd> = live
        .iter()
        .filter(|(_, w)| !w.is_empty())
        .map(|(p, w)| PollFd::new(&p.fd, *w))
        .collect();
    // An error here (none is expected) only means each socket is tried again.
    let polled = crate::eintr::poll_until(&mut fds, until);
    let ready: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
    drop(fds);
    let mut ready = ready.into_iter();
    for (_, w) in live.iter_mut().filter(|(_, w)| !w.is_empty()) {
        if polled.is_err() || ready.next().unwrap_or(true) {
            *w = PollFlags::empty();
        }
    }
}

/// A non-blocking socket for the holder on `socket`, connected (or to connect again).
fn start(index: usize, socket: &Path) -> rustix::io::Result<Probe<'_>> {
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )?;
    let addr = SocketAddrUnix::new(socket)?;
    Ok(Probe {
        index,
        socket,
        fd,
        addr,
        phase: Phase::Connecting,
        buf: Vec::new(),
    })
}

/// Take `p` as far as it goes without waiting.
fn step(p: &mut Probe, request: &[u8]) -> Step {
    loop {
        let went = match p.phase {
            Phase::Connecting => connect(p),
            Phase::Sending(n) => send(p, &request[n..]).map(|m| {
                p.phase = match n + m {
                    all if all >= request.len() => {
                        // The request is whole: nothing more goes this way (see
                        // `Call::HALF_CLOSE`); a holder gone already is found by the read.
                        let _ = rustix::net::shutdown(&p.fd, rustix::net::Shutdown::Write);
                        Phase::Reading
                    }
                    part => Phase::Sending(part),
                };
            }),
            Phase::Reading => return read(p),
        };
        match went {
            Ok(()) => {}
            Err(Errno::AGAIN) => return Step::Wait(waits_for(&p.phase)),
            Err(Errno::INTR) => {}
            Err(e) => return Step::Done(Box::new(Err(failed(p, e)))),
        }
    }
}

fn waits_for(phase: &Phase) -> PollFlags {
    match phase {
        Phase::Connecting => PollFlags::empty(),
        Phase::Sending(_) => PollFlags::OUT,
        Phase::Reading => PollFlags::IN,
    }
}

/// Connect `p` (a Unix socket's connect is done at once, or refused for a full backlog).
fn connect(p: &mut Probe) -> rustix::io::Result<()> {
    match rustix::net::connect(&p.fd, &p.addr) {
        Ok(()) | Err(Errno::ISCONN) => {
            p.phase = Phase::Sending(0);
            Ok(())
        }
        Err(Errno::INPROGRESS | Errno::ALREADY) => Err(Errno::AGAIN),
        Err(e) => Err(e),
    }
}

fn send(p: &Probe, rest: &[u8]) -> rustix::io::Result<usize> {
    rustix::net::send(&p.fd, rest, SendFlags::NOSIGNAL)
}

/// Read what has come; done once a whole reply frame is in.
fn read(p: &mut Probe) -> Step {
    let mut chunk = [0u8; 4096];
    loop {
        match rustix::io::read(&p.fd, &mut chunk) {
            Ok(0) => return Step::Done(Box::new(Err(Unreachable::Other(closed())))),
            Ok(n) => p.buf.extend_from_slice(&chunk[..n]),
            Err(Errno::INTR) => continue,
            Err(Errno::AGAIN) => return Step::Wait(PollFlags::IN),
            Err(e) => return Step::Done(Box::new(Err(failed(p, e)))),
        }
        if let Some(answer) = reply(&p.buf) {
            return Step::Done(Box::new(answer.map_err(Unreachable::Other)));
        }
    }
}

/// The answer in `buf` once it holds a whole frame (or a length over the limit).
fn reply(buf: &[u8]) -> Option<crate::error::Result<StatusBody>> {
    let len = u32::from_be_bytes(buf.get(..4)?.try_into().ok()?) as usize;
    if len <= MAX_FRAME && buf.len() < 4 + len {
        return None;
    }
    // The whole frame, read again by the one decoder (a length over the limit fails there).
    Some(match client::next_reply(&mut &buf[..]) {
        Ok(Some(r)) if !r.progress => client::into_result::<StatusRequest>(r),
        Ok(_) => Err(Error::new(
            ErrorCode::PtyReadFailed,
            "the session holder answered a status request with progress",
        )),
        Err(e) => Err(e),
    })
}

/// A failed exchange as the blocking client reports it.
fn failed(p: &Probe, e: Errno) -> Unreachable {
    match p.phase {
        Phase::Connecting => connect_failed(p.socket, e),
        Phase::Sending(_) => Unreachable::Other(client::io_err("send a request to", e.into())),
        Phase::Reading => Unreachable::Other(client::io_err("read the reply of", e.into())),
    }
}

/// A connect that failed: nothing there (`Gone`), or another trouble.
fn connect_failed(socket: &Path, e: Errno) -> Unreachable {
    let e = std::io::Error::from(e);
    match e.kind() {
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
    }
}

fn closed() -> Error {
    Error::new(
        ErrorCode::PtyReadFailed,
        "the session holder closed the connection without replying (it may have just exited)",
    )
}

#[cfg(test)]
#[path = "status_all_tests.rs"]
mod tests;
