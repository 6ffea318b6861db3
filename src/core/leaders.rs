//! Agents registered as leaders (seed 000 §7, `POST /_x9k_register_leader`): kept in
//! `<state dir>/_leaders.json`, read as untrusted input (bounded, malformed ids dropped). A
//! session owned by a registered leader is protected from `unregister` like a session whose
//! `owner_role` is `leader`, and `/pty/is-leader` counts it as a leader's.

use super::Ctx;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;

/// The most leaders kept (more in a file are dropped when it is read).
pub const MAX_LEADERS: usize = 1000;
/// The longest agent id accepted.
pub const MAX_ID: usize = 256;

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    schema: String,
    /// Agent id → when it was registered (RFC 3339).
    #[serde(default)]
    leaders: BTreeMap<String, String>,
}

const SCHEMA: &str = "kpty_leaders_v1";

fn path(ctx: &Ctx) -> std::path::PathBuf {
    ctx.state.path().join("_leaders.json")
}

fn lock_path(ctx: &Ctx) -> std::path::PathBuf {
    ctx.state.path().join("_leaders.lock")
}

/// Whether `id` is an agent id kpty keeps: 1..=[`MAX_ID`] characters, no control
/// characters, not only blanks.
pub fn valid_id(id: &str) -> bool {
    !id.trim().is_empty() && id.chars().count() <= MAX_ID && !id.chars().any(char::is_control)
}

/// The registered leaders (agent id → registered at), read as untrusted input: a missing or
/// unreadable file is none.
pub fn registered(ctx: &Ctx) -> BTreeMap<String, String> {
    match ctx.state.read_json::<File>(&path(ctx)) {
        Ok(Some(f)) => f
            .leaders
            .into_iter()
            .filter(|(id, _)| valid_id(id))
            .take(MAX_LEADERS)
            .collect(),
        Ok(None) => BTreeMap::new(),
        Err(e) => {
            tracing::warn!("the registered leaders are unreadable, taken as none: {e}");
            BTreeMap::new()
        }
    }
}

/// Change the registered leaders under their lock; returns what `change` returned.
fn update<T>(ctx: &Ctx, change: impl FnOnce(&mut BTreeMap<String, String>) -> T) -> Result<T> {
    let _lock = crate::store::lock::exclusive(
        &ctx.state,
        &lock_path(ctx),
        crate::store::lock::default_wait(),
    )?;
    let mut leaders = registered(ctx);
    let out = change(&mut leaders);
    ctx.state.write_json(
        &path(ctx),
        &File {
            schema: SCHEMA.into(),
            leaders,
        },
    )?;
    Ok(out)
}

/// Register `agent_id` as a leader (again: kept as it was); returns every leader.
pub fn register(ctx: &Ctx, agent_id: &str) -> Result<serde_json::Value> {
    check(agent_id)?;
    let all = update(ctx, |l| {
        if l.len() >= MAX_LEADERS && !l.contains_key(agent_id) {
            return Err(Error::invalid(format!(
                "at most {MAX_LEADERS} leaders can be registered"
            )));
        }
        l.entry(agent_id.to_string())
            .or_insert_with(crate::store::now_rfc3339);
        Ok(l.keys().cloned().collect::<Vec<_>>())
    })??;
    Ok(json!({"ok": true, "agent_id": agent_id, "registered": true, "leaders": all}))
}

/// Deregister `agent_id`; says whether it was registered.
pub fn deregister(ctx: &Ctx, agent_id: &str) -> Result<serde_json::Value> {
    check(agent_id)?;
    let removed = update(ctx, |l| l.remove(agent_id).is_some())?;
    Ok(json!({"ok": true, "agent_id": agent_id, "removed": removed}))
}

/// Every registered leader, with when it was registered.
pub fn list(ctx: &Ctx) -> serde_json::Value {
    let leaders: Vec<_> = registered(ctx)
        .into_iter()
        .map(|(agent_id, at)| json!({"agent_id": agent_id, "registered_at": at}))
        .collect();
    json!({"ok": true, "count": leaders.len(), "leaders": leaders})
}

fn check(agent_id: &str) -> Result<()> {
    if valid_id(agent_id) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "agent_id must be 1..={MAX_ID} characters without control characters"
        )))
    }
}
