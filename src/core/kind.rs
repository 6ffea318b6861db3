//! Whether a session is held by a kpty holder here or reached through its bridge: decided
//! once per call, from the registry entry's `source`, so that each action matches on it
//! instead of asking again.

use crate::store::RegistryEntry;

/// The `source` of sessions kpty holds itself.
pub const LOCAL: &str = "local";

/// A resolved session and how it is reached.
#[derive(Debug, Clone)]
pub enum Session {
    /// A kpty holder of this state directory (reached through `proto`).
    Local(RegistryEntry),
    /// A desktop session, reached through its HTTP bridge ([`crate::bridge`]).
    Bridged(RegistryEntry),
}

impl Session {
    /// Classify `e` by its source.
    pub fn of(e: RegistryEntry) -> Self {
        if is_local(&e) {
            Session::Local(e)
        } else {
            Session::Bridged(e)
        }
    }
}

/// True when `e` is held by a kpty holder of this state directory.
pub fn is_local(e: &RegistryEntry) -> bool {
    e.source == LOCAL
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_decides_the_kind() {
        let local = RegistryEntry {
            source: "local".into(),
            ..Default::default()
        };
        assert!(matches!(Session::of(local), Session::Local(_)));
        for source in ["desktop", "vscode"] {
            let e = RegistryEntry {
                source: source.into(),
                ..Default::default()
            };
            assert!(matches!(Session::of(e), Session::Bridged(_)));
        }
    }
}
