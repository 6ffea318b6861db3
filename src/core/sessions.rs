//! Naming and reaching sessions: resolve an id / unique prefix / label to a registry entry,
//! find or create the state directory's default session, probe a holder's liveness honestly,
//! and call a holder with the right deadline.

use super::Ctx;
use super::handle::{Handle, files_id};
use super::kind::{LOCAL, is_local};
use crate::api::SessionId;
use crate::error::{Cause, Error, ErrorCode, Hint, Result};
use crate::proto::client::{self, Unreachable};
use crate::proto::{Call, ProgressBody, StatusBody, StatusRequest};
use crate::store::{Metadata, Registry, RegistryEntry};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a liveness probe may take.
pub(super) const PROBE_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long past a call's own timeout (talk, read) its holder may take to reply: a stopped
/// holder costs the caller its timeout plus this, never more (the promise is timeout + 1 s;
/// the rest is for resolving the session and printing).
pub const REPLY_MARGIN: Duration = Duration::from_millis(750);
/// How long a connect that only asks "is anyone there?" may wait (a full backlog).
pub const KNOCK_TIMEOUT: Duration = Duration::from_millis(250);
/// The whole budget of a short request (send_line, write, resize, term_read, kill).
pub const SHORT_CALL: Duration = Duration::from_secs(5);

/// Resolve a session reference: exact id, then exact label, then `SESSION:N` (PTY N of the
/// session so named, see [`super::shells`]), then unique id prefix. The session's folder is
/// checked (no links, nothing others could have written) before anything acts on it.
pub fn resolve(ctx: &Ctx, reference: &str) -> Result<Handle> {
    let e = resolve_entry(ctx, reference)?;
    checked(ctx, e).map(Handle::of)
}

/// `e` once its session folder passed `crate::store::StateDir::check_session`; a session
/// still starting is waited for (its `create` holds the starting lock until the holder is
/// recorded) and read again.
pub fn checked(ctx: &Ctx, e: RegistryEntry) -> Result<RegistryEntry> {
    // An external session routes traffic only when this user's kpty registered it.
    super::sessions::check_route(&ctx.state, &e)?;
    let Some(id) = files_id(&e.session_id) else {
        return Ok(e);
    };
    ctx.state.check_session(&id)?;
    if !starting(ctx, &e) {
        return Ok(e);
    }
    let wait = Duration::from_millis(super::config::ready_timeout_ms())
        + crate::store::lock::default_wait();
    crate::store::lock::wait_free(&ctx.state.starting_lock(&id), wait)?;
    if id.pty_parts().is_some() {
        // A shell PTY that was starting: read its folder again.
        return resolve_entry(ctx, &e.session_id);
    }
    let reg = Registry::load(&ctx.state)?;
    reg.sessions
        .get(id.as_str())
        .cloned()
        .ok_or_else(|| not_found(id.as_str(), &reg))
}

/// Whether `e` is a local session whose `create` is still starting it.
fn starting(ctx: &Ctx, e: &RegistryEntry) -> bool {
    e.holder_pid.is_none()
        && super::kind::is_local(e)
        && files_id(&e.session_id)
            .is_some_and(|id| crate::store::lock::is_held(&ctx.state.starting_lock(&id)))
}

fn resolve_entry(ctx: &Ctx, reference: &str) -> Result<RegistryEntry> {
    let reg = match Registry::load(&ctx.state) {
        Ok(r) => r,
        // A corrupt registry must not cut a caller off from a live session it names by its
        // full id: the holder on that id's derived socket is proof enough.
        Err(err) => return by_full_id(ctx, reference).ok_or(err),
    };
    if let Some(e) = reg.sessions.get(reference) {
        return Ok(e.clone());
    }
    let by_label: Vec<&RegistryEntry> = reg
        .sessions
        .values()
        .filter(|e| e.label.as_deref() == Some(reference))
        .collect();
    match by_label.len() {
        1 => return Ok(by_label[0].clone()),
        n if n > 1 => return Err(ambiguous(reference, &by_label)),
        _ => {}
    }
    // `SESSION:N`: PTY N of the session named before the last `:` (PTY 0 is the session).
    if let (base, Some(n)) = crate::api::ids::split_address(reference)? {
        let session = resolve_entry(ctx, base)?;
        return match n {
            0 => Ok(session),
            n => super::sessions::entry(ctx, &session, n),
        };
    }
    // Prefixes must themselves look like (the start of) an id: this is where traversal
    // attempts such as `../../etc` are refused.
    if let Err(malformed) = SessionId::parse(reference) {
        // Not an id, but perhaps a mistyped label (`my biuld`): say which one.
        let e = not_found(reference, &reg);
        let suggested = e
            .details
            .as_ref()
            .is_some_and(|d| !d.did_you_mean().is_empty());
        return Err(if suggested { e } else { malformed });
    }
    let by_prefix: Vec<&RegistryEntry> = reg
        .sessions
        .values()
        .filter(|e| e.session_id.starts_with(reference))
        .collect();
    match by_prefix.len() {
        1 if reference.len() >= 3 => Ok(by_prefix[0].clone()),
        0 | 1 => Err(not_found(reference, &reg)),
        _ => Err(ambiguous(reference, &by_prefix)),
    }
}

/// The entry for a live local session named by its full id, built from its metadata and
/// confirmed by its holder answering on the derived socket (used when the registry is
/// unreadable).
fn by_full_id(ctx: &Ctx, reference: &str) -> Option<RegistryEntry> {
    let id = SessionId::parse(reference)
        .ok()
        .filter(SessionId::is_local_form)?;
    let meta = Metadata::load(&ctx.state, &id).ok().flatten();
    let e = RegistryEntry {
        session_id: id.to_string(),
        source: super::kind::LOCAL.into(),
        label: meta.as_ref().and_then(|m| m.label.clone()),
        shell: meta.as_ref().map(|m| m.shell.clone()),
        cwd: meta.as_ref().map(|m| m.cwd.clone()),
        created_at: meta.as_ref().map(|m| m.created_at.clone()),
        ..Default::default()
    };
    match probe(ctx, &e) {
        Liveness::Running(s) => Some(RegistryEntry {
            pid: Some(s.pid),
            holder_pid: Some(s.holder_pid),
            ..e
        }),
        _ => None,
    }
}

/// No session by that name in this state directory; the labels and ids of its sessions
/// closest to `reference` (a typo: `wrok` for `work`) are suggested.
fn not_found(reference: &str, reg: &Registry) -> Error {
    let names = reg.sessions.values().flat_map(|e| {
        e.label
            .as_deref()
            .into_iter()
            .chain([e.session_id.as_str()])
    });
    let near = crate::api::suggest::closest(reference, names);
    Error::new(
        ErrorCode::PtySessionNotFound,
        format!(
            "no session {reference:?} in this state directory{}",
            crate::api::suggest::clause(&near)
        ),
    )
    .with_hint(Hint::ListSessions)
    .with_details(crate::error::details::Unknown {
        session_id: Some(reference.to_string()),
        did_you_mean: near.into_iter().map(String::from).collect(),
        ..crate::error::details::Unknown::default()
    })
}

fn ambiguous(reference: &str, matches: &[&RegistryEntry]) -> Error {
    let ids: Vec<crate::error::details::Match> = matches
        .iter()
        .map(|e| {
            crate::error::details::Match::Labelled(crate::error::details::LabelledMatch {
                session_id: e.session_id.clone(),
                label: e.label.clone(),
            })
        })
        .collect();
    Error::new(
        ErrorCode::Ambiguous,
        format!(
            "{reference:?} matches {} sessions; use the full session id",
            matches.len()
        ),
    )
    .with_hint(Hint::ListSessions)
    .with_details(crate::error::details::Matches {
        matches: ids,
        query: None,
    })
}

/// True when `err` says the session had ended before anything was typed: its holder could
/// not be reached at all, or answered (while winding down) that its shell had already exited.
pub fn ended_untouched(err: &Error) -> bool {
    err.code == ErrorCode::PtyProcessExited
        && matches!(err.cause, Some(Cause::Unreachable | Cause::EndedBefore))
}

/// A session's state as far as can be told.
#[derive(Debug, Clone)]
pub enum Liveness {
    /// The holder answered.
    Running(Box<StatusBody>),
    /// The shell ended and its holder recorded how.
    Exited {
        exit_code: Option<i32>,
        exit_signal: Option<String>,
        state: String,
    },
    /// The holder is gone without recording an exit (killed, crashed, machine rebooted).
    Dead,
    /// The holder is there but did not answer in time (stopped or overloaded).
    Unresponsive(String),
    /// An external session (e.g. a desktop app's), known from its registration.
    Registered,
    /// Being created: its `create` has not recorded the holder yet.
    Starting,
}

impl Liveness {
    /// The state as the contract names it.
    pub fn state(&self) -> crate::api::SessionState {
        use crate::api::SessionState;
        match self {
            Liveness::Running(_) => SessionState::Running,
            Liveness::Exited { .. } => SessionState::Exited,
            Liveness::Dead => SessionState::Dead,
            Liveness::Unresponsive(_) => SessionState::Unresponsive,
            Liveness::Registered => SessionState::Registered,
            Liveness::Starting => SessionState::Starting,
        }
    }
}

/// The socket of a local session: always derived from kpty's private runtime directories
/// (this process's first, then the defaults: `store::paths::holder_socket`), this state
/// directory and the id — never read from a state file, which anyone who can write the state
/// directory (a cloned repository) controls.
pub fn socket_of(ctx: &Ctx, e: &RegistryEntry) -> Option<PathBuf> {
    let id = files_id(&e.session_id)?;
    crate::store::paths::holder_socket(&ctx.state, &id).ok()
}

/// [`socket_of`] in `runtime`, the runtime directory found once for many sessions (`None`:
/// there is none to use).
fn socket_in(ctx: &Ctx, e: &RegistryEntry, runtime: Option<&Path>) -> Option<PathBuf> {
    let id = files_id(&e.session_id)?;
    crate::store::paths::holder_socket_in(runtime?, &ctx.state, &id).ok()
}

/// Remove `sock` when it is provably a dead holder's: a socket of ours in the private runtime
/// directory on which connecting was just refused (dtach's rule).
fn remove_dead_socket(sock: &std::path::Path) {
    if crate::store::secure::is_own_socket(sock)
        && matches!(client::connect_within(sock, KNOCK_TIMEOUT),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused)
    {
        let _ = std::fs::remove_file(sock);
    }
}

/// Remove every socket in the runtime directory whose holder is provably gone (SIGKILLed
/// holders cannot remove their own): run when sessions are created and pruned.
pub fn sweep_dead_sockets() {
    let Ok(dir) = crate::store::paths::runtime_dir() else {
        return;
    };
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    for ent in rd.flatten() {
        let p = ent.path();
        if p.extension().is_some_and(|x| x == "sock") {
            remove_dead_socket(&p);
        }
    }
}

/// Ask the holder how it is, with a short deadline; never hangs, never panics.
pub fn probe(ctx: &Ctx, e: &RegistryEntry) -> Liveness {
    match probe_socket(ctx, e) {
        Ok(sock) => judge(
            ctx,
            e,
            &sock,
            client::call(&sock, StatusRequest, PROBE_TIMEOUT),
        ),
        Err(known) => known,
    }
}

/// The socket [`probe`] asks `e`'s holder on, or what `e` is without asking (an external
/// session, one still starting, one whose socket cannot be named).
fn probe_socket(ctx: &Ctx, e: &RegistryEntry) -> std::result::Result<PathBuf, Liveness> {
    let runtime = crate::store::paths::runtime_dir().ok();
    probe_socket_in(ctx, e, runtime.as_deref())
}

/// The socket a probe asks `e`'s holder on (or what `e` is without asking), with the runtime
/// directory found once for many sessions (`list`).
pub fn probe_socket_in(
    ctx: &Ctx,
    e: &RegistryEntry,
    runtime: Option<&Path>,
) -> std::result::Result<PathBuf, Liveness> {
    if !super::kind::is_local(e) {
        return Err(Liveness::Registered);
    }
    if starting(ctx, e) {
        return Err(Liveness::Starting);
    }
    socket_in(ctx, e, runtime).ok_or_else(|| saved_exit(ctx, e).unwrap_or(Liveness::Dead))
}

/// What the status `answer` of the holder on `sock` (the socket of `e`) says of `e`.
pub fn judge(
    ctx: &Ctx,
    e: &RegistryEntry,
    sock: &std::path::Path,
    answer: std::result::Result<StatusBody, Unreachable>,
) -> Liveness {
    match answer {
        // The socket is derived, never read from a file; the holder proves it is the
        // one meant (older holders do not say).
        Ok(s) if !serves(&s, e) => {
            return Liveness::Unresponsive(format!(
                "the holder on the socket of {} serves {:?} instead",
                e.session_id, s.session_id
            ));
        }
        Ok(s) if s.alive => return Liveness::Running(Box::new(s)),
        Ok(s) => {
            return Liveness::Exited {
                exit_code: s.exit_code,
                exit_signal: None,
                state: "exited".into(),
            };
        }
        Err(Unreachable::Gone(err)) => {
            // dtach: a refused connection means a dead holder; clean its socket.
            if err.kind() == std::io::ErrorKind::ConnectionRefused {
                remove_dead_socket(sock);
            }
            // No socket here, but a holder the kernel vouches for still runs.
            if let Some(pid) = files_id(&e.session_id)
                .and_then(|id| super::elsewhere::proven_holder(&ctx.state, &id, e.holder_pid))
                && saved_exit(ctx, e).is_none()
            {
                return Liveness::Unresponsive(super::elsewhere::unreached(&e.session_id, pid));
            }
        }
        Err(Unreachable::Other(err)) => {
            // A holder that is just finishing closes connections as it goes: its
            // metadata already says how the shell ended.
            return match saved_exit(ctx, e) {
                Some(l) => l,
                None => Liveness::Unresponsive(err.message),
            };
        }
    }
    saved_exit(ctx, e).unwrap_or(Liveness::Dead)
}

/// Whether the holder that answered `s` serves `e` (a holder too old to say is believed).
fn serves(s: &StatusBody, e: &RegistryEntry) -> bool {
    s.session_id
        .as_deref()
        .is_none_or(|sid| files_id(&e.session_id).is_some_and(|id| id.as_str() == sid))
}

/// How the shell ended, from the metadata its holder saved.
fn saved_exit(ctx: &Ctx, e: &RegistryEntry) -> Option<Liveness> {
    let id = files_id(&e.session_id)?;
    let m = Metadata::load(&ctx.state, &id).ok()??;
    (m.state == "exited" || m.state == "killed").then_some(Liveness::Exited {
        exit_code: m.exit_code,
        exit_signal: m.exit_signal,
        state: m.state,
    })
}

/// Did the shell of `e` end before `started` (the holder was only finishing when called)?
fn ended_before(ctx: &Ctx, e: &RegistryEntry, started: jiff::Timestamp) -> bool {
    let Some(id) = files_id(&e.session_id) else {
        return false;
    };
    Metadata::load(&ctx.state, &id)
        .ok()
        .flatten()
        .and_then(|m| m.exited_at?.parse::<jiff::Timestamp>().ok())
        .is_some_and(|at| at < started)
}

/// Call the holder of `e`, the whole exchange bounded by `io_timeout` (a stopped holder costs
/// the caller that long, not more); a gone holder becomes `PTY_PROCESS_EXITED` with what is
/// known, one that does not answer in time `PTY_TIMEOUT`.
pub fn call<C: Call>(
    ctx: &Ctx,
    e: &RegistryEntry,
    req: C,
    io_timeout: Duration,
) -> Result<C::Reply> {
    call_with(ctx, e, req, io_timeout, &mut |_| {})
}

/// Like [`call`], handing intermediate progress frames to `on_progress`.
fn call_with<C: Call>(
    ctx: &Ctx,
    e: &RegistryEntry,
    req: C,
    io_timeout: Duration,
    on_progress: &mut dyn FnMut(ProgressBody),
) -> Result<C::Reply> {
    call_watched(ctx, e, req, io_timeout, &|_| Ok(()), on_progress, None)
}

/// Like `call_with`; `watch` sees the connection before the request goes out (so that a
/// cancel can close it) and may refuse the call; `wake` is watched while the reply is
/// awaited ([`client::Wake`]).
pub fn call_watched<C: Call>(
    ctx: &Ctx,
    e: &RegistryEntry,
    req: C,
    io_timeout: Duration,
    watch: &dyn Fn(&std::os::unix::net::UnixStream) -> Result<()>,
    on_progress: &mut dyn FnMut(ProgressBody),
    wake: Option<client::Wake<'_>>,
) -> Result<C::Reply> {
    let deadline = std::time::Instant::now() + io_timeout;
    let started = jiff::Timestamp::now();
    let mut stream = connect(ctx, e, io_timeout)?;
    watch(&stream)?;

    client::call_woken(&mut stream, req, deadline, on_progress, wake)
        .map_err(|err| call_failed(ctx, e, started, err))
}

/// A call to the holder of `e` begun at `started` failed with `err`: when the connection
/// broke because the holder was finishing (its shell just exited), say so, with how it
/// ended — nothing typed when it had ended before the call (not marked unreachable
/// otherwise: the request may have been typed).
pub fn call_failed(ctx: &Ctx, e: &RegistryEntry, started: jiff::Timestamp, err: Error) -> Error {
    match (err.code, saved_exit(ctx, e)) {
        (
            ErrorCode::PtyReadFailed,
            Some(Liveness::Exited {
                exit_code,
                exit_signal,
                ..
            }),
        ) => shell_exited(e, exit_code, exit_signal, None).with_cause(
            if ended_before(ctx, e, started) {
                Cause::Unreachable
            } else {
                Cause::EndedDuringCall
            },
        ),
        _ => err,
    }
}

/// `PTY_PROCESS_EXITED`: the shell of `e` has exited (`unreachable`: said so in the details
/// when its holder could not be reached, so nothing was typed).
fn shell_exited(
    e: &RegistryEntry,
    exit_code: Option<i32>,
    exit_signal: Option<String>,
    unreachable: Option<bool>,
) -> Error {
    Error::new(
        ErrorCode::PtyProcessExited,
        format!(
            "the shell of session {} has exited (code {}): the session has ended",
            e.session_id,
            exit_code.map_or("unknown".into(), |c| c.to_string())
        ),
    )
    .with_hint(Hint::CreateAnother)
    .with_details(crate::error::details::Exited {
        session_id: e.session_id.clone(),
        state: Some("exited".into()),
        exit_code: exit_code.map(i64::from),
        exit_signal,
        unreachable,
    })
}

/// Connect to the holder of local session `e` (every read and write bounded by
/// `io_timeout`); a holder that is gone is `PTY_PROCESS_EXITED`, saying how the shell ended.
pub fn connect(
    ctx: &Ctx,
    e: &RegistryEntry,
    io_timeout: Duration,
) -> Result<std::os::unix::net::UnixStream> {
    connect_by(ctx, e, |sock| client::connect(sock, io_timeout))
}

/// [`connect`] for an event loop, which must not wait: the stream non-blocking; `Ok(None)`
/// when the holder's queue of connections is full (then [`connect`] waits for it).
pub fn connect_at_once(
    ctx: &Ctx,
    e: &RegistryEntry,
) -> Result<Option<std::os::unix::net::UnixStream>> {
    connect_by(ctx, e, client::connect_at_once)
}

/// The error of a call whose holder (of session `e`) could not be reached (`why`), said as
/// the session is: its shell ended, its holder runs where this kpty does not look, or it
/// is gone.
fn unreachable_holder(ctx: &Ctx, e: &RegistryEntry, why: &str) -> Error {
    match probe(ctx, e) {
        Liveness::Exited {
            exit_code,
            exit_signal,
            ..
        } => shell_exited(e, exit_code, exit_signal, Some(true)).with_cause(Cause::Unreachable),
        // Its holder runs where this kpty does not look: nothing reached it.
        Liveness::Unresponsive(problem) => Error::new(
            ErrorCode::StateError,
            format!(
                "session {} cannot be reached from here: {problem}",
                e.session_id
            ),
        )
        .with_cause(Cause::Unreachable),
        _ => Error::new(
            ErrorCode::PtyProcessExited,
            format!(
                "the holder of session {} is gone ({why}); its shell is no longer reachable",
                e.session_id
            ),
        )
        .with_hint(Hint::KillToCleanUp {
            session: e.session_id.clone(),
        })
        .with_details(crate::error::details::Dead {
            session_id: e.session_id.clone(),
            state: "dead".into(),
            unreachable: true,
        })
        .with_cause(Cause::Unreachable),
    }
}

/// Connect to the holder of local session `e` with `how`, its failures said as [`connect`]
/// says them.
fn connect_by<T>(
    ctx: &Ctx,
    e: &RegistryEntry,
    how: impl FnOnce(&std::path::Path) -> std::result::Result<T, Unreachable>,
) -> Result<T> {
    let gone = |why: String| unreachable_holder(ctx, e, &why);
    if !super::kind::is_local(e) {
        return Err(Error::new(
            ErrorCode::InvalidParams,
            format!(
                "session {} is a {} session; only local sessions are supported by this build",
                e.session_id, e.source
            ),
        ));
    }
    let Some(sock) = socket_of(ctx, e) else {
        return Err(gone("no socket recorded".into()));
    };
    match how(&sock) {
        Ok(s) => Ok(s),
        Err(Unreachable::Gone(err)) => Err(gone(err.to_string())),
        Err(Unreachable::Other(err)) => Err(err),
    }
}

/// The entry of PTY `n` of `session`, named `S:N`, from its folder's metadata:
/// `SESSION_NOT_FOUND` when the session has no such PTY.
pub fn entry(ctx: &Ctx, session: &RegistryEntry, n: u32) -> Result<RegistryEntry> {
    let address = format!("{}:{n}", session.session_id);
    if !is_local(session) {
        return Err(Error::invalid(format!(
            "{address}: session {} is a {} session; only local sessions have shell PTYs",
            session.session_id, session.source
        )));
    }
    let id = files_id(&session.session_id).and_then(|s| s.pty(n));
    let meta = match &id {
        Some(id) => Metadata::load(&ctx.state, id)?,
        None => None,
    };
    let Some(m) = meta else {
        return Err(Error::new(
            ErrorCode::PtySessionNotFound,
            format!(
                "session {} has no PTY {n}; `shell` opens one",
                session.session_id
            ),
        )
        .with_hint(Hint::ListSessions)
        .with_details(crate::error::details::Pty {
            session_id: address.to_string(),
            pty: n as u64,
        }));
    };
    Ok(RegistryEntry {
        session_id: address,
        source: LOCAL.into(),
        cli_type: Some(m.shell_kind).filter(|k| !k.is_empty()),
        pid: m.pid,
        holder_pid: m.holder_pid,
        shell: Some(m.shell),
        cwd: Some(m.cwd),
        created_at: Some(m.created_at),
        sandbox: m.sandbox,
        program: m.program,
        ..Default::default()
    })
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

/// Remove a session from the registry and clean its socket; its folder stays as a record.
pub fn forget(ctx: &Ctx, e: &RegistryEntry, event: &str) -> Result<()> {
    Registry::update(&ctx.state, |reg| {
        reg.sessions.remove(&e.session_id);
        Ok(())
    })?;
    if let Some(sock) = socket_of(ctx, e) {
        remove_dead_socket(&sock);
    }
    crate::store::registry_events::record(
        &ctx.state,
        &crate::store::registry_events::RegistryEvent::Forgotten {
            event,
            session_id: &e.session_id,
            label: e.label.as_deref(),
        },
    );
    Ok(())
}
