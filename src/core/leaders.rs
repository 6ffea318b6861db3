//! Agents registered as leaders (seed 000 §7, `POST /_x9k_register_leader`): kept in
//! `<state dir>/_leaders.json`, read as untrusted input (bounded, malformed ids dropped). A
//! session owned by a registered leader is protected from `unregister` like a session whose
//! `owner_role` is `leader`, and `/pty/is-leader` counts it as a leader's.

use super::Ctx;
use crate::error::{Error, Result};
use crate::store::RegistryEntry;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;

/// The most leaders kept (more in a file are dropped when it is read).
const MAX_LEADERS: usize = 1000;
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
    /// This user's kpty's seal over `leaders` ([`crate::store::trust`]): leaders grant
    /// protection, so a file a repository shipped grants nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seal: Option<String>,
}

/// What the seal of the leaders file covers.
const SEAL_DOMAIN: &str = "kpty-leaders-v1";

fn payload(leaders: &BTreeMap<String, String>) -> Vec<u8> {
    serde_json::to_vec(leaders).unwrap_or_default()
}

const SCHEMA: &str = "kpty_leaders_v1";

/// Whether `id` is an agent id kpty keeps: 1..=[`MAX_ID`] characters, no control
/// characters, not only blanks.
fn valid_id(id: &str) -> bool {
    !id.trim().is_empty() && id.chars().count() <= MAX_ID && !id.chars().any(char::is_control)
}

/// The registered leaders (agent id → registered at), read as untrusted input (bounded,
/// invalid ids dropped); a missing file is none, a corrupt one a `STATE_ERROR`.
fn load(ctx: &Ctx) -> Result<BTreeMap<String, String>> {
    let path = ctx.state.leaders_file();
    let file = ctx.state.read_json::<File>(&path)?;
    if let Some(f) = &file {
        let sealed = f.seal.as_deref().is_some_and(|s| {
            crate::store::trust::verify_bytes(&ctx.state, SEAL_DOMAIN, &payload(&f.leaders), s)
        });
        if !sealed {
            return Err(Error::state(
                &path,
                "these leaders were not registered by your kpty (no valid seal: a cloned \
                 repository can ship the file); they grant nothing. Remove the file and \
                 register the leaders again",
            ));
        }
    }
    Ok(file
        .map(|f| {
            f.leaders
                .into_iter()
                .filter(|(id, _)| valid_id(id))
                .take(MAX_LEADERS)
                .collect()
        })
        .unwrap_or_default())
}

/// The registered leaders for a check that must not fail (leader protection, `is-leader`): an
/// unreadable file counts as none, with a warning.
pub fn registered(ctx: &Ctx) -> BTreeMap<String, String> {
    load(ctx).unwrap_or_else(|e| {
        tracing::warn!("the registered leaders are unreadable, taken as none: {e}");
        BTreeMap::new()
    })
}

/// The agent owning `e` when it is a registered leader (one of `leaders`).
pub fn owner_among<'a>(
    e: &'a RegistryEntry,
    leaders: &BTreeMap<String, String>,
) -> Option<&'a str> {
    e.owner_agent_id
        .as_deref()
        .filter(|a| leaders.contains_key(*a))
}

/// Change the registered leaders under their lock; returns what `change` returned. When it
/// fails nothing is written; a corrupt file is refused (`STATE_ERROR`), never overwritten.
fn update<T>(
    ctx: &Ctx,
    change: impl FnOnce(&mut BTreeMap<String, String>) -> Result<T>,
) -> Result<T> {
    let _lock = crate::store::lock::exclusive(
        &ctx.state,
        &ctx.state.leaders_lock(),
        crate::store::lock::default_wait(),
    )?;
    let mut leaders = load(ctx)?;
    let out = change(&mut leaders)?;
    let seal = crate::store::trust::seal_bytes(&ctx.state, SEAL_DOMAIN, &payload(&leaders))?;
    ctx.state.write_json(
        &ctx.state.leaders_file(),
        &File {
            schema: SCHEMA.into(),
            leaders,
            seal: Some(seal),
        },
    )?;
    Ok(out)
}

/// Whether the caller is a leader, in k_pty's order: its agent (`KPTY_AGENT_ID`) is a
/// registered leader; its session (`KPTY_OWNER_SESSION_ID`) owns a leader's terminal in the
/// registry (`owner_session_id`); or `KPTY_IS_LEADER=1` / `KPTY_AGENT_ROLE=leader` (k_pty's
/// names read when kpty's are unset). Only where the environment speaks
/// for the caller ([`Ctx::env_identity`]: the CLI and a stdio MCP server, never `kpty serve`).
pub fn caller_is_leader(ctx: &Ctx) -> bool {
    if !ctx.env_identity {
        return false;
    }
    let var = |name: &str| crate::api::config::var(name).map(|v| v.trim().to_string());
    if var("KPTY_AGENT_ID").is_some_and(|a| registered(ctx).contains_key(&a)) {
        return true;
    }
    if let Some(sid) = var("KPTY_OWNER_SESSION_ID").filter(|s| valid_id(s))
        && session_is_leaders(ctx, &sid)
    {
        return true;
    }
    var("KPTY_IS_LEADER").as_deref() == Some("1")
        || var("KPTY_AGENT_ROLE").is_some_and(|r| r.eq_ignore_ascii_case("leader"))
}

/// Whether the owner session `sid` owns a leader's terminal (one this user's kpty holds or
/// registered: an unsealed entry counts for nothing).
fn session_is_leaders(ctx: &Ctx, sid: &str) -> bool {
    let Ok(reg) = crate::store::Registry::load(&ctx.state) else {
        return false;
    };
    let agents = registered(ctx);
    reg.sessions.values().any(|e| {
        e.owner_session_id.as_deref() == Some(sid)
            && super::sessions::check_route(&ctx.state, e).is_ok()
            && (is_leader(e) || owner_among(e, &agents).is_some())
    })
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
    })?;
    Ok(json!({"ok": true, "agent_id": agent_id, "registered": true, "leaders": all}))
}

/// Deregister `agent_id`; says whether it was registered.
pub fn deregister(ctx: &Ctx, agent_id: &str) -> Result<serde_json::Value> {
    check(agent_id)?;
    let removed = update(ctx, |l| Ok(l.remove(agent_id).is_some()))?;
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

/// True when `e` is a leader's terminal (`owner_role` `leader`).
pub fn is_leader(e: &RegistryEntry) -> bool {
    e.owner_role
        .as_deref()
        .is_some_and(|r| r.parse() == Ok(crate::api::OwnerRole::Leader))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn a_corrupt_file_is_refused_not_overwritten_and_read_as_none_for_checks() {
        let dir = tempfile::tempdir().expect("tmp");
        let ctx = Ctx::new(crate::store::StateDir::at(dir.path()).expect("dir")).expect("ctx");
        register(&ctx, "lead-1").expect("register");
        assert_eq!(registered(&ctx).len(), 1);
        let file = ctx.state.leaders_file();
        std::fs::write(&file, "{not json").expect("write");
        let e = register(&ctx, "lead-2").expect_err("refused");
        assert_eq!(e.code, ErrorCode::StateError, "{}", e.message);
        let e = deregister(&ctx, "lead-1").expect_err("refused");
        assert_eq!(e.code, ErrorCode::StateError);
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "{not json");
        assert!(registered(&ctx).is_empty());
        let e = register(&ctx, "bad\u{1b}id").expect_err("refused");
        assert_eq!(e.code, ErrorCode::InvalidParams);
    }

    #[test]
    fn a_shipped_or_edited_leaders_file_grants_nothing() {
        let dir = tempfile::tempdir().expect("tmp");
        let ctx = Ctx::new(crate::store::StateDir::at(dir.path()).expect("dir")).expect("ctx");
        register(&ctx, "lead-1").expect("register");
        let file = ctx.state.leaders_file();
        let sealed = std::fs::read_to_string(&file).expect("read");
        for planted in [
            // Shipped without a seal, with a made-up one, and a sealed file edited by hand.
            r#"{"schema":"kpty_leaders_v1","leaders":{"boss":"2026-01-01T00:00:00Z"}}"#.to_string(),
            r#"{"schema":"kpty_leaders_v1","leaders":{"boss":"x"},"seal":"v1:00"}"#.to_string(),
            sealed.replace("lead-1", "boss-1"),
        ] {
            std::fs::write(&file, &planted).expect("write");
            assert!(registered(&ctx).is_empty(), "{planted}");
            let e = register(&ctx, "lead-2").expect_err("refused");
            assert_eq!(e.code, ErrorCode::StateError, "{}", e.message);
            assert_eq!(std::fs::read_to_string(&file).expect("read"), planted);
        }
        std::fs::write(&file, &sealed).expect("write");
        assert_eq!(registered(&ctx).len(), 1);
    }
}
