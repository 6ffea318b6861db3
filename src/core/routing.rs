//! Identity routing: `resolve` a session by who owns it (`agent_id`, `owner_session_id`,
//! `claude_code_session_id`, `label`) — exactly one match or an explicit error, never a broadcast — plus
//! `send_line_to_agent` and `update_ownership`.

use super::sessions::probe;
use super::{Ctx, io, list};
use crate::api::Action;
use crate::api::http::LeaderReply;
use crate::api::reply::Success;
use crate::api::request::{Identity, OwnershipArgs, SendLineArgs, Target, ToAgentArgs};
use crate::api::sessions::{ResolveReply, SendLineToAgentReply};
use crate::error::{Error, ErrorCode, Result};
use crate::store::{Registry, RegistryEntry};

/// The seeds' id normalisation for leader checks: hyphens removed, first 16 characters.
fn normalise(id: &str) -> String {
    id.chars().filter(|c| *c != '-').take(16).collect()
}

/// Whether the session `id` (compared normalised) is a leader's terminal (`owner_role`
/// `leader`, or owned by a registered leader agent), from the registry;
/// when not, the first leader's (normalised) id.
pub fn leader(ctx: &Ctx, id: &str) -> Result<LeaderReply> {
    let reg = Registry::load(&ctx.state)?;
    let want = normalise(id);
    let agents = super::leaders::registered(ctx);
    let leaders: Vec<String> = reg
        .sessions
        .values()
        // An external entry counts only when this user's kpty registered it (sealed).
        .filter(|e| super::kind::is_local(e) || crate::store::trust::verified(&ctx.state, e))
        .filter(|e| {
            super::leaders::is_leader(e) || super::leaders::owner_among(e, &agents).is_some()
        })
        .map(|e| normalise(&e.session_id))
        .collect();
    let is = leaders.contains(&want);
    let leader = if is { Some(&want) } else { leaders.first() };
    Ok(LeaderReply {
        ok: Success,
        leader_terminal_id: leader.cloned(),
        is_leader: is,
        session_id: want,
    })
}

/// A session's owner fields, as the journal shows them.
pub(super) fn owner_of(e: &RegistryEntry) -> crate::store::registry_events::Owner<'_> {
    crate::store::registry_events::Owner {
        owner_agent_id: e.owner_agent_id.as_deref(),
        owner_role: e.owner_role.as_deref(),
        label: e.label.as_deref(),
        claude_code_session_id: e.claude_code_session_id.as_deref(),
    }
}

/// Run `resolve`.
pub fn resolve(ctx: &Ctx, p: &Identity) -> Result<ResolveReply<RegistryEntry>> {
    let e = super::owners::resolve_entry(ctx, p)?;
    let live = probe(ctx, &e);
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::Resolved {
            action: "resolve",
            session_id: &e.session_id,
            query: super::owners::query(p),
        },
    );
    Ok(ResolveReply {
        ok: Success,
        session: list::session_view(&e, &live),
        session_id: e.session_id,
    })
}

/// Run `send_line_to_agent`: resolve, then `send_line` to that session.
pub fn send_line_to_agent(
    ctx: &Ctx,
    a: ToAgentArgs,
) -> Result<SendLineToAgentReply<RegistryEntry>> {
    let e = super::owners::resolve_entry(ctx, &a.identity)?;
    let live = probe(ctx, &e);
    let sent = a.line.and_then(|line| {
        let to = SendLineArgs {
            target: Target::Named(e.session_id.clone()),
            line,
        };
        io::send_line(ctx, &to)
    });
    match sent {
        Ok(r) => Ok(SendLineToAgentReply {
            ok: Success,
            resolved_session: list::session_view(&e, &live),
            resolved_session_id: e.session_id,
            send_result: r,
        }),
        Err(mut err) => {
            let inner = err.details.take();
            err = err.with_details(crate::error::details::Resolved {
                resolved_session_id: e.session_id,
                inner,
            });
            Err(err)
        }
    }
}

/// Tell a local session's holder its new label, so its metadata.json keeps in step with the
/// registry. Best effort: an ended session has no holder, an older one does not know the
/// request; the registry (what names sessions) is already written.
fn label_to_holder(ctx: &Ctx, e: &RegistryEntry) {
    if !super::kind::is_local(e) || e.holder_pid.is_none() {
        return;
    }
    let req = crate::proto::SetLabelRequest {
        label: e.label.clone(),
    };
    if let Err(err) = super::sessions::call(ctx, e, req, super::sessions::SHORT_CALL) {
        tracing::debug!("the holder of {} keeps its old label: {err}", e.session_id);
    }
}

/// Run `update_ownership`: change owner fields, label or cli_type of a session.
pub fn update_ownership(ctx: &Ctx, a: &OwnershipArgs) -> Result<ResolveReply<RegistryEntry>> {
    update_entry(ctx, a, Action::UpdateOwnership, "ownership_updated")
}

/// Run `rename`: give a session a new label (as `create --label` checks it: printable,
/// 1-64 characters, unique in the state directory, not secret-looking).
pub fn rename(ctx: &Ctx, a: &OwnershipArgs) -> Result<ResolveReply<RegistryEntry>> {
    update_entry(ctx, a, Action::Rename, "session_renamed")
}

/// Change the registry entry `a.session` names (owner fields, label, cli_type), under the
/// registry lock, and journal it as `event`.
fn update_entry(
    ctx: &Ctx,
    a: &OwnershipArgs,
    action: Action,
    event: &str,
) -> Result<ResolveReply<RegistryEntry>> {
    let p = &a.owner;
    let target = super::sessions::resolve(ctx, &a.session)?;
    if target.session_id.contains(':') {
        return Err(Error::invalid(format!(
            "{}: owner fields and labels belong to the session, not to one of its PTYs; name the session",
            target.session_id
        )));
    }
    let entry = Registry::update(&ctx.state, |reg| {
        super::create::label_free(reg, p.label.as_deref(), &target.session_id)?;
        let e = reg.sessions.get_mut(&target.session_id).ok_or_else(|| {
            Error::new(
                ErrorCode::PtySessionNotFound,
                format!("session {} vanished from the registry", target.session_id),
            )
        })?;
        let sealed = crate::store::trust::verified(&ctx.state, e);
        for (field, value) in [
            (&mut e.owner_agent_id, &p.owner_agent_id),
            (&mut e.owner_session_id, &p.owner_session_id),
            (&mut e.claude_code_session_id, &p.claude_code_session_id),
            (&mut e.owner_role, &p.owner_role),
            (&mut e.label, &p.label),
            (&mut e.cli_type, &p.cli_type),
        ] {
            if let Some(v) = value {
                *field = (!v.is_empty()).then(|| v.clone());
            }
        }
        // A change made here is this user's: an entry that was sealed stays sealed.
        if sealed {
            crate::store::trust::seal(&ctx.state, e)?;
        }
        Ok(e.clone())
    })?;
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::OwnerChanged {
            event,
            action: action.as_str(),
            session_id: &entry.session_id,
            owner: owner_of(&entry),
            owner_session_id: entry.owner_session_id.as_deref(),
        },
    );
    if p.label.is_some() {
        label_to_holder(ctx, &entry);
    }
    let live = probe(ctx, &entry);
    Ok(ResolveReply {
        ok: Success,
        session: list::session_view(&entry, &live),
        session_id: entry.session_id,
    })
}
