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
use std::io::Write;
use std::time::{Duration, Instant};
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::oneshot;

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
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    match Signals::install() {
        Ok((rt, mut signals)) => {
            let r = running.clone();
            std::thread::spawn(move || {
                let seen = rt.block_on(watch(r, done_rx, &mut signals));
                let _ = seen_tx.send(seen);
                // The talk is over and kpty only prints and exits: a signal now ends it.
                rt.block_on(signals.next());
                std::process::exit(INTERRUPTED);
            });
        }
        Err(e) => tracing::warn!("cannot watch for signals: {e}"),
    }
    let result = run_talk(&ctx, params, None, &running);
    let _ = done_tx.send(());
    let seen = seen_rx.recv().ok().flatten();
    match (result, seen) {
        (Err(e), Some(i)) if e.code == ErrorCode::Cancelled => Err(interrupted_error(e, &i)),
        (r, _) => r,
    }
}

/// A talk interrupted by a signal.
struct Interrupted {
    signal: &'static str,
    at_prompt: bool,
}

/// The signals that interrupt a talk, caught from before it starts.
struct Signals {
    int: Signal,
    term: Signal,
    hup: Signal,
}

impl Signals {
    /// Catch SIGINT, SIGTERM and SIGHUP now (a signal from here on interrupts the talk),
    /// on a runtime for the watcher thread.
    fn install() -> std::io::Result<(tokio::runtime::Runtime, Self)> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let signals = {
            let _in = rt.enter();
            Self {
                int: signal(SignalKind::interrupt())?,
                term: signal(SignalKind::terminate())?,
                hup: signal(SignalKind::hangup())?,
            }
        };
        Ok((rt, signals))
    }

    /// The next signal's name.
    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.int.recv() => "SIGINT",
            _ = self.term.recv() => "SIGTERM",
            _ = self.hup.recv() => "SIGHUP",
        }
    }
}

/// Wait for a signal while the talk runs; on one, interrupt the talk and say how it went
/// (`None`: the talk ended without a signal).
async fn watch(
    running: Running,
    mut done: oneshot::Receiver<()>,
    signals: &mut Signals,
) -> Option<Interrupted> {
    let name = tokio::select! {
        biased;
        _ = &mut done => return None,
        name = signals.next() => name,
    };
    let r = running.clone();
    let call =
        tokio::task::spawn_blocking(move || r.cancel(true, SETTLE, Instant::now() + GIVE_UP));
    let stopped = tokio::select! {
        s = call => s.ok(),
        again = signals.next() => quit(again, "not waiting for the prompt"),
    };
    match stopped {
        Some(Stopped::Stopped { at_prompt }) => Some(Interrupted {
            signal: name,
            at_prompt,
        }),
        Some(Stopped::Ended) => Some(Interrupted {
            signal: name,
            at_prompt: false,
        }),
        Some(Stopped::NotStarted) => quit(name, "no command was started"),
        Some(Stopped::Gone(e)) => quit(name, &format!("the session is gone ({})", e.message)),
        Some(Stopped::TimedOut) | None => quit(name, "the talk could not be interrupted"),
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
    let message = format!(
        "interrupted by {}: Ctrl-C was sent to the command in {session}; {state}",
        i.signal
    );
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
