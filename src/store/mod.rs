//! Everything kpty keeps on disk: state-directory discovery, atomic JSON writes, the locked
//! session registry, per-session metadata, append-only JSONL journals, and watching the
//! directory for changes. Everything read from a state directory is untrusted input: see
//! [`secure`].

pub mod atomic;
pub mod chain;
pub mod index;
pub mod journal;
pub mod lock;
pub mod metadata;
pub mod paths;
pub mod recordings;
pub mod registry;
pub mod registry_events;
pub mod secure;
pub mod trust;
pub mod watch;

pub use metadata::Metadata;
pub use paths::StateDir;
pub use registry::{Registry, RegistryEntry};

/// Now as an RFC 3339 timestamp (`2026-11-22T05:15:45.063Z`).
pub fn now_rfc3339() -> String {
    let ts = jiff::Timestamp::now();
    format!("{ts:.3}")
}
