//! Finding the one live session an owner identity names (agent id, owner session, Claude
//! Code session, label): none is `NOT_FOUND` with the closest labels, several `AMBIGUOUS`
//! with each match as `list` shows it.

use super::sessions::{Liveness, probe};
use super::{Ctx, list};
use crate::api::request::Identity;
use crate::error::{Error, ErrorCode, Result};
use crate::store::{Registry, RegistryEntry};

/// The one live session matching any of the given keys (at least one is given: see
/// [`super::request`]).
pub fn resolve_entry(ctx: &Ctx, p: &Identity) -> Result<RegistryEntry> {
    let reg = Registry::load(&ctx.state)?;
    let is = |field: &Option<String>, want: &Option<String>| {
        want.is_some() && field.as_deref() == want.as_deref()
    };
    let mut matches: Vec<(RegistryEntry, Liveness)> = Vec::new();
    for e in reg.sessions.values() {
        if !(is(&e.owner_agent_id, &p.agent_id)
            || is(&e.owner_session_id, &p.owner_session_id)
            || is(&e.claude_code_session_id, &p.claude_code_session_id)
            || is(&e.label, &p.label))
        {
            continue;
        }
        // A local session whose shell is gone is history, not a routing target (a
        // registered one probes as `Registered`).
        let live = probe(ctx, e);
        if matches!(live, Liveness::Dead | Liveness::Exited { .. }) {
            continue;
        }
        matches.push((e.clone(), live));
    }
    match matches.len() {
        1 => super::sessions::checked(ctx, matches.remove(0).0),
        0 => {
            // A mistyped label gets the closest ones (of this state directory) suggested.
            let labels = reg.sessions.values().filter_map(|e| e.label.as_deref());
            let near = match p.label.as_deref() {
                Some(l) => crate::api::suggest::closest(l, labels),
                None => vec![],
            };
            Err(Error::new(
                ErrorCode::NotFound,
                format!(
                    "No PTY found for: {}{}",
                    query_text(p),
                    crate::api::suggest::clause(&near)
                ),
            )
            .with_details(crate::error::details::Unknown {
                query: Some(query_details(p)),
                did_you_mean: near.into_iter().map(String::from).collect(),
                ..crate::error::details::Unknown::default()
            }))
        }
        n => {
            let list = matches.iter().map(|(e, l)| listed(e, l)).collect();
            Err(Error::new(
                ErrorCode::Ambiguous,
                format!("Multiple PTYs match query ({n} found). Use more specific criteria."),
            )
            .with_details(crate::error::details::Matches {
                matches: list,
                query: Some(query_details(p)),
            }))
        }
    }
}

/// A matched session as an `AMBIGUOUS` error shows it: its `list` row, cut to what tells
/// the matches apart ([`crate::error::details::ListedMatch`]).
fn listed(e: &RegistryEntry, live: &Liveness) -> crate::error::details::Match {
    let view = list::session_view(e, live);
    let terminal_state = match &view.live {
        Some(crate::api::sessions::Live::Running(r)) => r.terminal_state.map(|t| t.as_str()),
        _ => None,
    };
    let e = view.entry;
    crate::error::details::Match::Listed(Box::new(crate::error::details::ListedMatch {
        session_id: e.session_id,
        label: e.label,
        source: e.source,
        cli_type: e.cli_type,
        owner_agent_id: e.owner_agent_id,
        owner_session_id: e.owner_session_id,
        owner_role: e.owner_role,
        claude_code_session_id: e.claude_code_session_id,
        shell: e.shell,
        cwd: e.cwd,
        pid: e.pid,
        created_at: e.created_at,
        state: view.state.as_str().to_string(),
        terminal_state: terminal_state.map(str::to_string),
    }))
}

fn query_text(p: &Identity) -> String {
    let mut parts = Vec::new();
    for (k, v) in [
        ("agent_id", &p.agent_id),
        ("owner_session_id", &p.owner_session_id),
        ("claude_code_session_id", &p.claude_code_session_id),
        ("label", &p.label),
    ] {
        if let Some(v) = v {
            parts.push(format!("{k}={v}"));
        }
    }
    parts.join(", ")
}

/// The selectors `p` gives, as an error's details show them.
fn query_details(p: &Identity) -> crate::error::details::Query {
    let q = query(p);
    let own = |s: Option<&str>| s.map(str::to_string);
    crate::error::details::Query {
        agent_id: own(q.agent_id),
        owner_session_id: own(q.owner_session_id),
        label: own(q.label),
        claude_code_session_id: own(q.claude_code_session_id),
    }
}

/// The selectors `p` gives, as errors and the journal show them.
pub(super) fn query(p: &Identity) -> crate::store::registry_events::Query<'_> {
    crate::store::registry_events::Query {
        agent_id: p.agent_id.as_deref(),
        owner_session_id: p.owner_session_id.as_deref(),
        label: p.label.as_deref(),
        claude_code_session_id: p.claude_code_session_id.as_deref(),
    }
}
