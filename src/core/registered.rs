//! Registered (external) sessions: terminals kpty does not hold itself — a desktop app's,
//! reached through its HTTP bridge — recorded in the registry with their owner identity:
//! `register`, `unregister` (leader-protected), `heartbeat`, and `prune`.

use super::kind::is_local;
use super::sessions::Liveness;
use super::{Ctx, create, list};
use crate::api::Params;
use crate::api::reply::Success;
use crate::api::request::{RegisterArgs, UnregisterArgs};
use crate::api::sessions::{HeartbeatReply, PruneReply, ResolveReply, UnregisterReply};
use crate::error::{Error, ErrorCode, Hint, Result};
use crate::store::{Registry, RegistryEntry, now_rfc3339};
use serde_json::json;

/// Registered sessions without a heartbeat for this long are pruned.
pub const STALE_AFTER_DAYS: i64 = 7;

/// A registration's `source` (default `desktop`; never `local`) and bridge URL (`desktop_url`,
/// else `KPTY_DESKTOP_URL`; required for a desktop session).
pub fn where_it_lives(p: &Params) -> Result<(String, Option<String>)> {
    let source = p.source.clone().unwrap_or_else(|| "desktop".into());
    if source == super::kind::LOCAL {
        return Err(Error::invalid(
            "register is for external sessions; local sessions come from create",
        ));
    }
    if !source
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        || source.is_empty()
    {
        return Err(Error::invalid(format!(
            "source {source:?} must be a word like \"desktop\""
        )));
    }
    let url = p
        .desktop_url
        .clone()
        .or_else(|| crate::api::config::var("KPTY_DESKTOP_URL"))
        .filter(|u| !u.is_empty());
    if let Some(u) = &url {
        crate::bridge::allow::check_register(u)?;
    } else if source == "desktop" {
        return Err(Error::invalid(
            "register of a desktop session needs `desktop_url` (its bridge, e.g. http://127.0.0.1:8201)",
        ));
    }
    Ok((source, url))
}

/// `e` if it may route traffic: a local session (reached through a holder that proves its
/// uid), or an external one with a valid seal; else a `STATE_ERROR` naming the entry and
/// the fix.
pub fn check_route(state: &crate::store::StateDir, e: &RegistryEntry) -> Result<()> {
    if is_local(e) || crate::store::trust::verified(state, e) {
        return Ok(());
    }
    Err(Error::state(
        &state.registry_file(),
        format!(
            "session {:?} ({}) was not registered by your kpty (it has no valid seal: a \
             cloned repository can ship entries like it); kpty sends nothing to it. Remove it \
             (`kpty unregister {}`) or register it again (`kpty register`)",
            e.session_id, e.source, e.session_id
        ),
    )
    .with_details(crate::error::details::Source {
        session_id: e.session_id.clone(),
        source: e.source.clone(),
        untrusted: Some(true),
    }))
}

/// Refuse identity fields that look like a secret (the redactor would hide them): they are
/// stored in clear in the registry, metadata and the audit trail of a state directory that
/// lies in a repository, and matched as they are, so they cannot be redacted instead.
pub fn check_not_secret(p: &Params) -> Result<()> {
    for (field, value) in [
        ("label", &p.label),
        ("owner_agent_id", &p.owner_agent_id),
        ("owner_session_id", &p.owner_session_id),
        ("claude_code_session_id", &p.claude_code_session_id),
        ("cli_type", &p.cli_type),
        ("desktop_url", &p.desktop_url),
    ] {
        if let Some(v) = value {
            check_identity(field, v)?;
        }
    }
    Ok(())
}

/// One identity value kpty stores in clear: not a secret, at most
/// [`super::leaders::MAX_ID`] characters, no control characters (an empty one clears the
/// field where that is allowed).
pub fn check_identity(field: &str, v: &str) -> Result<()> {
    if matches!(crate::safety::redact(v), std::borrow::Cow::Owned(_)) {
        return Err(Error::invalid(format!(
            "{field} looks like a secret (kpty would redact it); it is stored in clear in \
             the state directory and the audit trail: use a name that is not a credential"
        ))
        .with_details(crate::error::details::Field {
            env: None,
            field: Some(field.to_string()),
        }));
    }
    if v.chars().count() > super::leaders::MAX_ID || v.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "{field} must be at most {} characters, without control characters",
            super::leaders::MAX_ID
        ))
        .with_details(crate::error::details::Field {
            env: None,
            field: Some(field.to_string()),
        }));
    }
    Ok(())
}

/// `p` with the owner identity the environment gives filled in where `p` names none
/// (`create` and `register` from the CLI or a stdio MCP server, whose environment is the
/// calling agent's): `owner_agent_id` from `KPTY_AGENT_ID`, `owner_session_id` from
/// `KPTY_OWNER_SESSION_ID`, `owner_role` from `KPTY_AGENT_ROLE` (or `leader` when
/// `KPTY_IS_LEADER=1`), k_pty's names read when kpty's are unset. Each is checked as the
/// parameter it stands for; a bad value is `INVALID_PARAMS` naming the variable set.
pub fn with_env_owner(ctx: &Ctx, p: &Params) -> Result<Params> {
    let mut p = p.clone();
    if !ctx.env_identity {
        return Ok(p);
    }
    let var = crate::api::config::var;
    let named = |name: &'static str, field: &str| -> Result<Option<String>> {
        let Some(v) = var(name) else { return Ok(None) };
        let name = crate::api::config::var_name(name);
        check_identity(name, &v).map_err(|e| {
            Error::invalid(format!("{} (the {field} it gives)", e.message)).with_details(
                crate::error::details::Field {
                    env: Some(name.to_string()),
                    field: Some(field.to_string()),
                },
            )
        })?;
        Ok(Some(v))
    };
    if p.owner_agent_id.is_none() {
        p.owner_agent_id = named("KPTY_AGENT_ID", "owner_agent_id")?;
    }
    if p.owner_session_id.is_none() {
        p.owner_session_id = named("KPTY_OWNER_SESSION_ID", "owner_session_id")?;
    }
    if p.owner_role.is_none() {
        let leader = var("KPTY_IS_LEADER").is_some_and(|v| v.trim() == "1");
        p.owner_role = match named("KPTY_AGENT_ROLE", "owner_role")? {
            Some(r) => {
                create::check_role(&r).map_err(|e| {
                    let name = crate::api::config::var_name("KPTY_AGENT_ROLE");
                    Error::invalid(format!("{name}: {}", e.message)).with_details(
                        crate::error::details::Field {
                            env: Some(name.to_string()),
                            field: None,
                        },
                    )
                })?;
                Some(r)
            }
            None if leader => Some("leader".into()),
            None => None,
        };
    }
    Ok(p)
}

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
        if (super::routing::is_leader(e) || leader_agent.is_some()) && !force {
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
/// sessions without a heartbeat for [`STALE_AFTER_DAYS`] days; a failure is only logged.
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
    use super::*;

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
