//! `kpty talk` in the CLI, as `ssh host CMD` behaves: SIGINT (Ctrl-C), SIGTERM and SIGHUP
//! interrupt the command in the session (Ctrl-C into its terminal), wait briefly for the
//! prompt, and end the talk as `CANCELLED` (exit 130, recorded so in the audit trail) instead
//! of killing kpty and leaving the command running; a piped stdin becomes the command's
//! standard input ([`super::stdin`]).

use crate::api::Params;
use crate::api::reply::TalkReply;
use crate::core::Ctx;
use crate::core::running::{Running, Stopped};
use crate::core::talk::run_talk;
use crate::error::{Error, ErrorCode, Result};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::{flag, low_level::pipe};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an interrupted talk waits for the shell's prompt before kpty exits.
const SETTLE: Duration = Duration::from_secs(2);
/// How long kpty keeps asking the holder to interrupt the talk before it exits anyway.
const GIVE_UP: Duration = Duration::from_secs(5);
/// The exit status of an interrupted talk, whichever the signal (as for Ctrl-C).
const INTERRUPTED: i32 = 130;

/// Run a talk for the CLI: signals interrupt it; a piped stdin is the command's stdin
/// unless `no_stdin`.
pub fn talk(ctx: &Ctx, params: &Params, no_stdin: bool) -> Result<TalkReply> {
    let forward = if no_stdin {
        None
    } else {
        super::stdin::forward()?
    };
    let mut ctx = ctx.clone();
    ctx.talk_stdin = forward.as_ref().map(|f| f.path().to_path_buf());
    let running = Running::new();
    let watch = Watch::start(&running)
        .map_err(|e| tracing::warn!("cannot watch for signals: {e}"))
        .ok();
    let result = run_talk(&ctx, params, None, &running);
    let seen = watch.and_then(Watch::finish);
    match (result, seen) {
        (Err(e), Some(i)) if e.code == ErrorCode::Cancelled => Err(interrupted_error(e, &i)),
        (r, _) => r,
    }
}

/// A talk interrupted by a signal.
#[derive(Clone)]
struct Interrupted {
    signal: &'static str,
    at_prompt: bool,
    /// The talk's command was typed (and Ctrl-C after it); else nothing of it ran.
    typed: bool,
}

/// The signals that interrupt a talk (SIGINT, SIGTERM, SIGHUP), caught from before it
/// starts, with no thread of their own: their handler notes the signal and writes a byte to
/// a socket that the talk watches while it waits ([`Running::wake_on`]). On the first, the
/// waiting thread starts one that asks the holder to interrupt the command
/// ([`interrupt`]); another while that is under way, or any once the talk has returned,
/// ends kpty at once (130) from the handler itself.
struct Watch {
    shared: Arc<Shared>,
    /// Set by the first signal and when the talk returns: the next signal exits (130).
    stop: Arc<AtomicBool>,
}

/// What the signal handler, the waiting thread and the interrupting thread share.
struct Shared {
    /// The last signal caught (its number).
    last: Arc<AtomicUsize>,
    /// The socket the handler writes to (read side; non-blocking).
    woken: UnixStream,
    /// The first signal's name, and how interrupting the talk went once known.
    state: Mutex<(Option<&'static str>, Option<Interrupted>)>,
    changed: Condvar,
}

impl Watch {
    /// Catch the signals now; `running` watches for them while its talk waits.
    fn start(running: &Running) -> std::io::Result<Self> {
        let (woken, wake) = UnixStream::pair()?;
        woken.set_nonblocking(true)?;
        wake.set_nonblocking(true)?;
        let stop = Arc::new(AtomicBool::new(false));
        let last = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            // In this order: note it, exit if one came before (or the talk is over), mark
            // the next one as such, then wake the waiting thread. Noted first: once any
            // action is in place the signal no longer ends kpty by itself, and one that comes
            // before the wake-up is in place is seen below.
            flag::register_usize(sig, last.clone(), sig as usize)?;
            flag::register_conditional_shutdown(sig, INTERRUPTED, stop.clone())?;
            flag::register(sig, stop.clone())?;
            pipe::register(sig, wake.try_clone()?)?;
        }
        // A signal that came while the actions were being put in place may have found no
        // wake-up yet: wake the waiting thread for it now (a second wake-up is harmless).
        if last.load(Ordering::SeqCst) != 0 {
            stop.store(true, Ordering::SeqCst);
            let _ = (&wake).write(&[1]);
        }
        let shared = Arc::new(Shared {
            last,
            woken: woken.try_clone()?,
            state: Mutex::new((None, None)),
            changed: Condvar::new(),
        });
        let sh = shared.clone();
        running.wake_on(woken.into(), move |r| heard(&sh, r));
        Ok(Self { shared, stop })
    }

    /// The talk has returned: how a signal interrupted it, if one did (waiting for the
    /// interrupting thread to say).
    fn finish(self) -> Option<Interrupted> {
        self.stop.store(true, Ordering::SeqCst);
        let sh = &self.shared;
        let st = lock(&sh.state);
        st.0?;
        let (st, _) = sh
            .changed
            .wait_timeout_while(st, GIVE_UP + SETTLE, |s| s.1.is_none())
            .unwrap_or_else(|p| p.into_inner());
        st.1.clone()
    }
}

/// A signal was heard while the talk waits (on the waiting thread): the first starts
/// interrupting the talk on a thread of its own.
fn heard(sh: &Arc<Shared>, running: &Running) {
    let mut buf = [0u8; 64];
    while matches!((&sh.woken).read(&mut buf), Ok(n) if n > 0) {}
    let mut st = lock(&sh.state);
    if st.0.is_some() {
        return;
    }
    let name = signal_name(sh.last.load(Ordering::SeqCst) as i32);
    st.0 = Some(name);
    drop(st);
    let (sh, r) = (sh.clone(), running.clone());
    let started = std::thread::Builder::new()
        .name("kpty-interrupt".into())
        .spawn(move || interrupt(&sh, &r, name));
    if let Err(e) = started {
        quit(name, &format!("cannot interrupt the talk ({e})"));
    }
}

/// Interrupt the talk after signal `name`, and say how it went (or end kpty when it could
/// not be interrupted).
fn interrupt(sh: &Shared, running: &Running, name: &'static str) {
    let (at_prompt, typed) = match running.cancel(true, SETTLE, Instant::now() + GIVE_UP) {
        Stopped::Stopped { at_prompt } => (at_prompt, true),
        Stopped::Untyped => (true, false),
        Stopped::Ended | Stopped::Abandoned => (false, true),
        Stopped::NotStarted => quit(name, "no command was started"),
        Stopped::Gone(e) => quit(name, &format!("the session is gone ({})", e.message)),
        Stopped::TimedOut => quit(name, "the talk could not be interrupted"),
    };
    lock(&sh.state).1 = Some(Interrupted {
        signal: name,
        at_prompt,
        typed,
    });
    sh.changed.notify_all();
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A caught signal's name.
fn signal_name(sig: i32) -> &'static str {
    match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "SIGHUP",
    }
}

/// Exit now (130), saying why on stderr.
fn quit(signal: &str, why: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "kpty: {signal}: {why}; exiting");
    std::process::exit(INTERRUPTED)
}

/// The cancelled talk's error, saying which signal interrupted it and where the session is.
fn interrupted_error(e: Error, i: &Interrupted) -> Error {
    let session = e
        .details
        .as_ref()
        .and_then(|d| d.session_id())
        .unwrap_or("the session")
        .to_string();
    let state = if i.at_prompt {
        "it is back at its prompt"
    } else {
        "it has not shown its prompt yet"
    };
    let message = if i.typed {
        format!(
            "interrupted by {}: Ctrl-C was sent to the command in {session}; {state}",
            i.signal
        )
    } else {
        format!(
            "cancelled by {} before its command was typed in {session}: nothing of it ran",
            i.signal
        )
    };
    let details = match e.details.map(|d| *d) {
        Some(crate::error::Details::Talk(t)) => {
            crate::error::Details::Talk(crate::error::details::TalkStop {
                signal: Some(i.signal.to_string()),
                at_prompt: Some(i.at_prompt),
                ..t
            })
        }
        _ => crate::error::Details::Interrupted(crate::error::details::Interrupted {
            signal: i.signal.to_string(),
            at_prompt: i.at_prompt,
        }),
    };
    Error::new(ErrorCode::Cancelled, message).with_details(details)
}
