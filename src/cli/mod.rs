//! The CLI front end: clap arguments → `Params` → the core → human text or `--json`.
//! It translates; the core decides. Exit codes: 0 on success, the command's own code for
//! `talk`, and the error code's table entry (see [`crate::error::ErrorCode::exit_code`]).

pub mod args;
pub mod assets;
mod attach;
pub mod attach_stream;
mod check;
pub mod complete;
mod console;
pub mod follow;
mod hosts;
mod kill_all;
mod list_all;
mod list_table;
pub mod log;
mod man;
mod output;
mod rawmode;
mod recording;
pub mod reference;
pub mod remote_action;
pub mod render;
mod replay;
mod serve_config;
mod shot;
mod stdin;
mod talk;
pub mod watch;

use crate::api::reply::TalkReply;
use crate::api::{Action, Params};
use crate::core::{self, Ctx};
use crate::error::{Error, Result};
use crate::store::StateDir;
use args::{Cli, Command};
use std::ffi::OsString;

/// The CLI's clap model, as [`parse`] builds it when no help is asked for: built ahead by a
/// process that waits for its arguments (a verb's process on a host).
pub fn model() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Parse the process's arguments with the CLI's clap model (which also knows `mcp` and
/// `serve`, so help, completion and man pages list them); a completion request is answered
/// here. A usage error is shown (as JSON with `--json`) and its exit code returned.
/// `model`: the clap model built ahead ([`model`]), else it is built now.
pub fn parse(argv: Vec<OsString>, model: Option<clap::Command>) -> std::result::Result<Cli, i32> {
    complete::answer_if_asked(&argv);
    let flags = || argv.iter().skip(1).take_while(|a| *a != "--");
    let wants_json = flags().any(|a| a == "--json");
    // The long help's closing text only when help may be shown (`--help`, `-h`, `help`).
    let command = if flags().any(|a| a == "--help" || a == "-h" || a == "help") {
        args::command()
    } else {
        model.unwrap_or_else(self::model)
    };
    let parsed = command.try_get_matches_from(argv).and_then(|mut m| {
        <Cli as clap::FromArgMatches>::from_arg_matches_mut(&mut m)
            .map_err(|e| e.format(&mut <Cli as clap::CommandFactory>::command()))
    });
    match parsed {
        Ok(c) => Ok(c.settle()),
        Err(e) if wants_json && e.use_stderr() => {
            // `--json` makes a usage error JSON too: INVALID_PARAMS, clap's text as details.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            let (given, candidates) = clap_suggestions(&e);
            let near = crate::api::suggest::closest(&given, candidates.iter().map(String::as_str));
            let message = format!(
                "{}{}",
                first.strip_prefix("error: ").unwrap_or(first),
                crate::api::suggest::clause(&near)
            );
            let err = Error::invalid(message).with_details(crate::error::details::Unknown {
                usage: Some(text.trim().to_string()),
                did_you_mean: near.into_iter().map(String::from).collect(),
                ..crate::error::details::Unknown::default()
            });
            render::print_json(&err.to_json());
            Err(e.exit_code())
        }
        Err(e) => {
            let _ = e.print();
            Err(e.exit_code())
        }
    }
}

/// Run a CLI verb (the roles `mcp` and `serve` are started by `crate::role`).
pub fn run(cli: Cli) -> Result<i32> {
    execute(cli)
}

/// Run a CLI verb by the kpty on `host` (`--host`): its exit code. The call is recorded in
/// this machine's audit trail as `remote` (host, verb, exit code); the verb's own audit is
/// the host's.
pub fn remote(host: &crate::remote::Host, dir: Option<&str>, args: &[String]) -> Result<i32> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::internal(format!("cannot read the working directory: {e}")))?;
    let state = match args::env_value("KPTY_STATE_DIR") {
        Some(d) => StateDir::at(d)?,
        None => StateDir::discover(&cwd),
    };
    let ctx = Ctx::new(state)?.on(core::Channel::Human);
    let p = crate::api::Params {
        host: Some(host.to_string()),
        command: Some(format!("{host}: kpty {}", crate::remote::shell_line(args))),
        ..Default::default()
    };
    core::audited_as(&ctx, "remote", &p, || {
        let stdin = stdin::has_input();
        crate::remote::run::argv(host, args, dir, stdin).map(|code| RemoteExit { exit_code: code })
    })
    .map(|r| r.exit_code)
}

/// What the audit trail records of a remote verb.
#[derive(serde::Serialize)]
struct RemoteExit {
    exit_code: i32,
}

/// The end of every role started from parsed arguments: audit events on their way to a
/// gateway get to arrive, and an error is shown (as JSON with `--json`); the exit code.
pub fn finish(json: bool, code: Result<i32>) -> i32 {
    // Bounded: a dead gateway never holds the command up for long.
    core::audit::flush(std::time::Duration::from_millis(500));
    match code {
        Ok(code) => code,
        Err(e) => {
            // Said in the CLI's words, whichever path the error took.
            let e = e.speak(crate::error::Voice::Cli);
            if json {
                render::print_json(&e.to_json());
            } else {
                render::print_error(&e);
            }
            e.code.exit_code()
        }
    }
}

/// A mistyped subcommand or flag and the names to suggest from, as kpty picks every
/// suggestion ([`crate::api::suggest`]): every listed command for a command, the flags clap
/// offers (its "tip: a similar argument exists") for a flag.
fn clap_suggestions(e: &clap::Error) -> (String, Vec<String>) {
    use clap::error::{ContextKind, ContextValue};
    let strings = |k| match e.get(k) {
        Some(ContextValue::String(s)) => vec![s.clone()],
        Some(ContextValue::Strings(v)) => v.clone(),
        _ => vec![],
    };
    if let Some(given) = strings(ContextKind::InvalidSubcommand).pop() {
        let commands = <Cli as clap::CommandFactory>::command();
        let names = commands
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| c.get_name().to_string())
            .collect();
        return (given, names);
    }
    let given = strings(ContextKind::InvalidArg).pop().unwrap_or_default();
    let candidates = [ContextKind::SuggestedSubcommand, ContextKind::SuggestedArg]
        .into_iter()
        .flat_map(strings)
        .collect();
    (given, candidates)
}

/// The context of the state directory the arguments (or the environment, or the working
/// directory) name.
pub(crate) fn ctx(cli: &Cli) -> Result<Ctx> {
    let given = (cli.globals.state_dir.clone())
        .or_else(|| args::env_value("KPTY_STATE_DIR").map(Into::into));
    let state = match &given {
        Some(d) => StateDir::at(d)?,
        None => {
            let cwd = std::env::current_dir()
                .map_err(|e| Error::internal(format!("cannot read the working directory: {e}")))?;
            StateDir::discover(&cwd)
        }
    };
    Ctx::new(state)
}

/// `ctx` with the sandbox floor of `kpty mcp|serve`'s flags (`--sandbox` overrides
/// `KPTY_SANDBOX`; the paths must exist and are resolved).
pub(crate) fn floored(mut ctx: Ctx, a: &args::FloorArgs, verb: &str) -> Result<Ctx> {
    use crate::sandbox::floor::Mode;
    let f = &mut ctx.floor;
    if let Some(m) = &a.sandbox {
        f.mode = m.parse::<Mode>().map_err(Error::invalid)?;
        f.origin = format!("{verb} --sandbox={m}");
    }
    let resolve = |p: &std::path::PathBuf, flag: &str| {
        std::path::absolute(p)
            .and_then(|p| p.canonicalize())
            .map_err(|e| Error::invalid(format!("{verb} {flag} {}: {e}", p.display())))
    };
    for p in &a.allow_write {
        f.allow_write.push(resolve(p, "--allow-write")?);
    }
    for p in &a.deny_read {
        f.deny_read
            .push(std::path::absolute(p).map_err(|e| Error::invalid(e.to_string()))?);
    }
    f.no_network |= a.no_network;
    if f.no_network || !f.allow_write.is_empty() || !f.deny_read.is_empty() {
        f.origin = format!("{} with {verb}'s sandbox flags", f.origin);
    }
    Ok(ctx)
}

/// How `kpty serve` listens, from its flags (checked by [`crate::serve::listen::Listen::new`]).
pub(crate) fn listen(a: &args::ListenArgs) -> Result<crate::serve::listen::Listen> {
    crate::serve::listen::Listen::new(a.bind, a.tls_cert.clone(), a.tls_key.clone(), a.insecure)
}

fn execute(cli: Cli) -> Result<i32> {
    if let Some(code) = local_verb(&cli)? {
        return Ok(code);
    }
    let (action, params) = action_of(&cli.command)?;
    run_action(&cli, action, params)
}

/// The verbs that are not actions (`log`, `attach`, `help COMMAND`, the batch verbs, `serve`'s
/// configuration verbs): run, with their exit code.
fn local_verb(cli: &Cli) -> Result<Option<i32>> {
    Ok(Some(match &cli.command {
        Command::Serve(a) if a.print_config => {
            serve_config::print(&ctx(cli)?, a, cli.globals.json)?
        }
        Command::Serve(a) if a.new_secret => {
            serve_config::new_secret(&ctx(cli)?, cli.globals.json)?
        }
        Command::Serve(a) if a.secret_file => {
            serve_config::secret_file(&ctx(cli)?, cli.globals.json)?
        }
        Command::Console(a) => console::run(&ctx(cli)?, a, cli.globals.json)?,
        Command::Log(a) => log::log(&ctx(cli)?, a, cli.globals.json)?,
        Command::Rec(a) => recording::run(&json_or_human(cli)?, &a.command, cli.globals.json)?,
        Command::Replay(a) => replay::run(&json_or_human(cli)?, a)?,
        Command::Gc(a) => recording::gc(&json_or_human(cli)?, a, cli.globals.json)?,
        Command::Hosts(a) => hosts::run(a, cli.globals.json)?,
        Command::List(a) if a.all_hosts => hosts::list_all(cli.globals.json)?,
        Command::Evidence(a) if a.command.is_some() => {
            recording::evidence(&json_or_human(cli)?, a, cli.globals.json)?
        }
        Command::Attach(a) => attach::run(&json_or_human(cli)?, a)?,
        Command::List(a) if a.all => list_all::run(&json_or_human(cli)?, cli.globals.json)?,
        Command::Kill(a) if a.all => kill_all::run(&json_or_human(cli)?, cli.globals.json)?,
        Command::Help(h) if h.command.is_some() => {
            render::clap_help(h.command.as_deref().unwrap_or_default())
        }
        // `kpty help` is `kpty --help`; `kpty --json help` is the help action's object.
        Command::Help(_) if !cli.globals.json => render::main_help(),
        _ => return Ok(None),
    }))
}

/// An action verb's action and parameters (its flags translated, nothing decided).
fn action_of(command: &Command) -> Result<(Action, Params)> {
    Ok(match command {
        Command::Help(_) => (Action::Help, Params::default()),
        Command::List(_) => (Action::List, Params::default()),
        Command::Create(a) => (Action::Create, create_params(a)?),
        Command::Check(a) => (Action::Check, check::params(a)?),
        _ => return io_action_of(command),
    })
}

/// A terminal I/O verb's action and parameters (`talk`, `send-line`, `send-keys`, `read`,
/// `wait-for`, `term-read`); any other verb goes on to [`session_action_of`].
fn io_action_of(command: &Command) -> Result<(Action, Params)> {
    Ok(match command {
        Command::Talk(a) => (
            Action::Talk,
            Params {
                command: Some(a.command.join(" ")),
                timeout_ms: a.timeout_ms,
                sentinel: a.sentinel.clone(),
                max_chars: a.max_chars,
                force: a.force.then_some(true),
                evidence: a.evidence.then_some(true),
                ..who(&a.session)
            },
        ),
        Command::SendLine(a) => (
            Action::SendLine,
            Params {
                data: Some(a.data.clone()),
                ..who(&a.session)
            },
        ),
        Command::SendKeys(a) => (
            Action::SendKeys,
            Params {
                keys: Some(a.keys.clone()),
                literal: a.literal.then_some(true),
                ..who(&a.session)
            },
        ),
        Command::Read(a) => (
            Action::Read,
            Params {
                max_bytes: a.max_bytes,
                timeout_ms: a.timeout_ms,
                since: a.since,
                strip_ansi: Some(a.strip_ansi),
                ..who(&a.session)
            },
        ),
        Command::WaitFor(a) => (
            Action::WaitFor,
            Params {
                pattern: a.pattern.clone(),
                quiet_ms: a.quiet_ms,
                prompt: a.prompt.then_some(true),
                screen: a.screen.then_some(true),
                since: a.since,
                timeout_ms: a.timeout_ms,
                max_bytes: a.max_bytes,
                strip_ansi: a.no_strip_ansi.then_some(false),
                ..who(&a.session)
            },
        ),
        Command::Evidence(a) => (
            Action::Evidence,
            Params {
                from: a.from.clone(),
                note: a.note.clone(),
                ..who(&a.session)
            },
        ),
        Command::Screenshot(a) => (
            Action::Screenshot,
            Params {
                format: Some(a.format.clone()),
                ..who(&a.session)
            },
        ),
        Command::TermRead(a) => (
            Action::TermRead,
            Params {
                mode: Some(a.mode.clone()),
                max_lines: a.max_lines,
                max_chars: a.max_chars,
                marker_id: a.marker,
                merge_wrapped: Some(!a.no_merge_wrapped),
                ..who(&a.session)
            },
        ),
        _ => return session_action_of(command),
    })
}

/// A session verb's action and parameters (`resize`, `rename`, `shell`, `kill`); any other
/// verb goes on to [`routing_action_of`].
fn session_action_of(command: &Command) -> Result<(Action, Params)> {
    Ok(match command {
        Command::Resize(a) => (
            Action::Resize,
            Params {
                cols: Some(a.cols),
                rows: Some(a.rows),
                ..who(&a.session)
            },
        ),
        Command::Rename(a) => (
            Action::Rename,
            Params {
                session_id: a
                    .session
                    .clone()
                    .or_else(|| args::env_value("KPTY_SESSION")),
                label: Some(a.new_label.clone()),
                ..Default::default()
            },
        ),
        Command::Shell(a) => (
            Action::Shell,
            Params {
                command: a.command.clone(),
                timeout_ms: a.timeout_ms,
                cols: a.cols,
                rows: a.rows,
                ..who(&a.session)
            },
        ),
        Command::Kill(a) => (
            Action::Kill,
            Params {
                session_id: a.session.clone().or_else(|| a.session_flag.clone()),
                agent_id: a.agent.clone(),
                label: a.label.clone(),
                ..Default::default()
            },
        ),
        _ => return routing_action_of(command),
    })
}

fn routing_action_of(command: &Command) -> Result<(Action, Params)> {
    Ok(match command {
        Command::Resolve(a) => (Action::Resolve, identity(a)),
        Command::SendLineToAgent(a) => (
            Action::SendLineToAgent,
            Params {
                data: Some(a.data.clone()),
                ..identity(&a.who)
            },
        ),
        Command::UpdateOwnership(a) => (
            Action::UpdateOwnership,
            Params {
                session_id: Some(a.session.clone()),
                ..owner(&a.owner)
            },
        ),
        Command::Register(a) => (
            Action::Register,
            Params {
                session_id: Some(a.session.clone()),
                desktop_url: a.desktop_url.clone(),
                source: a.source.clone(),
                pid: a.pid,
                ..owner(&a.owner)
            },
        ),
        Command::Unregister(a) => (
            Action::Unregister,
            Params {
                session_id: Some(a.session.clone()),
                force: Some(a.force),
                ..Default::default()
            },
        ),
        Command::Heartbeat(a) => (
            Action::Heartbeat,
            Params {
                session_id: Some(a.session.clone()),
                ..Default::default()
            },
        ),
        Command::Prune(a) => (
            Action::Prune,
            Params {
                // The CLI's prune removes ended sessions unless told to only look.
                force: Some(!a.dry_run),
                ..Default::default()
            },
        ),
        // Roles and local verbs are run by `local_verb` before this is asked.
        _ => return Err(Error::internal("not an action verb")),
    })
}

/// The context for a verb's output channel: `--json` (redacted unless --no-redact) or human.
fn json_or_human(cli: &Cli) -> Result<Ctx> {
    Ok(ctx(cli)?.on(if cli.globals.json {
        core::Channel::Json {
            no_redact: cli.globals.no_redact,
        }
    } else {
        core::Channel::Human
    }))
}

/// Run an action verb and show its reply: human text, or the JSON object with `--json`.
fn run_action(cli: &Cli, action: Action, params: Params) -> Result<i32> {
    let ctx = json_or_human(cli)?;
    if let Command::Screenshot(a) = &cli.command {
        shot::refuse_terminal(a, cli.globals.json)?;
    }
    if let Command::Read(a) = &cli.command
        && a.follow
    {
        return follow::follow(&ctx, params, cli.globals.json);
    }
    if let Command::TermRead(a) = &cli.command
        && a.watch
    {
        return watch::watch(&ctx, params);
    }
    let result = if let Command::Talk(a) = &cli.command {
        talk::talk(&ctx, &params, a.no_stdin).map(core::Reply::Talk)
    } else {
        core::run(&ctx, action, &params)
    };
    let ended = match &result {
        Err(e) if action == Action::Talk => shell_ended(e),
        _ => None,
    };
    if let (Command::Screenshot(a), Ok(core::Reply::Screenshot(r))) = (&cli.command, &result)
        && shot::deliver(a, r, cli.globals.json)?
    {
        return Ok(0);
    }
    let code = match &result {
        Ok(core::Reply::Talk(t)) => talk_exit_code(t),
        Ok(core::Reply::Check(c)) => check::exit_code(c),
        _ => ended.unwrap_or(0),
    };
    if cli.globals.json {
        match (core::outgoing(&ctx, core::to_json(result)), ended) {
            (Ok(v), _) => render::print_json(&v),
            // The command ended the shell: the error object, and the shell's exit code.
            (Err(e), Some(_)) => render::print_json(&e.to_json()),
            (Err(e), None) => return Err(e),
        }
    } else {
        match result {
            Ok(r) => render::human(&r),
            Err(e) => {
                render::before_error(&e);
                let Some(code) = ended else { return Err(e) };
                // The command ended the shell (`exit 3`): exit with its code, as ssh does,
                // and say what became of the session.
                let next = if params.session_id.is_none() {
                    "the next `kpty talk` starts a new default session"
                } else {
                    "start another with `kpty create`"
                };
                let id = e
                    .details
                    .as_ref()
                    .and_then(|d| d.session_id())
                    .unwrap_or("?");
                eprintln!("kpty: session {id} has ended: its shell exited with {code}; {next}");
            }
        }
    }
    Ok(code)
}

/// The shell's exit code when a talk's own command ended the shell (`exit 3`); a talk refused
/// because the session had already ended is an error (118), not the old exit code.
fn shell_ended(e: &Error) -> Option<i32> {
    let code = e.details.as_ref()?.exit_code()?;
    (e.cause == Some(crate::error::Cause::EndedDuringCall)).then_some((code & 0xff) as i32)
}

/// `kpty talk` exits with the command's own status (as ssh does), clamped to 0..=255;
/// [`TALK_WAITING_EXIT`] when the command has not completed but waits for input.
fn talk_exit_code(t: &TalkReply) -> i32 {
    if t.waiting_for_input {
        return TALK_WAITING_EXIT;
    }
    t.exit_code.map(|c| (c & 0xff) as i32).unwrap_or(0)
}

/// `kpty talk`'s exit code when its command waits for input (not finished; no error).
pub(crate) const TALK_WAITING_EXIT: i32 = 123;

/// The session-naming flags as parameters.
fn who(s: &args::SessionArg) -> Params {
    Params {
        session_id: s.named(),
        agent_id: s.agent.clone(),
        label: s.label.clone(),
        ..Default::default()
    }
}

fn identity(a: &args::IdentityArgs) -> Params {
    Params {
        agent_id: a.agent_id.clone(),
        owner_session_id: a.owner_session_id.clone(),
        claude_code_session_id: a.claude_code_session_id.clone(),
        label: a.label.clone(),
        ..Default::default()
    }
}

fn owner(a: &args::OwnerArgs) -> Params {
    Params {
        owner_agent_id: a.owner_agent_id.clone(),
        owner_session_id: a.owner_session_id.clone(),
        claude_code_session_id: a.claude_code_session_id.clone(),
        owner_role: a.owner_role.clone(),
        label: a.label.clone(),
        cli_type: a.cli_type.clone(),
        ..Default::default()
    }
}

fn nonempty(v: &[String]) -> Option<Vec<String>> {
    (!v.is_empty()).then(|| v.to_vec())
}

fn create_params(a: &args::CreateArgs) -> Result<Params> {
    let mut env = std::collections::BTreeMap::new();
    for kv in &a.env {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| Error::invalid(format!("--env {kv:?} must be KEY=VALUE")))?;
        env.insert(k.to_string(), v.to_string());
    }
    Ok(Params {
        shell: a.shell.clone(),
        cwd: a.cwd.clone(),
        cols: a.cols,
        rows: a.rows,
        scrollback: a.scrollback,
        timeout_ms: a.timeout_ms,
        env: (!env.is_empty()).then_some(env),
        sandbox: if a.sandbox.no_sandbox {
            Some(false)
        } else {
            a.sandbox.sandbox.then_some(true)
        },
        allow_write: nonempty(&a.sandbox.allow_write),
        deny_read: nonempty(&a.sandbox.deny_read),
        network: a.sandbox.no_network.then_some(false),
        command: a.program.command.clone(),
        auto_restart: a.program.auto_restart.then_some(true),
        restart_delay_ms: a.program.restart_delay_ms,
        input_filter: if a.program.no_input_filter {
            Some(false)
        } else {
            a.program.input_filter.then_some(true)
        },
        block_sequences: nonempty(&a.program.block_sequence),
        ctrl_c_debounce_ms: a.program.ctrl_c_debounce_ms,
        record: if a.no_record {
            Some(false)
        } else {
            a.record.then_some(true)
        },
        ..owner(&a.owner)
    })
}
