//! `attach`: open a person's stream to a session's terminal. The core finds (or makes) the
//! session and connects; the front end owns the terminal (raw mode, keys, the detach key).

use super::{Ctx, sessions};
use crate::api::Params;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::attach::{AttachBody, AttachRequest};
use crate::proto::client;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// How long connecting and the holder's first answer may take.
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// An open attach stream.
pub struct Attachment {
    /// The connection, carrying [`crate::proto::attach::Frame`]s from here on (no timeouts).
    pub stream: UnixStream,
    /// The session.
    pub session_id: String,
    /// Its label.
    pub label: Option<String>,
    /// What the holder answered.
    pub body: AttachBody,
}

/// Which session to join.
pub enum Target<'a> {
    /// Named by id, unique prefix or label (`p.session_id`), or else the default session
    /// (made when missing, as `talk` does).
    Named(&'a Params),
    /// The session labelled so, made first when there is none (`tmux new -A`).
    CreateLabel(&'a str),
}

/// Find the session and open an attach stream to it.
pub fn open(ctx: &Ctx, target: Target<'_>, req: &AttachRequest) -> Result<Attachment> {
    let e = match target {
        Target::Named(p) => {
            let named = crate::api::request::Target::of(p);
            super::target::target(ctx, &named, true)?.into_entry()
        }
        Target::CreateLabel(label) => {
            super::target::ensure_labelled(ctx, label, "session_replaced")?
        }
    };
    if !super::kind::is_local(&e) {
        return Err(Error::invalid(format!(
            "session {} is a {} session; only local sessions can be attached",
            e.session_id, e.source
        )));
    }
    let mut stream = sessions::connect(ctx, &e, OPEN_TIMEOUT)?;
    let body = client::call_until(
        &mut stream,
        req.clone(),
        Instant::now() + OPEN_TIMEOUT,
        &mut |_| {},
    )
    .map_err(|err| match err.cause {
        Some(crate::error::Cause::UnknownRequest) => Error::new(
            ErrorCode::InvalidParams,
            format!(
                "the holder of session {} is older than attach; kill and recreate the session to attach to it",
                e.session_id
            ),
        ),
        _ => err,
    })?;
    stream
        .set_read_timeout(None)
        .and_then(|_| stream.set_write_timeout(None))
        .map_err(|err| Error::internal(format!("socket setup failed: {err}")))?;
    Ok(Attachment {
        stream,
        session_id: e.session_id,
        label: e.label,
        body,
    })
}
