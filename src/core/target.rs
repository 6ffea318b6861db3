//! The session a request names, resolved once into its [`Handle`]: by reference
//! ([`sessions::resolve`]), by owner identity (`owners::resolve_entry`), or the state
//! directory's default session — found, or created on demand under a lock.

use super::Ctx;
use super::handle::Handle;
use super::sessions::{self, Liveness, checked, probe};
use crate::api::request::Target;
use crate::error::{Error, ErrorCode, Hint, Result};
use crate::store::{Registry, RegistryEntry};
use std::time::Duration;

/// The label of the default session used when no session is named.
pub(super) const DEFAULT_LABEL: &str = "default";

/// The session a request names, resolved once into its handle: by reference
/// ([`sessions::resolve`]), by owner identity (`owners::resolve_entry`), or the default
/// session (created on demand when `create`).
pub fn target(ctx: &Ctx, target: &Target, create: bool) -> Result<Handle> {
    match target {
        Target::Named(r) => sessions::resolve(ctx, r),
        Target::Owner(who) => checked(ctx, super::owners::resolve_entry(ctx, who)?).map(Handle::of),
        Target::Default => checked(ctx, default_session(ctx, create)?).map(Handle::of),
    }
}

/// [`target`] for a command about to be typed (`talk`): the default session is created when
/// missing only once `vet` (the command's policy check) passed, so a refused command leaves
/// no session behind; when no session can be found, `vet`'s refusal comes first. A session
/// that exists judges what is typed into it itself (its holder, with the shell's state; a
/// bridged one before it is sent).
pub fn target_vetted(ctx: &Ctx, target: &Target, vet: impl Fn() -> Result<()>) -> Result<Handle> {
    let found = match target {
        Target::Default => match find_default(ctx) {
            Ok(Some(e)) => Ok(e),
            Ok(None) => vet().and_then(|()| replace_default(ctx)),
            Err(e) => Err(e),
        }
        .and_then(|e| checked(ctx, e).map(Handle::of)),
        t => self::target(ctx, t, false),
    };
    found.map_err(|e| vet().err().unwrap_or(e))
}

/// The default session. When `create` is set and it is missing or no longer running, a new
/// one is made under a lock, so concurrent first callers share one session.
///
/// The fast path (an existing default) costs one registry read and no probe: callers that
/// find its holder gone call [`replace_default`] and retry once.
fn default_session(ctx: &Ctx, create: bool) -> Result<RegistryEntry> {
    if let Some(e) = find_default(ctx)? {
        return Ok(e);
    }
    if !create {
        return Err(Error::new(
            ErrorCode::PtySessionNotFound,
            "no session named and no default session yet",
        )
        .with_hint(Hint::NameOrCreate));
    }
    replace_default(ctx)
}

fn find_default(ctx: &Ctx) -> Result<Option<RegistryEntry>> {
    find_labelled(ctx, DEFAULT_LABEL)
}

fn find_labelled(ctx: &Ctx, label: &str) -> Result<Option<RegistryEntry>> {
    let reg = Registry::load(&ctx.state)?;
    Ok(reg
        .sessions
        .values()
        .find(|e| e.label.as_deref() == Some(label))
        .cloned())
}

/// Under the default-session lock: keep the current default if it runs, else forget it and
/// create a new one.
pub fn replace_default(ctx: &Ctx) -> Result<RegistryEntry> {
    ensure_labelled(ctx, DEFAULT_LABEL, "default_replaced")
}

/// The live session labelled `label`, or a new one with that label (an ended one is forgotten
/// first, recorded as `event`). Made under the default-session lock, so concurrent callers
/// share one session (`talk`'s default session, `attach --create LABEL`).
pub fn ensure_labelled(ctx: &Ctx, label: &str, event: &str) -> Result<RegistryEntry> {
    // Held while a session starts (up to its ready timeout): wait that long and more.
    let wait = Duration::from_millis(super::config::ready_timeout_ms())
        + crate::store::lock::default_wait();
    let _lock = crate::store::lock::exclusive(&ctx.state, &ctx.state.default_lock(), wait)?;
    if let Some(e) = find_labelled(ctx, label)? {
        match probe(ctx, &e) {
            // Reachable (perhaps because another caller replaced the stale one meanwhile).
            Liveness::Running(_) | Liveness::Unresponsive(_) => return Ok(e),
            Liveness::Registered | Liveness::Starting => return checked(ctx, e),
            Liveness::Dead | Liveness::Exited { .. } => sessions::forget(ctx, &e, event)?,
        }
    }
    let p = crate::api::Params {
        label: Some(label.into()),
        ..Default::default()
    };
    let id = super::create::create(ctx, &super::request::create_args(ctx, &p)?)?.session_id;
    let reg = Registry::load(&ctx.state)?;
    reg.sessions
        .get(&id)
        .cloned()
        .ok_or_else(|| Error::internal(format!("the new session {id} is not in the registry")))
}
