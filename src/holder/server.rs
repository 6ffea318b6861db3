//! The holder's socket server: one thread per connection, peer uid checked, requests decoded
//! tolerantly (unknown op or version → an error reply, never a panic), answered in order.

use super::session::Shared;
use crate::error::{Cause, Error, ErrorCode};
use crate::proto::{Envelope, PROTOCOL_VERSION, ProgressBody, Reply, Request, frame};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;

/// Accept connections until the process exits.
pub fn serve(listener: UnixListener, shared: Arc<Shared>) {
    let me = rustix::process::getuid();
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        match rustix::net::sockopt::socket_peercred(&stream) {
            Ok(cred) if cred.uid == me => {}
            Ok(cred) => {
                tracing::warn!("refused a connection from uid {}", cred.uid.as_raw());
                continue;
            }
            Err(e) => {
                tracing::warn!("cannot check peer credentials: {e}");
                continue;
            }
        }
        let s = shared.clone();
        std::thread::spawn(move || handle(stream, s));
    }
}

/// What a request gets: a reply, or (for `attach` and `follow`) the connection turned into a
/// stream.
enum Answer {
    Reply(Reply),
    Attach(crate::proto::attach::AttachRequest),
    Follow(crate::proto::follow::FollowRequest),
}

impl From<Reply> for Answer {
    fn from(r: Reply) -> Self {
        Answer::Reply(r)
    }
}

fn handle(mut stream: UnixStream, shared: Arc<Shared>) {
    // Counted per connection, not per request: a holder that is exiting still answers a
    // client that connected before the socket went away.
    shared.lock().open_connections += 1;
    loop {
        let body = match frame::read_frame(&mut stream) {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => {
                tracing::debug!("connection ended: {e}");
                break;
            }
        };
        let reply = match answer(&body, &shared, &stream) {
            Answer::Reply(r) => r,
            // The connection is the client's stream from here on.
            Answer::Attach(req) => {
                shared.attach(stream, &req);
                break;
            }
            Answer::Follow(req) => {
                shared.follow(stream, &req);
                break;
            }
        };
        let sent = serde_json::to_vec(&reply)
            .map_err(std::io::Error::other)
            .and_then(|b| frame::write_frame(&mut stream, &b));
        if let Err(e) = sent {
            tracing::debug!("reply not delivered: {e}");
            break;
        }
    }
    shared.lock().open_connections -= 1;
    shared.notify();
}

fn answer(body: &[u8], shared: &Shared, stream: &UnixStream) -> Answer {
    let env: Envelope = match serde_json::from_slice(body) {
        Ok(e) => e,
        Err(e) => {
            return Reply::err(Error::new(
                ErrorCode::InvalidParams,
                format!("malformed request: {e}"),
            ))
            .into();
        }
    };
    if env.v != PROTOCOL_VERSION {
        return Reply::err(Error::new(
            ErrorCode::PtyReadFailed,
            format!(
                "this session's holder speaks protocol {PROTOCOL_VERSION} (kpty {}), the client speaks {}; \
                 use the kpty that created the session, or kill and recreate it",
                env!("CARGO_PKG_VERSION"),
                env.v
            ),
        ))
        .into();
    }
    let known = serde_json::from_value::<OpTag>(env.req.clone()).is_ok_and(|t| t.op != Op::Unknown);
    let req: Request = match serde_json::from_value(env.req) {
        Ok(r) => r,
        Err(e) => {
            let err = Error::new(
                ErrorCode::InvalidParams,
                format!("unknown or malformed request: {e}"),
            );
            return Reply::err(if known {
                err
            } else {
                err.with_cause(Cause::UnknownRequest)
            })
            .into();
        }
    };
    let reply = match req {
        Request::Attach(a) => return Answer::Attach(a),
        Request::Follow(f) => return Answer::Follow(f),
        Request::Status => Reply::ok(shared.status()),
        Request::Write {
            data,
            enter_follows,
            app_cursor,
        } => result(shared.write(&data, enter_follows, app_cursor.as_deref())),
        Request::Read {
            since,
            max_bytes,
            timeout_ms,
            context,
        } => Reply::ok(shared.read(since, max_bytes, timeout_ms, context)),
        Request::Talk(t) => talk(shared, stream, &t),
        Request::Cancel {
            interrupt,
            settle_ms,
        } => result(shared.cancel_talk(interrupt, std::time::Duration::from_millis(settle_ms))),
        Request::Resize { cols, rows } => result(
            shared
                .resize(cols, rows)
                .map(|(cols, rows)| serde_json::json!({"cols": cols, "rows": rows})),
        ),
        Request::Kill { grace_ms } => Reply::ok(shared.kill(grace_ms)),
        Request::TermRead(t) => result(shared.term_read(&t)),
        Request::WaitFor(w) => result(shared.wait_for(&w)),
        Request::Spec => match shared.spec.get() {
            Some(s) => Reply::ok(super::shell_spec(s)),
            None => Reply::err(Error::internal("this holder kept no launch spec")),
        },
        Request::SetLabel { label } => {
            result(shared.set_label(label).map(|_| serde_json::json!({})))
        }
    };
    reply.into()
}

/// Run a talk; progress frames go out on a clone of the connection (a failed write means
/// the client is gone, and the talk stops waiting for it).
fn talk(shared: &Shared, stream: &UnixStream, t: &crate::proto::TalkRequest) -> Reply {
    let mut out = stream.try_clone().ok();
    let mut send = |p: &ProgressBody| {
        let Some(s) = out.as_mut() else { return false };
        serde_json::to_vec(&Reply::progress(p)).is_ok_and(|b| frame::write_frame(s, &b).is_ok())
    };
    let progress = t.progress_ms.map(|ms| {
        (
            std::time::Duration::from_millis(ms.max(50)),
            &mut send as &mut dyn FnMut(&ProgressBody) -> bool,
        )
    });
    result(shared.talk(t, progress))
}

/// A request's `op` alone, to tell an unknown request from a malformed known one.
#[derive(serde::Deserialize)]
struct OpTag {
    op: Op,
}

/// The ops of [`Request`] (kept in step with it; a test checks every one).
#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Op {
    Status,
    Write,
    Read,
    Talk,
    Resize,
    Kill,
    Cancel,
    TermRead,
    WaitFor,
    Attach,
    Follow,
    Spec,
    SetLabel,
    #[serde(other)]
    Unknown,
}

fn result<T: serde::Serialize>(r: crate::error::Result<T>) -> Reply {
    match r {
        Ok(b) => Reply::ok(b),
        Err(e) => Reply::err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{TalkRequest, TermReadRequest};

    /// Fails to compile when a request is added: add it to [`Op`] and to the list below.
    fn _every_variant(r: &Request) {
        match r {
            Request::Status
            | Request::Write { .. }
            | Request::Read { .. }
            | Request::Talk(_)
            | Request::Resize { .. }
            | Request::Kill { .. }
            | Request::Cancel { .. }
            | Request::TermRead(_)
            | Request::WaitFor(_)
            | Request::Attach(_)
            | Request::Follow(_)
            | Request::Spec
            | Request::SetLabel { .. } => {}
        }
    }

    #[test]
    fn every_request_has_a_known_op() {
        let talk = TalkRequest {
            command: String::new(),
            sentinel: None,
            timeout_ms: 1,
            progress_ms: None,
            raw: true,
            force: false,
            stdin: None,
        };
        let term = TermReadRequest {
            mode: "tail".into(),
            max_lines: 1,
            max_chars: 1,
            merge_wrapped: true,
            marker_id: None,
        };
        for r in [
            Request::Status,
            Request::Write {
                data: String::new(),
                enter_follows: false,
                app_cursor: None,
            },
            Request::Read {
                since: None,
                max_bytes: 1,
                timeout_ms: 0,
                context: false,
            },
            Request::Talk(talk),
            Request::Resize { cols: 1, rows: 1 },
            Request::Kill { grace_ms: 0 },
            Request::Cancel {
                interrupt: false,
                settle_ms: 0,
            },
            Request::TermRead(term),
            Request::WaitFor(Default::default()),
            Request::Attach(crate::proto::attach::AttachRequest {
                cols: 80,
                rows: 24,
                read_only: false,
            }),
            Request::Follow(crate::proto::follow::FollowRequest {
                since: 0,
                max_bytes: 1,
                wait_ms: 1,
                context: false,
                offsets_only: false,
            }),
            Request::Spec,
            Request::SetLabel { label: None },
        ] {
            let v = serde_json::to_value(&r).unwrap();
            let t: OpTag = serde_json::from_value(v).unwrap();
            assert_ne!(t.op, Op::Unknown, "{r:?}");
        }
        let t: OpTag = serde_json::from_value(serde_json::json!({"op": "teleport"})).unwrap();
        assert_eq!(t.op, Op::Unknown);
    }
}
