//! The batch verbs: `kill` with `all` ends every local session of this state directory, one
//! `kill` each (audited as such; registered desktop sessions are left to `unregister`: kpty
//! does not hold them); `list` with `all` lists every state directory this user has used
//! (this one, then those in the runtime directory's index, most recent first — see
//! `crate::store::index`).

use super::{Ctx, Reply};
use crate::api::batch::{DirFailed, KillAllReply, KillFailed, ListAllReply, ListedIn};
use crate::api::reply::Success;
use crate::api::{Action, Params};
use crate::error::{ErrorCode, Result};
use crate::store::{Registry, RegistryEntry, StateDir};

/// `kill` with `all` (validated by [`super::request::parse`]: it names no session): every
/// local session, one audited `kill` each. A session that ended and
/// was forgotten meanwhile is no failure.
pub fn kill_all(ctx: &Ctx) -> Result<KillAllReply> {
    let reg = Registry::load(&ctx.state)?;
    let ids = reg.sessions.values().filter(|e| super::kind::is_local(e));
    let ids: Vec<String> = ids.map(|e| e.session_id.clone()).collect();
    let mut reply = KillAllReply {
        ok: true,
        killed: Vec::new(),
        failed: Vec::new(),
    };
    for id in ids {
        let p = Params {
            session_id: Some(id.clone()),
            ..Default::default()
        };
        match super::run(ctx, Action::Kill, &p) {
            Ok(Reply::Kill(r)) => reply.killed.push(r),
            Ok(_) => {}
            Err(e) if e.code == ErrorCode::PtySessionNotFound => {}
            Err(error) => reply.failed.push(KillFailed {
                session_id: id,
                error,
            }),
        }
    }
    reply.ok = reply.failed.is_empty();
    Ok(reply)
}

/// `list` with `all`: a state directory that cannot be read is reported, not fatal.
pub fn list_all(here: &Ctx) -> ListAllReply<RegistryEntry> {
    let mut dirs: Vec<StateDir> = vec![here.state.clone()];
    match crate::store::index::state_dirs() {
        Ok(indexed) => {
            for d in indexed {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
        Err(e) => tracing::warn!("the index of state directories cannot be read: {e}"),
    }
    let mut reply = ListAllReply {
        ok: Success,
        count: 0,
        sessions: Vec::new(),
        state_dirs: Vec::new(),
        failed: Vec::new(),
        lists: Vec::new(),
    };
    for state in dirs {
        let path = state.path().display().to_string();
        let ctx = Ctx {
            state,
            ..here.clone()
        };
        match super::list::list(&ctx) {
            Ok(list) => {
                reply
                    .sessions
                    .extend(list.sessions.iter().map(|s| ListedIn {
                        session: s.clone(),
                        state_dir: path.clone(),
                    }));
                reply.lists.push(list);
                reply.state_dirs.push(path);
            }
            Err(error) => reply.failed.push(DirFailed {
                state_dir: path,
                error,
            }),
        }
    }
    reply.count = reply.sessions.len();
    reply
}
