//! The `talk` request inside a holder: admitting it (one talk at a time, never into a
//! full-screen or foreground program), typing the command, waiting for the completion
//! detector (OSC 133 or a sentinel line) with progress frames, and the reply; cancel and
//! interrupt. The talk's state, capture and detector live in `completion.rs`.

use super::completion::{Cancel, Capture, Completed, Detector, TalkState};
use super::exit::ExitInfo;
use super::input_wait::{Left, QuietWatch};
use super::requests::screen_state;
use super::session::{Shared, State};
use super::shell::{Integration, ShellKind, typed_command, with_stdin};
use crate::error::{Error, ErrorCode, Hint, Result};
use crate::proto::{ProgressBody, TALK_ID_MAX, TalkBody, TalkRequest};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

/// `e`, unless the command is dangerous on its own: then that refusal, whatever else kept
/// the talk from typing it (a busy or unfinished line, another program in front, an
/// incomplete command) — refused as dangerous however the session stands, as the front
/// ends' check refused it before it was sent here.
fn danger_first(req: &TalkRequest, e: Error) -> Error {
    refuse_if_dangerous(req).err().unwrap_or(e)
}

/// The refusal of a command dangerous on its own (judged as the front ends judged it).
fn refuse_if_dangerous(req: &TalkRequest) -> Result<()> {
    let text = format!("{}\r", req.command);
    crate::safety::check_typed(&text, crate::safety::Opacity::Ignore).map_err(Error::from)
}

/// A talk let in: how it completes and what it types.
struct Admitted {
    /// Completion method.
    method: Integration,
    /// The syntax the command is typed in (POSIX for a nested shell).
    kind: ShellKind,
    /// The sentinel (typed for the sentinel method; the talk's id otherwise).
    sentinel: String,
    /// What the typed text is checked against.
    opacity: crate::safety::Opacity,
    /// Absolute offset where the talk began.
    begin: u64,
    /// Watch for the command waiting for input (not in a nested shell: its own commands'
    /// reads are not visible, and ssh or docker always read the terminal).
    watch_input: bool,
}

impl Shared {
    /// `Talk`: type the command, wait for its completion marker, return its output.
    pub fn talk(
        self: &std::sync::Arc<Self>,
        req: &TalkRequest,
        progress: Option<Progress<'_>>,
        caller: Option<&std::os::unix::net::UnixStream>,
    ) -> Result<TalkBody> {
        let started = Instant::now();
        let deadline = started + Duration::from_millis(req.timeout_ms);
        // Another talk runs: a dangerous command is refused now, not after waiting for it.
        if self.lock().talk.running() {
            refuse_if_dangerous(req)?;
        }
        // Whatever keeps the talk from typing, a dangerous command is refused as such.
        if req
            .talk_id
            .as_ref()
            .is_some_and(|id| id.len() > TALK_ID_MAX)
        {
            return Err(Error::invalid(format!(
                "a talk's id is at most {TALK_ID_MAX} bytes"
            )));
        }
        let ready = {
            // Until it is let in, a cancel naming it (or its caller hanging up) ends it where
            // it waits.
            let queued = Queued::join(self, req.talk_id.as_deref(), caller);
            let ready = self.ready_to_type(req, queued.ticket, deadline);
            // Let in, it may have waited (for a prompt to be drawn, a line to settle): a
            // caller that hung up meanwhile gets nothing typed for nobody.
            if ready.is_ok()
                && (self.lock().queued.stopped(queued.ticket) || caller.is_some_and(hung_up))
            {
                tracing::info!("the talk's caller hung up before its command was typed");
                self.lock().talk.give_up_untyped();
            }
            ready
        };
        let (mut a, typed, cleared) = ready.map_err(|e| danger_first(req, e))?;
        // What came while the line settled (a command submitted just before, answered) is
        // not this talk's: it begins where it types.
        a.begin = self.restart_capture();
        if !self.type_checked(&typed, a.opacity)? {
            // Cancelled before its command could be typed: nothing of it ran.
            let st = self.lock();
            let detector = Detector::Osc133;
            return self.finish(st, Err(Stop::CancelledUntyped), req, &a, &detector, started);
        }
        self.record_input(
            typed.as_bytes(),
            super::record::writer_name(req.by.as_deref()),
        );
        let mut detector = match a.method {
            Integration::Sentinel => Detector::sentinel(&a.sentinel, a.begin),
            Integration::Osc133 => Detector::Osc133,
        };
        let mut reporter = progress.map(|(every, send)| Reporter {
            every,
            send,
            started,
            last: Instant::now(),
            sent_bytes: 0,
        });
        let mut quiet = a.watch_input.then(QuietWatch::new);
        let (st, outcome) =
            self.await_completion(&mut detector, reporter.as_mut(), quiet.as_mut(), deadline);
        if let Err(Stop::Waiting) = outcome {
            let left = Left {
                raw: req.raw,
                completion: a.method.as_str(),
                sentinel: &a.sentinel,
                begin: a.begin,
                started,
            };
            return self.leave_waiting(st, detector, left);
        }
        let mut body = self.finish(st, outcome, req, &a, &detector, started)?;
        body.cleared_line = cleared;
        Ok(body)
    }

    /// Let the talk in and bring the shell to where it can be typed into: the talk's
    /// description, the text to type and what a forced talk cleared from the line; on a
    /// failure after the talk was let in, the talk is ended.
    fn ready_to_type(
        &self,
        req: &TalkRequest,
        ticket: u64,
        deadline: Instant,
    ) -> Result<(Admitted, String, Option<String>)> {
        let a = self.admit(req, ticket, deadline)?;
        let command = match &req.stdin {
            // A nested shell (a forced talk) cannot see our files.
            Some(path) if !req.force => with_stdin(a.kind, &req.command, path),
            _ => req.command.clone(),
        };
        let ready = (|| {
            if a.kind.posix_syntax() {
                crate::safety::check_complete(&req.command.replace('\r', "\n"))?;
            }
            if a.method == Integration::Osc133 {
                self.refuse_continuation(deadline)?;
            }
            // Our own shell: onto its drawn prompt and an empty input line (or one cleared).
            match a.watch_input {
                true => self.empty_input_line(a.method, req.force, deadline),
                false => Ok(None),
            }
        })();
        // Cancelled meanwhile: whatever kept it from typing, it now types nothing (it ends
        // as cancelled, see `type_checked`).
        let ready = if self.lock().talk.cancelled() {
            Ok(None)
        } else {
            ready
        };
        // The shell ended while the line settled (an `exit` typed just before): nothing of
        // this talk was typed.
        let ready = ready.and_then(|c| match self.lock().exit.clone() {
            Some(exit) => Err(self.ended_before(&exit)),
            None => Ok(c),
        });
        let cleared = ready.inspect_err(|_| self.end_talk())?;
        let typed = typed_command(a.kind, a.method, &command, &a.sentinel);
        Ok((a, typed, cleared))
    }

    /// Let a talk in, or say why not: wait for another talk (and a just-interrupted command)
    /// to end, refuse a full-screen program, a foreground program (unless forced) and a shell
    /// not at its prompt; then mark the talk running.
    fn admit(&self, req: &TalkRequest, ticket: u64, deadline: Instant) -> Result<Admitted> {
        // Checking "is anyone else talking" and starting this talk happen under one lock, so
        // two talks can never both type; the foreground is looked up between, outside it.
        let mut settled = false;
        let (mut st, fg) = loop {
            drop(self.wait_free(req, ticket, deadline)?);
            let fg = self.foreground_other();
            let st = self.lock();
            if st.queued.stopped(ticket) {
                return Err(self.cancelled_queued());
            }
            if matches!(st.talk, TalkState::Idle | TalkState::Left { .. }) || st.exit.is_some() {
                // A command typed just before (an `exit`, a `cd`) may be ending: give it its
                // moment once, then look again — another talk may have come in meanwhile.
                let settles = matches!(st.talk, TalkState::Idle)
                    && st.integration == Integration::Osc133
                    && req.sentinel.is_none()
                    && !(req.force && fg.is_some());
                if settles && !settled && super::input_line::away(&st).is_some() {
                    settled = true;
                    drop(self.settle_running(st, deadline));
                    continue;
                }
                break (st, fg);
            }
        };
        if let Some(exit) = st.exit.clone() {
            return Err(self.ended_before(&exit));
        }
        if st.screen.alternate() {
            return Err(self.full_screen_error(fg));
        }
        // A forced talk types into whatever holds the foreground (a nested shell: ssh, su,
        // docker exec …) and completes by sentinel, in POSIX syntax: that shell is not ours.
        let nested = fg.is_some() && req.force;
        if let Some((pid, name)) = fg.filter(|_| !req.force) {
            return Err(self.foreground_error(pid, name));
        }
        let method = if req.sentinel.is_some() || nested {
            Integration::Sentinel
        } else {
            st.integration
        };
        if method == Integration::Osc133 && !st.at_prompt {
            return Err(Error::new(
                ErrorCode::PtyBusy,
                format!(
                    "{} is busy: the shell has not shown a prompt since its last command started",
                    self.session_id
                ),
            )
            .with_hint(Hint::ReadOrInterrupt {
                session: self.session_id.clone(),
            })
            .with_details(crate::error::details::Session::of(&self.session_id)));
        }
        let begin = st.ring.end();
        st.talk = TalkState::Running {
            capture: Capture::at(begin),
            cancel: Cancel::No,
            typed: false,
            id: req.talk_id.clone(),
        };
        // Let in: a cancel naming it now finds it running.
        st.queued.leave(ticket);
        Ok(Admitted {
            method,
            kind: if nested { ShellKind::Posix } else { self.kind },
            sentinel: req
                .sentinel
                .clone()
                .unwrap_or_else(|| crate::proto::new_sentinel(crate::proto::SENTINEL_HEX)),
            opacity: self.opacity(&st, nested),
            begin,
            watch_input: !nested,
        })
    }

    /// Wait until no talk runs and an interrupted command had its moment to return to the
    /// prompt (or the shell ended); `PTY_BUSY` when another talk outlasts `deadline`.
    fn wait_free(
        &self,
        req: &TalkRequest,
        ticket: u64,
        deadline: Instant,
    ) -> Result<MutexGuard<'_, State>> {
        let mut st = self.lock();
        while st.talk.running() && st.exit.is_none() {
            if st.queued.stopped(ticket) {
                return Err(self.cancelled_queued());
            }
            let (g, up) = self.wait_on(&self.events, st, deadline);
            st = g;
            if up && st.talk.running() {
                return Err(Error::new(
                    ErrorCode::PtyBusy,
                    format!(
                        "another talk is running on {} and did not finish within {} ms; try again later",
                        self.session_id, req.timeout_ms
                    ),
                ));
            }
        }
        // A talk cancelled just before this one had its command interrupted: give the shell a
        // moment to come back to its prompt rather than calling the session busy.
        while let TalkState::Interrupted(at) = st.talk {
            if st.queued.stopped(ticket) {
                return Err(self.cancelled_queued());
            }
            // No command started since the prompt: the Ctrl-C reached the line editor, which
            // throws its line away and — in bash and zsh — draws a new prompt. A line typed
            // before then goes to the line being thrown away (its first keys lost, however
            // long the shell takes: it may be starved, or stopped), so that prompt is waited
            // for, until the deadline.
            let redraws = st.at_prompt
                && st.integration == Integration::Osc133
                && matches!(self.kind, ShellKind::Bash | ShellKind::Zsh);
            let settle = if redraws {
                deadline
            } else {
                (at + INTERRUPT_SETTLE).min(deadline)
            };
            if st.exit.is_none() && redraws && Instant::now() >= settle {
                return Err(self.not_redrawn(req));
            }
            if Instant::now() >= settle || st.exit.is_some() {
                st.talk = TalkState::Idle;
                break;
            }
            let (g, _) = self.wait_on(&self.events, st, settle);
            st = g;
        }
        // A talk left waiting for input: its command first.
        let st = self.settle_left(st, req.force, ticket, deadline)?;
        if st.queued.stopped(ticket) {
            return Err(self.cancelled_queued());
        }
        Ok(st)
    }

    /// Type `typed`, checked with what earlier writes left on the line (the command lands
    /// after it); on failure the talk ends. `Ok(false)`: the talk was cancelled before it
    /// could type, and nothing is typed. The talk is marked typed under the typing lock, and
    /// a cancel's Ctrl-C is typed under it too: the Ctrl-C lands after the command, never
    /// before it (where it would reach the shell at its prompt, and the command run on).
    fn type_checked(&self, typed: &str, opacity: crate::safety::Opacity) -> Result<bool> {
        let mut typing = self.lock_typing();
        if !self.lock().talk.mark_typed() {
            return Ok(false);
        }
        self.observe_shell(&mut typing);
        let written = self
            .judge_typed(&typing, typed, opacity, false)
            .map_err(Error::from)
            .and_then(|next| {
                self.write_remote(typed.as_bytes())?;
                Ok(next)
            });
        match written {
            Ok(next) => {
                *typing = next;
                Ok(true)
            }
            Err(e) => {
                drop(typing);
                self.end_talk();
                Err(e)
            }
        }
    }

    /// Wait until the detector finds the end, or the shell exits, the talk is cancelled, its
    /// client goes away, the command waits for input (with `quiet`) or `deadline` passes;
    /// progress frames go out meanwhile. Returns with
    /// the state locked.
    fn await_completion(
        &self,
        detector: &mut Detector,
        mut reporter: Option<&mut Reporter<'_>>,
        mut quiet: Option<&mut QuietWatch>,
        deadline: Instant,
    ) -> (MutexGuard<'_, State>, std::result::Result<Completed, Stop>) {
        let mut st = self.lock();
        loop {
            // A cancel wins over a completion seen in the same look: the Ctrl-C it typed may
            // have ended the command (and drawn the prompt) before this thread woke up.
            if st.talk.cancelled() {
                return (st, Err(Stop::Cancelled));
            }
            if let Some(d) = st.talk.capture().and_then(|c| detector.check(c)) {
                return (st, Ok(d));
            }
            if let Some(exit) = st.exit.clone() {
                return (st, Err(Stop::Exited(exit)));
            }
            let mut wake = deadline;
            // Once the command started, a quiet terminal with a reader waits for input; before
            // it started, the shell reading is its continuation prompt (an unfinished line).
            let started = st.talk.capture().is_some_and(|c| detector.started(c));
            let continuing =
                matches!(detector, Detector::Osc133) && super::input_wait::maybe_continuing(&st);
            if let Some(q) = quiet.as_deref_mut()
                && (started || continuing)
            {
                let (g, look) = self.quiet_reader(st, q);
                st = g;
                match look {
                    Ok(_) => return (st, Err(Stop::Waiting)),
                    Err(None) => continue,
                    Err(Some(at)) => wake = wake.min(at),
                }
            }
            if let Some(r) = reporter.as_deref_mut()
                && let Some(c) = st.talk.capture()
            {
                let from = detector.output_from(c);
                match r.due(c, from) {
                    Due::Now(body) => {
                        drop(st);
                        let alive = r.send(body);
                        st = self.lock();
                        if !alive {
                            return (st, Err(Stop::ClientGone));
                        }
                        continue;
                    }
                    Due::At(t) => wake = wake.min(t),
                    Due::Nothing => {}
                }
            }
            // Only a sentinel search or progress needs waking on plain output; an OSC 133
            // talk waits for its markers (and exit, cancel) alone.
            let on = if detector.reads_output() || reporter.is_some() {
                &self.cond
            } else {
                &self.events
            };
            let (g, _) = self.wait_on(on, st, wake);
            st = g;
            if Instant::now() >= deadline {
                return (st, Err(Stop::Timeout));
            }
        }
    }

    /// End the talk and build its reply: the output region, or the error with the partial
    /// output.
    fn finish(
        &self,
        mut st: MutexGuard<'_, State>,
        outcome: std::result::Result<Completed, Stop>,
        req: &TalkRequest,
        a: &Admitted,
        detector: &Detector,
        started: Instant,
    ) -> Result<TalkBody> {
        let cap = st.talk.finish();
        let end_offset = st.ring.end();
        // The shell is back at its prompt when the talk completed (no foreground program).
        let (screen_after, state_after) = screen_state(&st, outcome.is_err());
        drop(st);
        self.notify();
        let Some(cap) = cap else {
            return Err(Error::internal("talk capture vanished"));
        };
        let duration_ms = started.elapsed().as_millis() as u64;
        let raw_output = if req.raw {
            String::from_utf8_lossy(&cap.bytes).into_owned()
        } else {
            String::new()
        };
        let stop = match outcome {
            Ok((from, to, code)) => {
                let region = &cap.bytes[cap.idx(from)..cap.idx(to)];
                return Ok(TalkBody {
                    output_raw: String::from_utf8_lossy(region).into_owned(),
                    raw_output,
                    exit_code: code,
                    completion: a.method.as_str().into(),
                    sentinel: a.sentinel.clone(),
                    duration_ms,
                    truncated: cap.truncated || cap.base > from,
                    start_offset: a.begin,
                    end_offset,
                    screen: Some(screen_after),
                    terminal_state: Some(state_after.into()),
                    ..TalkBody::default()
                });
            }
            // The shell ended before it started this talk's command (no output-start marker
            // since it was typed: killed, or ending on an `exit` typed just before): nothing
            // of the talk ran.
            Err(Stop::Exited(exit))
                if a.method == Integration::Osc133 && a.watch_input && cap.out_start.is_none() =>
            {
                return Err(self.ended_before(&exit));
            }
            Err(stop) => stop,
        };
        // Partial output: after the output-start marker (or begin line) when seen.
        let partial = crate::text::clean_text(&cap.bytes[cap.idx(detector.output_from(&cap))..]);
        let details = crate::error::details::TalkStop {
            session_id: self.session_id.clone(),
            command: req.command.clone(),
            partial_output: partial,
            timeout_ms: req.timeout_ms,
            duration_ms,
            sentinel: a.sentinel.clone(),
            completion: a.method.as_str().to_string(),
            bridge_error: None,
            exit_code: None,
            dropped_chars: None,
            signal: None,
            at_prompt: None,
        };
        Err(self.stop_error(stop, req, details))
    }

    /// `Cancel`: stop the talk in progress; with `interrupt`, type Ctrl-C as well and wait up
    /// to `settle` for the prompt it brings back (the answer's `at_prompt`). With `talk_id`,
    /// only that talk: running, or waiting to be let in (it then ends there, having typed
    /// nothing); another caller's talk is left alone.
    pub fn cancel_talk(
        self: &std::sync::Arc<Self>,
        interrupt: bool,
        settle: Duration,
        talk_id: Option<&str>,
    ) -> Result<crate::proto::CancelBody> {
        let mut st = self.lock();
        if let Some(id) = talk_id.filter(|id| !st.talk.runs(id)) {
            // Not the talk that runs: one waiting to be let in, or none here (not yet, or no
            // more) — `cancelled: false`, and the caller asks again until its talk returns.
            let found = st.queued.stop_id(id);
            drop(st);
            if found {
                self.notify();
            }
            return Ok(crate::proto::CancelBody {
                cancelled: found,
                at_prompt: false,
                untyped: found,
            });
        }
        // One Ctrl-C a talk, however many cancels come (a front end's and its shutdown's): a
        // second one would reach the shell at its prompt, which then eats the next line. None
        // before the command is typed: it then never is, and there is nothing to interrupt.
        let (talking, ctrl_c, untyped) = if let TalkState::Running { cancel, typed, .. } =
            &mut st.talk
        {
            let ctrl_c =
                interrupt && *typed && !matches!(cancel, Cancel::Interrupted(_) | Cancel::Settled);
            if ctrl_c {
                *cancel = Cancel::Interrupted(Instant::now());
            } else if *cancel == Cancel::No {
                *cancel = Cancel::Asked;
            }
            (true, ctrl_c, !*typed)
        } else {
            (false, false, false)
        };
        drop(st);
        self.notify();
        if ctrl_c {
            // The group it goes to: a command in front after it is signalled too (`interrupt`).
            let sent_to = super::interrupt::Target::now(self);
            self.type_interrupt()?;
            super::interrupt::follow(self, sent_to);
        }
        let deadline = Instant::now() + settle;
        let mut st = self.lock();
        // The interrupted talk ends (Interrupted) and the prompt makes it Idle.
        while talking
            && interrupt
            && st.exit.is_none()
            && (st.talk.cancelled() || matches!(st.talk, TalkState::Interrupted(_)))
        {
            let (g, up) = self.wait_on(&self.events, st, deadline);
            st = g;
            if up {
                break;
            }
        }
        let at_prompt = !st.talk.cancelled() && !matches!(st.talk, TalkState::Interrupted(_));
        Ok(crate::proto::CancelBody {
            cancelled: talking,
            at_prompt: talking && interrupt && at_prompt,
            untyped,
        })
    }

    /// The running talk's capture starts afresh at the output's end; returns that offset.
    fn restart_capture(&self) -> u64 {
        let mut st = self.lock();
        let begin = st.ring.end();
        if let TalkState::Running { capture, .. } = &mut st.talk {
            *capture = Capture::at(begin);
        }
        begin
    }

    fn end_talk(&self) {
        let mut st = self.lock();
        st.talk = TalkState::Idle;
        drop(st);
        self.notify();
    }
}

/// A talk's place among those waiting to be let in, while it waits: taken when the talk is
/// let in, or left when this is dropped (never while the state is locked). When the talk
/// has to wait behind another, its caller's connection is watched meanwhile: a caller that
/// hangs up (killed, or its connection closed) has its talk give up, never typed later for
/// nobody. Once let in, the talk looks at its caller again just before it types.
struct Queued<'a> {
    shared: &'a Shared,
    ticket: u64,
    /// Ends the watch when dropped (the watching thread sees this end close).
    _watch: Option<std::os::unix::net::UnixStream>,
}

impl<'a> Queued<'a> {
    /// Join the queue (as `id`, the caller's name for the talk), watching `caller` when
    /// another talk is ahead.
    fn join(
        shared: &'a std::sync::Arc<Shared>,
        id: Option<&str>,
        caller: Option<&std::os::unix::net::UnixStream>,
    ) -> Self {
        let mut st = shared.lock();
        let ticket = st.queued.join(id);
        let behind = !matches!(st.talk, TalkState::Idle);
        drop(st);
        let watch = caller
            .filter(|_| behind)
            .and_then(|c| watch_caller(shared, c, ticket));
        Self {
            shared,
            ticket,
            _watch: watch,
        }
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.shared.lock().queued.leave(self.ticket);
    }
}

/// Whether `caller` (a talk's connection) was closed by its other end, looked at now.
fn hung_up(caller: &std::os::unix::net::UnixStream) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    // No events asked: a hang-up (or error) is always reported; a half-close is not one.
    let mut fds = [PollFd::new(caller, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).is_ok()
        && fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR)
}

/// Watch `caller` (a talk's connection) on a thread of its own until the returned end is
/// dropped: when the caller hangs up first, the waiting talk `ticket` gives up. The thread
/// only polls the connection for its hang-up (it reads nothing from it). `None` when it
/// cannot be watched.
fn watch_caller(
    shared: &std::sync::Arc<Shared>,
    caller: &std::os::unix::net::UnixStream,
    ticket: u64,
) -> Option<std::os::unix::net::UnixStream> {
    use rustix::event::{PollFd, PollFlags, poll};
    let peer = caller.try_clone().ok()?;
    let (end, watched) = std::os::unix::net::UnixStream::pair().ok()?;
    let s = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("kpty-talk-peer".into())
        .spawn(move || {
            // No events asked of the caller's connection: a hang-up (or error) is always
            // reported, and the end of its requests (half-closed) is not one.
            let hung_up = loop {
                let mut fds = [
                    PollFd::new(&peer, PollFlags::empty()),
                    PollFd::new(&watched, PollFlags::IN),
                ];
                match poll(&mut fds, None) {
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => break false,
                    Ok(_) if !fds[1].revents().is_empty() => break false,
                    Ok(_) if fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR) => {
                        break true;
                    }
                    Ok(_) => continue,
                }
            };
            if hung_up {
                s.lock().queued.stop(ticket);
                s.notify();
            }
        });
    spawned.ok().map(|_| end)
}

/// How a talk stopped without completing.
pub(super) enum Stop {
    Timeout,
    /// The command waits for input (the talk is left, see `input_wait`).
    Waiting,
    Exited(ExitInfo),
    Cancelled,
    /// Cancelled before its command was typed: nothing of it ran.
    CancelledUntyped,
    ClientGone,
}

/// Progress reporting for a talk: the interval, and a sink that returns false once the
/// client is gone.
pub(super) type Progress<'a> = (Duration, &'a mut dyn FnMut(&ProgressBody) -> bool);

/// How long a talk waits for the prompt after an interrupted (cancelled) talk: as long as
/// the holder watches for a command the interrupt missed.
const INTERRUPT_SETTLE: Duration = super::interrupt::FOLLOW;

/// Progress frames of a talk: the interval, the sink, and what was last sent.
struct Reporter<'a> {
    every: Duration,
    send: &'a mut dyn FnMut(&ProgressBody) -> bool,
    started: Instant,
    last: Instant,
    sent_bytes: u64,
}

/// When the next progress frame is due.
enum Due {
    /// Now, with this body.
    Now(ProgressBody),
    /// At this time (the output grew since the last one).
    At(Instant),
    /// Not until the output grows.
    Nothing,
}

impl Reporter<'_> {
    /// Progress: the output new since the last frame (the command's output starts at `from`),
    /// at most once per interval, only when it grew.
    fn due(&self, c: &Capture, from: u64) -> Due {
        let total = c.end().saturating_sub(from);
        if total == self.sent_bytes {
            return Due::Nothing;
        }
        let due = self.last + self.every;
        if Instant::now() < due {
            return Due::At(due);
        }
        let new = c.idx(from + self.sent_bytes);
        let i = new.max(c.bytes.len().saturating_sub(PROGRESS_TAIL));
        // What precedes the tail, for redacting a secret cut by its start.
        let before = c
            .idx(from)
            .max(i.saturating_sub(crate::safety::pem::MAX_BLOCK_BYTES));
        let before = crate::text::clean_text(&c.bytes[before..i]);
        Due::Now(ProgressBody {
            context_before: crate::safety::redact::context_before(&before).to_string(),
            output: crate::text::clean_text(&c.bytes[i..]),
            bytes: total,
            offset: (c.base + i as u64).saturating_sub(from),
            skipped: (i - new) as u64,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        })
    }

    /// Send `body`; false once the client is gone.
    fn send(&mut self, body: ProgressBody) -> bool {
        let alive = (self.send)(&body);
        self.last = Instant::now();
        self.sent_bytes = body.bytes;
        alive
    }
}

/// Most output bytes a progress frame looks at (its tail).
const PROGRESS_TAIL: usize = 8 * 1024;
