//! Which role the binary plays, decided once, here, from its arguments; each role's entry
//! lives in its own module:
//! - [`Role::Holder`] — `kpty __holder`, a session's holder ([`crate::holder::main`]), picked
//!   before any parsing (a long-lived holder need not pay for it);
//! - [`Role::SandboxExec`] — `kpty __sandbox-exec`, a sandboxed session's shell on its way to
//!   exec ([`crate::sandbox::exec::main`]), likewise;
//! - [`Role::Assets`] — the maintainers' `kpty __generate-assets` ([`crate::cli::assets`]),
//!   outside the clap model so never offered by completion;
//! - [`Role::ChannelServer`] and [`Role::Channel`] — `kpty __mux` and `kpty __ssh-mux`, the
//!   two ends of the channel to another host ([`crate::remote::server`], [`crate::remote::mux`]);
//! - [`Role::AttachStream`] — `kpty __attach-stream`, a web console's view of a session here
//!   from another machine ([`crate::cli::attach_stream`]);
//! - [`Role::Mcp`] — `kpty mcp`, the stdio MCP server ([`crate::mcp::run`]);
//! - [`Role::Serve`] — `kpty serve`, the HTTP server ([`crate::serve::run`]);
//! - [`Role::Cli`] — every other verb ([`crate::cli::run`]).
//!
//! `mcp` and `serve` are parsed by the CLI's clap model like every verb (so help, completion
//! and man pages list their flags), then leave the CLI here.

use crate::cli::{self, args};
use crate::error::{Error, Result};
use std::ffi::OsString;

/// The role the process plays, with what it needs to start.
pub enum Role {
    /// A session's holder.
    Holder,
    /// A sandboxed shell on its way to exec, with the arguments after the subcommand.
    SandboxExec(Vec<OsString>),
    /// The maintainers' asset generator, with the arguments after the subcommand.
    Assets(Vec<OsString>),
    /// The stdio MCP server.
    Mcp(Box<args::Cli>),
    /// The HTTP server.
    Serve(Box<args::Cli>),
    /// A CLI verb.
    Cli(Box<args::Cli>),
    /// A CLI verb for the kpty on another host (`--host`, `KPTY_HOST`): the host, the
    /// directory there, the arguments for it, and whether they ask for JSON.
    Remote(crate::remote::Host, Option<String>, Vec<String>, bool),
    /// `kpty __action`: one action for a kpty elsewhere, over ssh ([`crate::remote::action`]).
    RemoteAction,
    /// `kpty __mux`: the host's end of a channel to it ([`crate::remote::server`]).
    ChannelServer,
    /// `kpty __ssh-mux`: this machine's channel to a host ([`crate::remote::mux`]).
    Channel,
    /// `kpty __attach-stream`: a web console's view of a session here, from another machine
    /// ([`crate::cli::attach_stream`]).
    AttachStream,
    /// `kpty __verb`: a verb's process on a host, waiting for its arguments
    /// ([`crate::remote::server::take_verb`]).
    ChannelVerb,
    /// Nothing to run: the arguments did not parse (the error was shown) or a completion
    /// request was answered; exit with this code.
    Exit(i32),
}

impl Role {
    /// The role `argv` (the process's arguments, program name first) asks for.
    pub fn of(argv: Vec<OsString>) -> Self {
        Self::of_with(argv, None)
    }

    /// [`Role::of`], parsing with `model` when given: the CLI's clap model built already
    /// ([`cli::model`]), as a verb's process on a host builds it while it waits.
    fn of_with(argv: Vec<OsString>, model: Option<clap::Command>) -> Self {
        match argv.get(1) {
            Some(a) if a == "__holder" => return Self::Holder,
            Some(a) if a == crate::sandbox::exec::SUBCOMMAND => {
                return Self::SandboxExec(argv[2..].to_vec());
            }
            Some(a) if a == cli::assets::SUBCOMMAND => return Self::Assets(argv[2..].to_vec()),
            Some(a) if a == crate::remote::action::SUBCOMMAND => return Self::RemoteAction,
            Some(a) if a == crate::remote::server::SUBCOMMAND => return Self::ChannelServer,
            Some(a) if a == crate::remote::server::VERB => return Self::ChannelVerb,
            Some(a) if a == crate::remote::mux::SUBCOMMAND => return Self::Channel,
            Some(a) if a == crate::remote::join::SUBCOMMAND => return Self::AttachStream,
            _ => {}
        }
        let argv_copy = argv.clone();
        let cli = match cli::parse(argv, model) {
            Ok(c) => Box::new(c),
            Err(code) => return Self::Exit(code),
        };
        if let Some(role) = Self::remote(&argv_strings(&argv_copy), &cli) {
            return role;
        }
        match &cli.command {
            args::Command::Mcp(_) => Self::Mcp(cli),
            args::Command::Serve(a) if !(a.print_config || a.new_secret || a.secret_file) => {
                Self::Serve(cli)
            }
            _ => Self::Cli(cli),
        }
    }

    /// The remote role, when `--host` (or `KPTY_HOST`, for a verb that can run elsewhere)
    /// names a host.
    fn remote(argv: &[String], cli: &args::Cli) -> Option<Self> {
        let (flag, dir, rest) = crate::remote::run::split_argv(argv.get(1..).unwrap_or(&[]));
        let env = crate::api::config::var("KPTY_HOST").filter(|h| !h.trim().is_empty());
        let local_only = matches!(
            cli.command,
            args::Command::Mcp(_)
                | args::Command::Serve(_)
                | args::Command::Console(_)
                | args::Command::Hosts(_)
                | args::Command::Help(_)
        ) || matches!(&cli.command, args::Command::List(l) if l.all_hosts);
        let name = match (flag, env) {
            (Some(h), _) => h,
            (None, Some(h)) if !local_only => h,
            _ => return None,
        };
        let json = cli.globals.json;
        match crate::remote::Host::parse(name.trim()) {
            Ok(h) => Some(Self::Remote(h, dir, rest, json)),
            Err(e) => Some(Self::Exit(cli::finish(json, Err(e)))),
        }
    }

    /// Play the role; returns the exit code.
    pub fn run(self) -> i32 {
        match self {
            Self::RemoteAction => cli::remote_action::main(),
            Self::ChannelServer => {
                crate::init_logging("warn");
                crate::remote::server::main(crate::remote::server::Answer {
                    call: cli::remote_action::answer,
                    unreadable: cli::remote_action::unreadable,
                })
            }
            Self::Channel => {
                crate::init_logging("warn");
                crate::remote::mux::main()
            }
            Self::AttachStream => {
                crate::init_logging("warn");
                cli::attach_stream::main()
            }
            // The clap model is built while the process waits: once its arguments come, it
            // only parses them. Arguments that never came (the channel went away) ask for
            // nothing.
            Self::ChannelVerb => {
                let model = cli::model();
                crate::remote::server::take_verb()
                    .map_or(0, |argv| Self::of_with(argv, Some(model)).run())
            }
            Self::Remote(host, dir, args, json) => {
                crate::init_logging("warn");
                cli::finish(json, cli::remote(&host, dir.as_deref(), &args))
            }
            Self::Holder => crate::holder::main(),
            Self::SandboxExec(rest) => crate::sandbox::exec::main(&rest),
            Self::Assets(rest) => cli::assets::main(&rest),
            Self::Exit(code) => code,
            Self::Mcp(c) => {
                crate::init_logging("warn");
                cli::finish(c.globals.json, mcp(&c))
            }
            Self::Serve(c) => {
                // A service says what it serves (info); every other role only warns.
                crate::init_logging("info,rmcp=warn");
                cli::finish(c.globals.json, serve(&c))
            }
            Self::Cli(c) => {
                // `kpty serve --print-config` and its kin are CLI verbs logging as serve does.
                let serving = matches!(c.command, args::Command::Serve(_));
                crate::init_logging(if serving { "info,rmcp=warn" } else { "warn" });
                let json = c.globals.json;
                cli::finish(json, cli::run(*c))
            }
        }
    }
}

/// `kpty mcp`: the server over the state directory, with its sandbox floor.
fn mcp(c: &args::Cli) -> Result<i32> {
    let args::Command::Mcp(a) = &c.command else {
        return Err(Error::internal("the MCP role without `kpty mcp`"));
    };
    Ok(crate::mcp::run(cli::floored(
        cli::ctx(c)?,
        &a.floor,
        "kpty mcp",
    )?))
}

/// `kpty serve`: the HTTP server over the state directory, with its sandbox floor.
fn serve(c: &args::Cli) -> Result<i32> {
    let args::Command::Serve(a) = &c.command else {
        return Err(Error::internal("the serve role without `kpty serve`"));
    };
    Ok(crate::serve::run(
        cli::floored(cli::ctx(c)?, &a.floor, "kpty serve")?,
        crate::serve::Options {
            port: a.port,
            listen: cli::listen(&a.listen)?,
            allow_hosts: a.allow_host.clone(),
            allow_origins: a.allow_origin.clone(),
            allow_bridges: a.allow_bridge.clone(),
        },
    ))
}

/// The arguments as strings (one that is not UTF-8 kept as it reads, lossily: it only goes
/// to the remote kpty, which parses it again).
fn argv_strings(argv: &[OsString]) -> Vec<String> {
    argv.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Role;

    fn role(args: &[&str]) -> &'static str {
        let argv = std::iter::once("kpty").chain(args.iter().copied());
        role_name(&Role::of(argv.map(Into::into).collect()))
    }

    fn role_name(r: &Role) -> &'static str {
        match r {
            Role::Holder => "holder",
            Role::SandboxExec(_) => "sandbox-exec",
            Role::Assets(_) => "assets",
            Role::Mcp(_) => "mcp",
            Role::Serve(_) => "serve",
            Role::Cli(_) => "cli",
            Role::Remote(..) => "remote",
            Role::RemoteAction => "remote-action",
            Role::ChannelServer => "channel-server",
            Role::Channel => "channel",
            Role::ChannelVerb => "channel-verb",
            Role::AttachStream => "attach-stream",
            Role::Exit(_) => "exit",
        }
    }

    /// A role and what it holds, as text: the parsed command line shown whole.
    fn shown(r: &Role) -> String {
        match r {
            Role::Mcp(c) | Role::Serve(c) | Role::Cli(c) => format!("{c:?}"),
            Role::Remote(h, d, a, j) => format!("remote {h} {d:?} {a:?} {j}"),
            Role::Exit(code) => format!("exit {code}"),
            _ => String::new(),
        }
    }

    proptest::proptest! {
        /// A verb's process on a host builds the clap model while it waits for its
        /// arguments: parsed with that model, any command line comes out as it does with the
        /// model built when they come.
        #[test]
        fn a_model_built_ahead_parses_every_command_line_as_one_built_then(
            args in proptest::collection::vec(proptest::sample::select(vec![
                "talk", "list", "read", "create", "kill", "send-keys", "--json", "--all",
                "-s", "pty_1", "--timeout", "5", "--host", "box", "--lines", "x", "--",
                "echo hi", "--no-such-flag", "--state-dir", "/tmp/s", "log", "wait-for",
            ]), 0..6)
        ) {
            let argv = || std::iter::once("kpty").chain(args.iter().copied()).map(Into::into).collect();
            let now = Role::of(argv());
            let ahead = Role::of_with(argv(), Some(crate::cli::model()));
            proptest::prop_assert_eq!(role_name(&now), role_name(&ahead));
            proptest::prop_assert_eq!(shown(&now), shown(&ahead));
        }
    }

    #[test]
    fn the_role_is_decided_from_the_arguments_in_every_flag_order() {
        let cases: &[(&[&str], &str)] = &[
            (&["__holder"], "holder"),
            (&[crate::sandbox::exec::SUBCOMMAND, "x"], "sandbox-exec"),
            (&[crate::cli::assets::SUBCOMMAND, "dir"], "assets"),
            (&["mcp"], "mcp"),
            (&["--state-dir", "/tmp/x", "mcp", "--no-network"], "mcp"),
            (&["--json", "mcp"], "mcp"),
            (&["serve", "--port", "0"], "serve"),
            (&["--state-dir", "/tmp/x", "serve"], "serve"),
            // serve's configuration verbs print and exit: CLI verbs.
            (&["serve", "--print-config"], "cli"),
            (&["serve", "--new-secret"], "cli"),
            (&["serve", "--secret-file"], "cli"),
            (&["list"], "cli"),
            (&["--json", "talk", "echo hi"], "cli"),
            (&["--host", "box", "talk", "echo hi"], "remote"),
            (&["--host=box", "--json", "list"], "remote"),
            (&["--host", "box", "hosts"], "remote"),
            (&["--host", "box", "mcp"], "remote"),
            (&["talk", "--", "--host", "box"], "cli"),
            (&["__action"], "remote-action"),
            (&["__mux"], "channel-server"),
            (&["__ssh-mux"], "channel"),
            (&["__verb"], "channel-verb"),
            (&["__attach-stream"], "attach-stream"),
            (&["kill", "--all"], "cli"),
            (&["--no-such-flag"], "exit"),
        ];
        for (args, want) in cases {
            assert_eq!(role(args), *want, "kpty {args:?}");
        }
    }
}
