//! [`Open`]: a closed set's value as it travels between a holder and a client of another
//! build (and as the store keeps it) — a spelling this build knows, or one it does not (a newer peer's), kept as sent so
//! an older holder and a newer CLI still talk, and decided by the reader.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A closed set's value on the wire (`T` is one of `crate::api`'s closed sets).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Open<T> {
    /// A spelling this build knows.
    Known(T),
    /// A spelling it does not, as sent.
    Unknown(String),
}

impl<T: Copy> Open<T> {
    /// The known value, or `fallback` (logged: a peer sent a spelling this build lacks).
    pub fn or(&self, fallback: T) -> T {
        match self {
            Open::Known(t) => *t,
            Open::Unknown(s) => {
                // Empty: the field was absent (an older holder's reply).
                if !s.is_empty() {
                    tracing::warn!("holder reply: unknown value {s:?}");
                }
                fallback
            }
        }
    }

    /// The known value, if it is one.
    pub fn known(&self) -> Option<T> {
        match self {
            Open::Known(t) => Some(*t),
            Open::Unknown(_) => None,
        }
    }
}

impl<T: AsRef<str>> Open<T> {
    /// The spelling, known or not.
    pub fn as_str(&self) -> &str {
        match self {
            Open::Known(t) => t.as_ref(),
            Open::Unknown(s) => s,
        }
    }
}

impl<T: fmt::Display> fmt::Display for Open<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Open::Known(t) => t.fmt(f),
            Open::Unknown(s) => f.write_str(s),
        }
    }
}

/// Absent (an older peer left the field out): an empty unknown spelling.
impl<T> Default for Open<T> {
    fn default() -> Self {
        Open::Unknown(String::new())
    }
}

/// `From<T>` for the closed sets that travel (a blanket impl would clash with `From<&str>`).
macro_rules! known_from {
    ($($t:ident),+) => {$(
        impl From<super::$t> for Open<super::$t> {
            fn from(t: super::$t) -> Self {
                Open::Known(t)
            }
        }
    )+};
}

known_from!(
    TermMode,
    BufferType,
    TerminalState,
    Completion,
    Integration,
    ShellKind,
    ProcessState,
    WaitReason
);

impl<T: FromStr> From<&str> for Open<T> {
    fn from(s: &str) -> Self {
        s.parse()
            .map_or_else(|_| Open::Unknown(s.to_string()), Open::Known)
    }
}

impl<T: fmt::Display> Serialize for Open<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Open::Known(t) => s.collect_str(t),
            Open::Unknown(u) => s.serialize_str(u),
        }
    }
}

impl<'de, T: FromStr> Deserialize<'de> for Open<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(Open::from(&*s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{BufferType, Completion, ShellKind, TermMode, TerminalState};
    use proptest::prelude::*;

    /// Every spelling of `T` round-trips as itself; `other` (not a spelling) is kept as sent.
    fn round_trips<T>(spellings: &[&str], other: &str)
    where
        T: FromStr + fmt::Display + fmt::Debug + PartialEq,
    {
        for s in spellings {
            let v: Open<T> = serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap();
            assert!(matches!(v, Open::Known(_)), "{s}");
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
        let v: Open<T> = serde_json::from_str(&serde_json::to_string(other).unwrap()).unwrap();
        if !spellings.contains(&other) {
            assert_eq!(v, Open::Unknown(other.to_string()));
        }
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string(other).unwrap()
        );
    }

    proptest! {
        #[test]
        fn every_closed_set_keeps_known_and_unknown_spellings(other in "\\PC{0,24}") {
            round_trips::<TermMode>(TermMode::SPELLINGS, &other);
            round_trips::<BufferType>(BufferType::SPELLINGS, &other);
            round_trips::<TerminalState>(TerminalState::SPELLINGS, &other);
            round_trips::<Completion>(Completion::SPELLINGS, &other);
            round_trips::<ShellKind>(ShellKind::SPELLINGS, &other);
            round_trips::<crate::api::ProcessState>(crate::api::ProcessState::SPELLINGS, &other);
            round_trips::<crate::api::WaitReason>(crate::api::WaitReason::SPELLINGS, &other);
        }
    }

    #[test]
    fn an_unknown_value_falls_back_where_it_is_read() {
        let v: Open<TerminalState> = "dreaming".into();
        assert_eq!(v.or(TerminalState::Running), TerminalState::Running);
        assert_eq!(v.known(), None);
        let v: Open<TerminalState> = "prompt".into();
        assert_eq!(v.known(), Some(TerminalState::Prompt));
    }
}
