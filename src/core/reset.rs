//! `DELETE /v1/pty/reset` (seed 000 §13, "Clear all sessions + persistence"): every local
//! session ended as `kill` ends it (its holder asked to hang up; an unresponsive one signalled
//! only when the kernel proves it ours) and forgotten, every registered session forgotten,
//! and the session folders kpty made (local and registered sessions' alike) removed as
//! `prune --force` removes them (real
//! directories of ours holding only kpty's files, never through a link). The registry's own
//! journal stays: it records the reset.

use super::kind::is_local;
use super::{Ctx, control, ended};
use crate::api::http::ResetReply;
use crate::api::reply::Success;
use crate::error::{Error, ErrorCode, Result};
use crate::store::Registry;
use std::time::{Duration, Instant};

/// How long a reset waits for the holders it ended to let go of their folders.
const FOLDERS_FREED: Duration = Duration::from_secs(3);
/// Between two looks at those folders.
const FOLDERS_POLL: Duration = Duration::from_millis(25);
/// Most sessions ended at the same time.
const AT_ONCE: usize = 32;

/// Clear every session and its files; see the module text.
pub fn reset(ctx: &Ctx) -> Result<ResetReply> {
    let reg = Registry::load(&ctx.state)?;
    let local: Vec<String> = reg
        .sessions
        .values()
        .filter(|e| is_local(e))
        .map(|e| e.session_id.clone())
        .collect();
    let (killed, failed) = end_all(ctx, &local);
    let registered = Registry::update(&ctx.state, |reg| {
        let ids: Vec<String> = reg
            .sessions
            .values()
            .filter(|e| !is_local(e))
            .map(|e| e.session_id.clone())
            .collect();
        for id in &ids {
            reg.sessions.remove(id);
        }
        Ok(ids)
    })?;
    let mut removed_files = remove_folders(ctx, &killed)?;
    // A registered session's folder holds its audit trail (`events.jsonl`).
    for id in &registered {
        if let Ok(sid) = crate::api::SessionId::parse(id)
            && ctx.state.session_dir(&sid).is_dir()
            && ended::remove_folder(ctx, &sid)
        {
            removed_files.push(id.clone());
        }
    }
    removed_files.sort();
    let mut removed: Vec<String> = killed.iter().chain(&registered).cloned().collect();
    removed.sort();
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::Reset {
            removed: &removed,
            killed: &killed,
            removed_files: &removed_files,
            failed: &failed,
        },
    );
    Ok(ResetReply {
        ok: Success,
        count: removed.len(),
        removed,
        killed,
        removed_files,
        failed,
    })
}

/// End the local sessions `ids` ([`AT_ONCE`] at a time), each as `kill` does; (ended, could
/// not be ended).
/// A session already gone counts as ended.
fn end_all(ctx: &Ctx, ids: &[String]) -> (Vec<String>, Vec<String>) {
    let mut results: Vec<(String, Result<()>)> = Vec::new();
    for batch in ids.chunks(AT_ONCE) {
        let ended: Vec<Result<()>> = std::thread::scope(|s| {
            let handles: Vec<_> = batch
                .iter()
                .map(|id| s.spawn(move || end(ctx, id)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::internal("the kill's worker failed")))
                })
                .collect()
        });
        results.extend(batch.iter().cloned().zip(ended));
    }
    let (mut killed, mut failed) = (Vec::new(), Vec::new());
    for (id, r) in results {
        match r {
            Ok(()) => killed.push(id),
            Err(e) => {
                tracing::warn!("reset: session {id} could not be ended: {e}");
                failed.push(id);
            }
        }
    }
    killed.sort();
    failed.sort();
    (killed, failed)
}

/// End one local session as `kill` does; one already gone counts as ended.
fn end(ctx: &Ctx, id: &str) -> Result<()> {
    match control::kill(ctx, &crate::api::request::Target::Named(id.to_string())) {
        Err(e) if e.code != ErrorCode::PtySessionNotFound => Err(e),
        _ => Ok(()),
    }
}

/// Remove the folders of every session no longer in the registry, waiting (at most
/// [`FOLDERS_FREED`]) for the holders of `ended` to exit and let go of theirs.
fn remove_folders(ctx: &Ctx, ended: &[String]) -> Result<Vec<String>> {
    let deadline = Instant::now() + FOLDERS_FREED;
    let mut removed = Vec::new();
    loop {
        removed.extend(ended::remove(ctx, &[])?.1);
        let left = ended.iter().any(|id| {
            crate::api::SessionId::parse(id).is_ok_and(|id| ctx.state.session_dir(&id).is_dir())
        });
        if !left || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(FOLDERS_POLL);
    }
    removed.sort();
    removed.dedup();
    Ok(removed)
}
