//! What a web console on another machine says to `kpty __attach-stream` on a host to join one
//! of its sessions (the host's end is [`crate::cli::attach_stream`], the console's
//! `serve::console::remote`): one JSON line each way, then the attach stream
//! ([`crate::proto::attach`]) between the console and the session's holder, carried over the
//! host's channel as the verb's standard input and output (`piped.rs`).

use super::Host;
use crate::api::Open;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::attach::{AttachBody, AttachRequest};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// The hidden verb the host runs for a console's view.
pub const SUBCOMMAND: &str = "__attach-stream";

/// The most bytes of either JSON line.
pub const MAX_LINE: u64 = 64 * 1024;

/// The console's line: which session, who joins, and the attach request (the host makes it a
/// web client's whatever it says).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinRequest {
    /// The session's id on the host.
    pub session_id: String,
    /// The console's login, as its audit trail names it (`web:…`).
    pub who: String,
    /// The attach request.
    pub attach: AttachRequest,
}

/// The host's line: the session joined, or why not.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JoinReply {
    /// Joined: the attach stream follows.
    Joined {
        /// The session's id.
        session_id: String,
        /// Its label.
        label: Option<String>,
        /// What the holder answered.
        body: AttachBody,
    },
    /// Not joined: the error's code and message; nothing follows.
    Refused {
        /// The error's code (`NOT_FOUND` …; one this build does not know is kept as sent).
        error_code: Open<ErrorCode>,
        /// What went wrong.
        message: String,
    },
}

/// Whether `who` is a name a console's login may have in the host's trail: 1-64 printable
/// characters, no whitespace.
pub fn is_login_name(who: &str) -> bool {
    !who.is_empty()
        && who.chars().count() <= 64
        && !who.chars().any(|c| c.is_control() || c.is_whitespace())
}

/// Join a session on `host` for a console: run [`SUBCOMMAND`] there over the host's channel
/// (started when there is none) with `req`; the host's reply and the socket that carries the
/// attach stream from then on (no timeouts set).
pub fn open(host: &Host, req: &JoinRequest) -> Result<(UnixStream, JoinReply)> {
    let dir = super::remote_dir();
    let Some(stream) = super::channel::connect(host, dir.as_deref())? else {
        return Err(super::unreachable(
            host,
            "no channel to it could start (a view needs one)",
        ));
    };
    let (mut s, said) = super::piped::verb(host, stream, &[SUBCOMMAND.to_string()])?;
    let mut line = serde_json::to_vec(req).map_err(|e| Error::internal(e.to_string()))?;
    line.push(b'\n');
    s.write_all(&line)
        .map_err(|_| super::channel::dropped(host, "a console's join"))?;
    let within = super::connect_timeout() * 2 + Duration::from_secs(20);
    let _ = s.set_read_timeout(Some(within));
    let read = read_line(&mut s);
    let _ = s.set_read_timeout(None);
    let reply = match read {
        Some(l) => serde_json::from_slice::<JoinReply>(&l).ok(),
        None => None,
    };
    let said = said.text();
    match reply {
        Some(r) => Ok((s, r)),
        None if said.trim().is_empty() => Err(super::unreachable(
            host,
            &format!(
                "its kpty gave the console's join no answer (waited up to {} s)",
                within.as_secs()
            ),
        )),
        None => Err(super::too_old_or_unreachable(host, "kpty", &said)),
    }
}

/// One line (without its newline), read a byte at a time so nothing after it is taken; `None`
/// at an end, a timeout or past [`MAX_LINE`].
fn read_line(s: &mut UnixStream) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let mut b = [0u8; 1];
    while (line.len() as u64) < MAX_LINE {
        match crate::eintr::retry(|| s.read(&mut b)) {
            Ok(1) if b[0] == b'\n' => return Some(line),
            Ok(1) => line.push(b[0]),
            _ => return None,
        }
    }
    None
}

impl JoinReply {
    /// The reply's error, when the host refused.
    pub fn refused(&self) -> Option<Error> {
        let Self::Refused {
            error_code,
            message,
        } = self
        else {
            return None;
        };
        Some(Error::new(
            error_code.or(ErrorCode::Internal),
            message.clone(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_keeps_its_code_and_an_unknown_one_reads_as_internal() {
        for code in ErrorCode::ALL {
            let line = serde_json::to_string(&JoinReply::Refused {
                error_code: Open::Known(code),
                message: "no".into(),
            })
            .unwrap();
            assert!(line.contains(&format!("\"{}\"", code.as_str())), "{line}");
            let back: JoinReply = serde_json::from_str(&line).unwrap();
            assert_eq!(back.refused().map(|e| e.code), Some(code), "{line}");
        }
        let newer = r#"{"error_code":"A_NEWER_CODE","message":"no"}"#;
        let back: JoinReply = serde_json::from_str(newer).unwrap();
        assert_eq!(back.refused().map(|e| e.code), Some(ErrorCode::Internal));
    }
}
