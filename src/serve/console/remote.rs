//! A session on another machine in the console's terminal view: the page names it
//! `HOST:ID` (the overview's key of a remote tile), HOST one of the hosts kpty knows
//! ([`crate::remote::hosts::known`]) — a page never makes this server reach any other — and ID a
//! well-formed session id. The view runs `kpty __attach-stream` there over the host's channel
//! ([`crate::remote::join`]): the host's holder sees a web client (the host insists), so keys
//! pass that session's input filter there, and the host's trail records the join, the lines
//! typed, the blocked attempts, control and the leave. This machine's trail records that a
//! remote view was opened (`remote`, with the host, the session and the login), as for any
//! remote call; it keeps no trail of a session it does not hold.

use crate::api::{Params, SessionId};
use crate::core::Ctx;
use crate::core::attach::Attachment;
use crate::error::{Error, Result};
use crate::proto::attach::AttachRequest;
use crate::remote::Host;
use crate::remote::join::{JoinReply, JoinRequest};

/// A view's name split into a known host and a session id there; `Ok(None)` when the name
/// does not start with a known host (a local session's name); an error when it does but
/// what follows is not a session id.
pub(super) fn named(name: &str, known: &[Host]) -> Result<Option<(Host, SessionId)>> {
    let Some((host, id)) = name.rsplit_once(':') else {
        return Ok(None);
    };
    let Some(host) = known.iter().find(|k| k.as_str() == host) else {
        return Ok(None);
    };
    Ok(Some((host.clone(), SessionId::parse(id)?)))
}

/// Join `id` on `host` as `who` with `req` (the host makes it a web client's); the stream and
/// the session as this console names it (`HOST:ID`). Recorded here as `remote`.
pub(super) fn join(
    ctx: &Ctx,
    host: &Host,
    id: &SessionId,
    who: &str,
    req: &AttachRequest,
) -> Result<Attachment> {
    let p = Params {
        host: Some(host.to_string()),
        agent_id: Some(who.to_string()),
        command: Some(format!("{host}: web_join {id}")),
        ..Default::default()
    };
    let mut at = None;
    crate::core::audited_as(ctx, "remote", &p, || {
        let request = JoinRequest {
            session_id: id.as_str().to_string(),
            who: who.to_string(),
            attach: req.clone(),
        };
        let (stream, reply) = crate::remote::join::open(host, &request)?;
        if let Some(e) = reply.refused() {
            return Err(e);
        }
        let JoinReply::Joined { label, body, .. } = reply else {
            return Err(Error::internal("a join reply neither joined nor refused"));
        };
        let joined = Joined {
            attached: body.attached,
            resumed: body.resumed,
        };
        at = Some(Attachment {
            stream,
            session_id: format!("{host}:{id}"),
            label,
            body,
        });
        Ok(joined)
    })?;
    at.ok_or_else(|| Error::internal("the join left no stream"))
}

/// What `remote` records of a view's join here (the host records the rest).
#[derive(serde::Serialize)]
struct Joined {
    attached: usize,
    /// A page that came back, carrying on where it was.
    resumed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<Host> {
        ["box", "ssh://me@far:2222", "[::1]"]
            .iter()
            .map(|h| Host::parse(h).unwrap())
            .collect()
    }

    #[test]
    fn a_known_host_and_a_session_id_name_a_remote_session() {
        let k = known();
        let (h, id) = named("box:pty_0123abcd", &k).unwrap().unwrap();
        assert_eq!((h.as_str(), id.as_str()), ("box", "pty_0123abcd"));
        let (h, _) = named("ssh://me@far:2222:pty_1", &k).unwrap().unwrap();
        assert_eq!(h.as_str(), "ssh://me@far:2222");
        assert!(named("[::1]:x", &k).unwrap().is_some());
        // Not a known host: a local name, never a host to reach.
        for local in [
            "pty_0123abcd",
            "other:pty_0123abcd",
            "pty_1:2",
            "bo:x",
            ":x",
        ] {
            assert!(named(local, &k).unwrap().is_none(), "{local}");
        }
        // A known host with no well-formed id after it is refused.
        for bad in [
            "box:",
            "box:../x",
            "box:a b",
            "box:-x",
            &format!("box:{}", "x".repeat(65)),
        ] {
            assert!(named(bad, &k).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        /// Whatever a page names, a remote session is only ever a known host and a valid id,
        /// and it names exactly that.
        #[test]
        fn only_a_known_host_and_a_valid_id_is_remote(name in "\\PC{0,40}", pick in 0usize..4, id in "[A-Za-z0-9_.:-]{0,12}") {
            let k = known();
            let with_host = match k.get(pick) {
                Some(h) => format!("{h}:{id}"),
                None => name.clone(),
            };
            for n in [name.as_str(), with_host.as_str()] {
                if let Ok(Some((h, sid))) = named(n, &k) {
                    proptest::prop_assert!(k.contains(&h));
                    proptest::prop_assert!(SessionId::parse(sid.as_str()).is_ok());
                    proptest::prop_assert_eq!(format!("{h}:{}", sid.as_str()), n);
                }
            }
        }
    }
}
