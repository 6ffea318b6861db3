//! The channel to a host on this machine: `kpty __ssh-mux`, one small process a host (and
//! remote directory), started by the first call and reached over a Unix socket in the
//! private runtime directory. It runs `ssh HOST kpty __mux` once ([`super::server`] is that
//! end) over the host's ControlMaster, and carries every call after it over that one ssh
//! session: a call costs a round trip on an open connection, not an ssh command, a login
//! shell and a kpty start there. Each connection to the socket is one request; its frames go
//! to the host under an id of their own, and the host's frames for that id come back to it.
//! A caller that leaves before its answer gets its request cancelled. One thread waits on it
//! all (epoll: the socket, each caller, ssh's pipes), so a call costs the channel a wake-up to
//! take it and one to hand back its answer — no hand-over between threads. The channel ends with
//! the ssh session (callers in flight then see the connection drop), or after
//! [`super::PERSIST`] without a caller.

use super::Host;
use super::wire::{Frame, Kind, Unframer};
use crate::error::{Error, Result};
use rustix::buffer::spare_capacity;
use rustix::event::epoll::{self, EventData, EventFlags};
use rustix::net::RecvFlags;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::os::fd::OwnedFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

/// The hidden verb of the channel's process.
pub const SUBCOMMAND: &str = "__ssh-mux";
/// How long a slow caller may hold up the host's frames before it is dropped.
const SLOW_CALLER: Duration = Duration::from_secs(10);

/// What the channel's process is started with (one JSON line on its stdin).
#[derive(Debug, Serialize, Deserialize)]
pub struct Spec {
    /// The host.
    pub host: String,
    /// The directory the host's kpty runs in (else the login's home).
    pub dir: Option<String>,
    /// The command that runs kpty there (`install::ensure`).
    pub kpty: String,
    /// The socket to serve.
    pub socket: PathBuf,
}

/// `kpty __ssh-mux`: start the channel and serve it; the exit code. Its one line on stdout
/// says `ready`, `busy` (another process serves, or is starting, this channel) or
/// `error: WHY`.
pub fn main() -> i32 {
    let mut line = String::new();
    let spec = std::io::stdin()
        .lock()
        .take(64 * 1024)
        .read_line(&mut line)
        .ok()
        .and_then(|_| serde_json::from_str::<Spec>(&line).ok());
    // The starter may have stopped waiting: a line nobody reads is no failure.
    let say = |line: &str| {
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "{line}");
    };
    let Some(spec) = spec else {
        say("error: a channel spec kpty cannot read");
        return 2;
    };
    match open(&spec) {
        Ok(Some((listener, to_host, from_host))) => {
            say("ready");
            serve(&spec, listener, to_host, from_host)
        }
        Ok(None) => {
            say("busy");
            0
        }
        Err(e) => {
            say(&format!("error: {}", e.message.replace('\n', " ")));
            1
        }
    }
}

type Opened = (UnixListener, ChildStdin, ChildStdout);

/// Take the channel's lock, run ssh, wait for the host's hello and bind the socket; `None`
/// when another process holds the lock.
fn open(spec: &Spec) -> Result<Option<Opened>> {
    let lock_path = spec.socket.with_extension("lock");
    let lock = crate::store::secure::open_rw(&lock_path)?;
    use rustix::fs::{FlockOperation, flock};
    if flock(&lock, FlockOperation::NonBlockingLockExclusive).is_err() {
        return Ok(None);
    }
    // Held for the process's life: the socket is this process's alone.
    std::mem::forget(lock);
    let host = Host::parse(&spec.host)?;
    let line = match &spec.dir {
        Some(d) => format!(
            "cd {} && exec {} {}",
            super::shell_line(std::slice::from_ref(d)),
            spec.kpty,
            super::server::SUBCOMMAND
        ),
        None => format!("exec {} {}", spec.kpty, super::server::SUBCOMMAND),
    };
    let mut c = super::ssh()?;
    c.arg(host.as_str())
        .arg(line)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c
        .spawn()
        .map_err(|e| super::unreachable(&host, &format!("cannot run ssh: {e}")))?;
    let (to_host, mut from_host) = match (child.stdin.take(), child.stdout.take()) {
        (Some(i), Some(o)) => (i, o),
        _ => return Err(Error::internal("ssh without its pipes")),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let hello = Frame::read(&mut from_host);
        let _ = tx.send((hello, from_host));
    });
    let within = super::connect_timeout() * 2 + Duration::from_secs(5);
    let from_host = match rx.recv_timeout(within) {
        Ok((Ok(Some(f)), out)) if f.kind == Kind::Hello => out,
        _ => {
            let (_, said) = super::master::finish(child, Duration::from_secs(2));
            return Err(super::too_old_or_unreachable(&host, &spec.kpty, &said));
        }
    };
    if let Some(mut err) = child.stderr.take() {
        // What ssh says from now on goes to this process's log.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::stderr()));
    }
    std::thread::spawn(move || child.wait());
    if crate::store::secure::is_own_socket(&spec.socket) {
        let _ = std::fs::remove_file(&spec.socket);
    }
    let listener = UnixListener::bind(&spec.socket)
        .map_err(|e| Error::state(&spec.socket, format!("cannot listen: {e}")))?;
    Ok(Some((listener, to_host, from_host)))
}

/// Serve callers until the host's end closes or no caller came for [`super::PERSIST`].
fn serve(spec: &Spec, listener: UnixListener, to_host: ChildStdin, from_host: ChildStdout) -> i32 {
    let socket = spec.socket.clone();
    let bound = inode(&socket);
    let gone = {
        let socket = socket.clone();
        move || {
            if inode(&socket) == bound {
                let _ = std::fs::remove_file(&socket);
            }
        }
    };
    // Ended by a signal, the channel still takes its socket with it.
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT]) {
        let gone = gone.clone();
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                gone();
                std::process::exit(0);
            }
        });
    }
    match Channel::new(listener, to_host, from_host) {
        // The host's end closed (callers in flight see their connection close: the channel
        // dropped), or no caller came for a while (the host's end sees its input close and
        // ends; so does ssh).
        Ok(channel) => channel.run(super::PERSIST),
        Err(e) => tracing::warn!("the channel cannot wait for its callers: {e}"),
    }
    gone();
    0
}

fn inode(p: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(p).ok().map(|m| m.ino())
}

/// What a channel's one thread waits on: the socket (callers coming), the host's frames, the
/// host's input taking more bytes, each caller's frames.
const LISTENER: u64 = u64::MAX;
const FROM_HOST: u64 = u64::MAX - 1;
const TO_HOST: u64 = u64::MAX - 2;
/// Past this many bytes waiting for the host's input, callers are not read from until it
/// takes them (a verb's stdin never piles up here faster than ssh sends it).
const HIGH_WATER: usize = 1 << 20;

/// One caller: its connection (blocking, for writes with a deadline; read without waiting)
/// and its bytes not yet a whole frame.
struct Conn {
    stream: UnixStream,
    frames: Unframer,
}

/// The channel: one thread, woken only by what it waits on — a request costs a wake-up to
/// take it and one to hand its answer back, nothing more. Writes to a caller wait at most
/// [`SLOW_CALLER`] (then the caller is dropped and its request cancelled); bytes for the
/// host wait in order while ssh is busy, and past [`HIGH_WATER`] of them no caller is read.
struct Channel {
    epoll: OwnedFd,
    listener: UnixListener,
    to_host: ChildStdin,
    from_host: ChildStdout,
    from_host_frames: Unframer,
    /// Bytes for the host that its input did not take yet (from `queued_from` on).
    queued: Vec<u8>,
    queued_from: usize,
    /// Callers are not being read (the host's input is behind).
    paused: bool,
    /// The channel waits for the host's input to take more bytes.
    host_watched: bool,
    callers: HashMap<u32, Conn>,
    next: u32,
    /// When the last caller came or went.
    quiet_since: Instant,
    /// This user: the only caller served.
    me: rustix::process::Uid,
}

impl Channel {
    fn new(listener: UnixListener, to_host: ChildStdin, from_host: ChildStdout) -> Result<Self> {
        let io = |e: rustix::io::Errno| Error::internal(format!("epoll: {e}"));
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC).map_err(io)?;
        listener
            .set_nonblocking(true)
            .map_err(|e| Error::internal(e.to_string()))?;
        rustix::io::ioctl_fionbio(&from_host, true).map_err(io)?;
        rustix::io::ioctl_fionbio(&to_host, true).map_err(io)?;
        epoll::add(
            &epoll,
            &listener,
            EventData::new_u64(LISTENER),
            EventFlags::IN,
        )
        .map_err(io)?;
        epoll::add(
            &epoll,
            &from_host,
            EventData::new_u64(FROM_HOST),
            EventFlags::IN,
        )
        .map_err(io)?;
        Ok(Self {
            epoll,
            listener,
            to_host,
            from_host,
            from_host_frames: Unframer::default(),
            queued: Vec::new(),
            queued_from: 0,
            paused: false,
            host_watched: false,
            callers: HashMap::new(),
            next: 1,
            quiet_since: Instant::now(),
            me: rustix::process::getuid(),
        })
    }

    /// Serve until the host's end closes, or no caller came for `idle` in a row.
    fn run(mut self, idle: Duration) {
        let mut events = Vec::with_capacity(64);
        loop {
            let wait = match self.idle_left(idle) {
                Some(d) if d.is_zero() => return,
                Some(d) => Some(rustix::event::Timespec {
                    tv_sec: d.as_secs().try_into().unwrap_or(i64::MAX),
                    tv_nsec: d.subsec_nanos().into(),
                }),
                None => None,
            };
            events.clear();
            match epoll::wait(&self.epoll, spare_capacity(&mut events), wait.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => {
                    tracing::warn!("the channel stopped waiting: {e}");
                    return;
                }
            }
            for ev in events.drain(..) {
                let open = match ev.data.u64() {
                    LISTENER => {
                        self.accept();
                        true
                    }
                    FROM_HOST => self.read_host(),
                    TO_HOST => self.flush(),
                    id => {
                        self.read_caller(id as u32);
                        true
                    }
                };
                if !open {
                    return;
                }
            }
        }
    }

    /// How long the channel may still wait for a caller: `None` while one is connected.
    fn idle_left(&self, idle: Duration) -> Option<Duration> {
        self.callers
            .is_empty()
            .then(|| idle.saturating_sub(self.quiet_since.elapsed()))
    }

    /// Take every caller waiting (only this user's); each one's request is read at once, as
    /// it most often came with its connection.
    fn accept(&mut self) {
        loop {
            let stream = match self.listener.accept() {
                Ok((s, _)) => s,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            };
            match rustix::net::sockopt::socket_peercred(&stream) {
                Ok(cred) if cred.uid == self.me => {}
                _ => {
                    tracing::warn!("refused a caller that is not this user");
                    continue;
                }
            }
            let _ = stream.set_write_timeout(Some(SLOW_CALLER));
            let id = self.next;
            self.next = self.next.wrapping_add(1).max(1);
            let flags = if self.paused {
                EventFlags::empty()
            } else {
                EventFlags::IN
            };
            if epoll::add(&self.epoll, &stream, EventData::new_u64(id.into()), flags).is_err() {
                continue;
            }
            self.callers.insert(
                id,
                Conn {
                    stream,
                    frames: Unframer::default(),
                },
            );
            self.quiet_since = Instant::now();
            if !self.paused {
                self.read_caller(id);
            }
        }
    }

    /// A caller's frames, to the host under its request's id, as they come (each read's
    /// frames sent before the next read, and no read once the channel is paused); at its end
    /// (or a frame kpty cannot read) it is gone, and its request, still running, cancelled.
    fn read_caller(&mut self, id: u32) {
        let mut buf = [0u8; 16 * 1024];
        let open = loop {
            let Some(conn) = self.callers.get_mut(&id) else {
                return;
            };
            match rustix::net::recv(&conn.stream, &mut buf, RecvFlags::DONTWAIT) {
                Ok((0, _)) => break false,
                Ok((n, _)) => conn.frames.push(&buf[..n]),
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::AGAIN) => break true,
                Err(_) => break false,
            }
            let mut frames = Vec::new();
            let readable = loop {
                match conn.frames.next_frame() {
                    Ok(Some(mut f)) => {
                        f.id = id;
                        frames.push(f);
                    }
                    Ok(None) => break true,
                    Err(_) => break false,
                }
            };
            for f in &frames {
                if f.kind == Kind::Cancel {
                    tracing::info!("request {id}: its caller cancels it");
                }
                self.send(f);
            }
            if !readable {
                break false;
            }
            if self.paused {
                break true;
            }
        };
        if !open {
            // Still here: its request had no answer yet.
            self.drop_caller(id);
            self.send(&Frame::new(id, Kind::Cancel, Vec::new()));
        }
    }

    /// A caller gone: its connection closed (which also takes it out of the wait: the
    /// channel holds no other descriptor of it).
    fn drop_caller(&mut self, id: u32) {
        if self.callers.remove(&id).is_some() {
            self.quiet_since = Instant::now();
        }
    }

    /// The host's frames, each to its caller as it comes (each read's frames delivered
    /// before the next read); false when the host's end closed.
    fn read_host(&mut self) -> bool {
        let mut buf = [0u8; 64 * 1024];
        loop {
            match rustix::io::read(&self.from_host, &mut buf) {
                Ok(0) => return false,
                Ok(n) => self.from_host_frames.push(&buf[..n]),
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::AGAIN) => return true,
                Err(_) => return false,
            }
            loop {
                match self.from_host_frames.next_frame() {
                    Ok(Some(f)) => self.deliver(&f),
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!("the host sent a frame kpty cannot read: {e}");
                        return false;
                    }
                }
            }
        }
    }

    /// One of the host's frames to its caller; the caller is done at its request's end, or
    /// when it could not take the frame (then its request is cancelled there).
    fn deliver(&mut self, f: &Frame) {
        let Some(conn) = self.callers.get(&f.id) else {
            return;
        };
        let delivered = f.write(&mut &conn.stream).is_ok();
        if f.kind.ends() || !delivered {
            self.drop_caller(f.id);
        }
        if !delivered {
            self.send(&Frame::new(f.id, Kind::Cancel, Vec::new()));
        }
    }

    /// Queue a frame for the host and give ssh what it takes now.
    fn send(&mut self, f: &Frame) {
        match f.encode() {
            Ok(bytes) => self.queued.extend_from_slice(&bytes),
            Err(e) => {
                tracing::warn!("a frame for the host is too large: {e}");
                return;
            }
        }
        self.flush();
    }

    /// Give ssh the bytes waiting for it; past [`HIGH_WATER`] still waiting, callers are no
    /// longer read until it takes them. False when the host's input is gone.
    fn flush(&mut self) -> bool {
        let mut open = true;
        while self.queued_from < self.queued.len() {
            match rustix::io::write(&self.to_host, &self.queued[self.queued_from..]) {
                Ok(n) => self.queued_from += n,
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => break,
                Err(_) => {
                    open = false;
                    break;
                }
            }
        }
        if !open || self.queued_from == self.queued.len() {
            self.queued.clear();
            self.queued_from = 0;
        } else if self.queued_from > HIGH_WATER {
            self.queued.drain(..self.queued_from);
            self.queued_from = 0;
        }
        let waiting = self.queued.len() - self.queued_from;
        self.wait_for_host(waiting > 0);
        self.pause(waiting > HIGH_WATER);
        open
    }

    /// Be woken (or no longer) when the host's input takes more bytes.
    fn wait_for_host(&mut self, on: bool) {
        if on == self.host_watched {
            return;
        }
        self.host_watched = on;
        if on {
            let _ = epoll::add(
                &self.epoll,
                &self.to_host,
                EventData::new_u64(TO_HOST),
                EventFlags::OUT,
            );
        } else {
            let _ = epoll::delete(&self.epoll, &self.to_host);
        }
    }

    /// Stop (or go back to) reading callers.
    fn pause(&mut self, on: bool) {
        if on == self.paused {
            return;
        }
        self.paused = on;
        let flags = if on {
            EventFlags::empty()
        } else {
            EventFlags::IN
        };
        for (id, conn) in &self.callers {
            let _ = epoll::modify(
                &self.epoll,
                &conn.stream,
                EventData::new_u64((*id).into()),
                flags,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A channel whose "host" is `cat`: every frame a caller sends comes back to it, as a
    /// host's frames for its request do.
    fn echo_channel(idle: Duration) -> (tempfile::TempDir, PathBuf, std::thread::JoinHandle<()>) {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("mux");
        let listener = UnixListener::bind(&sock).unwrap();
        let mut cat = std::process::Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let (i, o) = (cat.stdin.take().unwrap(), cat.stdout.take().unwrap());
        let ch = Channel::new(listener, i, o).unwrap();
        let t = std::thread::spawn(move || {
            ch.run(idle);
            let _ = cat.kill();
            let _ = cat.wait();
        });
        (dir, sock, t)
    }

    #[test]
    fn callers_at_once_each_get_their_own_frames_back_whole() {
        let (_dir, sock, _t) = echo_channel(Duration::from_secs(60));
        // Sizes past a pipe's and a socket's buffers: the channel queues for the host and
        // hands each caller its frames while others still send theirs.
        let sizes = [0usize, 1, 700, 65_536, 300_000, 1 << 20, 5, 123_457];
        let callers: Vec<_> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let sock = sock.clone();
                std::thread::spawn(move || {
                    let mut s = UnixStream::connect(&sock).unwrap();
                    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                    let data: Vec<u8> = (0..n).map(|j| (i * 31 + j) as u8).collect();
                    // A frame this caller's id is put on; the last ends its request.
                    Frame::new(0, Kind::Out, data.clone())
                        .write(&mut s)
                        .unwrap();
                    Frame::new(0, Kind::Exit, vec![0, 0, 0, i as u8])
                        .write(&mut s)
                        .unwrap();
                    s.flush().unwrap();
                    let out = Frame::read(&mut s).unwrap().unwrap();
                    assert_eq!((out.kind, out.data.len()), (Kind::Out, n));
                    assert!(out.data == data, "caller {i}: its own bytes back");
                    let end = Frame::read(&mut s).unwrap().unwrap();
                    assert_eq!(end.exit_code(), Some(i as i32));
                    // Its request over, the channel closes the connection.
                    assert!(Frame::read(&mut s).unwrap().is_none());
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
    }

    #[test]
    fn the_channel_ends_after_an_idle_spell_with_no_caller_but_not_during_a_call() {
        let (_dir, sock, t) = echo_channel(Duration::from_millis(300));
        // A caller connected holds the channel open past several idle spells.
        let s = UnixStream::connect(&sock).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let watcher = std::thread::spawn(move || {
            t.join().unwrap();
            let _ = tx.send(());
        });
        assert!(rx.recv_timeout(Duration::from_millis(1200)).is_err());
        drop(s);
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        watcher.join().unwrap();
    }
}
