//! Session ids: `pty_<8 hex>` for local sessions; ids of external (registered) sessions are
//! checked against a strict character set before they ever touch a path.

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
pub fn is_valid(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
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
