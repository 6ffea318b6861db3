//! The `talk` request inside a holder: typing a command, capturing its output until the
//! completion marker (OSC 133 or a sentinel line), progress frames, cancel and interrupt.

use super::markers::SentinelMatcher;
use super::session::{ExitInfo, Shared, screen_state};
use super::shell::{Integration, ShellKind, typed_command};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::{ProgressBody, TalkBody, TalkRequest};
use serde_json::json;
use std::time::{Duration, Instant};

/// Most bytes one talk keeps (the newest are kept when a command prints more).
pub const TALK_CAPTURE_MAX: usize = 16 << 20;

/// Output captured for the talk in progress.
#[derive(Debug)]
pub(super) struct Capture {
    /// Absolute offset of `bytes[0]`.
    base: u64,
    /// Absolute offset where the talk began.
    pub(super) begin: u64,
    bytes: Vec<u8>,
    truncated: bool,
    /// End of the OSC 133 `C` marker (command output starts).
    pub(super) out_start: Option<u64>,
    /// Start of the `D` marker and its status.
    pub(super) finished: Option<(u64, Option<i32>)>,
}

impl Capture {
    pub(super) fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        if self.bytes.len() > TALK_CAPTURE_MAX {
            let cut = self.bytes.len() - TALK_CAPTURE_MAX / 2;
            self.bytes.drain(..cut);
            self.base += cut as u64;
            self.truncated = true;
        }
    }

    fn idx(&self, abs: u64) -> usize {
        (abs.saturating_sub(self.base) as usize).min(self.bytes.len())
    }
}

impl Shared {
    /// `Talk`: type the command, wait for its completion marker, return its output.
    pub fn talk(&self, req: &TalkRequest, mut progress: Option<Progress<'_>>) -> Result<TalkBody> {
        let started = Instant::now();
        let deadline = started + Duration::from_millis(req.timeout_ms);
        // Everything from "is anyone else talking" to "talking = true" happens under one lock,
        // so two talks can never both type (the foreground check takes the master's own lock,
        // which is never held while waiting for this one).
        let mut st = self.lock();
        while st.talking && st.exit.is_none() {
            let (g, up) = self.wait_on(&self.events, st, deadline);
            st = g;
            if up && st.talking {
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
        while let Some(at) = st.interrupted {
            let settle = (at + INTERRUPT_SETTLE).min(deadline);
            if Instant::now() >= settle || st.exit.is_some() {
                st.interrupted = None;
                break;
            }
            let (g, _) = self.wait_on(&self.events, st, settle);
            st = g;
        }
        if let Some(exit) = st.exit.clone() {
            return Err(self.exited_error(&exit));
        }
        if st.screen.alternate() {
            // An editor, pager or TUI owns the screen: typing a command would edit its buffer.
            let fg = self.foreground_other();
            let what = match &fg {
                Some((_, Some(name))) => format!("`{name}`"),
                Some((pid, None)) => format!("pid {pid}"),
                None => "a full-screen program".into(),
            };
            return Err(Error::new(
                ErrorCode::PtyBusy,
                format!(
                    "{} is busy: {what} is running full-screen (alternate screen); talk would type \
                     into it. Read it with term_read mode=viewport, drive it with send_line, or \
                     quit it first (e.g. send_line data=\"q\" for a pager)",
                    self.session_id
                ),
            )
            .with_details(json!({
                "session_id": self.session_id,
                "terminal_state": "full_screen",
                "foreground_pid": fg.as_ref().map(|f| f.0),
                "foreground_command": fg.and_then(|f| f.1),
            })));
        }
        // A forced talk types into whatever holds the foreground (a nested shell: ssh, su,
        // docker exec …) and completes by sentinel, in POSIX syntax: that shell is not ours.
        let foreground = self.foreground_other();
        let nested = foreground.clone().filter(|_| req.force);
        if let Some((pid, name)) = foreground.filter(|_| !req.force) {
            let what = name.clone().unwrap_or_else(|| format!("pid {pid}"));
            return Err(Error::new(
                ErrorCode::PtyBusy,
                format!(
                    "{} is busy: `{what}` is running in the foreground, not the shell; wait for it, \
                     answer it with send_line, interrupt it with send_line data=\"\\x03\", or — if \
                     it is a shell itself (ssh, su, docker exec …) — talk to it with force=true",
                    self.session_id
                ),
            )
            .with_details(json!({"session_id": self.session_id, "foreground_pid": pid, "foreground_command": name})));
        }
        let method = if req.sentinel.is_some() || nested.is_some() {
            Integration::Sentinel
        } else {
            st.integration
        };
        if method == Integration::Osc133 && !st.at_prompt {
            return Err(Error::new(
                ErrorCode::PtyBusy,
                format!(
                    "{} is busy: the shell has not shown a prompt since its last command started; \
                     read its output, or interrupt it with send_line data=\"\\x03\"",
                    self.session_id
                ),
            )
            .with_details(json!({"session_id": self.session_id})));
        }
        let sentinel = req
            .sentinel
            .clone()
            .unwrap_or_else(|| crate::proto::new_sentinel(crate::proto::SENTINEL_HEX));
        let opacity = self.opacity(&st, nested.is_some());
        let begin = st.ring.end();
        st.talking = true;
        st.cancel = false;
        st.capture = Some(Capture {
            base: begin,
            begin,
            bytes: Vec::new(),
            truncated: false,
            out_start: None,
            finished: None,
        });
        drop(st);

        let kind = if nested.is_some() {
            ShellKind::Posix
        } else {
            self.kind
        };
        let typed = typed_command(kind, method, &req.command, &sentinel);
        // Checked with what earlier writes left on the line (the command lands after it).
        let mut typing = self.lock_typing();
        let written = typing
            .after(&typed, opacity, false)
            .map_err(Error::from)
            .and_then(|next| {
                self.write_all(typed.as_bytes())?;
                Ok(next)
            });
        match written {
            Ok(next) => *typing = next,
            Err(e) => {
                drop(typing);
                self.end_talk();
                return Err(e);
            }
        }
        drop(typing);

        let matcher = (method == Integration::Sentinel).then(|| SentinelMatcher::new(&sentinel));
        let mut begin_at: Option<u64> = None; // sentinel: absolute end of the begin line
        let mut scanned: u64 = begin; // sentinel: done lines are searched from here
        let mut last_progress = Instant::now();
        let mut sent_bytes: u64 = 0;
        let mut st = self.lock();
        let outcome = loop {
            let cap = st.capture.as_ref();
            let done = match (cap, &matcher) {
                (Some(c), None) => c.finished.map(|(d, code)| {
                    let from = match c.out_start {
                        Some(o) => o,
                        // No output-start marker (an empty or comment-only line): the output
                        // is what follows the echoed line.
                        None => c.bytes[..c.idx(d)]
                            .iter()
                            .position(|&b| b == b'\n')
                            .map(|p| c.base + p as u64 + 1)
                            .unwrap_or(d),
                    };
                    (from.min(d), d, code)
                }),
                (Some(c), Some(m)) => {
                    if begin_at.is_none() {
                        begin_at = m
                            .find_begin(&c.bytes, c.idx(scanned))
                            .map(|i| c.base + i as u64);
                        if let Some(b) = begin_at {
                            scanned = b;
                        }
                    }
                    let found = begin_at.and_then(|b| {
                        m.find_done(&c.bytes, c.idx(scanned.max(b)))
                            .map(|(i, code)| (b, c.base + i as u64, Some(code)))
                    });
                    if found.is_none() {
                        // Next time, search only what is new (minus one possible partial line).
                        let back = sentinel.len() as u64 + 16;
                        scanned = (c.base + c.bytes.len() as u64)
                            .saturating_sub(back)
                            .max(begin_at.unwrap_or(begin));
                    }
                    found
                }
                (None, _) => None,
            };
            if let Some(d) = done {
                break Ok(d);
            }
            if let Some(exit) = st.exit.clone() {
                break Err(Stop::Exited(exit));
            }
            if st.cancel {
                break Err(Stop::Cancelled);
            }
            // Progress: the output so far, at most once per interval, only when it grew.
            let grown = st.capture.as_ref().map(|c| {
                let from = c.out_start.or(begin_at).unwrap_or(c.base);
                (from, (c.base + c.bytes.len() as u64).saturating_sub(from))
            });
            let mut wake = deadline;
            if let (Some((every, send)), Some((from, total))) = (progress.as_mut(), grown)
                && total != sent_bytes
            {
                let due = last_progress + *every;
                if Instant::now() >= due {
                    let c = st.capture.as_ref().map(|c| {
                        let i = c.idx(from).max(c.bytes.len().saturating_sub(PROGRESS_TAIL));
                        // What precedes the tail, for redacting a secret cut by its start.
                        let before = c
                            .idx(from)
                            .max(i.saturating_sub(crate::safety::pem::MAX_BLOCK_BYTES));
                        (c.bytes[before..i].to_vec(), c.bytes[i..].to_vec())
                    });
                    drop(st);
                    let (before, tail) = c.unwrap_or_default();
                    let before = crate::text::clean_text(&before);
                    let body = ProgressBody {
                        context_before: crate::safety::redact::context_before(&before).to_string(),
                        output: crate::text::clean_text(&tail),
                        bytes: total,
                        elapsed_ms: started.elapsed().as_millis() as u64,
                    };
                    let alive = send(&body);
                    last_progress = Instant::now();
                    sent_bytes = total;
                    st = self.lock();
                    if !alive {
                        break Err(Stop::ClientGone);
                    }
                    continue;
                }
                wake = wake.min(due);
            }
            // Only a sentinel search or progress needs waking on plain output; an OSC 133
            // talk waits for its markers (and exit, cancel) alone.
            let on = if matcher.is_some() || progress.is_some() {
                &self.cond
            } else {
                &self.events
            };
            let (g, _) = self.wait_on(on, st, wake);
            st = g;
            if Instant::now() >= deadline {
                break Err(Stop::Timeout);
            }
        };
        let cap = st.capture.take();
        st.talking = false;
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
        match outcome {
            Ok((from, to, code)) => {
                let region = &cap.bytes[cap.idx(from)..cap.idx(to)];
                Ok(TalkBody {
                    output_raw: String::from_utf8_lossy(region).into_owned(),
                    raw_output,
                    exit_code: code,
                    completion: method.as_str().into(),
                    sentinel,
                    duration_ms,
                    truncated: cap.truncated || cap.base > from,
                    start_offset: begin,
                    end_offset,
                    screen: Some(screen_after),
                    terminal_state: Some(state_after.into()),
                })
            }
            Err(stop) => {
                // Partial output: after the output-start marker (or begin line) when seen.
                let from = cap.out_start.or(begin_at).unwrap_or(cap.base);
                let partial = crate::text::clean_text(&cap.bytes[cap.idx(from)..]);
                let details = json!({
                    "session_id": self.session_id,
                    "command": req.command,
                    "partial_output": partial,
                    "timeout_ms": req.timeout_ms,
                    "duration_ms": duration_ms,
                    "sentinel": sentinel,
                    "completion": method.as_str(),
                });
                Err(match stop {
                    Stop::Cancelled | Stop::ClientGone => Error::new(
                        ErrorCode::Cancelled,
                        format!(
                            "the talk on {} was cancelled by its caller",
                            self.session_id
                        ),
                    )
                    .with_details(details),
                    Stop::Timeout => Error::new(
                        ErrorCode::PtyTimeout,
                        format!("Command timed out after {}ms", req.timeout_ms),
                    )
                    .with_details(details),
                    Stop::Exited(exit) => {
                        let mut e = self.exited_error(&exit);
                        let mut d = details;
                        d["exit_code"] = json!(exit.code);
                        e.details = Some(d);
                        e
                    }
                })
            }
        }
    }

    /// `Cancel`: stop the talk in progress; with `interrupt`, type Ctrl-C as well.
    pub fn cancel_talk(&self, interrupt: bool) -> Result<serde_json::Value> {
        let mut st = self.lock();
        let talking = st.talking;
        if talking {
            st.cancel = true;
            if interrupt {
                st.interrupted = Some(Instant::now());
            }
        }
        drop(st);
        self.notify();
        if talking && interrupt {
            let mut typing = self.lock_typing();
            self.write_all(b"\x03")?;
            typing.record("\x03");
        }
        Ok(json!({"cancelled": talking}))
    }

    fn end_talk(&self) {
        let mut st = self.lock();
        st.capture = None;
        st.talking = false;
        drop(st);
        self.notify();
    }
}

/// How a talk stopped without completing.
enum Stop {
    Timeout,
    Exited(ExitInfo),
    Cancelled,
    ClientGone,
}

/// Progress reporting for a talk: the interval, and a sink that returns false once the
/// client is gone.
pub type Progress<'a> = (Duration, &'a mut dyn FnMut(&ProgressBody) -> bool);

/// How long a talk waits for the prompt after an interrupted (cancelled) talk.
const INTERRUPT_SETTLE: Duration = Duration::from_secs(3);

/// Most output bytes a progress frame looks at (its tail).
const PROGRESS_TAIL: usize = 8 * 1024;
