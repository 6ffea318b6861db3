//! The channel to a host on this machine: `kpty __ssh-mux`, one small process a host (and
//! remote directory), started by the first call and reached over a Unix socket in the
//! private runtime directory. It runs `ssh HOST kpty __mux` once ([`super::server`] is that
//! end) over the host's ControlMaster, and carries every call after it over that one ssh
//! session: a call costs a round trip on an open connection, not an ssh command, a login
//! shell and a kpty start there. Each connection to the socket is one request; its frames go
//! to the host under an id of their own, and the host's frames for that id come back to it.
//! A caller that leaves before its answer gets its request cancelled. The channel ends with
//! the ssh session (callers in flight then see the connection drop), or after
//! [`super::PERSIST`] without a caller.

use super::Host;
use super::wire::{Frame, Kind};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{ChildStdin, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
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

/// The state shared by the channel's threads.
struct Hub {
    to_host: Mutex<Option<ChildStdin>>,
    routes: Mutex<HashMap<u32, Arc<UnixStream>>>,
    next: AtomicU32,
    /// The callers connected, and when the last came or went.
    idle: Mutex<(usize, Instant)>,
    /// What the wait for an idle spell waits on (its deadline: nobody wakes it, so a caller
    /// coming or going costs no wake-up of the channel's main thread).
    timer: Condvar,
}

impl Hub {
    /// Send a frame to the host; false when the channel is gone.
    fn send(&self, f: &Frame) -> bool {
        let mut w = self.to_host.lock().unwrap_or_else(|p| p.into_inner());
        w.as_mut().is_some_and(|w| f.write(w).is_ok())
    }

    /// One caller more (`+1`) or fewer (`-1`).
    fn callers(&self, delta: isize) {
        let mut s = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        s.0 = s.0.saturating_add_signed(delta);
        s.1 = Instant::now();
    }

    /// Wait until no caller has come for `idle` in a row (looked at when the spell since the
    /// last caller came or went would end).
    fn wait_idle(&self, idle: Duration) {
        let mut s = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let quiet = s.1.elapsed();
            if s.0 == 0 && quiet >= idle {
                return;
            }
            let left = if s.0 == 0 { idle - quiet } else { idle };
            s = self
                .timer
                .wait_timeout(s, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
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
        Ok(Some((listener, hub, from_host))) => {
            say("ready");
            serve(&spec, listener, hub, from_host)
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

type Opened = (UnixListener, Arc<Hub>, std::process::ChildStdout);

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
    let hub = Arc::new(Hub {
        to_host: Mutex::new(Some(to_host)),
        routes: Mutex::new(HashMap::new()),
        next: AtomicU32::new(1),
        idle: Mutex::new((0, Instant::now())),
        timer: Condvar::new(),
    });
    Ok(Some((listener, hub, from_host)))
}

/// Serve callers until the host's end closes or no caller came for [`super::PERSIST`].
fn serve(
    spec: &Spec,
    listener: UnixListener,
    hub: Arc<Hub>,
    mut from_host: std::process::ChildStdout,
) -> i32 {
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
    {
        let (hub, gone) = (hub.clone(), gone.clone());
        std::thread::spawn(move || {
            relay_from_host(&hub, &mut from_host);
            gone();
            // Callers in flight see their connection close: the channel dropped.
            std::process::exit(0);
        });
    }
    {
        let hub = hub.clone();
        std::thread::spawn(move || accept(&listener, &hub));
    }
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
    hub.wait_idle(super::PERSIST);
    gone();
    // The host's end sees its input close and ends; so does ssh.
    drop(hub.to_host.lock().unwrap_or_else(|p| p.into_inner()).take());
    0
}

fn inode(p: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(p).ok().map(|m| m.ino())
}

/// Each caller on a kept thread; only this user's.
fn accept(listener: &UnixListener, hub: &Arc<Hub>) {
    let me = rustix::process::getuid();
    for stream in listener.incoming().flatten() {
        match rustix::net::sockopt::socket_peercred(&stream) {
            Ok(cred) if cred.uid == me => {}
            _ => {
                tracing::warn!("refused a caller that is not this user");
                continue;
            }
        }
        let hub = hub.clone();
        super::workers::run(move || caller(&hub, stream));
    }
}

/// One caller: its frames go to the host under its request's id until it closes; a request
/// still running then is cancelled.
fn caller(hub: &Hub, stream: UnixStream) {
    let id = hub.next.fetch_add(1, Ordering::Relaxed);
    let _ = stream.set_write_timeout(Some(SLOW_CALLER));
    let stream = Arc::new(stream);
    hub.routes
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id, stream.clone());
    hub.callers(1);
    let mut r = &*stream;
    while let Ok(Some(mut f)) = Frame::read(&mut r) {
        f.id = id;
        if f.kind == Kind::Cancel {
            tracing::info!("request {id}: its caller cancels it");
        }
        if !hub.send(&f) {
            break;
        }
    }
    let running = hub
        .routes
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id)
        .is_some();
    if running {
        hub.send(&Frame::new(id, Kind::Cancel, Vec::new()));
    }
    hub.callers(-1);
}

/// The host's frames, each to its caller, until the host's end closes.
fn relay_from_host(hub: &Hub, from_host: &mut impl Read) {
    while let Ok(Some(f)) = Frame::read(from_host) {
        let to = hub
            .routes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&f.id)
            .cloned();
        let Some(to) = to else { continue };
        let delivered = f.write(&mut &*to).is_ok();
        if f.kind.ends() || !delivered {
            hub.routes
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&f.id);
            let _ = to.shutdown(std::net::Shutdown::Both);
        }
        if !delivered {
            hub.send(&Frame::new(f.id, Kind::Cancel, Vec::new()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_waits_for_a_quiet_spell_with_no_caller() {
        let hub = Arc::new(Hub {
            to_host: Mutex::new(None),
            routes: Mutex::new(HashMap::new()),
            next: AtomicU32::new(1),
            idle: Mutex::new((1, Instant::now())),
            timer: Condvar::new(),
        });
        let waiter = {
            let hub = hub.clone();
            std::thread::spawn(move || hub.wait_idle(Duration::from_millis(50)))
        };
        // A caller is in: the wait goes on past several idle spells.
        let (tx, rx) = std::sync::mpsc::channel();
        let watcher = std::thread::spawn(move || {
            let _ = tx.send(waiter.join());
        });
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        hub.callers(-1);
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        watcher.join().unwrap();
    }
}
