//! The session core: one function per action, shared by the CLI and the MCP server. Each takes
//! the flat [`Params`], validates what it needs, talks to the store and to holders through
//! `proto`, and returns the action's JSON object (`ok: true …`) or a typed [`Error`].

pub mod audit;
pub mod control;
pub mod create;
pub mod help;
pub mod io;
pub mod launch;
pub mod list;
pub mod registered;
pub mod routing;
pub mod sessions;
pub mod talk;
pub mod term;
pub mod trail;

/// The environment's defaults (in `api`, which the holder reads too).
pub use crate::api::config;

use crate::api::{Action, Params};
use crate::error::{Error, Result};
use crate::store::StateDir;
use serde_json::Value;
use std::path::PathBuf;

/// What every action needs: the state directory and the kpty executable (to start holders).
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The state directory.
    pub state: StateDir,
    /// The kpty binary used to start holders.
    pub exe: PathBuf,
    /// The caller shows only the clean output: a `talk` reply may then leave out
    /// `raw_output` (megabytes a human front end would never print). Off by default, so
    /// JSON replies keep the seeds' full shape.
    pub lean: bool,
    /// The most characters of output a `talk` returns when the call sets no `max_chars`
    /// (the end is kept): none for the CLI, a cap for MCP clients, whose context a
    /// megabyte of output would flood.
    pub talk_max_chars: Option<usize>,
    /// Redact secrets in what the actions return (see [`mod@crate::safety::redact`]): on for
    /// the agent channels (MCP, `kpty serve`, the CLI's `--json`), off for the CLI's human
    /// output, which stays raw as a terminal's scrollback is. The audit trail is redacted
    /// either way.
    pub redact: bool,
}

impl Ctx {
    /// A context for `state`, starting holders with the running executable.
    pub fn new(state: StateDir) -> Result<Self> {
        let exe = std::env::current_exe()
            .map_err(|e| Error::internal(format!("cannot find the kpty executable: {e}")))?;
        Ok(Self {
            state,
            exe,
            lean: false,
            talk_max_chars: None,
            redact: true,
        })
    }
}

/// Run one action, and record it in the audit trail; the result is redacted when the
/// caller's channel is (`ctx.redact`).
pub fn dispatch(ctx: &Ctx, action: Action, p: &Params) -> Result<Value> {
    let started = std::time::Instant::now();
    let result = run_action(ctx, action, p);
    audit::record(ctx, action, p, &result, started);
    outgoing(ctx, result)
}

/// A result as it leaves for the caller: with `ctx.redact`, every string in it (the error's
/// message and details too) has its secrets replaced.
pub fn outgoing(ctx: &Ctx, result: Result<Value>) -> Result<Value> {
    if !ctx.redact {
        return result;
    }
    match result {
        Ok(mut v) => {
            crate::safety::redact_value(&mut v);
            Ok(v)
        }
        Err(mut e) => {
            if let std::borrow::Cow::Owned(m) = crate::safety::redact(&e.message) {
                e.message = m;
            }
            if let Some(d) = e.details.as_mut() {
                crate::safety::redact_value(d);
            }
            Err(e)
        }
    }
}

fn run_action(ctx: &Ctx, action: Action, p: &Params) -> Result<Value> {
    match action {
        Action::Help => Ok(help::help(ctx)),
        Action::List => list::list(ctx),
        Action::Create => create::create(ctx, p),
        Action::SendLine => io::send_line(ctx, p),
        Action::Read => io::read(ctx, p),
        Action::TermRead => term::term_read(ctx, p),
        Action::Talk | Action::Run => talk::talk(ctx, p),
        Action::Resize => control::resize(ctx, p),
        Action::Kill => control::kill(ctx, p),
        Action::Write => Err(io::write_deprecated()),
        Action::Resolve => routing::resolve(ctx, p),
        Action::SendLineToAgent => routing::send_line_to_agent(ctx, p),
        Action::UpdateOwnership => routing::update_ownership(ctx, p),
        Action::Register => registered::register(ctx, p),
        Action::Unregister => registered::unregister(ctx, p),
        Action::Heartbeat => registered::heartbeat(ctx, p),
        Action::Prune => registered::prune(ctx, p),
    }
}

/// Run one action and always get its JSON: `{ok:true,…}` or `{ok:false, error_code,…}`.
pub fn dispatch_json(ctx: &Ctx, action: Action, p: &Params) -> Value {
    dispatch(ctx, action, p).unwrap_or_else(|e| e.to_json())
}
