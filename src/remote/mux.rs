//! The channel to a host on this machine: `kpty __ssh-mux`, one small process a host (and
//! remote directory), started by the first call and reached over a Unix socket in the
//! private runtime directory. It runs `ssh HOST kpty __mux` once ([`super::server`] is that
//! end) over the host's ControlMaster, and carries every call after it over that one ssh
//! session: a call costs a round trip on an open connection, not an ssh command, a login
//! shell and a kpty start there. Each connection to the socket is one request; its frames go
//! to the host under an id of their own, and the host's frames for that id come back to it.
//! A caller that leaves before its answer gets its request cancelled. One thread waits on it
//! all (epoll: the socket, each caller, ssh's pipes), so a call costs the channel a wake-up to
//! take it and one to hand back its answer — no hand-over between threads. While ssh is busy,
//! each caller's frames for the host wait in a queue of their own and go to ssh in turn, so a
//! request never waits behind another caller's bulk stdin. The channel ends with the ssh
//! session (callers in flight then see the connection drop), or after [`super::PERSIST`]
//! without a caller.

use super::Host;
use super::fair::FairQueue;
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
/// Past this many of its bytes waiting for the host's input, a caller is not read from until
/// ssh takes them (a verb's stdin never piles up here faster than ssh sends it) — the others
/// still are: their frames go out in turn with its ([`FairQueue`]).
const SHARE: usize = 256 << 10;
/// Past this many bytes waiting in all, no caller is read (memory stays bounded whatever the
/// number of callers).
const ALL: usize = 8 << 20;
/// Frames are handed to ssh in batches of about this size (a pipe's buffer): a frame that
/// comes while a batch is going out waits for that batch and at most one frame of each other
/// caller.
const BATCH: usize = 64 << 10;

/// One caller: its connection (blocking, for writes with a deadline; read without waiting),
/// its bytes not yet a whole frame, and whether it has more than its [`SHARE`] waiting.
struct Conn {
    stream: UnixStream,
    frames: Unframer,
    over_share: bool,
}

/// The channel: one thread, woken only by what it waits on — a request costs a wake-up to
/// take it and one to hand its answer back, nothing more. Writes to a caller wait at most
/// [`SLOW_CALLER`] (then the caller is dropped and its request cancelled); frames for the
/// host wait while ssh is busy, each caller's in order and the callers in turn, and a caller
/// with over its [`SHARE`] waiting (every caller, past [`ALL`]) is not read until ssh takes
/// them.
struct Channel {
    epoll: OwnedFd,
    listener: UnixListener,
    to_host: ChildStdin,
    from_host: ChildStdout,
    from_host_frames: Unframer,
    /// Frames for the host not yet in a batch.
    fair: FairQueue,
    /// The batch going to the host's input (from `out_from` on).
    out: Vec<u8>,
    out_from: usize,
    /// No caller is being read (over [`ALL`] waiting).
    held: bool,
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
            fair: FairQueue::default(),
            out: Vec::new(),
            out_from: 0,
            held: false,
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
        while self.turn(&mut events, idle, None) {}
    }

    /// Wait (at most `most`, when given) and handle what came; false when the channel is
    /// over: the host's end closed, or no caller came for `idle` in a row.
    fn turn(
        &mut self,
        events: &mut Vec<epoll::Event>,
        idle: Duration,
        most: Option<Duration>,
    ) -> bool {
        let wait = match (self.idle_left(idle), most) {
            (Some(d), _) if d.is_zero() => return false,
            (Some(d), Some(m)) => Some(d.min(m)),
            (d, m) => d.or(m),
        }
        .map(|d| rustix::event::Timespec {
            tv_sec: d.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: d.subsec_nanos().into(),
        });
        events.clear();
        match epoll::wait(&self.epoll, spare_capacity(events), wait.as_ref()) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                tracing::warn!("the channel stopped waiting: {e}");
                return false;
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
                return false;
            }
        }
        true
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
            let flags = if self.held {
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
                    over_share: false,
                },
            );
            self.quiet_since = Instant::now();
            if !self.held {
                self.read_caller(id);
            }
        }
    }

    /// A caller's frames, to the host under its request's id, as they come (each read's
    /// frames queued before the next read, and no read once it is over its share or the
    /// channel holds every caller); at its end
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
            if !self.reading(id) {
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
        // What it still had waiting is of no use now (a cancel follows, when one is needed).
        self.fair.forget(id);
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

    /// Queue a frame for the host (behind its caller's earlier ones) and give ssh what it
    /// takes now.
    fn send(&mut self, f: &Frame) {
        match f.encode() {
            Ok(bytes) => self.fair.push(f.id, bytes),
            Err(e) => {
                tracing::warn!("a frame for the host is too large: {e}");
                return;
            }
        }
        if self.fair.waiting(f.id) > SHARE {
            self.set_over_share(f.id, true);
        }
        self.flush();
    }

    /// Give ssh what it takes of the waiting frames, batch after batch, the callers' in
    /// turn; a caller back under its share is read again. False when the host's input is
    /// gone.
    fn flush(&mut self) -> bool {
        let mut open = true;
        loop {
            if self.out_from == self.out.len() {
                self.out.clear();
                self.out_from = 0;
                while self.out.len() < BATCH {
                    let Some((id, frame)) = self.fair.pop() else {
                        break;
                    };
                    self.out.extend_from_slice(&frame);
                    if self.fair.waiting(id) <= SHARE {
                        self.set_over_share(id, false);
                    }
                }
                if self.out.is_empty() {
                    break;
                }
            }
            match rustix::io::write(&self.to_host, &self.out[self.out_from..]) {
                Ok(n) => self.out_from += n,
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => break,
                Err(_) => {
                    open = false;
                    break;
                }
            }
        }
        if !open {
            self.out.clear();
            self.out_from = 0;
        }
        let behind = self.out.len() - self.out_from > 0 || !self.fair.is_empty();
        self.wait_for_host(behind);
        self.hold(self.fair.total() > ALL);
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

    /// Caller `id` is read now: it is under its share and the channel holds no caller.
    fn reading(&self, id: u32) -> bool {
        !self.held && self.callers.get(&id).is_some_and(|c| !c.over_share)
    }

    /// Mark caller `id` over its share (no longer read) or back under it (read again).
    fn set_over_share(&mut self, id: u32, over: bool) {
        let Some(conn) = self.callers.get_mut(&id) else {
            return;
        };
        if conn.over_share == over {
            return;
        }
        conn.over_share = over;
        self.watch(id);
    }

    /// Stop (or go back to) reading every caller.
    fn hold(&mut self, on: bool) {
        if on == self.held {
            return;
        }
        self.held = on;
        let ids: Vec<u32> = self.callers.keys().copied().collect();
        for id in ids {
            self.watch(id);
        }
    }

    /// Wait for caller `id`'s bytes, or not, as [`Self::reading`] says. (The wait is level
    /// triggered: bytes that came meanwhile wake the channel as soon as it waits for them.)
    fn watch(&self, id: u32) {
        let Some(conn) = self.callers.get(&id) else {
            return;
        };
        let flags = if self.reading(id) {
            EventFlags::IN
        } else {
            EventFlags::empty()
        };
        let _ = epoll::modify(
            &self.epoll,
            &conn.stream,
            EventData::new_u64(id.into()),
            flags,
        );
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

    /// Take every frame out of `bytes` (a whole recording of frames).
    fn frames_of(bytes: &[u8]) -> Vec<Frame> {
        let mut u = Unframer::default();
        u.push(bytes);
        std::iter::from_fn(|| u.next_frame().unwrap()).collect()
    }

    /// Write what `s` takes now of `bytes[*sent..]` (without waiting).
    fn write_some(s: &UnixStream, bytes: &[u8], sent: &mut usize) {
        use rustix::net::SendFlags;
        while *sent < bytes.len() {
            match rustix::net::send(
                s,
                &bytes[*sent..],
                SendFlags::DONTWAIT | SendFlags::NOSIGNAL,
            ) {
                Ok(n) => *sent += n,
                Err(rustix::io::Errno::AGAIN) => return,
                Err(e) => panic!("a caller's write failed: {e}"),
            }
        }
    }

    const FRAME: usize = 64 << 10;
    const BULK: usize = 2 << 20;

    /// A channel whose "host" reads nothing until it is let go (ssh busy on a slow link:
    /// write a line to the FIFO), then echoes every frame back and records, in order, all it
    /// got; its input pipe's size.
    struct HeldHost {
        _dir: tempfile::TempDir,
        sock: PathBuf,
        fifo: PathBuf,
        rec: PathBuf,
        host: std::process::Child,
        pipe: usize,
        ch: Channel,
        events: Vec<epoll::Event>,
        deadline: Instant,
    }

    impl HeldHost {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let (sock, fifo, rec) = (
                dir.path().join("mux"),
                dir.path().join("go"),
                dir.path().join("rec"),
            );
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            let mut host = std::process::Command::new("sh")
                .args(["-c", r#"read -r _ < "$0"; exec tee "$1""#])
                .arg(&fifo)
                .arg(&rec)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let (i, o) = (host.stdin.take().unwrap(), host.stdout.take().unwrap());
            let pipe = rustix::pipe::fcntl_getpipe_size(&i).unwrap();
            let ch = Channel::new(UnixListener::bind(&sock).unwrap(), i, o).unwrap();
            Self {
                _dir: dir,
                sock,
                fifo,
                rec,
                host,
                pipe,
                ch,
                events: Vec::with_capacity(64),
                deadline: Instant::now() + Duration::from_secs(30),
            }
        }

        /// One turn of the channel (waiting 20 ms at most).
        fn step(&mut self) {
            assert!(Instant::now() < self.deadline, "the channel got stuck");
            let idle = Duration::from_secs(60);
            let most = Some(Duration::from_millis(20));
            assert!(self.ch.turn(&mut self.events, idle, most));
        }

        /// A caller, taken by the channel (its id: the number of callers so far).
        fn caller(&mut self) -> UnixStream {
            let s = UnixStream::connect(&self.sock).unwrap();
            let n = self.ch.callers.len();
            while self.ch.callers.len() == n {
                self.step();
            }
            s
        }

        fn let_go(&self) {
            let mut w = std::fs::OpenOptions::new().write(true).open(&self.fifo);
            w.as_mut().unwrap().write_all(b"go\n").unwrap();
        }

        /// End the channel; every frame the host got, in order.
        fn recording(mut self) -> Vec<Frame> {
            drop(self.ch);
            assert!(self.host.wait().unwrap().success());
            frames_of(&std::fs::read(&self.rec).unwrap())
        }
    }

    /// Read `caller`'s echoes on a thread of their own until `bytes` of data came back.
    fn echoes(caller: &UnixStream, bytes: usize) -> std::thread::JoinHandle<Vec<Frame>> {
        let s = caller.try_clone().unwrap();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            while got.iter().map(|f: &Frame| f.data.len()).sum::<usize>() < bytes {
                got.push(Frame::read(&mut &s).unwrap().expect("an echo"));
            }
            got
        })
    }

    #[test]
    fn a_request_goes_to_the_host_ahead_of_another_callers_bulk_waiting_for_ssh() {
        let mut h = HeldHost::new();
        // Caller 1 asks something small; caller 2 streams a bulk of stdin.
        let (small, bulk) = (h.caller(), h.caller());
        let (small_id, bulk_id) = (1, 2);
        let request = b"small request".to_vec();
        let (small_back, bulk_back) = (echoes(&small, request.len()), echoes(&bulk, BULK));
        let bytes: Vec<u8> = (0..BULK / FRAME)
            .flat_map(|n| {
                Frame::new(0, Kind::Stdin, vec![n as u8; FRAME])
                    .encode()
                    .unwrap()
            })
            .collect();
        let mut sent = 0;
        // Until the bulk has over its share waiting for the host: it is read no more.
        while !h.ch.callers[&bulk_id].over_share {
            write_some(&bulk, &bytes, &mut sent);
            h.step();
        }
        Frame::new(0, Kind::Stdin, request.clone())
            .write(&mut &small)
            .unwrap();
        while h.ch.fair.waiting(small_id) == 0 {
            h.step();
        }
        let waiting = h.ch.fair.waiting(bulk_id);
        assert!(waiting > SHARE, "{waiting} bytes of the bulk wait");
        // What may be ahead of the request: the pipe's bytes, the batch going out, and one
        // frame of the bulk's turn — not the rest of what the bulk has waiting.
        let ahead_at_most = h.pipe + h.ch.out.len() + FRAME + 9;
        h.let_go();
        while !(bulk_back.is_finished() && small_back.is_finished()) {
            write_some(&bulk, &bytes, &mut sent);
            h.step();
        }
        assert_eq!(bulk_back.join().unwrap().len(), BULK / FRAME);
        assert_eq!(small_back.join().unwrap()[0].data, request);
        let got = h.recording();
        let at = got.iter().position(|f| f.id == small_id).unwrap();
        let before: usize = got[..at].iter().map(|f| f.data.len() + 9).sum();
        assert!(
            before <= ahead_at_most,
            "{before} bytes of the bulk went before the request (at most {ahead_at_most} may)"
        );
        assert!(got.iter().all(|f| f.id == small_id || f.id == bulk_id));
        let bulk_frames: Vec<u8> = got
            .iter()
            .filter(|f| f.id == bulk_id)
            .map(|f| f.data[0])
            .collect();
        let in_order: Vec<u8> = (0..BULK / FRAME).map(|n| n as u8).collect();
        assert_eq!(
            bulk_frames, in_order,
            "the bulk's frames whole and in order"
        );
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
