//! The batch verbs' replies: `kill` with `all` (every local session of the state directory)
//! and `list` with `all` (every state directory this user has used). A session's record `E`
//! is the store's registry entry, as in [`ListReply`].

use super::reply::KillReply;
use super::sessions::ListReply;
use crate::error::Error;
use serde::{Serialize, Serializer};

/// `kill` with `all: true`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KillAllReply {
    /// True when every session was ended (or had already gone).
    pub ok: bool,
    /// Each session ended, as `kill` answers it.
    pub killed: Vec<KillReply>,
    /// Each session that could not be ended, with the error.
    pub failed: Vec<KillFailed>,
}

/// A session `kill` with `all` could not end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KillFailed {
    /// The session.
    pub session_id: String,
    /// Why, as an error object.
    #[serde(serialize_with = "error_object")]
    pub error: Error,
}

/// `list` with `all: true`: this state directory's sessions, then those of every other
/// indexed one (most recent first), each session with its `state_dir`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListAllReply<E> {
    /// Always true (a state directory that cannot be read is in `failed`).
    pub ok: super::reply::Success,
    /// How many sessions in all.
    pub count: usize,
    /// Every session, by state directory.
    pub sessions: Vec<ListedIn<E>>,
    /// The state directories listed.
    pub state_dirs: Vec<String>,
    /// The state directories that could not be read, with the error.
    pub failed: Vec<DirFailed>,
    /// Each directory's own `list` reply, for a renderer (not serialized).
    #[serde(skip)]
    pub lists: Vec<ListReply<E>>,
}

/// A session of `list` with `all`, with its state directory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedIn<E> {
    /// The session, as `list` shows it.
    #[serde(flatten)]
    pub session: super::sessions::SessionView<E>,
    /// Its state directory.
    pub state_dir: String,
}

/// A state directory `list` with `all` could not read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirFailed {
    /// The directory.
    pub state_dir: String,
    /// Why, as an error object.
    #[serde(serialize_with = "error_object")]
    pub error: Error,
}

/// An error as its JSON object (`{ok: false, error_code, message, …}`).
fn error_object<S: Serializer>(e: &Error, s: S) -> Result<S::Ok, S::Error> {
    e.to_json().serialize(s)
}
