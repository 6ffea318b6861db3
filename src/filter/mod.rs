//! The input filter of agent terminals (seed 002 §8.4): keeps remote writers (MCP clients, the
//! HTTP bridge, an agent's CLI write verbs) from ending the program in a session, while a
//! person's `kpty attach` from a local terminal passes untouched.
//!
//! [`InputFilter`] is pure and clock-free: every call takes `now`, nothing sleeps, no thread.
//! Its owner writes `Filtered::forward` to the PTY, answers the writer from
//! `Filtered::error`, and arms a timer for [`InputFilter::deadline`], calling
//! [`InputFilter::flush_due`] when it fires.
//!
//! # Semantics
//! Two stages in series, each reading what the program receives:
//! - **Byte stage** (`automaton`): the raw sequences — Ctrl-D, Ctrl-\ ([`BUILTIN_BYTES`])
//!   and every custom sequence — cut wherever they appear. Matching is case-sensitive and
//!   byte-exact; when several sequences end at the same byte the longest is cut; a sequence
//!   that another starts with wins as soon as it completes.
//! - **Line stage** (`submit`, `lines`): `exit`, `/exit`, `quit` (and every custom
//!   sequence that is text + Enter, such as `logout\r`) are *lines*: what is blocked is an
//!   Enter that would submit them, judged on the line the program's editor holds
//!   (readline's and the kernel's canonical mode: Backspace, Ctrl-U, Ctrl-W … applied),
//!   with paste markers removed, blanks around and between words ignored, quotes removed,
//!   and every Enter encoding (`\r`, `\n`, keypad `ESC O M`, CSI-u `ESC [ 13 u`, a newline
//!   inside a paste) counted. `  exit \r`, `\x1b[200~exit\r\x1b[201~`, `e\x7fexit\r`,
//!   `ls; exit 0\r` are blocked; `echo exit\r`, `exitfoo\r`, `exit_code=1\r` are other
//!   commands and pass (see [`lines`] for the reading).
//! - **Streaming**: both stages carry their state across writes, so `e`, `x`, `i`, `t`, `\r`
//!   in five writes is caught. Bytes that may still start a match (or a blocked line) are
//!   held; once it fails they are forwarded, in order; when it completes they are dropped.
//! - **Over the output**: both stages read what the program gets, so a cut cannot splice a
//!   sequence together (`qu\x04it\r` loses the Ctrl-D, then the Enter of `quit`). Invariants:
//!   the forwarded bytes never contain a blocked byte sequence nor submit a blocked line, and
//!   no other byte is dropped or reordered.
//! - **Timeout**: held bytes are forwarded after `PARTIAL_TIMEOUT` without new input (002:
//!   "flush as non-matching"). The automaton keeps its state, so a sequence finished later
//!   (`exit`, a pause, then `\r`) still loses the bytes that are not yet out (the `\r`): the
//!   program never receives the whole sequence, however slowly it is typed.
//! - **Ctrl-C**: the first `\x03` passes and opens a window of `ctrl_c_debounce_ms`; further
//!   ones inside it are dropped (they do not extend it); the first one at or after its end
//!   passes and opens a new window. `0` turns the debounce off. Debounced bytes never reach
//!   the automaton (a custom sequence containing `\x03` sees only the ones that pass).
//! - **Not seen**: what a key does with state kpty cannot see — a history recall (Up, then
//!   Enter, may submit an `exit` from the history file), completion, a program's own key
//!   bindings — and commands that end a program under another name (`logout`, `kill $$`):
//!   those are the command policy's and the sandbox's business, not this filter's.

mod automaton;
mod enter;
pub mod lines;
mod sequence;
mod submit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_lines;
#[cfg(test)]
mod tests_prop;

use std::time::{Duration, Instant};

use crate::error::{Error, Result};
pub use sequence::{BUILTIN, BUILTIN_BYTES, describe, parse_sequence};

/// Seed 002's warning to the writer, word for word: what a person in the web console whose
/// keys were blocked sees in their terminal.
pub const WEB_WARNING: &str =
    "\r\n\x1b[1;33m⚠  Blocked from web. Use local terminal to exit.\x1b[0m\r\n";

/// The web console's warning for Ctrl-C presses dropped by the debounce.
const WEB_CTRL_C_WARNING: &str = "\r\n\x1b[1;33m⚠  Repeated Ctrl-C blocked from web. Send \
     one, then wait; use local terminal to exit.\x1b[0m\r\n";

/// The warning kpty sends a writer whose input was blocked: 002's, naming kpty's writers.
const WARNING: &str = "\r\n\x1b[1;33m⚠  Blocked from a remote writer. Use a local terminal \
     (kpty attach) to exit.\x1b[0m\r\n";

/// The warning for Ctrl-C presses dropped by the debounce.
const CTRL_C_WARNING: &str = "\r\n\x1b[1;33m⚠  Repeated Ctrl-C blocked from a remote writer. \
     Send one, then wait; use a local terminal (kpty attach) to exit.\x1b[0m\r\n";

/// The web console's words for a filter `warning` (the text of `Filtered::warning`): seed
/// 002's for blocked sequences.
pub fn for_web(warning: &str) -> &'static str {
    if warning == CTRL_C_WARNING {
        WEB_CTRL_C_WARNING
    } else {
        WEB_WARNING
    }
}

/// Held bytes of a partial match are forwarded after this long without new input.
const PARTIAL_TIMEOUT: Duration = Duration::from_millis(500);

/// The default Ctrl-C debounce window.
pub use crate::launch::DEFAULT_CTRL_C_DEBOUNCE_MS;

/// The longest Ctrl-C debounce window accepted (ten minutes).
pub const MAX_CTRL_C_DEBOUNCE_MS: u64 = 600_000;

const CTRL_C: u8 = 0x03;

/// What a session's filter blocks, beyond the built-ins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilterConfig {
    /// Custom blocked sequences (bytes), added to [`BUILTIN`].
    pub block_sequences: Vec<Vec<u8>>,
    /// Ctrl-C presses after the first within this many ms are dropped; 0 turns it off.
    pub ctrl_c_debounce_ms: u64,
}

impl Default for FilterConfig {
    fn default() -> Self {
        Self {
            block_sequences: Vec::new(),
            ctrl_c_debounce_ms: DEFAULT_CTRL_C_DEBOUNCE_MS,
        }
    }
}

/// A session's filter as `create` was asked for it (data in the leaf `crate::launch`; the
/// holder builds its [`InputFilter`] from it with [`FilterSpec::build`]).
pub use crate::launch::FilterSpec;

impl FilterSpec {
    /// The filter this spec describes.
    ///
    /// # Errors
    /// `INVALID_PARAMS` naming a bad sequence or window.
    pub fn build(&self) -> Result<InputFilter> {
        InputFilter::new(FilterConfig::parse(
            &self.block_sequences,
            self.ctrl_c_debounce_ms,
        )?)
    }
}

impl FilterConfig {
    /// A configuration from sequences written with escapes (`--block-sequence`, MCP
    /// `block_sequences`; see [`parse_sequence`]) and a debounce window.
    ///
    /// # Errors
    /// `INVALID_PARAMS` for a bad escape, an empty or too long sequence, too many sequences,
    /// or a window over [`MAX_CTRL_C_DEBOUNCE_MS`].
    pub fn parse<S: AsRef<str>>(sequences: &[S], ctrl_c_debounce_ms: u64) -> Result<Self> {
        let config = Self {
            block_sequences: sequences
                .iter()
                .map(|s| parse_sequence(s.as_ref()))
                .collect::<Result<_>>()?,
            ctrl_c_debounce_ms,
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks the limits (also done by [`InputFilter::new`]).
    ///
    /// # Errors
    /// `INVALID_PARAMS`, as for [`FilterConfig::parse`].
    fn validate(&self) -> Result<()> {
        if self.block_sequences.len() > sequence::MAX_SEQUENCES {
            return Err(Error::invalid(format!(
                "{} blocked sequences given; at most {} are allowed",
                self.block_sequences.len(),
                sequence::MAX_SEQUENCES
            )));
        }
        for s in &self.block_sequences {
            sequence::check_sequence(s, &describe(s))?;
        }
        if self.ctrl_c_debounce_ms > MAX_CTRL_C_DEBOUNCE_MS {
            return Err(Error::invalid(format!(
                "ctrl_c_debounce_ms {} is out of range 0..={MAX_CTRL_C_DEBOUNCE_MS}",
                self.ctrl_c_debounce_ms
            )));
        }
        Ok(())
    }
}

/// The name of a blocked line submitted by `key`: `exit\r` for a plain Enter.
fn line_name(words: &str, key: u8) -> String {
    if words == submit::UNCHECKED {
        return words.to_string();
    }
    match key {
        b'\r' | b'\n' => describe(&[words.as_bytes(), &[key]].concat()),
        _ => format!("{words} + Enter ({})", describe(&[key])),
    }
}

/// The outcome of one write through the filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filtered {
    /// The bytes to write to the PTY now, in order (held bytes of earlier writes included).
    pub forward: Vec<u8>,
    /// The printable name of each sequence cut out by this write, in order (`exit\r`).
    pub blocked: Vec<String>,
    /// How many Ctrl-C presses of this write the debounce dropped.
    pub ctrl_c_debounced: usize,
    /// How many bytes are held after this write (a partial match), awaiting more input or
    /// the timeout.
    pub held: usize,
    /// The debounce window, for naming dropped Ctrl-C presses.
    debounce_ms: u64,
}

impl Filtered {
    /// Whether anything of this write was kept from the program.
    #[cfg(test)]
    fn suppressed(&self) -> bool {
        !self.blocked.is_empty() || self.ctrl_c_debounced > 0
    }

    /// The text for the writer (never for the PTY), when something was kept from the program.
    pub fn warning(&self) -> Option<&'static str> {
        if !self.blocked.is_empty() {
            Some(WARNING)
        } else if self.ctrl_c_debounced > 0 {
            Some(CTRL_C_WARNING)
        } else {
            None
        }
    }

    /// Every sequence kept from the program: the blocked ones, then the debounced Ctrl-C.
    pub fn names(&self) -> Vec<String> {
        let mut names = self.blocked.clone();
        if self.ctrl_c_debounced > 0 {
            names.push(format!(
                "\\x03 (Ctrl-C) repeated within {} ms",
                self.debounce_ms
            ));
        }
        names
    }

    /// The writer's answer when something was kept from the program: `INPUT_BLOCKED` naming
    /// it, with details `{blocked, ctrl_c_debounced, forwarded_bytes, held_bytes, warning}`.
    /// The bytes in `forward` are still to be written: the rest of the write goes through.
    pub fn error(&self) -> Option<Error> {
        let warning = self.warning()?;
        let mut e = Error::input_blocked(&self.names(), warning);
        if let Some(crate::error::Details::InputBlocked(d)) = e.details.as_deref_mut() {
            d.ctrl_c_debounced = Some(self.ctrl_c_debounced as u64);
            d.forwarded_bytes = Some(self.forward.len() as u64);
            d.held_bytes = Some(self.held as u64);
        }
        Some(e)
    }
}

/// A session's input filter: feed it every remote write (`InputFilter::write`) and every
/// unfiltered one ([`InputFilter::local`]), in the order they reach the PTY.
#[derive(Debug, Clone)]
pub struct InputFilter {
    /// The byte stage: raw sequences (Ctrl-D, Ctrl-\, custom ones).
    matcher: automaton::Matcher,
    /// Printable name of each byte-stage pattern, by pattern index.
    byte_names: Vec<String>,
    /// The line stage, after the byte stage: blocked lines as the program receives them.
    lines: submit::LineStage,
    /// Printable name of every blocked sequence, built-ins first.
    names: Vec<String>,
    debounce: Duration,
    /// When the current Ctrl-C window opened.
    ctrl_c_since: Option<Instant>,
    /// When the last remote byte arrived (the partial-match timeout counts from it).
    last_input: Option<Instant>,
}

impl InputFilter {
    /// A filter for the built-in sequences plus `config`'s.
    ///
    /// # Errors
    /// `INVALID_PARAMS` when the configuration is out of its limits
    /// (`FilterConfig::validate`).
    pub(crate) fn new(config: FilterConfig) -> Result<Self> {
        config.validate()?;
        let mut all: Vec<Vec<u8>> = BUILTIN.iter().map(|s| s.to_vec()).collect();
        let mut bytes: Vec<Vec<u8>> = BUILTIN_BYTES.iter().map(|s| s.to_vec()).collect();
        let mut rules: Vec<lines::LineRule> = lines::BUILTIN_LINES
            .iter()
            .filter_map(|w| lines::LineRule::from_sequence(format!("{w}\r").as_bytes()))
            .collect();
        for s in config.block_sequences {
            if all.contains(&s) {
                continue;
            }
            if let Some(r) = lines::LineRule::from_sequence(&s)
                && !rules.contains(&r)
            {
                rules.push(r);
            }
            bytes.push(s.clone());
            all.push(s);
        }
        let matcher = automaton::Matcher::new(&bytes).map_err(|e| {
            Error::invalid(format!("the blocked sequences cannot be compiled: {e}"))
        })?;
        Ok(Self {
            matcher,
            byte_names: bytes.iter().map(|p| describe(p)).collect(),
            lines: submit::LineStage::new(rules),
            names: all.iter().map(|p| describe(p)).collect(),
            debounce: Duration::from_millis(config.ctrl_c_debounce_ms),
            ctrl_c_since: None,
            last_input: None,
        })
    }

    /// The printable names of every blocked sequence, built-ins first.
    pub fn sequences(&self) -> &[String] {
        &self.names
    }

    /// Filters one remote write arriving at `now`.
    pub(crate) fn write(&mut self, bytes: &[u8], now: Instant) -> Filtered {
        let mut out = Filtered {
            debounce_ms: u64::try_from(self.debounce.as_millis()).unwrap_or(u64::MAX),
            ..Filtered::default()
        };
        if !bytes.is_empty() {
            self.last_input = Some(now);
        }
        self.lines.begin_write();
        let mut passed = Vec::new();
        for &b in bytes {
            if b == CTRL_C && self.debounced(now) {
                out.ctrl_c_debounced += 1;
                continue;
            }
            if let Some(pid) = self.matcher.push(b, &mut passed) {
                out.blocked.push(self.byte_names[pid].clone());
            }
            self.through_lines(&mut passed, &mut out);
        }
        out.held = self.matcher.held() + self.lines.held();
        out
    }

    /// Sends what the byte stage passed through the line stage.
    fn through_lines(&mut self, passed: &mut Vec<u8>, out: &mut Filtered) {
        for b in passed.drain(..) {
            if let Some(words) = self.lines.push(b, &mut out.forward) {
                out.blocked.push(line_name(&words, b));
            }
        }
    }

    /// A write that bypasses the filter (a person at a local terminal): returns the bytes to
    /// write, any held remote bytes first. The automaton reads them too, so it keeps following
    /// what the program receives.
    pub fn local(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut passed = Vec::with_capacity(self.matcher.held() + bytes.len());
        self.matcher.pass(bytes, &mut passed);
        let mut out = Vec::with_capacity(self.lines.held() + passed.len());
        self.lines.pass(&passed, &mut out);
        out
    }

    /// When the held bytes are due to be forwarded, if any are held.
    pub fn deadline(&self) -> Option<Instant> {
        if self.matcher.held() + self.lines.held() == 0 {
            return None;
        }
        self.last_input.and_then(|t| t.checked_add(PARTIAL_TIMEOUT))
    }

    /// The held bytes to forward when their timeout has passed at `now`; `None` before it,
    /// or when nothing is held.
    pub fn flush_due(&mut self, now: Instant) -> Option<Vec<u8>> {
        let due = self.deadline()?;
        (now >= due).then(|| self.flush())
    }

    /// Forwards every held byte now, whatever the time (the session is closing, or its
    /// filter is being turned off).
    pub fn flush(&mut self) -> Vec<u8> {
        let mut passed = Vec::new();
        self.matcher.flush(&mut passed);
        let mut out = Filtered::default();
        self.through_lines(&mut passed, &mut out);
        self.lines.release(&mut out.forward);
        out.forward
    }

    /// The bytes held now (a partial match), oldest first.
    pub fn held(&self) -> Vec<u8> {
        let mut held = self.lines.held_bytes().to_vec();
        held.extend(self.matcher.held_bytes());
        held
    }

    /// Whether a Ctrl-C at `now` falls in the current window (drop it); otherwise it opens a
    /// new window and passes.
    fn debounced(&mut self, now: Instant) -> bool {
        if self.debounce.is_zero() {
            return false;
        }
        if let Some(since) = self.ctrl_c_since
            && now.saturating_duration_since(since) < self.debounce
        {
            return true;
        }
        self.ctrl_c_since = Some(now);
        false
    }
}
