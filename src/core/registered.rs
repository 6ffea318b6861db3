//! Registered (external) sessions: terminals kpty does not hold itself — a desktop app's,
//! reached through its HTTP bridge — recorded in the registry with their owner identity:
//! `register`, `unregister` (leader-protected), `heartbeat`, and `prune`.

use super::kind::is_local;
use super::sessions::Liveness;
use super::{Ctx, create, list};
use crate::api::reply::Success;
use crate::api::request::{RegisterArgs, UnregisterArgs};
use crate::api::sessions::{HeartbeatReply, PruneReply, ResolveReply, UnregisterReply};
use crate::error::{Error, ErrorCode, Hint, Result};
use crate::store::{Registry, RegistryEntry, now_rfc3339};
use serde_json::json;

/// Registered sessions without a heartbeat for this long are pruned.
const STALE_AFTER_DAYS: i64 = 7;

/// Run `register`: add (or refresh) an external session.
pub fn register(ctx: &Ctx, a: &RegisterArgs) -> Result<ResolveReply<RegistryEntry>> {
    let (p, id) = (&a.owner, a.session_id.to_string());
    let (source, url) = (&a.source, &a.desktop_url);
    let now = now_rfc3339();
    let entry = Registry::update(&ctx.state, |reg| {
        if reg.sessions.get(&id).is_some_and(is_local) {
            return Err(Error::invalid(format!(
                "{id} is a local session; pick another id"
            )));
        }
        create::label_free(reg, p.label.as_deref(), &id)?;
        // What an entry kpty did not seal says is not carried over into a sealed one.
        let prev = reg
            .sessions
            .get(&id)
            .filter(|e| crate::store::trust::verified(&ctx.state, e))
            .cloned()
            .unwrap_or_default();
        let mut e = RegistryEntry {
            session_id: id.clone(),
            source: source.clone(),
            cli_type: p.cli_type.clone().or(prev.cli_type),
            pid: a.pid.or(prev.pid),
            owner_agent_id: p.owner_agent_id.clone().or(prev.owner_agent_id),
            owner_session_id: p.owner_session_id.clone().or(prev.owner_session_id),
            claude_code_session_id: p
                .claude_code_session_id
                .clone()
                .or(prev.claude_code_session_id),
            owner_role: p.owner_role.clone().or(prev.owner_role),
            label: p.label.clone().or(prev.label),
            created_at: prev.created_at.or_else(|| Some(now.clone())),
            last_heartbeat: Some(now.clone()),
            cwd: a.cwd.clone().or(prev.cwd),
            extra: {
                let mut x = prev.extra;
                if let Some(u) = &url {
                    x.insert("desktop_url".into(), json!(u));
                }
                x
            },
            ..Default::default()
        };
        crate::store::trust::seal(&ctx.state, &mut e)?;
        reg.sessions.insert(id.clone(), e.clone());
        Ok(e)
    })?;
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::Registered {
            action: "register",
            session_id: &id,
            source,
            desktop_url: url.as_deref(),
            owner: super::routing::owner_of(&entry),
        },
    );
    Ok(ResolveReply {
        ok: Success,
        session_id: id,
        session: list::session_view(&entry, &Liveness::Registered),
    })
}

/// Run `unregister`: remove an external session; a leader's needs `force`, unless the
/// caller is a leader itself ([`super::leaders::caller_is_leader`]).
pub fn unregister(ctx: &Ctx, a: &UnregisterArgs) -> Result<UnregisterReply> {
    let id = a.session_id.to_string();
    // A leader may remove a leader's terminal (the seeds' leader check); others need force.
    let force = a.force || super::leaders::caller_is_leader(ctx);
    let leaders = super::leaders::registered(ctx);
    let removed = Registry::update(&ctx.state, |reg| {
        let e = reg.sessions.get(&id).ok_or_else(|| {
            Error::new(
                ErrorCode::PtySessionNotFound,
                format!("no session {id:?} is registered"),
            )
        })?;
        if is_local(e) {
            return Err(
                Error::invalid(format!("{id} is a local session, not a registered one")).with_hint(
                    Hint::UseKill {
                        session: id.clone(),
                    },
                ),
            );
        }
        let leader_agent = super::leaders::owner_among(e, &leaders);
        if (super::leaders::is_leader(e) || leader_agent.is_some()) && !force {
            return Err(Error::new(
                ErrorCode::PtyAccessDenied,
                match leader_agent {
                    Some(a) => format!("{id} is the terminal of {a}, a registered leader"),
                    None => format!("{id} is the leader's terminal"),
                },
            )
            .with_hint(Hint::ForceUnregister {
                session: id.clone(),
            })
            .with_details(crate::error::details::Leader {
                session_id: id.to_string(),
                owner_role: "leader".into(),
                owner_agent_id: leader_agent.map(|a| a.to_string()),
            }));
        }
        Ok(reg.sessions.remove(&id))
    })?;
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::Unregistered {
            action: "unregister",
            session_id: &id,
            force,
        },
    );
    Ok(UnregisterReply {
        ok: Success,
        session_id: id,
        unregistered: removed.is_some(),
    })
}

/// Run `heartbeat`: the session is alive now.
pub fn heartbeat(ctx: &Ctx, r: &str) -> Result<HeartbeatReply> {
    let target = super::sessions::resolve(ctx, r)?;
    let now = now_rfc3339();
    Registry::update(&ctx.state, |reg| {
        let e = reg.sessions.get_mut(&target.session_id).ok_or_else(|| {
            Error::new(
                ErrorCode::PtySessionNotFound,
                format!("session {} vanished from the registry", target.session_id),
            )
        })?;
        e.last_heartbeat = Some(now.clone());
        Ok(())
    })?;
    Ok(HeartbeatReply {
        ok: Success,
        session_id: target.into_entry().session_id,
        last_heartbeat: now,
    })
}

/// What a long-running server (MCP, `kpty serve`) does when it starts: drop registered
/// sessions without a heartbeat for `STALE_AFTER_DAYS` days; a failure is only logged.
pub fn prune_at_start(ctx: &Ctx) {
    match prune(ctx, false) {
        Ok(r) => tracing::info!("prune at start: {:?}", r.pruned),
        Err(e) => tracing::warn!("prune at start failed: {e}"),
    }
}

/// Age of a heartbeat in whole days (None when missing or unparsable).
fn age_days(ts: Option<&str>, now: jiff::Timestamp) -> Option<i64> {
    let t: jiff::Timestamp = ts?.parse().ok()?;
    Some(now.duration_since(t).as_secs() / 86_400)
}

/// Run `prune`: drop registered sessions without a heartbeat for 7 days; report dead or exited
/// local sessions, and with `force` forget them and remove their files (and the folders of
/// sessions no longer in the registry) — see [`super::ended`].
pub fn prune(ctx: &Ctx, force: bool) -> Result<PruneReply> {
    let now = jiff::Timestamp::now();
    let reg = Registry::load(&ctx.state)?;
    super::sessions::sweep_dead_sockets();
    let stale: Vec<String> = reg
        .sessions
        .values()
        .filter(|e| {
            !is_local(e)
                && age_days(e.last_heartbeat.as_deref().or(e.created_at.as_deref()), now)
                    .is_none_or(|d| d >= STALE_AFTER_DAYS)
        })
        .map(|e| e.session_id.clone())
        .collect();
    let ended = super::ended::find(ctx, &reg);
    if !stale.is_empty() {
        Registry::update(&ctx.state, |reg| {
            for id in &stale {
                reg.sessions.remove(id);
            }
            Ok(())
        })?;
    }
    let (drop_local, removed_files) = if force {
        let ids: Vec<String> = ended.iter().map(|e| e.session_id.clone()).collect();
        super::ended::remove(ctx, &ids)?
    } else {
        (vec![], vec![])
    };
    for id in stale.iter().chain(&drop_local) {
        crate::store::registry_events::record(
            &ctx.state,
            &crate::store::registry_events::RegistryEvent::Pruned {
                action: "prune",
                session_id: id,
                reason: None,
                desktop_url: None,
            },
        );
    }
    Ok(PruneReply {
        ok: Success,
        pruned: stale,
        pruned_local: drop_local,
        ended_local: ended,
        removed_files,
    })
}

#[cfg(test)]
mod tests {

    use crate::core::validate::check_identity;

    proptest::proptest! {
        /// An identity carrying a secret anywhere, a control character, or more than 256
        /// characters is refused naming its field; a plain name of any length up to the cap
        /// passes.
        #[test]
        fn identities_are_plain_bounded_names(
            (secret, value) in crate::safety::redact::tests::secret(),
            pre in "[a-z_-]{0,12}",
            name in "[A-Za-z0-9_.:-]{1,256}",
            ctl in proptest::char::range('\u{0}', '\u{1f}'),
            extra in 1usize..64,
        ) {
            let field = "owner_agent_id";
            let with_secret = format!("{pre} {secret}");
            let e = check_identity(field, &with_secret).expect_err("a secret");
            proptest::prop_assert!(e.message.contains(field), "{}", e.message);
            proptest::prop_assert!(!e.message.contains(&value));
            let controlled = format!("{name}{ctl}");
            proptest::prop_assert!(check_identity(field, &controlled).is_err());
            let long = format!("{name}{}", "x".repeat(257usize.saturating_sub(name.len()) + extra - 1));
            proptest::prop_assert!(check_identity(field, &long).is_err());
            if !matches!(crate::safety::redact(&name), std::borrow::Cow::Owned(_)) {
                proptest::prop_assert!(check_identity(field, &name).is_ok(), "{}", name);
            }
        }
    }
}
