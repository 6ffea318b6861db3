//! The one validating function: `(Action, Params)` → `Request`, the typed request each
//! action function takes. Every front end reaches it through [`super::run`] (the CLI, MCP
//! and `kpty serve` alike). Checks run in the order the actions always made them, so that a
//! call with several faults gets the same error as before; the checks themselves stay with
//! the rule they apply (`validate::check_size`, `validate::check_identity` …).

use super::{Ctx, config, typed, validate};
use crate::api::request::Owner;
use crate::api::request::{
    CheckArgs, CreateArgs, Identity, OwnershipArgs, ReadArgs, RegisterArgs, Request, ResizeArgs,
    ScreenshotArgs, SendKeysArgs, SendLineArgs, ShellArgs, ShotFormat, TalkArgs, Target,
    TermReadArgs, ToAgentArgs, UnregisterArgs, WaitForArgs,
};
use crate::api::{self, Action, Params, SessionId};
use crate::error::{Error, Result};
use crate::safety::Opacity;

/// Validate `p` as `action`'s request. The caller's environment identity (`ctx.env_identity`)
/// fills in `create`'s and `register`'s owner where the call names none.
pub fn parse(ctx: &Ctx, action: Action, p: &Params) -> Result<Request> {
    Ok(match action {
        Action::Help => Request::Help,
        Action::List if p.all == Some(true) => Request::ListAll,
        Action::List => Request::List,
        Action::Write => Request::Write,
        Action::Create => Request::Create(Box::new(create_args(ctx, p)?)),
        Action::SendLine => Request::SendLine(send_line(Target::of(p), p.data.as_deref())?),
        Action::Read => Request::Read(read(p)?),
        Action::TermRead => Request::TermRead(term_read(p)?),
        Action::Screenshot => Request::Screenshot(screenshot(p)?),
        Action::Recording => Request::Recording(recording(p)?),
        Action::Evidence => Request::Evidence(evidence(p)?),
        Action::Talk | Action::Run => Request::Talk(talk(p)?),
        Action::Check => Request::Check(check(p)?),
        Action::Resize => Request::Resize(resize(p)?),
        Action::Kill if p.all == Some(true) => match Target::of(p) {
            Target::Default => Request::KillAll,
            _ => {
                return Err(Error::invalid(
                    "kill with `all` names no session: it ends every local session of the state directory",
                ));
            }
        },
        Action::Kill => Request::Kill(kill(p)?),
        Action::Resolve => Request::Resolve(identity(p)?),
        Action::SendLineToAgent => Request::SendLineToAgent(to_agent(p)?),
        Action::Register => Request::Register(Box::new(register(ctx, p)?)),
        Action::Unregister => Request::Unregister(UnregisterArgs {
            session_id: external_id(p, "unregister")?,
            force: p.force.unwrap_or(false),
        }),
        Action::Heartbeat => Request::Heartbeat(
            named(p).ok_or_else(|| Error::invalid("heartbeat needs `session_id`"))?,
        ),
        Action::UpdateOwnership => Request::UpdateOwnership(ownership(p, action)?),
        Action::Rename => Request::Rename(rename(p)?),
        Action::Prune => Request::Prune {
            force: p.force.unwrap_or(false),
        },
        Action::SendKeys => Request::SendKeys(send_keys(p)?),
        Action::WaitFor => Request::WaitFor(wait_for(p)?),
        Action::Shell => Request::Shell(shell(p)),
    })
}

/// `session_id` when given and not blank.
fn named(p: &Params) -> Option<String> {
    p.session_id
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// A timeout in `1..=MAX_TIMEOUT_MS`.
fn timeout(ms: u64) -> Result<u64> {
    if ms == 0 || ms > api::MAX_TIMEOUT_MS {
        return Err(Error::invalid(format!(
            "timeout_ms must be 1..={}",
            api::MAX_TIMEOUT_MS
        )));
    }
    Ok(ms)
}

/// A `read` / `wait_for` size in `1..=MAX_READ_BYTES`.
fn max_bytes(n: usize) -> Result<usize> {
    if n == 0 || n > api::MAX_READ_BYTES {
        return Err(Error::invalid(format!(
            "max_bytes must be 1..={}",
            api::MAX_READ_BYTES
        )));
    }
    Ok(n)
}

/// Text a caller types: at most [`api::MAX_INPUT_BYTES`], escapes decoded.
fn typed_text(what: &str, raw: &str) -> Result<String> {
    typed::check_size(what, raw)?;
    typed::unescape(what, raw)
}

/// `create`'s simple options, in the order `create` checks them; the launch options are
/// judged by `create` itself.
pub fn create_args(ctx: &Ctx, p: &Params) -> Result<CreateArgs> {
    let p = validate::with_env_owner(ctx, p)?;
    let shell = p
        .shell
        .clone()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(config::default_shell);
    let cols = p.cols.unwrap_or_else(config::default_cols);
    let rows = p.rows.unwrap_or_else(config::default_rows);
    validate::check_size(cols, rows)?;
    let ready_timeout_ms = match p.timeout_ms {
        None => config::ready_timeout_ms(),
        Some(t) => timeout(t)?,
    };
    if let Some(n) = p.scrollback
        && n as usize > api::MAX_SCROLLBACK
    {
        return Err(Error::invalid(format!(
            "scrollback {n} is out of range (0-{} lines)",
            api::MAX_SCROLLBACK
        )));
    }
    owner_checked(&p, true)?;
    let env = p.env.clone().unwrap_or_default();
    if let Some(k) = env
        .keys()
        .find(|k| k.is_empty() || k.contains('=') || k.contains('\0'))
    {
        return Err(Error::invalid(format!(
            "environment variable name {k:?} is invalid"
        )));
    }
    Ok(CreateArgs {
        shell,
        cols,
        rows,
        env,
        ready_timeout_ms,
        scrollback: p.scrollback.map_or_else(config::scrollback, |n| n as usize),
        owner: Owner::of(&p),
        params: p,
    })
}

/// The label, the identity fields and the role, checked: label first when `label_first`
/// (`create`), else after the secret check (`register` checks role then label after it).
fn owner_checked(p: &Params, label_first: bool) -> Result<()> {
    if label_first && let Some(l) = &p.label {
        validate::check_label(l)?;
    }
    validate::check_not_secret(p)?;
    if let Some(role) = &p.owner_role {
        super::validate::check_role(role)?;
    }
    if !label_first && let Some(l) = &p.label {
        validate::check_label(l)?;
    }
    Ok(())
}

/// `send_line`'s line (also `send_line_to_agent`'s): the text typed, then Enter, judged as
/// the shell's line editor would submit it.
pub fn send_line(target: Target, data: Option<&str>) -> Result<SendLineArgs> {
    let data = data.ok_or_else(|| Error::invalid("send_line needs `data`: the text to type"))?;
    let line: String = typed_text("data", data)?
        .chars()
        .filter(|c| *c != '\r' && *c != '\n')
        .collect();
    typed::check_typed(&format!("{line}\r"), Opacity::Ignore)?;
    Ok(SendLineArgs { target, line })
}

/// `read`'s request, checked (also for the reads `kpty serve` and the follow loops make).
pub fn read(p: &Params) -> Result<ReadArgs> {
    let max = max_bytes(p.max_bytes.unwrap_or(api::DEFAULT_READ_MAX_BYTES))?;
    let timeout_ms = p.timeout_ms.unwrap_or(api::DEFAULT_READ_TIMEOUT_MS);
    if timeout_ms > api::MAX_TIMEOUT_MS {
        return Err(Error::invalid(format!(
            "timeout_ms must be at most {}",
            api::MAX_TIMEOUT_MS
        )));
    }
    Ok(ReadArgs {
        target: Target::of(p),
        since: p.since,
        max_bytes: max,
        timeout_ms,
        strip_ansi: p.strip_ansi.unwrap_or(false),
    })
}

/// `term_read`'s request, checked (also for `kpty term-read --watch`).
pub fn term_read(p: &Params) -> Result<TermReadArgs> {
    if config::term_buffer_access() == "off" {
        return Err(Error::new(
            crate::error::ErrorCode::TermReadDisabled,
            "reading the rendered screen is disabled (KPTY_TERM_READ=off)",
        )
        .with_hint(crate::error::Hint::TermReadOff));
    }
    Ok(TermReadArgs {
        request: super::queries::term_read(p)?,
        target: Target::of(p),
    })
}

/// `screenshot`'s request, checked.
pub fn screenshot(p: &Params) -> Result<ScreenshotArgs> {
    let format = match p.format.as_deref().map(str::trim) {
        None | Some("") => ShotFormat::default(),
        Some(f) => ShotFormat::parse(&f.to_ascii_lowercase()).ok_or_else(|| {
            Error::invalid(format!(
                "format {f:?} is not one of {}",
                ShotFormat::NAMES.join(", ")
            ))
        })?,
    };
    Ok(ScreenshotArgs {
        target: Target::of(p),
        format,
    })
}

/// `recording`'s request, checked.
pub fn recording(p: &Params) -> Result<crate::api::request::RecordingArgs> {
    use crate::api::evidence::RecFormat;
    let format = match p.format.as_deref().map(str::trim) {
        None | Some("") => RecFormat::default(),
        Some(f) => RecFormat::parse(&f.to_ascii_lowercase()).ok_or_else(|| {
            Error::invalid(format!(
                "format {f:?} is not one of {}",
                RecFormat::NAMES.join(", ")
            ))
        })?,
    };
    if p.max_chars == Some(0) {
        return Err(Error::invalid("max_chars must be at least 1"));
    }
    Ok(crate::api::request::RecordingArgs {
        target: Target::of(p),
        format,
        from: from_text(p)?,
        max_chars: p.max_chars,
    })
}

/// `evidence`'s request, checked.
pub fn evidence(p: &Params) -> Result<crate::api::request::EvidenceArgs> {
    let note = match p.note.as_deref() {
        Some(n) if n.chars().count() > 2000 => {
            return Err(Error::invalid("note is longer than 2000 characters"));
        }
        Some(n) if n.chars().any(|c| c.is_control() && c != '\n' && c != '\t') => {
            return Err(Error::invalid("note has control characters"));
        }
        n => n.map(str::to_string),
    };
    Ok(crate::api::request::EvidenceArgs {
        target: Target::of(p),
        from: from_text(p)?,
        note,
        agent_id: p.agent_id.clone(),
    })
}

/// `from`, checked: one line of printable text, at most 500 characters.
fn from_text(p: &Params) -> Result<Option<String>> {
    match p.from.as_deref() {
        None => Ok(None),
        Some(f) if f.trim().is_empty() => Err(Error::invalid(
            "from is empty: give a marker's text or a time (90, 1m30s, 01:30)",
        )),
        Some(f) if f.chars().count() > 500 || f.chars().any(char::is_control) => Err(
            Error::invalid("from must be one line of at most 500 characters"),
        ),
        Some(f) => Ok(Some(f.to_string())),
    }
}

/// `talk`'s request, checked; used by [`parse`] and by the front ends that run a talk with
/// progress (`super::talk::talk_audited`).
pub fn talk(p: &Params) -> Result<TalkArgs> {
    let raw = p
        .command
        .as_deref()
        .ok_or_else(|| Error::invalid("talk needs `command`: the command to run"))?;
    let command = typed_text("command", raw)?;
    if command.trim().is_empty() {
        return Err(Error::invalid("talk needs a non-empty `command`"));
    }
    // Judged where it is typed: by the session's holder with what is on the line (and the
    // shell's state), before a bridged session gets it, before a default session is made.
    if let Some(s) = &p.sentinel {
        super::validate::check_sentinel(s)?;
    }
    if p.max_chars == Some(0) {
        return Err(Error::invalid("max_chars must be at least 1"));
    }
    Ok(TalkArgs {
        target: Target::of(p),
        command,
        sentinel: p.sentinel.clone(),
        timeout_ms: timeout(p.timeout_ms.unwrap_or_else(config::talk_timeout_ms))?,
        max_chars: p.max_chars,
        include_raw: p.include_raw,
        force: p.force.unwrap_or(false),
        agent_id: p.agent_id.clone(),
        evidence: p.evidence.unwrap_or(false),
    })
}

/// `check`'s command, checked.
pub fn check(p: &Params) -> Result<CheckArgs> {
    let raw = p.command.as_deref().ok_or_else(|| {
        Error::invalid("check needs `command`: the command to judge, as talk would type it")
    })?;
    let command = typed_text("command", raw)?;
    if command.trim().is_empty() {
        return Err(Error::invalid("check needs a non-empty `command`"));
    }
    Ok(CheckArgs { command })
}

fn resize(p: &Params) -> Result<ResizeArgs> {
    let (Some(cols), Some(rows)) = (p.cols, p.rows) else {
        return Err(Error::invalid("resize needs `cols` and `rows`"));
    };
    validate::check_size(cols, rows)?;
    Ok(ResizeArgs {
        target: Target::of(p),
        cols,
        rows,
    })
}

fn kill(p: &Params) -> Result<Target> {
    match Target::of(p) {
        Target::Default => Err(Error::invalid(
            "kill needs `session_id` (an id, unique prefix, or label) or an owner identity",
        )),
        t => Ok(t),
    }
}

/// The routing keys of `resolve`: at least one.
fn identity(p: &Params) -> Result<Identity> {
    let who = Identity::of(p);
    if !who.is_given() {
        return Err(Error::invalid(
            "resolve needs at least one of agent_id, owner_session_id, claude_code_session_id, label",
        ));
    }
    Ok(who)
}

fn to_agent(p: &Params) -> Result<ToAgentArgs> {
    if p.data.is_none() {
        return Err(Error::invalid(
            "send_line_to_agent needs `data`: the text to type",
        ));
    }
    let identity = identity(p)?;
    Ok(ToAgentArgs {
        identity,
        line: send_line(Target::Default, p.data.as_deref()).map(|a| a.line),
    })
}

/// An external session's id: given, well-formed, not a local PTY's form.
fn external_id(p: &Params, action: &str) -> Result<SessionId> {
    let id = named(p).ok_or_else(|| Error::invalid(format!("{action} needs `session_id`")))?;
    let id = SessionId::parse(&id)?;
    if id.pty_parts().is_some() {
        // `S.N` is how kpty keeps PTY N of its own session S: never an external id.
        return Err(Error::invalid(format!(
            "session id {id:?} has the form kpty keeps for a local session's shell PTY; pick another"
        )));
    }
    Ok(id)
}

fn register(ctx: &Ctx, p: &Params) -> Result<RegisterArgs> {
    let p = validate::with_env_owner(ctx, p)?;
    let session_id = external_id(&p, "register")?;
    validate::check_not_secret(&p)?;
    let (source, desktop_url) = validate::where_it_lives(&p)?;
    owner_checked(&p, false)?;
    Ok(RegisterArgs {
        session_id,
        source,
        desktop_url,
        owner: Owner::of(&p),
        pid: p.pid,
        cwd: p.cwd.clone(),
    })
}

fn ownership(p: &Params, action: Action) -> Result<OwnershipArgs> {
    let session = named(p)
        .ok_or_else(|| Error::invalid(format!("{} needs `session_id`", action.as_str())))?;
    if let Some(role) = &p.owner_role {
        super::validate::check_role(role)?;
    }
    if let Some(l) = &p.label {
        validate::check_label(l)?;
    }
    validate::check_not_secret(p)?;
    Ok(OwnershipArgs {
        session,
        owner: Owner::of(p),
    })
}

fn rename(p: &Params) -> Result<OwnershipArgs> {
    let Some(label) = p.label.as_deref() else {
        return Err(Error::invalid("rename needs the new `label`"));
    };
    let only_label = Params {
        session_id: p.session_id.clone(),
        label: Some(label.to_string()),
        ..Default::default()
    };
    ownership(&only_label, Action::Rename)
}

fn send_keys(p: &Params) -> Result<SendKeysArgs> {
    let keys = p.keys.clone().unwrap_or_default();
    if keys.is_empty() {
        return Err(Error::invalid(format!(
            "send_keys needs `keys`: the keys to press, e.g. [\"C-c\"] or [\"Up\", \"Enter\"]; {}",
            crate::keys::KEY_HELP
        )));
    }
    let encoded = crate::keys::encode(&keys, p.literal.unwrap_or(false)).map_err(|e| {
        Error::invalid(e.to_string()).with_details(crate::error::details::Keys {
            key: e.key.to_string(),
            keys: keys.clone(),
        })
    })?;
    for bytes in [&encoded.normal, &encoded.app_cursor] {
        typed::check_size("keys", bytes)?;
    }
    for bytes in [&encoded.normal, &encoded.app_cursor] {
        typed::check_typed(bytes, Opacity::Ignore)?;
    }
    Ok(SendKeysArgs {
        target: Target::of(p),
        keys,
        encoded,
    })
}

pub(super) fn wait_for(p: &Params) -> Result<WaitForArgs> {
    Ok(WaitForArgs {
        request: super::queries::wait_for(p)?,
        strip_ansi: p.strip_ansi.unwrap_or(true),
        target: Target::of(p),
    })
}

/// `shell`'s checks, kept for the action to raise after it found the session.
fn shell(p: &Params) -> ShellArgs {
    let size = match (p.cols, p.rows) {
        (Some(c), Some(r)) => validate::check_size(c, r).map(|()| (p.cols, p.rows)),
        _ => Ok((p.cols, p.rows)),
    };
    ShellArgs {
        target: Target::of(p),
        program: super::validate::program_of(p),
        size,
        ready_timeout_ms: p.timeout_ms.map(timeout).transpose(),
    }
}
