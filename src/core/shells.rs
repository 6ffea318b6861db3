//! Shell PTYs beside a session's program (seed 002 §8.2.2). `shell` opens PTY N of a local
//! session: a holder of its own, started by the same launcher with what PTY 0's holder was
//! started with — the session's shell, cwd, environment and sandbox policy (asked of that
//! holder, `Request::Spec`) — but no input filter (002 §8.4: only agent PTYs are filtered)
//! and no restart. Its folder is `sessions/S/ptys/N/`, its socket derived from its internal
//! id `S.N` (`crate::api::ids`); `SESSION:N` names it wherever a session is named
//! ([`super::sessions::entry`]), `list` shows a session's PTYs (`pty_views::views`). It is
//! gone when its shell exits; killing the session (or PTY 0's end) ends them all
//! ([`crate::proto::ptys::end_all`]).

use super::handle::Handle;
use super::kind::LOCAL;
use super::sessions::{self};
use super::{Ctx, config};
use crate::api::ids::MAX_PTY;
use crate::api::reply::Success;
use crate::api::request::{Deferred, ShellArgs, Target};
use crate::api::sessions::ShellReply;
use crate::api::{Params, SessionId};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::launch::{HolderSpec, ProgramSpec};
use crate::proto::{SpecRequest, ptys};
use crate::store::{Metadata, lock, now_rfc3339, secure};

/// Run `shell`: open the next PTY of the named session (PTY 0 must be running) and start
/// the session's shell, or `command`, on it.
pub fn shell(ctx: &Ctx, a: ShellArgs) -> Result<ShellReply> {
    let session = session_of(ctx, &a.target)?;
    let base = session
        .files_id()
        .filter(|id| id.is_local_form())
        .cloned()
        .ok_or_else(|| {
            Error::invalid(format!(
                "session {} is not a local session of this state directory; only those have shell PTYs",
                session.session_id
            ))
        })?;
    let program = a.program?;
    let size = a.size?;
    let spec: HolderSpec = sessions::call(ctx, &session, SpecRequest, sessions::SHORT_CALL)?;
    if spec.sandbox.is_none() && ctx.floor.mode == crate::sandbox::floor::Mode::Required {
        return Err(Error::new(
            ErrorCode::SandboxRequired,
            format!(
                "session {base} is not sandboxed, and the operator's floor ({}) requires every new process tree to be: create a sandboxed session",
                ctx.floor.origin
            ),
        ));
    }
    // The program is judged as `create` judges one; the environment is the session's, which
    // its `create` judged.
    let none = std::collections::BTreeMap::new();
    super::agent::judge(&Params::default(), program.as_ref(), &none, &spec.cwd)?;
    let (n, id, _starting) = allocate(ctx, &base)?;
    start(
        ctx,
        size,
        a.ready_timeout_ms,
        (&base, n, &id),
        spec,
        program,
    )
    .inspect_err(|_| remove_pty_dir(ctx, &id))
}

/// The session `shell` opens a PTY of: the one named (a `SESSION:N` names its session).
fn session_of(ctx: &Ctx, target: &Target) -> Result<Handle> {
    let e = super::target::target(ctx, target, false)?;
    match e.files_id().and_then(|id| id.pty_parts()) {
        Some((base, _)) => sessions::resolve(ctx, base.as_str()),
        None => Ok(e),
    }
}

/// The next PTY number of session `base` (one past the highest it has had: an address never
/// names a second shell), its folder made and its starting lock held.
fn allocate(ctx: &Ctx, base: &SessionId) -> Result<(u32, SessionId, lock::Lock)> {
    ctx.state.check_session(base)?;
    let dir = ctx.state.ptys_dir(base);
    // Every folder from the state directory down to `ptys/` itself: ours, and no link.
    ctx.state.verify(&dir.join("N"))?;
    secure::ensure_dir(&dir)?;
    let first = ptys::ids(&ctx.state, base)
        .last()
        .and_then(|id| id.pty_parts())
        .map_or(1, |(_, n)| n + 1);
    for n in first..=MAX_PTY {
        let Some(id) = base.pty(n) else { break };
        let made = std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
            .create(ctx.state.session_dir(&id));
        match made {
            Ok(()) => {
                let l = lock::exclusive(
                    &ctx.state,
                    &ctx.state.starting_lock(&id),
                    lock::default_wait(),
                )?;
                return Ok((n, id, l));
            }
            // Taken by a concurrent `shell`: the next one.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(Error::state(
                    &dir,
                    format!("cannot make the PTY's folder: {e}"),
                ));
            }
        }
    }
    Err(Error::invalid(format!(
        "session {base} has had {MAX_PTY} shell PTYs, the most a session may; create another session"
    )))
}

/// Start PTY `n` (internal id `id`) of `base` from PTY 0's launch `spec`.
fn start(
    ctx: &Ctx,
    (cols, rows): (Option<u16>, Option<u16>),
    ready_timeout_ms: Deferred<Option<u64>>,
    (base, n, id): (&SessionId, u32, &SessionId),
    spec: HolderSpec,
    program: Option<ProgramSpec>,
) -> Result<ShellReply> {
    let socket = crate::store::paths::socket_path(&ctx.state, id)?;
    let created_at = now_rfc3339();
    let (cols, rows) = (cols.unwrap_or(spec.cols), rows.unwrap_or(spec.rows));
    super::validate::check_size(cols, rows)?;
    let ready_timeout_ms = ready_timeout_ms?.unwrap_or_else(config::ready_timeout_ms);
    Metadata {
        session_id: id.to_string(),
        source: LOCAL.into(),
        shell: spec.shell.clone(),
        cwd: spec.cwd.display().to_string(),
        cols,
        rows,
        socket: Some(socket.display().to_string()),
        state: "starting".into(),
        created_at: created_at.clone(),
        protocol_version: crate::proto::PROTOCOL_VERSION,
        kpty_version: env!("CARGO_PKG_VERSION").into(),
        buffer_size: spec.buffer_size,
        sandbox: spec.sandbox.clone(),
        program: program.clone(),
        ..Default::default()
    }
    .save(&ctx.state, id)?;
    let child = HolderSpec {
        session_id: id.to_string(),
        socket,
        cols,
        rows,
        label: None,
        ready_timeout_ms,
        created_at,
        input_filter: None,
        program: program.clone(),
        ..spec
    };
    let log = ctx.state.session_dir(id).join("holder.log");
    let ready = super::launch::start_holder(ctx, &child, &log)?;
    let address = id.address();
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::ShellOpened {
            session_id: base.as_str(),
            pty: n,
            address: &address,
            pid: ready.pid,
        },
    );
    Ok(ShellReply {
        ok: Success,
        session_id: base.to_string(),
        pty: n,
        address,
        shell: ready.shell.unwrap_or(child.shell),
        cwd: child.cwd.display().to_string(),
        pid: ready.pid,
        holder_pid: ready.holder_pid,
        integration: ready.integration.map(|i| i.to_string()),
        sandbox: child.sandbox,
        program,
    })
}

/// Remove a PTY's folder after a failed start (never through a link).
fn remove_pty_dir(ctx: &Ctx, id: &SessionId) {
    let dir = ctx.state.session_dir(id);
    if secure::check_dir(&dir).unwrap_or(false) {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
