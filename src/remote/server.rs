//! `kpty __mux`, the host's end of a channel ([`super::mux`] is the other): frames on its
//! standard input, frames back on its standard output, many requests at once. A verb runs as
//! this kpty in a process of its own (its output streamed back as it comes, its exit code
//! last); an action runs in a thread, its JSON answer returned whole. A `Cancel` interrupts a
//! verb as Ctrl-C would (SIGINT: a talk interrupts its command and ends as `CANCELLED`), and
//! stops an action as the action said ([`Caller`]: a talk types Ctrl-C, a wait ends); a
//! talk's progress goes back as `Out` frames of its call.
//! When the channel's input ends, the requests still running get a few seconds to answer; past
//! it (the connection dropped) they are left to finish: the sessions live on, as with any
//! ssh command whose client went away.
//!
//! A verb's process is started before it is asked for: a spare `kpty __verb` waits, already
//! loaded, for its arguments ([`take_verb`]), so a call does not wait for a program to start
//! on the host; the next spare starts once this one is taken.

use super::action::Call;
use super::wire::{Frame, Kind, Verb};
use crate::api::Action;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The hidden verb the host runs.
pub const SUBCOMMAND: &str = "__mux";
/// How this machine answers an action: a call in, its JSON answer out (the core's, supplied
/// by the role that starts the server), and the answer to a call that could not be read. The
/// action reaches its caller through a [`Caller`]: what stops it when the caller cancels, its
/// progress.
#[derive(Clone, Copy)]
pub struct Answer {
    /// A call's answer.
    pub call: fn(Call, &Caller) -> Vec<u8>,
    /// The answer to a body that is no call.
    pub unreadable: fn(&serde_json::Error) -> Vec<u8>,
}

/// Whether `call` answers from what is there at once, never waiting on a session's output
/// (a holder that does not answer is given up on within the probe's short deadline): such a
/// call, on a channel with nothing else in flight, is answered by the channel's reader
/// itself — no hand-over to another thread, and nothing else waiting for the reader. A
/// `list` of every state directory (`all`) is not: it may probe any number of them. Nor is
/// any call for a while after one answered this way took long ([`SLOW_INLINE`]): a holder
/// that does not answer holds the reader up once, not at every `list`.
fn answers_at_once(call: &Call) -> bool {
    match call.action {
        Action::List => call.params.all != Some(true),
        Action::Help | Action::Check => true,
        _ => false,
    }
}

/// An answer on the reader longer than this (a holder that did not answer its probe at once)
/// sends the calls after it to other threads for [`SLOW_SPELL`].
const SLOW_INLINE: Duration = Duration::from_millis(50);
/// How long calls go to other threads after a slow answer on the reader.
const SLOW_SPELL: Duration = Duration::from_secs(60);

/// An action's link to the caller of the channel that asked for it: what stops it (a talk's
/// Ctrl-C, a wait's end), set by the action once it knows and run when its caller cancels (or
/// left); and its progress, sent to the caller as it comes.
#[derive(Clone, Default)]
pub struct Caller {
    state: Arc<Mutex<CancelState>>,
    /// Where progress goes: the channel's output and the call's id (none for a call made as
    /// an ssh command of its own).
    out: Option<(Out, u32)>,
}

#[derive(Default)]
struct CancelState {
    /// What stops the action, until it is run or the action answered.
    stop: Option<Box<dyn FnOnce() + Send>>,
    /// A cancel came before the action said how to stop it.
    asked: bool,
}

impl Caller {
    /// Stop the action with `stop` when its caller cancels; at once when it already did.
    pub fn on_cancel(&self, stop: impl FnOnce() + Send + 'static) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.asked {
            drop(st);
            stop();
            return;
        }
        st.stop = Some(Box::new(stop));
    }

    /// Send the caller the action's progress so far (`data`: the core's progress body, as
    /// JSON); nothing when the call did not come over a channel.
    pub fn progress(&self, data: Vec<u8>) {
        if let Some((out, id)) = &self.out {
            out.send(&Frame::new(*id, Kind::Out, data));
        }
    }

    /// The caller cancelled: stop the action (on this thread: it may wait for the action's
    /// session with a deadline of its own).
    fn cancel(&self) {
        let stop = {
            let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            st.asked = true;
            st.stop.take()
        };
        if let Some(stop) = stop {
            stop();
        }
    }

    /// The action answered: nothing is left to stop.
    fn clear(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).stop = None;
    }
}

/// The hidden verb of a spare process waiting for a verb's arguments.
pub const VERB: &str = "__verb";

/// The requests running: each verb's process (for `Cancel`) and its stdin while it is open,
/// and how to stop each action running.
#[derive(Default)]
struct Running {
    pids: HashMap<u32, u32>,
    stdins: HashMap<u32, Feed>,
    calls: HashMap<u32, Caller>,
    spare: Option<Child>,
    /// Until when no call is answered on the reader (one there took long).
    not_inline_until: Option<Instant>,
}

/// The most of a verb's stdin kept waiting for the verb to read it; past it the verb's stdin
/// is cut short and its caller told (the channel never stalls on one slow reader).
const STDIN_WAITING: usize = 64 << 20;

/// A verb's stdin: its bytes queued for a kept thread that writes them as the verb reads.
struct Feed {
    tx: std::sync::mpsc::Sender<Vec<u8>>,
    waiting: Arc<std::sync::atomic::AtomicUsize>,
}

impl Feed {
    /// Start feeding `w`.
    fn start(mut w: ChildStdin) -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let waiting = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let left = waiting.clone();
        super::workers::run(move || {
            let mut open = true;
            for chunk in rx {
                open = open && w.write_all(&chunk).is_ok();
                left.fetch_sub(chunk.len(), std::sync::atomic::Ordering::AcqRel);
            }
            // The sender is gone (the end of the input, or the verb ended): `w` closes.
        });
        Self { tx, waiting }
    }

    /// Queue `data`; false when too much is waiting already (the feed should be cut).
    fn push(&self, data: Vec<u8>) -> bool {
        use std::sync::atomic::Ordering;
        if self.waiting.load(Ordering::Acquire) + data.len() > STDIN_WAITING {
            return false;
        }
        self.waiting.fetch_add(data.len(), Ordering::AcqRel);
        self.tx.send(data).is_ok()
    }
}

/// How long the end of the channel's input waits for the requests still running to answer.
const DRAIN: Duration = Duration::from_secs(10);

/// Frames out, one writer at a time, and the count of requests not yet answered.
#[derive(Clone)]
struct Out(Arc<Mutex<std::io::Stdout>>, Arc<(Mutex<usize>, Condvar)>);

impl Out {
    fn send(&self, f: &Frame) {
        let mut out = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if f.write(&mut *out).is_err() {
            // The channel is gone; requests finish on their own.
            tracing::debug!("the channel closed under request {}", f.id);
        }
        drop(out);
        if f.kind.ends() {
            let (n, cv) = &*self.1;
            let mut n = n.lock().unwrap_or_else(|p| p.into_inner());
            *n = n.saturating_sub(1);
            cv.notify_all();
        }
    }

    /// One request more to answer; how many are now.
    fn started(&self) -> usize {
        let mut n = self.1.0.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        *n
    }

    /// Wait (up to `within`) until every request started has been answered.
    fn drained(&self, within: Duration) {
        let (n, cv) = &*self.1;
        let n = n.lock().unwrap_or_else(|p| p.into_inner());
        let _ = cv.wait_timeout_while(n, within, |n| *n > 0);
    }
}

/// `kpty __mux`: serve the channel on stdin/stdout until it ends; the exit code.
pub fn main(answer: Answer) -> i32 {
    let out = Out(
        Arc::new(Mutex::new(std::io::stdout())),
        Arc::new((Mutex::new(0), Condvar::new())),
    );
    out.send(&Frame::new(0, Kind::Hello, super::hello().into_bytes()));
    let running = Arc::new(Mutex::new(Running::default()));
    {
        let running = running.clone();
        std::thread::spawn(move || restock(&running));
    }
    let mut input = std::io::stdin().lock();
    loop {
        let frame = match Frame::read(&mut input) {
            Ok(Some(f)) => f,
            Ok(None) => {
                // The caller's end closed: what is running still answers, if it can.
                out.drained(DRAIN);
                return 0;
            }
            Err(e) => {
                tracing::warn!("the channel sent a frame kpty cannot read: {e}");
                return 1;
            }
        };
        take(frame, &out, &running, answer);
    }
}

/// Act on one frame from the channel.
fn take(f: Frame, out: &Out, running: &Arc<Mutex<Running>>, answer: Answer) {
    let lock = || running.lock().unwrap_or_else(|p| p.into_inner());
    let in_flight = if matches!(f.kind, Kind::Verb | Kind::Call) {
        out.started()
    } else {
        0
    };
    match f.kind {
        Kind::Verb => match serde_json::from_slice::<Verb>(&f.data) {
            Ok(v) => start_verb(f.id, v, out, running),
            Err(e) => {
                let said = format!("kpty: a remote verb kpty could not read: {e}\n");
                out.send(&Frame::new(f.id, Kind::Err, said.into_bytes()));
                out.send(&Frame::exit(f.id, 2));
            }
        },
        Kind::Call => {
            let call = match serde_json::from_slice::<Call>(&f.data) {
                Ok(c) => c,
                Err(e) => {
                    out.send(&Frame::new(f.id, Kind::Answer, (answer.unreadable)(&e)));
                    return;
                }
            };
            let out = out.clone();
            let caller = Caller {
                state: Arc::default(),
                out: Some((out.clone(), f.id)),
            };
            let inline_ok = || lock().not_inline_until.is_none_or(|t| Instant::now() >= t);
            if in_flight == 1 && answers_at_once(&call) && inline_ok() {
                let started = Instant::now();
                let reply = (answer.call)(call, &caller);
                out.send(&Frame::new(f.id, Kind::Answer, reply));
                if started.elapsed() > SLOW_INLINE {
                    lock().not_inline_until = Some(Instant::now() + SLOW_SPELL);
                }
                return;
            }
            lock().calls.insert(f.id, caller.clone());
            let running = running.clone();
            super::workers::run(move || {
                let reply = (answer.call)(call, &caller);
                caller.clear();
                let lock = || running.lock().unwrap_or_else(|p| p.into_inner());
                lock().calls.remove(&f.id);
                out.send(&Frame::new(f.id, Kind::Answer, reply));
            });
        }
        Kind::Stdin => {
            let mut r = lock();
            if let Some(feed) = r.stdins.get(&f.id)
                && !feed.push(f.data)
            {
                r.stdins.remove(&f.id);
                drop(r);
                let said = format!(
                    "kpty: over {} MiB of stdin waiting for the command on this host: its input \
                     was cut short there\n",
                    STDIN_WAITING >> 20
                );
                out.send(&Frame::new(f.id, Kind::Err, said.into_bytes()));
            }
        }
        Kind::StdinEnd => drop(lock().stdins.remove(&f.id)),
        Kind::Cancel => {
            let r = lock();
            if let Some(pid) = r.pids.get(&f.id).copied() {
                tracing::info!("request {}: cancelled, its verb interrupted", f.id);
                interrupt(pid);
            } else if let Some(call) = r.calls.get(&f.id).cloned() {
                drop(r);
                tracing::info!("request {}: cancelled, its action stopped", f.id);
                // Stopping may wait on the action's session: not on the channel's reader.
                super::workers::run(move || call.cancel());
            } else {
                tracing::info!("request {}: cancelled after it answered", f.id);
            }
        }
        _ => {}
    }
}

/// Send SIGINT to a verb's process (ours: a child this server started and has not reaped).
fn interrupt(pid: u32) {
    use rustix::process::{Pid, Signal, kill_process};
    if let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = kill_process(p, Signal::INT);
    }
}

/// A `kpty __verb` waiting for its arguments.
fn spawn_spare() -> std::io::Result<Child> {
    let exe = std::env::current_exe().unwrap_or_else(|_| "/proc/self/exe".into());
    Command::new(exe)
        .arg(VERB)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// The spare process, alive, or a new one started now.
fn take_spare(running: &Arc<Mutex<Running>>) -> std::io::Result<Child> {
    let spare = running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .spare
        .take();
    let alive = |mut c: Child| matches!(c.try_wait(), Ok(None)).then_some(c);
    match spare.and_then(alive) {
        Some(c) => Ok(c),
        None => spawn_spare(),
    }
}

/// Start the next spare, unless there is one: after a verb has answered, so starting it
/// never competes with a verb for the host's CPUs.
fn restock(running: &Arc<Mutex<Running>>) {
    if running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .spare
        .is_some()
    {
        return;
    }
    if let Ok(next) = spawn_spare() {
        let mut r = running.lock().unwrap_or_else(|p| p.into_inner());
        if r.spare.is_none() {
            r.spare = Some(next);
        } else {
            drop(r);
            reap(next);
        }
    }
}

/// End a spare nobody will use: its stdin closes, so it exits.
fn reap(mut c: Child) {
    drop(c.stdin.take());
    let _ = c.wait();
}

/// Start verb `v` as request `id`: this kpty in a process of its own (the spare).
fn start_verb(id: u32, v: Verb, out: &Out, running: &Arc<Mutex<Running>>) {
    let started = take_spare(running).and_then(|mut c| {
        let args = serde_json::to_vec(&v).map_err(std::io::Error::other)?;
        let mut w = c
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        Frame::new(id, Kind::Verb, args).write(&mut w)?;
        if v.stdin {
            c.stdin = Some(w);
        }
        Ok(c)
    });
    let mut child = match started {
        Ok(c) => c,
        Err(e) => {
            let said = format!("kpty: cannot start kpty on this host: {e}\n");
            out.send(&Frame::new(id, Kind::Err, said.into_bytes()));
            out.send(&Frame::exit(id, 1));
            return;
        }
    };
    {
        let mut r = running.lock().unwrap_or_else(|p| p.into_inner());
        r.pids.insert(id, child.id());
        if let Some(w) = child.stdin.take() {
            r.stdins.insert(id, Feed::start(w));
        }
    }
    let (out, running) = (out.clone(), running.clone());
    super::workers::run(move || {
        stream(id, &mut child, &out);
        // Forgotten before it is reaped: a `Cancel` never signals a pid used again.
        let mut r = running.lock().unwrap_or_else(|p| p.into_inner());
        r.pids.remove(&id);
        r.stdins.remove(&id);
        drop(r);
        use std::os::unix::process::ExitStatusExt;
        let code = match child.wait() {
            Ok(s) => s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)),
            Err(_) => 1,
        };
        out.send(&Frame::exit(id, code));
        restock(&running);
    });
}

/// `kpty __verb`: wait for one verb's arguments (a frame on stdin, read without buffering
/// past it) and make stdin `/dev/null` unless the verb's input follows; the argument vector
/// to run it with (program first), or `None` when the channel went away before asking.
pub fn take_verb() -> Option<Vec<std::ffi::OsString>> {
    struct Fd0;
    impl Read for Fd0 {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            use std::os::fd::AsFd;
            crate::eintr::retry(|| {
                rustix::io::read(std::io::stdin().as_fd(), &mut *buf).map_err(Into::into)
            })
        }
    }
    let v = match Frame::read(&mut Fd0) {
        Ok(Some(f)) if f.kind == Kind::Verb => serde_json::from_slice::<Verb>(&f.data).ok(),
        _ => None,
    }?;
    if !v.stdin {
        let null = std::fs::File::open("/dev/null").ok()?;
        rustix::stdio::dup2_stdin(&null).ok()?;
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| "kpty".into());
    Some(
        std::iter::once(exe.into_os_string())
            .chain(v.args.into_iter().map(Into::into))
            .collect(),
    )
}

/// Stream a verb's stdout and stderr as frames until both end: stdout on this thread,
/// stderr on a kept one.
fn stream(id: u32, child: &mut Child, out: &Out) {
    fn pump(id: u32, mut r: impl Read, kind: Kind, out: &Out) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match crate::eintr::retry(|| r.read(&mut buf)) {
                Ok(0) | Err(_) => return,
                Ok(n) => out.send(&Frame::new(id, kind, buf[..n].to_vec())),
            }
        }
    }
    let (done, finished) = std::sync::mpsc::channel::<()>();
    if let Some(e) = child.stderr.take() {
        let out = out.clone();
        super::workers::run(move || {
            pump(id, e, Kind::Err, &out);
            drop(done);
        });
    } else {
        drop(done);
    }
    if let Some(o) = child.stdout.take() {
        pump(id, o, Kind::Out, out);
    }
    // The sender is dropped when stderr has ended.
    let _ = finished.recv();
}
