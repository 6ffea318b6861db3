//! One running `talk`, whichever front end runs it: [`super::talk::run_talk`] runs it (audited, with an
//! optional progress sink) and a [`Running`] handle lets another thread cancel it — the CLI on
//! a signal, MCP on `notifications/cancelled` or when its client is gone, `kpty serve` when an
//! HTTP caller goes away or the server shuts down. A cancel reaches the holder as
//! `Request::Cancel`; one asked for before the command was typed keeps it from being typed.
//! [`Runs`] lists the talks a server runs, to stop them all at shutdown.
//! The core knows no runtime and no signals: a cancel is a blocking call with a deadline.

use super::Ctx;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::{CancelBody, CancelRequest, ProgressBody, client};
use crate::store::RegistryEntry;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a cancel waits before asking the holder again when it had not let the talk in
/// yet (a cancel that reaches the holder before the talk finds nothing to stop).
const RETRY: Duration = Duration::from_millis(50);

/// How long one cancel call to a holder may take beyond its settle time.
const CALL_MARGIN: Duration = Duration::from_secs(5);

/// How long a front end's cancel (an MCP client's, a remote caller's) keeps asking for the
/// action to stop: its holder, or the host it runs on.
const CANCEL_WITHIN: Duration = Duration::from_secs(5);

/// Progress reporting for a talk: how often at most, and the sink for the output so far.
pub type Progress<'a> = (Duration, &'a mut (dyn FnMut(ProgressBody) + Send));

/// A talk in progress, as the front end that started it keeps it (cheap to clone; clones
/// share it).
#[derive(Clone, Default)]
pub struct Running(Arc<Shared>);

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// What the front end is woken by while the talk waits (set once, before it starts).
    wake: std::sync::OnceLock<WakeOn>,
    /// The talk's id, as the holder knows it ([`Running::talk_id`]).
    id: std::sync::OnceLock<String>,
}

/// How to ask a host to stop an action called over a connection to its channel.
type StopCall = fn(&std::os::unix::net::UnixStream);

/// A front end's wake-up ([`Running::wake_on`]).
struct WakeOn {
    fd: std::os::fd::OwnedFd,
    on_wake: Box<dyn Fn(&Running) + Send + Sync>,
}

#[derive(Default)]
struct State {
    /// The session the talk runs in, once resolved (again when the default was replaced).
    target: Option<Target>,
    /// A cancel was asked for.
    cancelled: bool,
    /// The talk has returned.
    done: bool,
    /// It returned refusing to type its command: a cancel came first ([`Running::at`]).
    refused: bool,
    /// Threads waiting for a change ([`Running::wait_change`]): only then is there anyone to
    /// wake (a wake-up is a system call even when nobody waits).
    watchers: u32,
    /// A `wait_for`'s connection to its holder (nothing is typed: a cancel closes it, and the
    /// holder stops waiting).
    waiting: Option<std::os::unix::net::UnixStream>,
    /// An action's call to a host's kpty over its channel, and how to ask the host to stop
    /// it there (the answer then comes back, and the call returns).
    remote: Option<(std::os::unix::net::UnixStream, StopCall)>,
}

/// Where a cancel goes.
#[derive(Clone)]
struct Target {
    session_id: String,
    /// The session's state directory and id, where its holder's socket is found when a
    /// cancel comes (`None`: a bridged session, which cannot be cancelled from here).
    holder: Option<(crate::store::StateDir, crate::api::SessionId)>,
}

/// How a cancel went.
#[derive(Debug)]
pub enum Stopped {
    /// No command had been typed: the talk ends as `CANCELLED` without typing it.
    NotStarted,
    /// The talk ends without typing its command (nor a Ctrl-C): nothing of it ran. It was
    /// refused before it went out, or its holder stopped it before it typed — while it
    /// waited behind another talk, or let in and not typed yet.
    Untyped,
    /// The holder stopped the talk (Ctrl-C typed when asked); `at_prompt`: the shell showed
    /// its prompt within the settle time.
    Stopped {
        /// The shell is back at its prompt.
        at_prompt: bool,
    },
    /// The talk ended by itself first.
    Ended,
    /// The session cannot be reached (its holder is gone, or it is not one of ours).
    Gone(Error),
    /// The deadline passed before the holder let the talk in.
    TimedOut,
    /// A `wait_for` stopped waiting: its connection to the holder was closed.
    Abandoned,
}

impl Running {
    /// A talk about to start.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// While the talk waits for its holder, call `on_wake` (on the waiting thread, with this
    /// handle) each time `fd` is readable; `on_wake` must drain it. Readable before the
    /// command is typed, it keeps the command from being typed (`CANCELLED`). How the CLI
    /// hears its signals without a thread of its own: their handler writes to `fd`.
    /// Only the first call counts.
    pub fn wake_on(
        &self,
        fd: std::os::fd::OwnedFd,
        on_wake: impl Fn(&Running) + Send + Sync + 'static,
    ) {
        let _ = self.0.wake.set(WakeOn {
            fd,
            on_wake: Box::new(on_wake),
        });
    }

    /// The wake-up to watch while waiting, if the front end set one: `on_wake` is handed to
    /// the caller as a closure over this handle.
    pub(crate) fn with_wake<T>(&self, f: impl FnOnce(Option<client::Wake<'_>>) -> T) -> T {
        let Some(w) = self.0.wake.get() else {
            return f(None);
        };
        let on_wake = || (w.on_wake)(self);
        f(Some(client::Wake {
            fd: std::os::fd::AsFd::as_fd(&w.fd),
            on_wake: &on_wake,
        }))
    }

    /// The wake-up's descriptor is readable now: its work is done (on this thread).
    fn woken_now(&self) -> bool {
        use rustix::event::{PollFd, PollFlags};
        let Some(w) = self.0.wake.get() else {
            return false;
        };
        let mut fds = [PollFd::new(&w.fd, PollFlags::IN)];
        let now = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let readable = rustix::event::poll(&mut fds, Some(&now)).is_ok_and(|n| n > 0)
            && fds[0].revents().contains(PollFlags::IN);
        if readable {
            (w.on_wake)(self);
        }
        readable
    }

    /// The talk's id, unique to it: sent with the talk to its holder and with every cancel,
    /// so that a cancel stops this talk — running, or waiting behind another caller's — and
    /// never the other one.
    pub(crate) fn talk_id(&self) -> &str {
        self.0
            .id
            .get_or_init(|| uuid::Uuid::new_v4().simple().to_string())
    }

    /// Whether the talk has returned.
    pub(crate) fn is_done(&self) -> bool {
        self.state().done
    }

    /// The session the talk runs in, once known.
    pub fn session_id(&self) -> Option<String> {
        self.state().target.as_ref().map(|t| t.session_id.clone())
    }

    /// The talk is about to type its command in `entry`; refused (`CANCELLED`) when a cancel
    /// came first.
    pub(crate) fn at(&self, ctx: &Ctx, entry: &RegistryEntry) -> Result<()> {
        let holder = super::kind::is_local(entry)
            .then(|| super::handle::files_id(&entry.session_id))
            .flatten()
            .map(|id| (ctx.state.clone(), id));
        // A wake-up (the CLI's signal) that came before the command was typed cancels it
        // before it is: the front end hears of it first, while the talk has no target yet.
        if self.woken_now() {
            self.state().cancelled = true;
        }
        let mut st = self.state();
        if st.cancelled && st.target.is_none() && self.0.wake.get().is_some() {
            st.refused = true;
            return Err(not_typed(&entry.session_id));
        }
        st.target = Some(Target {
            session_id: entry.session_id.clone(),
            holder,
        });
        if st.watchers > 0 {
            self.0.changed.notify_all();
        }
        if st.cancelled {
            st.refused = true;
            return Err(not_typed(&entry.session_id));
        }
        Ok(())
    }

    /// A `wait_for` is about to wait on `stream` (its connection to the holder of
    /// `session_id`): a cancel closes it. Refused (`CANCELLED`) when a cancel came first.
    pub(crate) fn waits_on(
        &self,
        session_id: &str,
        stream: &std::os::unix::net::UnixStream,
    ) -> Result<()> {
        let mut st = self.state();
        if st.cancelled {
            return Err(cancelled_wait(session_id));
        }
        st.waiting = Some(stream.try_clone().map_err(|e| {
            Error::new(
                ErrorCode::PtyReadFailed,
                format!("cannot watch the wait's connection: {e}"),
            )
        })?);
        Ok(())
    }

    /// An action is about to be called on a host over `stream` (its channel): a cancel
    /// asks the host to stop it with `cancel` and waits for the call to return. Refused
    /// (`CANCELLED`) when a cancel came first.
    pub(crate) fn calls_on(
        &self,
        host: &str,
        stream: &std::os::unix::net::UnixStream,
        cancel: StopCall,
    ) -> Result<()> {
        let mut st = self.state();
        if st.cancelled {
            return Err(Error::new(
                ErrorCode::Cancelled,
                format!("the call to {host} was cancelled before it went out"),
            ));
        }
        let clone = stream.try_clone().map_err(|e| {
            Error::new(
                ErrorCode::PtyReadFailed,
                format!("cannot watch the call's connection: {e}"),
            )
        })?;
        st.remote = Some((clone, cancel));
        Ok(())
    }

    /// Whether a cancel was asked for.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.state().cancelled
    }

    /// A front end's cancel of the action it runs ([`super::run_tracked`]): a talk ended and
    /// its command interrupted (`interrupt`), a wait ended, a host asked to stop its action;
    /// returns without waiting for a prompt, asking for at most 5 s. Blocking.
    pub fn stop(&self, interrupt: bool) -> Stopped {
        self.cancel(interrupt, Duration::ZERO, Instant::now() + CANCEL_WITHIN)
    }

    /// Stop the talk: the holder ends it (with `interrupt`, Ctrl-C is typed too and the
    /// holder waits up to `settle` for the prompt). Asks again while the holder has not let
    /// the talk in yet, until the talk ends or `deadline`. Blocking.
    pub fn cancel(&self, interrupt: bool, settle: Duration, deadline: Instant) -> Stopped {
        loop {
            let target = {
                let mut st = self.state();
                st.cancelled = true;
                if st.done && st.refused {
                    return Stopped::Untyped;
                }
                if st.done {
                    return Stopped::Ended;
                }
                if let Some(s) = st.waiting.take() {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                    return Stopped::Abandoned;
                }
                if let Some((s, cancel)) = st.remote.take() {
                    drop(st);
                    return self.stop_remote(&s, cancel, deadline);
                }
                match &st.target {
                    None => return Stopped::NotStarted,
                    Some(t) => t.clone(),
                }
            };
            let socket = target.holder.as_ref();
            let socket = socket.and_then(|(s, id)| crate::store::paths::holder_socket(s, id).ok());
            let Some(sock) = socket else {
                let why = format!("{} has no holder socket here", target.session_id);
                return Stopped::Gone(Error::new(ErrorCode::PtySessionNotFound, why));
            };
            match cancel_call(&sock, interrupt, settle, self.talk_id()) {
                Ok(v) if v.cancelled && v.untyped => return Stopped::Untyped,
                Ok(v) if v.cancelled => {
                    return Stopped::Stopped {
                        at_prompt: v.at_prompt,
                    };
                }
                Err(e) => return Stopped::Gone(e),
                Ok(_) => {}
            }
            if !self.wait_change(RETRY.min(deadline.saturating_duration_since(Instant::now()))) {
                return match (self.is_done(), self.state().refused) {
                    (true, true) => Stopped::Untyped,
                    (true, false) => Stopped::Ended,
                    (false, _) => Stopped::TimedOut,
                };
            }
        }
    }

    /// Ask the host to stop the action called over `s` and wait, until `deadline`, for the
    /// call to return with its answer; past it, the connection is shut (the host then stops
    /// the action all the same, with nobody waiting for it).
    fn stop_remote(
        &self,
        s: &std::os::unix::net::UnixStream,
        cancel: StopCall,
        deadline: Instant,
    ) -> Stopped {
        cancel(s);
        while !self.is_done() {
            if !self.wait_change(deadline.saturating_duration_since(Instant::now())) {
                break;
            }
        }
        if self.is_done() {
            return Stopped::Ended;
        }
        let _ = s.shutdown(std::net::Shutdown::Both);
        Stopped::TimedOut
    }

    /// Wait up to `wait` for the talk to end; false when it ended or `wait` was zero.
    fn wait_change(&self, wait: Duration) -> bool {
        if wait.is_zero() {
            return false;
        }
        let mut st = self.state();
        st.watchers += 1;
        let (mut st, _) = self
            .0
            .changed
            .wait_timeout_while(st, wait, |s| !s.done)
            .unwrap_or_else(|p| p.into_inner());
        st.watchers -= 1;
        !st.done
    }

    /// A guard that cancels the talk (Ctrl-C, on a thread of its own) when it is dropped
    /// before the talk returned: for a front end whose caller can leave mid-call.
    pub fn cancel_on_drop(&self) -> impl Drop + use<> {
        CancelOnDrop(self.clone())
    }
}

/// Marks a talk returned when dropped (also when its worker panics).
pub(super) struct Finish<'a>(pub(super) &'a Running);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        let mut st = self.0.state();
        st.done = true;
        if st.watchers > 0 {
            self.0.0.changed.notify_all();
        }
    }
}

/// See [`Running::cancel_on_drop`].
struct CancelOnDrop(Running);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.0.is_done() {
            return;
        }
        let r = self.0.clone();
        let spawned = std::thread::Builder::new()
            .name("kpty-cancel".into())
            .spawn(move || {
                if let Stopped::Gone(e) =
                    r.cancel(true, Duration::ZERO, Instant::now() + CALL_MARGIN)
                {
                    tracing::debug!("cancel of a talk whose caller left: {}", e.message);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot cancel a talk whose caller left: {e}");
        }
    }
}

/// The error of a talk in `session_id` cancelled before its command was typed.
fn not_typed(session_id: &str) -> Error {
    Error::new(
        ErrorCode::Cancelled,
        "cancelled before the command was typed",
    )
    .with_details(crate::error::details::Session {
        session_id: session_id.to_string(),
    })
}

/// The error of a `wait_for` in `session_id` whose caller stopped waiting.
pub(crate) fn cancelled_wait(session_id: &str) -> Error {
    Error::new(
        ErrorCode::Cancelled,
        "wait_for was cancelled: the caller stopped waiting",
    )
    .with_details(crate::error::details::Session {
        session_id: session_id.to_string(),
    })
}

/// Ask the holder on `sock` to stop the talk of id `talk_id`.
fn cancel_call(
    sock: &std::path::Path,
    interrupt: bool,
    settle: Duration,
    talk_id: &str,
) -> Result<CancelBody> {
    let req = CancelRequest {
        interrupt,
        settle_ms: settle.as_millis() as u64,
        talk_id: Some(talk_id.to_string()),
    };
    client::call(sock, req, settle + CALL_MARGIN).map_err(|e| match e {
        client::Unreachable::Gone(err) => Error::new(ErrorCode::PtyProcessExited, err.to_string()),
        client::Unreachable::Other(err) => err,
    })
}

/// The talks a server is running (MCP `talk`, the bridge's `POST /pty/talk`): what `kpty
/// serve` and `kpty mcp` stop when they shut down. A talk whose caller went away runs on in
/// its session until its command ends, holding the session busy; so at shutdown every talk
/// still listed is cancelled (Ctrl-C into its terminal) until its worker returns.
/// Cheap to clone; clones share the list.
#[derive(Clone, Default)]
pub struct Runs(Arc<RunsInner>);

#[derive(Default)]
struct RunsInner {
    next: AtomicU64,
    runs: Mutex<HashMap<u64, Running>>,
    changed: Condvar,
    /// Threads in [`Runs::cancel_all`]'s wait (changed under `runs`'s lock).
    watchers: AtomicU64,
}

/// One talk's place in the list: derefs to its [`Running`]; leaves the list when dropped
/// (also when the worker panics).
pub struct Ticket {
    key: u64,
    running: Running,
    of: Arc<RunsInner>,
}

impl Runs {
    /// List a talk that is starting.
    pub fn start(&self) -> Ticket {
        let key = self.0.next.fetch_add(1, Ordering::Relaxed);
        let running = Running::new();
        self.runs().insert(key, running.clone());
        Ticket {
            key,
            running,
            of: self.0.clone(),
        }
    }

    fn runs(&self) -> MutexGuard<'_, HashMap<u64, Running>> {
        self.0.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many talks are running.
    pub fn len(&self) -> usize {
        self.runs().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cancel every running talk (Ctrl-C into its terminal) and wait for their workers to
    /// return, until `deadline`; returns how many were still running then. Blocking.
    pub fn cancel_all(&self, deadline: Instant) -> usize {
        let listed: Vec<Running> = self.runs().values().cloned().collect();
        for r in &listed {
            if let Stopped::Gone(e) = r.cancel(true, Duration::ZERO, deadline) {
                tracing::debug!("cancel of a talk at shutdown: {}", e.message);
            }
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        let runs = self.runs();
        self.0.watchers.fetch_add(1, Ordering::Relaxed);
        let (runs, _) = self
            .0
            .changed
            .wait_timeout_while(runs, wait, |r| !r.is_empty())
            .unwrap_or_else(|p| p.into_inner());
        self.0.watchers.fetch_sub(1, Ordering::Relaxed);
        runs.len()
    }
}

impl std::ops::Deref for Ticket {
    type Target = Running;
    fn deref(&self) -> &Running {
        &self.running
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut runs = self.of.runs.lock().unwrap_or_else(|p| p.into_inner());
        runs.remove(&self.key);
        // Read under the lock the waiter counts itself under: no wake-up is lost.
        let watched = self.of.watchers.load(Ordering::Relaxed) > 0;
        drop(runs);
        if watched {
            self.of.changed.notify_all();
        }
    }
}

#[cfg(test)]
#[path = "running_tests.rs"]
mod tests;
