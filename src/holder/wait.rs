//! `WaitFor`: wait, woken by each arrival of output (no polling of the output), until it
//! matches a pattern, goes quiet, or the shell is back at its prompt — or the deadline, or
//! the caller hangs up (a cancelled `wait_for` closes its connection: [`watch_hangup`]).

use super::requests::{screen_state, waiting_state};
use super::session::{Shared, State};
use super::shell::Integration;
use crate::error::{Error, Result};
use crate::proto::wait::{MATCH_WINDOW, WaitForBody, WaitForRequest, compile};
use regex::Regex;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A flag set, and the holder's waits woken, when the client on `stream` hangs up: a thread
/// peeks at the connection (never reads from it: it may carry the client's next request, which
/// also ends the watch). `None` when the connection cannot be watched.
pub fn watch_hangup(shared: &Arc<Shared>, stream: &UnixStream) -> Option<Arc<AtomicBool>> {
    let peer = stream.try_clone().ok()?;
    let gone = Arc::new(AtomicBool::new(false));
    let (flag, s) = (gone.clone(), shared.clone());
    let spawned = std::thread::Builder::new()
        .name("kpty-wait-peer".into())
        .spawn(move || {
            let mut b = [0u8; 1];
            let hung_up = loop {
                match rustix::net::recv(&peer, &mut b, rustix::net::RecvFlags::PEEK) {
                    Err(rustix::io::Errno::INTR) => continue,
                    Ok((0, _)) | Err(_) => break true,
                    Ok(_) => break false,
                }
            };
            if hung_up {
                flag.store(true, Ordering::SeqCst);
                s.notify();
            }
        });
    spawned.ok().map(|_| gone)
}

/// How often the prompt condition looks at the terminal's foreground process group (a
/// change there wakes no one).
const PROMPT_POLL: Duration = Duration::from_millis(25);
/// Without shell integration: the shell counts as back at its prompt once no program holds
/// the terminal and output was quiet this long after the last input.
const SENTINEL_SETTLE: Duration = Duration::from_millis(200);

/// What ended a wait.
struct Outcome {
    reason: &'static str,
    matched_text: Option<String>,
    /// When the output that decided it arrived.
    decided_at: Instant,
    /// The output returned ends here (absolute offset); `None`: at the end of output.
    upto: Option<u64>,
}

impl Shared {
    /// `WaitFor`; ends early (`CANCELLED`) once `gone` is set: nobody waits for the answer.
    pub fn wait_for(&self, req: &WaitForRequest, gone: Option<&AtomicBool>) -> Result<WaitForBody> {
        let re = match req.pattern.as_deref() {
            Some(p) => Some(compile(p).map_err(Error::invalid)?),
            None => None,
        };
        if re.is_none() && req.quiet_ms.is_none() && !req.prompt {
            return Err(Error::invalid(
                "wait_for needs a condition: pattern, quiet_ms or prompt",
            ));
        }
        let started = Instant::now();
        let deadline = started + Duration::from_millis(req.timeout_ms);
        let quiet = req.quiet_ms.map(Duration::from_millis);
        let since = req.since.unwrap_or_else(|| self.lock().input_offset);
        loop {
            if gone.is_some_and(|g| g.load(Ordering::SeqCst)) {
                return Err(Error::new(
                    crate::error::ErrorCode::Cancelled,
                    "the caller stopped waiting",
                ));
            }
            let fg = req.prompt && self.foreground_other().is_some();
            let st = self.lock();
            let now = Instant::now();
            let hit = self.check(&st, req, re.as_ref(), since, quiet, fg, started);
            let outcome = match hit {
                Some(o) => Some(o),
                None if st.exit.is_some() || st.eof => Some(Outcome {
                    reason: "exited",
                    matched_text: None,
                    decided_at: now,
                    upto: None,
                }),
                None if now >= deadline => Some(Outcome {
                    reason: "timeout",
                    matched_text: None,
                    decided_at: now,
                    upto: None,
                }),
                None => None,
            };
            if let Some(o) = outcome {
                let decided_at = o.decided_at;
                let (_, state) = screen_state(&st, fg);
                let mut body = self.wait_body(&st, req, since, o, started, fg);
                drop(st);
                // `waiting_now` takes the state lock itself.
                body.terminal_state = waiting_state(state, self.waiting_now()).into();
                body.latency_us = decided_at.elapsed().as_micros() as u64;
                return Ok(body);
            }
            let mut wake = deadline;
            if let Some(q) = quiet {
                wake = wake.min(st.last_output.max(started) + q);
            }
            if req.prompt {
                wake = wake.min(now + PROMPT_POLL);
            }
            let (st, _) = self.wait_until(st, wake.max(now + Duration::from_millis(1)));
            drop(st);
        }
    }

    /// Whether a condition holds now (the pattern first, then the prompt, then quiet).
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        st: &State,
        req: &WaitForRequest,
        re: Option<&Regex>,
        since: u64,
        quiet: Option<Duration>,
        fg: bool,
        started: Instant,
    ) -> Option<Outcome> {
        let now = Instant::now();
        if let Some(re) = re {
            let from = since.max(st.ring.end().saturating_sub(MATCH_WINDOW as u64));
            let raw = (!req.screen).then(|| st.ring.read_since(from, MATCH_WINDOW));
            let text = match &raw {
                None => st.screen.visible_text(),
                Some(raw) => matchable(&raw.bytes),
            };
            if let Some(m) = re.find(&text) {
                let upto = raw.map(|r| r.start + raw_end(&r.bytes, m.end()) as u64);
                return Some(Outcome {
                    reason: "pattern",
                    matched_text: Some(m.as_str().to_string()),
                    decided_at: st.last_output,
                    upto,
                });
            }
        }
        if req.prompt && st.exit.is_none() && at_prompt(st, fg, now) {
            return Some(Outcome {
                reason: "prompt",
                matched_text: None,
                decided_at: st.last_output,
                upto: None,
            });
        }
        if let Some(q) = quiet
            && now >= st.last_output.max(started) + q
        {
            return Some(Outcome {
                reason: "quiet",
                matched_text: None,
                decided_at: st.last_output.max(started) + q,
                upto: None,
            });
        }
        None
    }

    /// The reply: the end of the output since `since` (at most `max_bytes`), and the state.
    fn wait_body(
        &self,
        st: &State,
        req: &WaitForRequest,
        since: u64,
        o: Outcome,
        started: Instant,
        fg: bool,
    ) -> WaitForBody {
        let max = req.max_bytes.max(1);
        let upto = o.upto.unwrap_or(st.ring.end());
        let from = since.max(upto.saturating_sub(max as u64)).min(upto);
        let live = st.exit.is_none();
        let n = ((upto - from) as usize).min(max);
        let body = st.ring.read_body(Some(from), n, live, req.context);
        let (_, state) = screen_state(st, fg);
        WaitForBody {
            matched: !matches!(o.reason, "timeout" | "exited"),
            reason: o.reason.into(),
            matched_text: o.matched_text,
            text: body.text,
            start_offset: body.start_offset,
            next_offset: body.next_offset,
            dropped: body.start_offset.saturating_sub(since),
            elapsed_ms: started.elapsed().as_millis() as u64,
            latency_us: 0,
            terminal_state: state.into(),
            exit_code: st.exit.as_ref().map(|e| e.code),
            context_before: body.context_before,
            context_after: body.context_after,
        }
    }
}

/// The shell is back at its prompt: no other program holds the terminal, no talk runs, and
/// a prompt came after the last input kpty typed (with shell integration: its prompt marker;
/// without: output settled after that input).
fn at_prompt(st: &State, fg: bool, now: Instant) -> bool {
    if fg || st.talk.running() || st.screen.alternate() {
        return false;
    }
    match st.integration {
        Integration::Osc133 => st.at_prompt && st.prompt_since(st.last_input),
        Integration::Sentinel => {
            st.last_output >= st.last_input && now >= st.last_output + SENTINEL_SETTLE
        }
    }
}

/// Output as a pattern sees it: escape codes stripped, and a carriage return read as a line
/// start (`^` matches after it, as the eye sees the line).
fn matchable(raw: &[u8]) -> String {
    crate::text::strip_ansi(raw).replace('\r', "\n")
}

/// The length of the shortest prefix of `raw` whose [`matchable`] text reaches `end` bytes:
/// where in the raw output a match in the text ends.
fn raw_end(raw: &[u8], end: usize) -> usize {
    let (mut lo, mut hi) = (0, raw.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if matchable(&raw[..mid]).len() >= end {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The recording's marker for a `wait_for` that ended with `r`: what it waited for, how it
/// ended, how long it took (a pattern is redacted: it may name a secret).
pub(super) fn marker(req: &WaitForRequest, r: &Result<WaitForBody>) -> String {
    let what = match (&req.pattern, req.quiet_ms, req.prompt) {
        (Some(p), _, _) => format!("/{}/", crate::safety::redact::redact(p)),
        (None, Some(q), _) => format!("{q} ms of quiet"),
        _ => "the prompt".into(),
    };
    match r {
        Ok(b) if b.matched => format!("wait_for {what}: matched in {} ms", b.elapsed_ms),
        Ok(b) => format!(
            "wait_for {what}: {} after {} ms",
            b.reason.as_str(),
            b.elapsed_ms
        ),
        Err(e) => format!("wait_for {what}: failed ({})", e.code.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_maps_back_to_the_raw_output() {
        let raw = b"\x1b]133;C\x07HUMAN-2\r\n\x1b[1mnext\x1b[0m";
        let text = matchable(raw);
        let m = regex::Regex::new("(?m)^HUMAN-2")
            .unwrap()
            .find(&text)
            .unwrap();
        let k = raw_end(raw, m.end());
        assert_eq!(&raw[..k], b"\x1b]133;C\x07HUMAN-2");
        let m = regex::Regex::new("next").unwrap().find(&text).unwrap();
        assert_eq!(&raw[..raw_end(raw, m.end())], &raw[..raw.len() - 4]);
    }
}
