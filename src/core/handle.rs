//! A resolved session: what the registry says of it and where it lives, decided once when
//! it is resolved ([`super::target::target`], [`super::sessions::resolve`]) so that nothing
//! downstream asks again. Front ends hold a [`Handle`], never the store's record.
//!
//! The API is small on purpose:
//! - [`Handle::place`]: [`Place::Local`] (a kpty holder of this state directory, with the id
//!   its files and socket go by, parsed once) or [`Place::Bridged`] (a desktop session behind
//!   its HTTP bridge, whose registry entry carries the sealed bridge URL);
//! - [`Handle::session_id`], [`Handle::label`], and the entry itself (also through `Deref`,
//!   so the holder and bridge calls that take a `&RegistryEntry` take a `&Handle`);
//! - [`Handle::socket`]: a local session's socket, always derived (never read from a file);
//! - [`all`]: every session the registry records, as handles, for front ends that name or
//!   count sessions without acting on one (completion, `/health`, batch verbs).
//!
//! A remote host would be a third [`Place`].

use super::Ctx;
use crate::api::SessionId;
use crate::store::RegistryEntry;
use std::path::PathBuf;

/// Where a resolved session lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Held by a kpty holder of this state directory: the id its folder and socket go by
    /// (for PTY N of `S`, the internal `S.N`); `None` when the registry's id is not one kpty
    /// makes (a tampered entry: such a session is never reached).
    Local(Option<SessionId>),
    /// An external (desktop) session reached through its HTTP bridge ([`crate::bridge`]).
    Bridged,
}

/// A resolved session.
#[derive(Debug, Clone)]
pub struct Handle {
    entry: RegistryEntry,
    place: Place,
}

impl Handle {
    /// The handle of registry entry `e`: where it lives decided here, from its `source`.
    pub fn of(entry: RegistryEntry) -> Self {
        let place = if super::kind::is_local(&entry) {
            Place::Local(files_id(&entry.session_id))
        } else {
            Place::Bridged
        };
        Self { entry, place }
    }

    /// Where the session lives.
    pub fn place(&self) -> &Place {
        &self.place
    }

    /// True for a session a holder of this state directory keeps.
    pub fn is_local(&self) -> bool {
        matches!(self.place, Place::Local(_))
    }

    /// The id a local session's files and socket go by.
    pub fn files_id(&self) -> Option<&SessionId> {
        match &self.place {
            Place::Local(id) => id.as_ref(),
            Place::Bridged => None,
        }
    }

    /// The session's id (`SESSION:N` for a shell PTY).
    pub fn session_id(&self) -> &str {
        &self.entry.session_id
    }

    /// The session's label.
    pub fn label(&self) -> Option<&str> {
        self.entry.label.as_deref()
    }

    /// The registry's entry.
    pub fn entry(&self) -> &RegistryEntry {
        &self.entry
    }

    /// The registry's entry, owned.
    pub fn into_entry(self) -> RegistryEntry {
        self.entry
    }

    /// A local session's socket, derived from the private runtime directory, the state
    /// directory and the id.
    pub fn socket(&self, ctx: &Ctx) -> Option<PathBuf> {
        crate::store::paths::holder_socket(&ctx.state, self.files_id()?).ok()
    }
}

/// Every session the registry of `state` records, as handles, in id order: neither checked
/// nor probed (acting on one goes through [`super::sessions::resolve`], which checks it).
pub fn all(state: &crate::store::StateDir) -> crate::error::Result<Vec<Handle>> {
    let reg = crate::store::Registry::load(state)?;
    Ok(reg.sessions.into_values().map(Handle::of).collect())
}

impl std::ops::Deref for Handle {
    type Target = RegistryEntry;

    fn deref(&self) -> &RegistryEntry {
        &self.entry
    }
}

/// The id a local session's files and socket go by: its session id, or for PTY N named
/// `S:N` the internal id `S.N` (see `crate::api::ids`); `None` for what is neither.
pub fn files_id(session_id: &str) -> Option<SessionId> {
    match crate::api::ids::split_address(session_id) {
        Ok((base, Some(n))) if n > 0 => SessionId::parse(base).ok()?.pty(n),
        _ => SessionId::parse(session_id).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_decides_the_place_and_a_local_id_is_parsed_once() {
        let local = |id: &str| RegistryEntry {
            session_id: id.into(),
            source: "local".into(),
            ..Default::default()
        };
        let h = Handle::of(local("pty_a3f87c2d"));
        assert_eq!(h.files_id().map(SessionId::as_str), Some("pty_a3f87c2d"));
        let pty = Handle::of(local("pty_a3f87c2d:2"));
        assert_eq!(
            pty.files_id().map(SessionId::as_str),
            Some("pty_a3f87c2d.2")
        );
        assert_eq!(pty.session_id(), "pty_a3f87c2d:2");
        // A record kpty would never write is local but reaches nothing.
        assert_eq!(Handle::of(local("../../etc")).place(), &Place::Local(None));
        for source in ["desktop", "vscode"] {
            let e = RegistryEntry {
                session_id: "desk-1".into(),
                source: source.into(),
                ..Default::default()
            };
            let h = Handle::of(e);
            assert_eq!(h.place(), &Place::Bridged);
            assert!(!h.is_local() && h.files_id().is_none());
        }
    }
}
