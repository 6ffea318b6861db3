//! Session ids: `pty_<8 hex>` for local sessions; ids of external (registered) sessions are
//! checked against a strict character set before they ever touch a path.
//!
//! PTY addresses (seed 002 §8.2): a session's PTY 0 is its shell or program, PTYs 1, 2 … are
//! shells opened beside it (`shell`). A caller names PTY N as `SESSION:N` ([`split_address`]);
//! kpty keeps PTY N of local session `S` under the internal id `S.N` ([`SessionId::pty`]):
//! its files in `sessions/S/ptys/N/`, its holder's socket derived from that id.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A validated session id, safe to use as a path component.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SessionId(String);

impl SessionId {
    /// A fresh local id, `pty_` + 8 hex digits.
    pub fn new_local() -> Self {
        let hex = uuid::Uuid::new_v4().simple().to_string();
        Self(format!("pty_{}", &hex[..8]))
    }

    /// Validate an id: 1..=64 chars of `[A-Za-z0-9_.-]`, not starting with `.` or `-`.
    pub fn parse(s: &str) -> Result<Self> {
        if is_valid(s) {
            Ok(Self(s.to_string()))
        } else {
            Err(Error::invalid(format!(
                "malformed session id {s:?}: ids are 1-64 characters of letters, digits, '_', '-' \
                 and '.', and never start with '.' or '-' (e.g. pty_a3f87c2d)"
            )))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The internal id of this local session's PTY `n` (1..=[`MAX_PTY`]): `S.N`; `None` for
    /// an external id, an id that is itself a PTY's, or `n` out of range.
    pub fn pty(&self, n: u32) -> Option<SessionId> {
        (self.is_local_form() && (1..=MAX_PTY).contains(&n))
            .then(|| SessionId(format!("{}.{n}", self.0)))
    }

    /// For the internal id of a shell PTY (`S.N`, see [`Self::pty`]): its session and number.
    pub fn pty_parts(&self) -> Option<(SessionId, u32)> {
        let (base, n) = self.0.split_once('.')?;
        let base = SessionId(base.to_string());
        let n = pty_number(n)?;
        (base.is_local_form() && n >= 1).then_some((base, n))
    }

    /// How callers name what this id is: `S:N` for a shell PTY's internal id, else the id.
    pub fn address(&self) -> String {
        match self.pty_parts() {
            Some((base, n)) => format!("{base}:{n}"),
            None => self.0.clone(),
        }
    }

    /// True for ids kpty made for its own local sessions.
    pub fn is_local_form(&self) -> bool {
        let s = self.0.as_str();
        s.len() == 12
            && s.starts_with("pty_")
            && s[4..]
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    }
}

/// True when `label` is a label a session may carry: 1-64 characters, not blank, no
/// control characters (`create --label`, `rename`; the holder checks it again).
pub fn is_valid_label(label: &str) -> bool {
    !label.trim().is_empty() && label.chars().count() <= 64 && !label.chars().any(char::is_control)
}

/// True when `s` is a well-formed session id (see [`SessionId::parse`]).
fn is_valid(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// The highest PTY number of a session (PTY 0 is its shell or program, 1..=999 shells).
pub const MAX_PTY: u32 = 999;

/// A PTY number as written in an address: canonical decimal (no sign, no leading zero),
/// 0..=[`MAX_PTY`].
fn pty_number(s: &str) -> Option<u32> {
    let canonical = !s.is_empty()
        && s.len() <= 3
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s == "0" || !s.starts_with('0'));
    canonical
        .then(|| s.parse::<u32>().ok())
        .flatten()
        .filter(|n| *n <= MAX_PTY)
}

/// Split a session reference into the session part and the PTY number: `SESSION:N` names PTY
/// N of SESSION, a reference without `:` its PTY 0 (`None`). The number is canonical decimal,
/// 0-999; anything else after the last `:` (or nothing before it) is `INVALID_PARAMS`. (A
/// label that itself contains `:` is matched whole before this is asked.)
pub fn split_address(s: &str) -> Result<(&str, Option<u32>)> {
    let Some((base, n)) = s.rsplit_once(':') else {
        return Ok((s, None));
    };
    match pty_number(n) {
        Some(n) if !base.trim().is_empty() => Ok((base, Some(n))),
        _ => Err(Error::invalid(format!(
            "malformed PTY address {s:?}: name PTY N of a session as SESSION:N, N a number \
             0-{MAX_PTY} without leading zeros (e.g. pty_a3f87c2d:1); plain SESSION is PTY 0"
        ))),
    }
}

impl TryFrom<String> for SessionId {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        Self::parse(&s)
    }
}

impl From<SessionId> for String {
    fn from(id: SessionId) -> String {
        id.0
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_one_to_64_printable_characters() {
        for ok in ["a", "build-1", "my label", "ünï", &"x".repeat(64)] {
            assert!(is_valid_label(ok), "{ok:?}");
        }
        for bad in ["", "   ", "a\tb", "x\u{1b}[2J", "nl\n", &"x".repeat(65)] {
            assert!(!is_valid_label(bad), "{bad:?}");
        }
    }

    #[test]
    fn new_local_ids_are_local_form() {
        for _ in 0..100 {
            let id = SessionId::new_local();
            assert!(id.is_local_form(), "{id}");
            assert!(SessionId::parse(id.as_str()).is_ok());
        }
    }

    #[test]
    fn rejects_traversal_and_junk() {
        for bad in [
            "",
            "../../etc",
            "..",
            ".",
            "a/b",
            "a\\b",
            "-rf",
            ".hidden",
            "pty_1234\0",
            "a b",
            "ä",
            &"x".repeat(65),
        ] {
            assert!(SessionId::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn pty_ids_round_trip_and_stay_path_safe() {
        let s = SessionId::parse("pty_a3f87c2d").unwrap();
        let one = s.pty(1).unwrap();
        assert_eq!(one.as_str(), "pty_a3f87c2d.1");
        assert_eq!(one.pty_parts(), Some((s.clone(), 1)));
        assert_eq!(one.address(), "pty_a3f87c2d:1");
        assert_eq!(s.address(), "pty_a3f87c2d");
        assert!(s.pty(0).is_none() && s.pty(MAX_PTY + 1).is_none());
        assert!(one.pty(2).is_none(), "a PTY has no PTYs");
        assert!(
            SessionId::parse("Worker.A_2")
                .unwrap()
                .pty_parts()
                .is_none()
        );
        assert!(
            SessionId::parse("pty_a3f87c2d.01")
                .unwrap()
                .pty_parts()
                .is_none()
        );
        assert!(SessionId::parse("term.1").unwrap().pty(1).is_none());
    }

    mod prop {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// Every well-formed address splits into its parts; PTY numbers are exactly the
            /// canonical decimals 0..=MAX_PTY.
            #[test]
            fn well_formed_addresses_split(base in "[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", n in 0u32..=MAX_PTY) {
                let a = format!("{base}:{n}");
                prop_assert_eq!(split_address(&a).unwrap(), (base.as_str(), Some(n)));
                prop_assert_eq!(split_address(&base).unwrap(), (base.as_str(), None));
            }

            /// Anything after the last `:` that is not a canonical number is INVALID_PARAMS.
            #[test]
            fn malformed_numbers_are_invalid(
                base in "[A-Za-z0-9_]{1,12}",
                tail in prop_oneof![
                    Just(String::new()),
                    "-[0-9]{1,5}",
                    "\\+[0-9]{1,3}",
                    "0[0-9]{1,3}",
                    "[0-9]{1,3}[a-z /.]{1,3}",
                    "[1-9][0-9]{3,12}",
                    "\\.\\./[a-z]{1,5}",
                    " [0-9]",
                    "[0-9]\\x00",
                ],
            ) {
                let a = format!("{base}:{tail}");
                let e = split_address(&a).unwrap_err();
                prop_assert_eq!(e.code, crate::error::ErrorCode::InvalidParams);
            }

            /// The internal id of PTY n is a valid, path-safe session id that names it back.
            #[test]
            fn pty_ids_are_valid_ids(hex in "[0-9a-f]{8}", n in 1u32..=MAX_PTY) {
                let s = SessionId::parse(&format!("pty_{hex}")).unwrap();
                let id = s.pty(n).unwrap();
                prop_assert!(is_valid(id.as_str()));
                prop_assert_eq!(SessionId::parse(id.as_str()).unwrap().pty_parts(), Some((s.clone(), n)));
                let address = id.address();
                prop_assert_eq!(split_address(&address).unwrap(), (s.as_str(), Some(n)));
            }
        }
    }

    #[test]
    fn accepts_external_ids() {
        for ok in ["pty_a3f87c2d", "9ccd99b1bdd8710e", "term-1", "Worker.A_2"] {
            assert!(SessionId::parse(ok).is_ok(), "{ok:?} rejected");
        }
        assert!(
            !SessionId::parse("9ccd99b1bdd8710e")
                .unwrap()
                .is_local_form()
        );
    }
}
