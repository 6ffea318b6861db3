//! `create`: reserve an id in the registry, start a holder, wait for its first prompt, and
//! record the session; on failure nothing is left behind but an audit line.

use super::{Ctx, config, launch};
use crate::api::reply::Success;
use crate::api::request::CreateArgs;
use crate::api::sessions::CreateReply;
use crate::api::{Params, SessionId};
use crate::error::{Error, Result};
use crate::proto::launch::{HolderSpec, ProgramSpec, Ready};
use crate::store::{Metadata, Registry, RegistryEntry, now_rfc3339};
use std::path::PathBuf;

/// Refuse a label another session (other than `except`) already carries: labels name
/// sessions, so they must stay unique.
pub fn label_free(reg: &Registry, label: Option<&str>, except: &str) -> Result<()> {
    let Some(l) = label else { return Ok(()) };
    match reg
        .sessions
        .values()
        .find(|e| e.label.as_deref() == Some(l) && e.session_id != except)
    {
        Some(other) => Err(Error::invalid(format!(
            "label {l:?} is already used by session {}; kill or relabel it first, or pick another label",
            other.session_id
        ))),
        None => Ok(()),
    }
}

/// Run `create`.
pub fn create(ctx: &Ctx, a: &CreateArgs) -> Result<CreateReply> {
    let (p, o) = (&a.params, &a.owner);
    let (shell, cols, rows, env) = (a.shell.clone(), a.cols, a.rows, a.env.clone());
    let cwd = working_dir(ctx, p)?;
    let sandbox = super::confine::policy(ctx, p, &cwd, &env)?;
    let (program, input_filter) = (super::agent::program(p)?, super::agent::filter(p)?);
    super::agent::judge(p, program.as_ref(), &env, &cwd)?;

    // The session's folder and its starting lock come first: from the moment the id is in the
    // registry, a caller naming it waits on that lock until the holder is recorded.
    let (id, _starting) = starting_session(ctx)?;
    // Reserve the id (and the label) under the registry lock.
    let created_at = now_rfc3339();
    let reserved = Registry::update(&ctx.state, |reg| {
        label_free(reg, o.label.as_deref(), "")?;
        if reg.sessions.contains_key(id.as_str()) {
            return Err(Error::internal(format!(
                "session id {id} is taken; try again"
            )));
        }
        reg.sessions.insert(
            id.to_string(),
            RegistryEntry {
                session_id: id.to_string(),
                source: super::kind::LOCAL.into(),
                cli_type: o.cli_type.clone(),
                owner_agent_id: o.owner_agent_id.clone(),
                owner_session_id: o.owner_session_id.clone(),
                claude_code_session_id: o.claude_code_session_id.clone(),
                owner_role: o.owner_role.clone(),
                label: o.label.clone(),
                created_at: Some(created_at.clone()),
                last_heartbeat: Some(created_at.clone()),
                shell: Some(shell.clone()),
                cwd: Some(cwd.display().to_string()),
                sandbox: sandbox.clone(),
                input_filter: input_filter.clone(),
                program: program.clone(),
                ..Default::default()
            },
        );
        Ok(())
    });
    if let Err(e) = reserved {
        remove_session_dir(ctx, &id);
        return Err(e);
    }

    let result = start(
        ctx,
        a,
        &id,
        &shell,
        &cwd,
        cols,
        rows,
        Extras {
            env,
            sandbox,
            input_filter,
            program,
        },
        &created_at,
    );
    result.map_err(|e| undo(ctx, &id, e))
}

/// Record a started session: its pids, socket and shell in the registry, the event in the
/// journal, and the state directory in the index of `kpty list --all`.
fn record_started(
    ctx: &Ctx,
    id: &SessionId,
    ready: &Ready,
    socket: &std::path::Path,
    label: Option<&str>,
) -> Result<()> {
    Registry::update(&ctx.state, |reg| {
        if let Some(e) = reg.sessions.get_mut(id.as_str()) {
            e.pid = ready.pid;
            e.holder_pid = ready.holder_pid;
            e.socket = Some(socket.display().to_string());
            e.shell = ready.shell.clone().or(e.shell.take());
            if e.cli_type.is_none() {
                e.cli_type = ready.shell_kind.as_ref().map(ToString::to_string);
            }
        }
        Ok(())
    })?;
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::SessionCreated {
            session_id: id.as_str(),
            shell: ready.shell.as_deref(),
            pid: ready.pid,
            label,
        },
    );
    // For the sandboxes of other kpty instances to hide (best effort).
    if let Some(runtime) = socket.parent() {
        super::hide::remember(runtime);
    }
    // For `kpty list --all`; best effort: the session is up either way.
    if let Err(e) = crate::store::index::record(&ctx.state) {
        tracing::warn!("cannot record the state directory in the index: {e}");
    }
    Ok(())
}

/// After a failed start: forget the reserved id, leave no half-made session folder behind,
/// and say so in the journal.
fn undo(ctx: &Ctx, id: &SessionId, e: Error) -> Error {
    let _ = Registry::update(&ctx.state, |reg| {
        reg.sessions.remove(id.as_str());
        Ok(())
    });
    remove_session_dir(ctx, id);
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::SessionCreateFailed {
            session_id: id.as_str(),
            error_code: e.code,
            message: &e.message,
        },
    );
    e
}

/// A fresh session id with its folder made and its starting lock held.
fn starting_session(ctx: &Ctx) -> Result<(SessionId, crate::store::lock::Lock)> {
    loop {
        let id = SessionId::new_local();
        if ctx.state.session_dir(&id).exists() {
            continue;
        }
        ctx.state.ensure_session_dir(&id)?;
        let lock = crate::store::lock::exclusive(
            &ctx.state,
            &ctx.state.starting_lock(&id),
            crate::store::lock::default_wait(),
        )?;
        return Ok((id, lock));
    }
}

/// Remove a session's folder (never through a link put in its place).
fn remove_session_dir(ctx: &Ctx, id: &SessionId) {
    let dir = ctx.state.session_dir(id);
    if crate::store::secure::check_dir(&dir).unwrap_or(false) {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The working directory asked for (relative to the caller's), else the project root; it
/// must be a directory.
fn working_dir(ctx: &Ctx, p: &Params) -> Result<PathBuf> {
    let cwd = match &p.cwd {
        Some(c) if !c.trim().is_empty() => {
            let c = PathBuf::from(c);
            if c.is_absolute() {
                c
            } else {
                std::env::current_dir().map(|d| d.join(&c)).unwrap_or(c)
            }
        }
        _ => ctx.state.project_root(),
    };
    if !cwd.is_dir() {
        return Err(Error::new(
            crate::error::ErrorCode::PtySpawnFailed,
            format!(
                "working directory {} does not exist or is not a directory",
                cwd.display()
            ),
        ));
    }
    Ok(cwd.canonicalize().unwrap_or(cwd))
}

#[allow(clippy::too_many_arguments)]
fn start(
    ctx: &Ctx,
    a: &CreateArgs,
    id: &SessionId,
    shell: &str,
    cwd: &std::path::Path,
    cols: u16,
    rows: u16,
    x: Extras,
    created_at: &str,
) -> Result<CreateReply> {
    let Extras {
        env,
        sandbox,
        input_filter,
        program,
    } = x;
    let (scrollback, label) = (a.scrollback, &a.owner.label);
    let dir = ctx.state.ensure_session_dir(id)?;
    super::sessions::sweep_dead_sockets();
    let socket = crate::store::paths::socket_path(&ctx.state, id)?;
    Metadata {
        session_id: id.to_string(),
        source: super::kind::LOCAL.into(),
        shell: shell.into(),
        cwd: cwd.display().to_string(),
        cols,
        rows,
        socket: Some(socket.display().to_string()),
        state: "starting".into(),
        label: label.clone(),
        created_at: created_at.into(),
        protocol_version: crate::proto::PROTOCOL_VERSION,
        kpty_version: env!("CARGO_PKG_VERSION").into(),
        buffer_size: config::buffer_size(),
        sandbox: sandbox.clone(),
        input_filter: input_filter.clone(),
        program: program.clone(),
        ..Default::default()
    }
    .save(&ctx.state, id)?;
    let spec = HolderSpec {
        session_id: id.to_string(),
        state_dir: ctx.state.path().to_path_buf(),
        socket: socket.clone(),
        shell: shell.into(),
        cwd: cwd.to_path_buf(),
        cols,
        rows,
        env,
        label: label.clone(),
        buffer_size: config::buffer_size(),
        scrollback: Some(scrollback),
        ready_timeout_ms: a.ready_timeout_ms,
        created_at: created_at.into(),
        sandbox: sandbox.clone(),
        input_filter: input_filter.clone(),
        program: program.clone(),
        env_exact: false,
        record: records(a.params.record),
    };
    let ready = launch::start_holder(ctx, &spec, &dir.join("holder.log"))?;
    record_started(ctx, id, &ready, &socket, label.as_deref())?;
    Ok(CreateReply {
        ok: Success,
        session_id: id.to_string(),
        shell: ready.shell.unwrap_or_else(|| shell.to_string()),
        cwd: cwd.display().to_string(),
        cols,
        rows,
        scrollback,
        pid: ready.pid,
        holder_pid: ready.holder_pid,
        label: label.clone(),
        source: super::kind::LOCAL,
        created_at: created_at.to_string(),
        integration: ready.integration.map(|i| i.to_string()),
        shell_kind: ready.shell_kind.and_then(|k| k.known()),
        sandbox,
        input_filter,
        program,
    })
}

/// What a session gets beyond its shell and size.
struct Extras {
    env: std::collections::BTreeMap<String, String>,
    sandbox: Option<crate::sandbox::Policy>,
    input_filter: Option<crate::filter::FilterSpec>,
    program: Option<ProgramSpec>,
}

/// Whether (and under which caps) a new session records: `record` when the call says, else
/// on unless `KPTY_RECORD` turns it off (`0`, `false`, `off`, `no`).
pub(super) fn records(record: Option<bool>) -> Option<crate::proto::launch::RecordCaps> {
    let on = record.unwrap_or_else(|| {
        !config::var("KPTY_RECORD").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "off" | "no"
            )
        })
    });
    let (segment, total) = crate::store::recordings::caps();
    on.then_some(crate::proto::launch::RecordCaps { segment, total })
}
