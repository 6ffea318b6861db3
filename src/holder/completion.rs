//! A talk's state inside the holder: whether one runs (and was asked to stop), the output it
//! captured, and the completion detector that finds its end — OSC 133 markers or sentinel
//! lines.

use super::markers::SentinelMatcher;
use std::time::Instant;

/// Most bytes one talk keeps (the newest are kept when a command prints more).
const TALK_CAPTURE_MAX: usize = 16 << 20;

/// The talk state of a session: one value instead of separate flags, so "talking", "asked to
/// stop" and "interrupted" cannot disagree.
#[derive(Debug, Default)]
pub(super) enum TalkState {
    /// No talk runs and the shell is free.
    #[default]
    Idle,
    /// The last talk was cancelled with Ctrl-C at this time and the shell has not shown its
    /// prompt since: new talks wait (briefly) for it instead of answering `PTY_BUSY`.
    Interrupted(Instant),
    /// A talk runs: its capture, whether its command is typed, and whether it was asked to
    /// stop.
    Running {
        /// Output captured so far.
        capture: Capture,
        /// The caller's cancel request.
        cancel: Cancel,
        /// The command went to the terminal (set under the typing lock, as it is typed): a
        /// cancel before then types nothing — neither the command nor a Ctrl-C.
        typed: bool,
        /// The caller's name for the talk: a cancel naming another talk leaves it alone.
        id: Option<String>,
    },
    /// A talk returned early because its command waits for input (`waiting_for_input`).
    /// The command still runs: its output is still captured and its end still watched, so
    /// the next talk starts after it (and its completion markers do not end that one).
    Left {
        /// Output captured so far.
        capture: Capture,
        /// The left talk's detector.
        detector: Box<Detector>,
    },
}

/// A cancel request for the talk in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cancel {
    /// None.
    No,
    /// Stop waiting.
    Asked,
    /// Stop waiting; Ctrl-C was typed at this time (and no prompt has been seen since).
    Interrupted(Instant),
    /// Stop waiting; the Ctrl-C typed for it was followed by a prompt.
    Settled,
}

impl TalkState {
    /// A talk runs.
    pub(super) fn running(&self) -> bool {
        matches!(self, Self::Running { .. })
    }

    /// The running talk's capture.
    pub(super) fn capture(&self) -> Option<&Capture> {
        match self {
            Self::Running { capture, .. } => Some(capture),
            _ => None,
        }
    }

    /// The capture to feed: the running talk's, or a left talk's.
    pub(super) fn capture_mut(&mut self) -> Option<&mut Capture> {
        match self {
            Self::Running { capture, .. } | Self::Left { capture, .. } => Some(capture),
            _ => None,
        }
    }

    /// A talk was left waiting for input and its command has not completed yet: false
    /// (and the state back to idle) once it has.
    pub(super) fn left_pending(&mut self) -> bool {
        let Self::Left { capture, detector } = self else {
            return false;
        };
        if detector.check(capture).is_none() {
            return true;
        }
        *self = Self::Idle;
        false
    }

    /// A talk of id `id` runs.
    pub(super) fn runs(&self, id: &str) -> bool {
        matches!(self, Self::Running { id: Some(i), .. } if i == id)
    }

    /// The running talk was asked to stop.
    pub(super) fn cancelled(&self) -> bool {
        matches!(self, Self::Running { cancel, .. } if *cancel != Cancel::No)
    }

    /// Mark the running talk's command typed, unless it was cancelled first: whether it may
    /// be typed.
    pub(super) fn mark_typed(&mut self) -> bool {
        match self {
            Self::Running {
                cancel: Cancel::No,
                typed,
                ..
            } => {
                *typed = true;
                true
            }
            _ => false,
        }
    }

    /// The running talk, its command not typed yet, gives up (its caller went away): it
    /// will not be typed, and there is nothing to interrupt.
    pub(super) fn give_up_untyped(&mut self) {
        if let Self::Running {
            cancel: cancel @ Cancel::No,
            typed: false,
            ..
        } = self
        {
            *cancel = Cancel::Asked;
        }
    }

    /// A Ctrl-C was typed for a cancel and no prompt has been seen since (the talk still
    /// running or ended).
    pub(super) fn interrupt_pending(&self) -> bool {
        matches!(
            self,
            Self::Interrupted(_)
                | Self::Running {
                    cancel: Cancel::Interrupted(_),
                    ..
                }
        )
    }

    /// A prompt appeared: an interrupted command is over.
    pub(super) fn prompt_seen(&mut self) {
        match self {
            Self::Interrupted(_) => *self = Self::Idle,
            Self::Running { cancel, .. } if matches!(cancel, Cancel::Interrupted(_)) => {
                *cancel = Cancel::Settled;
            }
            _ => {}
        }
    }

    /// End the running talk, returning its capture; an interrupt not yet followed by a
    /// prompt outlives it.
    pub(super) fn finish(&mut self) -> Option<Capture> {
        match std::mem::take(self) {
            Self::Running {
                capture, cancel, ..
            } => {
                if let Cancel::Interrupted(at) = cancel {
                    *self = Self::Interrupted(at);
                }
                Some(capture)
            }
            other => {
                *self = other;
                None
            }
        }
    }
}

/// Output captured for the talk in progress.
#[derive(Debug)]
pub(super) struct Capture {
    /// Absolute offset of `bytes[0]`.
    pub(super) base: u64,
    /// Absolute offset where the talk began.
    pub(super) begin: u64,
    pub(super) bytes: Vec<u8>,
    pub(super) truncated: bool,
    /// End of the OSC 133 `C` marker (command output starts).
    pub(super) out_start: Option<u64>,
    /// Start of the `D` marker and its status.
    pub(super) finished: Option<(u64, Option<i32>)>,
}

impl Capture {
    /// An empty capture starting at absolute offset `begin`.
    pub(super) fn at(begin: u64) -> Self {
        Self {
            base: begin,
            begin,
            bytes: Vec::new(),
            truncated: false,
            out_start: None,
            finished: None,
        }
    }

    /// Append output, keeping the newest half when past [`TALK_CAPTURE_MAX`].
    pub(super) fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        if self.bytes.len() > TALK_CAPTURE_MAX {
            let cut = self.bytes.len() - TALK_CAPTURE_MAX / 2;
            self.bytes.drain(..cut);
            self.base += cut as u64;
            self.truncated = true;
        }
    }

    /// Index of absolute offset `abs` in `bytes` (clamped).
    pub(super) fn idx(&self, abs: u64) -> usize {
        (abs.saturating_sub(self.base) as usize).min(self.bytes.len())
    }

    /// Absolute offset of the end of the capture.
    pub(super) fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }
}

/// The command's output region and exit status, once complete: (from, to, status).
pub(super) type Completed = (u64, u64, Option<i32>);

/// Finds a talk's end in its capture.
#[derive(Debug)]
pub(super) enum Detector {
    /// The shell's OSC 133 markers (recorded into the capture by the reader thread).
    Osc133,
    /// The typed sentinel's begin and done lines.
    Sentinel {
        /// The sentinel's matchers.
        matcher: SentinelMatcher,
        /// Absolute end of the begin line, once seen.
        begin_at: Option<u64>,
        /// Done lines are searched from here.
        scanned: u64,
        /// How far back a partial done line may start (the sentinel's length and then some).
        back: u64,
    },
}

impl Detector {
    /// A sentinel detector for `sentinel`, searching from absolute offset `begin`.
    pub(super) fn sentinel(sentinel: &str, begin: u64) -> Self {
        Self::Sentinel {
            matcher: SentinelMatcher::new(sentinel),
            begin_at: None,
            scanned: begin,
            back: sentinel.len() as u64 + 16,
        }
    }

    /// The talk is complete: where its output is, and its status.
    pub(super) fn check(&mut self, c: &Capture) -> Option<Completed> {
        match self {
            Self::Osc133 => c.finished.map(|(d, code)| {
                let from = match c.out_start {
                    Some(o) => o,
                    // No output-start marker (an empty or comment-only line): the output is
                    // what follows the echoed line.
                    None => c.bytes[..c.idx(d)]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map(|p| c.base + p as u64 + 1)
                        .unwrap_or(d),
                };
                (from.min(d), d, code)
            }),
            Self::Sentinel {
                matcher,
                begin_at,
                scanned,
                back,
            } => {
                if begin_at.is_none() {
                    *begin_at = matcher
                        .find_begin(&c.bytes, c.idx(*scanned))
                        .map(|i| c.base + i as u64);
                    if let Some(b) = *begin_at {
                        *scanned = b;
                    }
                }
                let found = begin_at.and_then(|b| {
                    matcher
                        .find_done(&c.bytes, c.idx((*scanned).max(b)))
                        .map(|(i, code)| (b, c.base + i as u64, Some(code)))
                });
                if found.is_none() {
                    // Next time, search only what is new (minus one possible partial line).
                    *scanned = c
                        .end()
                        .saturating_sub(*back)
                        .max(begin_at.unwrap_or(c.begin));
                }
                found
            }
        }
    }

    /// Where the command's output starts as far as seen: after the output-start marker (OSC
    /// 133) or the begin line (sentinel). Before that, everything captured is the prompt and
    /// the echo of what was typed, never output: it starts at the capture's end.
    pub(super) fn output_from(&self, c: &Capture) -> u64 {
        let from = match self {
            Self::Osc133 => c.out_start,
            Self::Sentinel { begin_at, .. } => *begin_at,
        };
        from.unwrap_or_else(|| c.end())
    }

    /// The command has started (its output-start marker or begin line was seen): from
    /// then on the shell reading the terminal is the command's `read`, not its prompt.
    pub(super) fn started(&self, c: &Capture) -> bool {
        match self {
            Self::Osc133 => c.out_start.is_some(),
            Self::Sentinel { begin_at, .. } => begin_at.is_some(),
        }
    }

    /// Plain output can complete the talk (or only markers can).
    pub(super) fn reads_output(&self) -> bool {
        matches!(self, Self::Sentinel { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_the_command_starts_nothing_captured_is_output() {
        // The echo of the typed command (and a prompt) before any output-start marker.
        let mut c = Capture::at(100);
        c.push(b"sleep 3\r\n\x1b]133;A\x07$ \x1b]133;B\x07sleep 3\r\n");
        let mut osc = Detector::Osc133;
        assert_eq!(osc.output_from(&c), c.end());
        assert!(osc.check(&c).is_none());
        let sentinel = Detector::sentinel("__KR_DONE_0000abcd__", 100);
        assert_eq!(sentinel.output_from(&c), c.end());
        // Once the marker came, output starts after it (not at an OSC 133 C a sentinel
        // talk's shell printed too).
        c.out_start = Some(120);
        assert_eq!(osc.output_from(&c), 120);
        assert_eq!(sentinel.output_from(&c), c.end());
    }
}
