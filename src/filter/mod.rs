//! The input filter of agent terminals (seed 002 §8.4): keeps remote writers (MCP clients, the
//! HTTP bridge, an agent's CLI write verbs) from ending the program in a session, while a
//! person's `kpty attach` from a local terminal passes untouched.
//!
//! [`InputFilter`] is pure and clock-free: every call takes `now`, nothing sleeps, no thread.
//! Its owner writes [`Filtered::forward`] to the PTY, answers the writer from
//! [`Filtered::error`], and arms a timer for [`InputFilter::deadline`], calling
//! [`InputFilter::flush_due`] when it fires.
//!
//! # Semantics
//! - **Blocked**: the [built-in](sequence::BUILTIN) sequences (`\x04`, `\x1c`, `exit`, `/exit`,
//!   `quit` + CR or LF) plus custom ones. Matching is case-sensitive and byte-exact, and finds
//!   a sequence anywhere in the stream: `myexit\r` loses its `exit\r` (the shell would not
//!   exit, but the bytes are there and a line editor may already hold `my`… — the safe reading).
//! - **Streaming**: an Aho-Corasick automaton whose state carries across writes, so `e`, `x`,
//!   `i`, `t`, `\r` in five writes is caught. Bytes that may still start a match are held;
//!   once a match fails they are forwarded, in order; when it completes they are dropped. When
//!   several sequences end at the same byte the longest is cut (`/exit\r`, not `exit\r`
//!   leaving `/`); a sequence that another starts with wins as soon as it completes.
//! - **Over the output**: the automaton reads what the program gets, so a cut cannot splice a
//!   sequence together (`eexit\rxit\r` forwards only `e`). Invariant: the forwarded bytes never
//!   contain a blocked sequence, and no other byte is dropped or reordered.
//! - **Timeout**: held bytes are forwarded after [`PARTIAL_TIMEOUT`] without new input (002:
//!   "flush as non-matching"). The automaton keeps its state, so a sequence finished later
//!   (`exit`, a pause, then `\r`) still loses the bytes that are not yet out (the `\r`): the
//!   program never receives the whole sequence, however slowly it is typed.
//! - **Ctrl-C**: the first `\x03` passes and opens a window of `ctrl_c_debounce_ms`; further
//!   ones inside it are dropped (they do not extend it); the first one at or after its end
//!   passes and opens a new window. `0` turns the debounce off. Debounced bytes never reach
//!   the automaton (a custom sequence containing `\x03` sees only the ones that pass).

mod automaton;
pub mod sequence;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_prop;

use std::time::{Duration, Instant};

use serde_json::json;

use crate::error::{Error, Result};
pub use sequence::{BUILTIN, describe, parse_sequence};

/// Seed 002's warning to the writer, word for word (a web UI was its remote writer).
pub const WARNING_002: &str =
    "\r\n\x1b[1;33m⚠  Blocked from web. Use local terminal to exit.\x1b[0m\r\n";

/// The warning kpty sends a writer whose input was blocked: 002's, naming kpty's writers.
pub const WARNING: &str = "\r\n\x1b[1;33m⚠  Blocked from a remote writer. Use a local terminal \
     (kpty attach) to exit.\x1b[0m\r\n";

/// The warning for Ctrl-C presses dropped by the debounce.
pub const CTRL_C_WARNING: &str = "\r\n\x1b[1;33m⚠  Repeated Ctrl-C blocked from a remote writer. \
     Send one, then wait; use a local terminal (kpty attach) to exit.\x1b[0m\r\n";

/// Held bytes of a partial match are forwarded after this long without new input.
pub const PARTIAL_TIMEOUT: Duration = Duration::from_millis(500);

/// The default Ctrl-C debounce window.
pub const DEFAULT_CTRL_C_DEBOUNCE_MS: u64 = 500;

/// The longest Ctrl-C debounce window accepted (ten minutes).
pub const MAX_CTRL_C_DEBOUNCE_MS: u64 = 600_000;

const CTRL_C: u8 = 0x03;

/// What a session's filter blocks, beyond the built-ins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterConfig {
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

/// A session's filter as `create` was asked for it: what `metadata.json`, the registry and
/// `list` show, and what the holder builds its [`InputFilter`] from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FilterSpec {
    /// Custom blocked sequences, as written (escapes not yet decoded).
    #[serde(default)]
    pub block_sequences: Vec<String>,
    /// The Ctrl-C debounce window (0: off).
    #[serde(default = "default_debounce")]
    pub ctrl_c_debounce_ms: u64,
}

fn default_debounce() -> u64 {
    DEFAULT_CTRL_C_DEBOUNCE_MS
}

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
    pub fn validate(&self) -> Result<()> {
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

/// The outcome of one write through the filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filtered {
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
    pub fn suppressed(&self) -> bool {
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
        if let Some(d) = e.details.as_mut() {
            d["ctrl_c_debounced"] = json!(self.ctrl_c_debounced);
            d["forwarded_bytes"] = json!(self.forward.len());
            d["held_bytes"] = json!(self.held);
        }
        Some(e)
    }
}

/// A session's input filter: feed it every remote write ([`InputFilter::write`]) and every
/// unfiltered one ([`InputFilter::local`]), in the order they reach the PTY.
#[derive(Debug, Clone)]
pub struct InputFilter {
    matcher: automaton::Matcher,
    /// Printable name of each pattern, by pattern index.
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
    /// ([`FilterConfig::validate`]).
    pub fn new(config: FilterConfig) -> Result<Self> {
        config.validate()?;
        let mut patterns: Vec<Vec<u8>> = BUILTIN.iter().map(|s| s.to_vec()).collect();
        for s in config.block_sequences {
            if !patterns.contains(&s) {
                patterns.push(s);
            }
        }
        let matcher = automaton::Matcher::new(&patterns).map_err(|e| {
            Error::invalid(format!("the blocked sequences cannot be compiled: {e}"))
        })?;
        Ok(Self {
            matcher,
            names: patterns.iter().map(|p| describe(p)).collect(),
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
    pub fn write(&mut self, bytes: &[u8], now: Instant) -> Filtered {
        let mut out = Filtered {
            debounce_ms: u64::try_from(self.debounce.as_millis()).unwrap_or(u64::MAX),
            ..Filtered::default()
        };
        if !bytes.is_empty() {
            self.last_input = Some(now);
        }
        for &b in bytes {
            if b == CTRL_C && self.debounced(now) {
                out.ctrl_c_debounced += 1;
                continue;
            }
            if let Some(pid) = self.matcher.push(b, &mut out.forward) {
                out.blocked.push(self.names[pid].clone());
            }
        }
        out.held = self.matcher.held();
        out
    }

    /// A write that bypasses the filter (a person at a local terminal): returns the bytes to
    /// write, any held remote bytes first. The automaton reads them too, so it keeps following
    /// what the program receives.
    pub fn local(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.matcher.held() + bytes.len());
        self.matcher.pass(bytes, &mut out);
        out
    }

    /// When the held bytes are due to be forwarded, if any are held.
    pub fn deadline(&self) -> Option<Instant> {
        if self.matcher.held() == 0 {
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
        let mut out = Vec::new();
        self.matcher.flush(&mut out);
        out
    }

    /// The bytes held now (a partial match), oldest first.
    pub fn held(&self) -> Vec<u8> {
        self.matcher.held_bytes()
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
