//! `kpty talk` in the CLI, as `ssh host CMD` behaves: SIGINT (Ctrl-C), SIGTERM and SIGHUP
//! interrupt the command in the session (Ctrl-C into its terminal), wait briefly for the
//! prompt, and end the talk as `CANCELLED` (exit 130, recorded so in the audit trail) instead
//! of killing kpty and leaving the command running; a piped stdin becomes the command's
//! standard input ([`super::stdin`]).

use crate::api::Params;
use crate::api::reply::TalkReply;
use crate::core::{self, Ctx};
use crate::error::{Error, ErrorCode, Result};
use crate::store::RegistryEntry;
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::mpsc;

/// How long an interrupted talk waits for the shell's prompt before kpty exits.
const SETTLE: Duration = Duration::from_secs(2);
/// How often kpty asks again to interrupt a talk its holder has not let in yet.
const RETRY: Duration = Duration::from_millis(50);
/// How long kpty keeps asking before it exits anyway.
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
    let (tx, rx) = mpsc::unbounded_channel();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    match Signals::install() {
        Ok((rt, mut signals)) => {
            let c = ctx.clone();
            std::thread::spawn(move || {
                let seen = rt.block_on(watch(c, rx, &mut signals));
                let _ = seen_tx.send(seen);
                // The talk is over and kpty only prints and exits: a signal now ends it.
                rt.block_on(signals.next());
                std::process::exit(INTERRUPTED);
            });
        }
        Err(e) => tracing::warn!("cannot watch for signals: {e}"),
    }
    let mut on_entry = |e: &RegistryEntry| {
        let _ = tx.send(Msg::Entry(Box::new(e.clone())));
    };
    let result = core::talk::talk_audited(&ctx, params, &mut on_entry, None);
    let _ = tx.send(Msg::Done);
    let seen = seen_rx.recv().ok().flatten();
    match (result, seen) {
        (Err(e), Some(i)) if e.code == ErrorCode::Cancelled => Err(interrupted_error(e, &i)),
        (r, _) => r,
    }
}

/// What the main thread tells the watcher.
enum Msg {
    /// The session the talk runs in (again when the default session was replaced).
    Entry(Box<RegistryEntry>),
    /// The talk ended.
    Done,
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
    ctx: Ctx,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    signals: &mut Signals,
) -> Option<Interrupted> {
    let mut entry = None;
    let name = loop {
        tokio::select! {
            biased;
            m = rx.recv() => match m {
                Some(Msg::Entry(e)) => entry = Some(*e),
                _ => return None,
            },
            name = signals.next() => break name,
        }
    };
    let Some(mut entry) = entry else {
        quit(name, "no command was started");
    };
    let give_up = tokio::time::Instant::now() + GIVE_UP;
    loop {
        let (c, e) = (ctx.clone(), entry.clone());
        let call = tokio::task::spawn_blocking(move || core::talk::interrupt(&c, &e, SETTLE));
        let answer = tokio::select! {
            r = call => r.ok(),
            again = signals.next() => quit(again, "not waiting for the prompt"),
        };
        match answer {
            Some(Ok(v)) if v.cancelled => {
                return Some(Interrupted {
                    signal: name,
                    at_prompt: v.at_prompt,
                });
            }
            Some(Err(e)) => quit(name, &format!("the session is gone ({})", e.message)),
            _ => {}
        }
        // The holder has not let the talk in yet: ask again shortly, unless it ended.
        tokio::select! {
            m = rx.recv() => match m {
                Some(Msg::Entry(e)) => entry = *e,
                _ => return Some(Interrupted { signal: name, at_prompt: false }),
            },
            () = tokio::time::sleep(RETRY) => {}
            again = signals.next() => quit(again, "not waiting for the prompt"),
        }
        if tokio::time::Instant::now() >= give_up {
            quit(name, "the talk could not be interrupted");
        }
    }
}

/// Exit now (130), saying why on stderr.
fn quit(signal: &str, why: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "kpty: {signal}: {why}; exiting");
    std::process::exit(INTERRUPTED)
}

/// The cancelled talk's error, saying which signal interrupted it and where the session is.
fn interrupted_error(e: Error, i: &Interrupted) -> Error {
    let mut details = e.details.unwrap_or_else(|| json!({}));
    let session = details["session_id"].as_str().unwrap_or("the session");
    let state = if i.at_prompt {
        "it is back at its prompt"
    } else {
        "it has not shown its prompt yet"
    };
    let message = format!(
        "interrupted by {}: Ctrl-C was sent to the command in {session}; {state}",
        i.signal
    );
    if let Value::Object(m) = &mut details {
        m.insert("signal".into(), json!(i.signal));
        m.insert("at_prompt".into(), json!(i.at_prompt));
    }
    Error::new(ErrorCode::Cancelled, message).with_details(details)
}
