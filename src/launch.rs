//! What a session is launched with — the program run instead of a shell, the Landlock
//! sandbox, the input filter for remote writers — as plain data: one leaf module, importing
//! nothing of kpty, used alike by the holder's launch spec (`proto::launch::HolderSpec`), the
//! action replies (`api::sessions`), and the store (`metadata.json`, the registry).
//!
//! Behaviour lives with its owner as inherent methods: [`Policy::build`] in `sandbox/`,
//! [`FilterSpec::build`] in `filter/`, so this module stays data and those stay free of the
//! wire and the store.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The longest restart delay accepted (ten minutes).
pub const MAX_RESTART_DELAY_MS: u64 = 600_000;

/// The default restart delay.
pub const DEFAULT_RESTART_DELAY_MS: u64 = 1000;

/// The default Ctrl-C debounce window of the input filter.
pub const DEFAULT_CTRL_C_DEBOUNCE_MS: u64 = 500;

/// A program a session runs instead of an interactive shell (seed 002's agent PTY).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramSpec {
    /// The command as given (`create --command`).
    pub command: String,
    /// Its words (the first is the program, resolved on PATH by the holder).
    pub argv: Vec<String>,
    /// Start it again when it exits.
    #[serde(default)]
    pub auto_restart: bool,
    /// Wait this long before starting it again (doubled on quick exits, up to a cap).
    #[serde(default = "default_restart_delay")]
    pub restart_delay_ms: u64,
}

fn default_restart_delay() -> u64 {
    DEFAULT_RESTART_DELAY_MS
}

/// What a sandboxed session may do; also what `list`, `metadata.json` and the registry show
/// as `sandbox`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// The Landlock ABI the kernel reported when the session was created.
    pub abi: u32,
    /// Absolute paths writable (with everything under them), symlinks resolved.
    pub allow_write: Vec<PathBuf>,
    /// Absolute paths hidden (with everything under them).
    pub deny_read: Vec<PathBuf>,
    /// Whether TCP bind/connect is allowed (`false`: `--no-network`).
    pub network: bool,
    /// Directories covered by an empty read-only tmpfs in the session's mount namespace:
    /// kpty's runtime directories (every session's socket) and the state directory. Symlinks
    /// resolved; absent from policies of sessions made before kpty hid them.
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
    /// Directories inside hidden ones whose files are copied, read-only, into the cover (the
    /// shell integration files the shell reads as it starts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<PathBuf>,
}

/// A session's input filter as `create` was asked for it: what `metadata.json`, the registry
/// and `list` show, and what the holder builds its filter from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Older writers left the defaulted fields out; they still read.
    #[test]
    fn older_launch_descriptions_read_with_their_defaults() {
        let p: ProgramSpec = serde_json::from_str(r#"{"command":"top","argv":["top"]}"#).unwrap();
        assert_eq!((p.auto_restart, p.restart_delay_ms), (false, 1000));
        let f: FilterSpec = serde_json::from_str("{}").unwrap();
        assert_eq!(f.ctrl_c_debounce_ms, DEFAULT_CTRL_C_DEBOUNCE_MS);
        let s: Policy =
            serde_json::from_str(r#"{"abi":3,"allow_write":["/p"],"deny_read":[],"network":true}"#)
                .unwrap();
        assert!(s.hidden.is_empty() && s.revealed.is_empty());
        assert!(!serde_json::to_string(&s).unwrap().contains("revealed"));
    }
}
