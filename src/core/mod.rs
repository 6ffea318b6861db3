//! The session core: one function per action, shared by the CLI, the MCP server and `kpty
//! serve`. Each takes the flat `Params`, validates what it needs (closed sets parsed into
//! their enums), talks to the store and to holders through `proto` — or to a bridged session
//! through [`crate::bridge`], decided once by `kind::Session` — and returns the action's
//! typed reply (`crate::api::reply`, [`Reply`]) or a typed [`Error`]. The policy of a
//! channel ([`Channel`]: redaction, lean talks, the talk cap) and the audit trail
//! ([`audited`]) live here once; the JSON object is made at the edge ([`to_json`],
//! [`outgoing`]).

pub mod agent;
pub mod attach;
pub mod audit;
pub mod batch;
pub mod bridges;
pub mod check;
mod confine;
pub mod control;
pub(crate) mod converse;
pub mod create;
mod elsewhere;
pub mod ended;
pub mod evidence;
pub mod follow;
pub mod handle;
pub mod help;
pub mod hide;
pub mod io;
pub mod keys;
pub mod kind;
pub mod launch;
pub mod leaders;
pub mod list;
mod owners;
mod pty_views;
pub mod queries;
pub mod rec;
pub mod rec_html;
pub mod registered;
pub mod reply;
pub mod request;
pub mod reset;
pub mod routing;
pub mod running;
pub mod sessions;
pub mod shells;
pub mod shot;
pub mod talk;
pub mod target;
pub mod term;
pub mod traffic;
pub mod trail;
pub mod typed;
pub mod validate;
pub mod wait;
pub mod web_view;
pub mod wire;

#[cfg(test)]
mod request_matrix;
#[cfg(test)]
mod request_tests;

/// The environment's defaults (in `api`, which the holder reads too).
pub use crate::api::config;

use crate::api::request::Request;
use crate::api::{Action, Params};
use crate::error::{Error, Result};
use crate::store::StateDir;
pub use reply::Reply;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Instant;

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
    /// Whose vocabulary an error's hint uses: `kpty …` commands and flags for the CLI,
    /// actions and parameters otherwise.
    pub voice: crate::error::Voice,
    /// A file (FIFO) a `talk`'s command reads as its standard input: the CLI's piped stdin.
    pub talk_stdin: Option<PathBuf>,
    /// The operator's sandbox floor: what every session created here gets at least
    /// (`KPTY_SANDBOX`, or `kpty mcp|serve --sandbox=…`); requests may only tighten it.
    pub floor: crate::sandbox::floor::Floor,
    /// The process's environment speaks for the caller: `KPTY_AGENT_ID`,
    /// `KPTY_OWNER_SESSION_ID`, `KPTY_AGENT_ROLE` give `create` and `register` their owner
    /// identity when a call names none ([`validate::with_env_owner`]). Off for `kpty
    /// serve`, whose environment is the operator's, not its callers'.
    pub env_identity: bool,
    /// The channel's name in a recording's markers (`cli`, `mcp`, `http` …).
    pub channel_name: &'static str,
}

/// This kpty's executable, found once a process (a long-lived one — a channel's host end, a
/// server — builds a context a call).
fn this_exe() -> Result<PathBuf> {
    static EXE: std::sync::OnceLock<std::result::Result<PathBuf, String>> =
        std::sync::OnceLock::new();
    EXE.get_or_init(|| std::env::current_exe().map_err(|e| e.to_string()))
        .clone()
        .map_err(|e| Error::internal(format!("cannot find the kpty executable: {e}")))
}

impl Ctx {
    /// A context for `state`, starting holders with the running executable.
    pub fn new(state: StateDir) -> Result<Self> {
        let exe = this_exe()?;
        Ok(Self {
            state,
            exe,
            lean: false,
            talk_max_chars: None,
            redact: true,
            voice: crate::error::Voice::Tool,
            talk_stdin: None,
            floor: crate::sandbox::floor::Floor::from_env(),
            env_identity: true,
            channel_name: "a tool call",
        })
    }

    /// Who writes through this context, for a recording's markers: `agent NAME via
    /// CHANNEL` (the call's `agent_id`, else `KPTY_AGENT_ID` where the environment speaks
    /// for the caller), or the channel alone.
    pub fn writer(&self, agent: Option<&str>) -> String {
        let env = self
            .env_identity
            .then(|| config::var("KPTY_AGENT_ID"))
            .flatten();
        match agent.map(str::to_string).or(env) {
            Some(a) if !a.trim().is_empty() => {
                let a: String = a.chars().filter(|c| !c.is_control()).take(128).collect();
                format!(
                    "agent {} via {}",
                    crate::safety::redact::redact(&a),
                    self.channel_name
                )
            }
            _ => self.channel_name.to_string(),
        }
    }
}

/// Who a context's replies go to. The policy each implies — redaction, a lean `talk`, the
/// `talk` output cap — is decided here, once, by [`Ctx::on`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The CLI's human output: raw, as a terminal's scrollback is; no `raw_output`.
    Human,
    /// The CLI's `--json`: redacted unless opted out (`--no-redact`, `KPTY_REDACT=off`).
    Json {
        /// `--no-redact` was given.
        no_redact: bool,
    },
    /// An MCP client: redacted, and a `talk` returns at most [`MCP_TALK_MAX_CHARS`].
    Mcp,
    /// `kpty serve`'s HTTP replies: redacted.
    Http,
}

/// The most characters of output a `talk` returns to an MCP client unless the call sets
/// `max_chars` (the end is kept; `dropped_chars` says how much was cut): an agent's context
/// is no place for a megabyte of output.
pub const MCP_TALK_MAX_CHARS: usize = 50_000;

impl Ctx {
    /// This context, set up for replies going to `channel`.
    pub fn on(mut self, channel: Channel) -> Self {
        match channel {
            Channel::Human => {
                self.channel_name = "cli";
                self.voice = crate::error::Voice::Cli;
                self.lean = true;
                self.redact = false;
            }
            Channel::Json { no_redact } => {
                self.channel_name = "cli --json";
                self.voice = crate::error::Voice::Cli;
                self.lean = false;
                self.redact = !no_redact && !config::redact_opted_out();
            }
            Channel::Mcp => {
                self.channel_name = "mcp";
                self.lean = true;
                self.redact = true;
                self.talk_max_chars = Some(MCP_TALK_MAX_CHARS);
            }
            Channel::Http => {
                self.channel_name = "http";
                self.redact = true;
                self.env_identity = false;
            }
        }
        self
    }
}

/// Run one action, and record it in the audit trail; the result is redacted when the
/// caller's channel is (`ctx.redact`).
fn dispatch(ctx: &Ctx, action: Action, p: &Params) -> Result<Value> {
    outgoing(ctx, to_json(run(ctx, action, p)))
}

/// Run one action for a front end that renders it itself (the CLI's human output, on an
/// unredacted channel): typed, and recorded in the audit trail as `dispatch` records it.
pub fn run(ctx: &Ctx, action: Action, p: &Params) -> Result<Reply> {
    if action == Action::Kill && p.all == Some(true) {
        // A batch: each session's kill is audited as its own `kill`.
        return request::parse(ctx, action, p)
            .and_then(|_| batch::kill_all(ctx))
            .map(Reply::KillAll)
            .map_err(|e| e.speak(ctx.voice));
    }
    audited(ctx, action, p, || run_action(ctx, action, p))
}

/// Run `work` as `action` and record it in the audit trail: the one place a call is audited
/// (whichever front end made it, and however it streams progress).
pub fn audited<T: serde::Serialize>(
    ctx: &Ctx,
    action: Action,
    p: &Params,
    work: impl FnOnce() -> Result<T>,
) -> Result<T> {
    audited_seeing(ctx, action, p, |_| work())
}

/// [`audited`] for work that resolves its session itself: it hands the handle to
/// [`audit::Seen`], and the record takes the session's registry fields from there instead of
/// reading the registry again.
fn audited_seeing<T: serde::Serialize>(
    ctx: &Ctx,
    action: Action,
    p: &Params,
    work: impl FnOnce(&mut audit::Seen) -> Result<T>,
) -> Result<T> {
    if !audit::audited(action) {
        return work(&mut audit::Seen::default()).map_err(|e| e.speak(ctx.voice));
    }
    audited_inner(ctx, action.as_str(), p, work)
}

/// [`audited`] for an operation that is not one of the tool's actions (`kpty serve`'s
/// `reset`), recorded under `name`.
pub fn audited_as<T: serde::Serialize>(
    ctx: &Ctx,
    name: &'static str,
    p: &Params,
    work: impl FnOnce() -> Result<T>,
) -> Result<T> {
    audited_inner(ctx, name, p, |_| work())
}

fn audited_inner<T: serde::Serialize>(
    ctx: &Ctx,
    name: &'static str,
    p: &Params,
    work: impl FnOnce(&mut audit::Seen) -> Result<T>,
) -> Result<T> {
    let (mut seen, started) = audit_begin_as(ctx, name, p)?;
    let result = work(&mut seen);
    audit_end_as(ctx, name, p, result, started, seen)
}

/// The first half of [`audited_seeing`] for a flow that cannot be a closure (an `async` one,
/// [`talk::run_talk_with`]): the intent recorded (`Err`: the action must not run); then
/// [`audit_end`] with its result.
fn audit_begin(ctx: &Ctx, action: Action, p: &Params) -> Result<(audit::Seen, Instant)> {
    if !audit::audited(action) {
        return Ok((audit::Seen::default(), Instant::now()));
    }
    audit_begin_as(ctx, action.as_str(), p)
}

/// The second half of [`audited_seeing`]: the result recorded beside its intent, and said in
/// the caller's vocabulary.
fn audit_end<T: serde::Serialize>(
    ctx: &Ctx,
    action: Action,
    p: &Params,
    result: Result<T>,
    started: Instant,
    seen: audit::Seen,
) -> Result<T> {
    if !audit::audited(action) {
        return result.map_err(|e| e.speak(ctx.voice));
    }
    audit_end_as(ctx, action.as_str(), p, result, started, seen)
}

fn audit_begin_as(ctx: &Ctx, name: &'static str, p: &Params) -> Result<(audit::Seen, Instant)> {
    let started = Instant::now();
    let seen = audit::Seen::begin(ctx, name, p).map_err(|e| e.speak(ctx.voice))?;
    Ok((seen, started))
}

fn audit_end_as<T: serde::Serialize>(
    ctx: &Ctx,
    name: &'static str,
    p: &Params,
    result: Result<T>,
    started: Instant,
    seen: audit::Seen,
) -> Result<T> {
    let result = result.map_err(|e| e.speak(ctx.voice));
    let json = match &result {
        Ok(r) => to_json(Ok(r)),
        Err(e) => Err(e.clone()),
    };
    audit::record_seen(ctx, name, p, &json, started, seen);
    result
}

/// A result as it leaves for the caller: with `ctx.redact`, every string in it (the error's
/// message and details too) has its secrets replaced.
pub fn outgoing(ctx: &Ctx, result: Result<Value>) -> Result<Value> {
    if !ctx.redact {
        return result.map_err(|e| e.speak(ctx.voice));
    }
    match result {
        Ok(mut v) => {
            crate::safety::redact_value(&mut v);
            Ok(v)
        }
        Err(e) => Err(outgoing_error(ctx, e)),
    }
}

/// An error as it leaves for the caller: its hint said in the caller's vocabulary and, with
/// `ctx.redact`, its message and details with their secrets replaced.
pub fn outgoing_error(ctx: &Ctx, e: Error) -> Error {
    let mut e = e.speak(ctx.voice);
    if !ctx.redact {
        return e;
    }
    // kpty's own words stay; what the message quotes from outside is redacted.
    if let std::borrow::Cow::Owned(m) = crate::safety::redact_message(&e.message) {
        e.message = m;
    }
    if let Some(d) = e.details.as_mut() {
        d.redact();
    }
    e
}

impl From<crate::api::UnknownValue> for Error {
    fn from(e: crate::api::UnknownValue) -> Self {
        Error::invalid(e.to_string())
    }
}

/// A typed reply as the JSON object the front ends send: the one place a reply becomes JSON.
pub fn to_json<T: serde::Serialize>(reply: Result<T>) -> Result<Value> {
    reply.and_then(|r| {
        serde_json::to_value(r)
            .map_err(|e| Error::internal(format!("cannot serialize the reply: {e}")))
    })
}

/// Run one action, typed; not audited, not redacted (what `dispatch` and [`run`] add).
/// The parameters are validated once, into the action's typed request ([`request::parse`]).
fn run_action(ctx: &Ctx, action: Action, p: &Params) -> Result<Reply> {
    run_request(ctx, request::parse(ctx, action, p)?)
}

/// Run one validated request.
fn run_request(ctx: &Ctx, req: Request) -> Result<Reply> {
    Ok(match req {
        Request::Help => Reply::Help(help::help(ctx)),
        Request::List => Reply::List(list::list(ctx)?),
        Request::ListAll => Reply::ListAll(batch::list_all(ctx)),
        Request::Create(a) => Reply::Create(create::create(ctx, &a)?),
        Request::SendLine(a) => Reply::SendLine(io::send_line(ctx, &a)?),
        Request::Read(a) => Reply::Read(io::read(ctx, &a)?),
        Request::TermRead(a) => Reply::TermRead(term::term_read(ctx, &a)?),
        Request::Screenshot(a) => Reply::Screenshot(shot::screenshot(ctx, &a)?),
        Request::Recording(a) => Reply::Recording(rec::action::recording(ctx, &a)?),
        Request::Evidence(a) => Reply::Evidence(evidence::make(ctx, &a)?),
        Request::Talk(a) => Reply::Talk(talk::talk(ctx, &a)?),
        Request::Check(a) => Reply::Check(check::check(&a)?),
        Request::Resize(a) => Reply::Resize(control::resize(ctx, &a)?),
        Request::Kill(t) => Reply::Kill(control::kill(ctx, &t)?),
        Request::KillAll => Reply::KillAll(batch::kill_all(ctx)?),
        Request::Write => return Err(io::write_deprecated()),
        Request::Resolve(who) => Reply::Session(routing::resolve(ctx, &who)?),
        Request::SendLineToAgent(a) => Reply::SendLineToAgent(routing::send_line_to_agent(ctx, a)?),
        Request::UpdateOwnership(a) => Reply::Session(routing::update_ownership(ctx, &a)?),
        Request::Rename(a) => Reply::Session(routing::rename(ctx, &a)?),
        Request::Register(a) => Reply::Session(registered::register(ctx, &a)?),
        Request::Unregister(a) => Reply::Unregister(registered::unregister(ctx, &a)?),
        Request::Heartbeat(r) => Reply::Heartbeat(registered::heartbeat(ctx, &r)?),
        Request::Prune { force } => Reply::Prune(registered::prune(ctx, force)?),
        Request::SendKeys(a) => Reply::SendKeys(keys::send_keys(ctx, &a)?),
        Request::WaitFor(a) => Reply::WaitFor(wait::wait_for(ctx, &a)?),
        Request::Shell(a) => Reply::Shell(shells::shell(ctx, a)?),
    })
}

/// Run one action and always get its JSON: `{ok:true,…}` or `{ok:false, error_code,…}`.
pub fn dispatch_json(ctx: &Ctx, action: Action, p: &Params) -> Value {
    if let Some(host) = host_of(p) {
        return remote_json(ctx, host, action, p);
    }
    dispatch(ctx, action, p).unwrap_or_else(|e| e.to_json())
}

/// Run one action for a front end that can cancel it and show a talk's progress (`kpty
/// mcp`, a host answering a remote caller): a talk (or run) and a `wait_for` stop when
/// `running` is cancelled, a talk reports its `progress`, an action with `host` runs there
/// (its cancel passed on); any other action as [`dispatch_json`]. Its JSON as it leaves.
pub fn run_tracked(
    ctx: &Ctx,
    action: Action,
    p: &Params,
    running: &running::Running,
    progress: Option<running::Progress<'_>>,
) -> Value {
    if let Some(host) = host_of(p) {
        return run_remote(ctx, host, action, p, running, progress);
    }
    let reply = match action {
        Action::Talk | Action::Run => {
            let blocking = &converse::Blocking;
            return converse::block_now(talk_tracked(ctx, p, running, progress, blocking));
        }
        Action::WaitFor => to_json(wait::run_wait_for(ctx, p, running)),
        _ => return dispatch_json(ctx, action, p),
    };
    outgoing(ctx, reply).unwrap_or_else(|e| e.to_json())
}

/// [`run_tracked`]'s talk, reaching its holder and waiting through `via` (`kpty mcp` waits on
/// its event loop): its JSON as it leaves.
pub(crate) async fn talk_tracked(
    ctx: &Ctx,
    p: &Params,
    running: &running::Running,
    progress: Option<running::Progress<'_>>,
    via: &impl converse::Converse,
) -> Value {
    let reply = to_json(talk::run_talk_with(ctx, p, progress, running, via).await);
    outgoing(ctx, reply).unwrap_or_else(|e| e.to_json())
}

/// An action with `host`: run by the kpty on that host ([`crate::remote::action`]), and the
/// call recorded here as `remote` (the action's own audit is the host's).
fn remote_json(ctx: &Ctx, host: &str, action: Action, p: &Params) -> Value {
    run_remote(ctx, host, action, p, &running::Running::new(), None)
}

/// The host an action names (`host`, when not blank): such an action runs there, whichever
/// front end asked ([`dispatch_json`], [`run_tracked`]).
pub fn host_of(p: &Params) -> Option<&str> {
    p.host.as_deref().filter(|h| !h.trim().is_empty())
}

/// [`dispatch_json`] of an action that names a host, for a front end that cancels it
/// (`running`: a cancel asks the host to stop the action — a talk's command interrupted, a
/// wait ended — and waits for its answer) and shows a talk's progress (`progress`, as the
/// host's talk reports it, redacted there for the caller's channel).
fn run_remote(
    ctx: &Ctx,
    host: &str,
    action: Action,
    p: &Params,
    running: &running::Running,
    progress: Option<running::Progress<'_>>,
) -> Value {
    // The call's end is what a cancel waits for.
    let _done = running::Finish(running);
    let channel = match ctx.channel_name {
        "mcp" => "mcp",
        "http" => "http",
        _ => "json",
    };
    let noted = Params {
        command: Some(format!(
            "{}: {} {}",
            host.trim(),
            action.as_str(),
            p.command.as_deref().or(p.data.as_deref()).unwrap_or("")
        )),
        ..p.clone()
    };
    let answer = audited_as(ctx, "remote", &noted, || {
        let h = crate::remote::Host::parse(host.trim())?;
        let watch = |s: &std::os::unix::net::UnixStream| {
            running.calls_on(h.as_str(), s, crate::remote::action::cancel)
        };
        let (every, mut sink) = match progress {
            Some((every, sink)) => (Some(every), Some(sink)),
            None => (None, None),
        };
        let mut decode = |data: Vec<u8>| {
            if let (Some(sink), Ok(b)) = (sink.as_mut(), serde_json::from_slice(&data)) {
                sink(b);
            }
        };
        let progress = every.map(|e| (e, &mut decode as &mut dyn FnMut(Vec<u8>)));
        let v =
            crate::remote::action::call_watched(&h, action, p.clone(), channel, &watch, progress)?;
        Ok(v)
    });
    match answer {
        Ok(v) => v,
        Err(e) => e.speak(ctx.voice).to_json(),
    }
}
