//! The clap model: one subcommand per action, kebab-case flags mirroring the action's
//! parameters. Doc comments here are the help text (and the man page and completions),
//! shown verbatim: `<placeholders>` in them are not HTML.
#![allow(rustdoc::invalid_html_tags)]

use crate::api::{OwnerRole, TermMode};
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// A closed set's spellings as clap's possible values: the flag accepts exactly what the
/// contract does, and its help lists them.
fn spellings(values: &'static [&'static str]) -> PossibleValuesParser {
    PossibleValuesParser::new(values.iter().copied())
}

/// An action's name as the audit trail records it: `send-line` and `send_line` alike; an
/// unknown one is a usage error.
fn action_name(s: &str) -> Result<String, String> {
    let name = s.trim().replace('-', "_");
    let known: Vec<&str> = crate::api::Action::ALL.iter().map(|a| a.as_str()).collect();
    if known.contains(&name.as_str()) {
        Ok(name)
    } else {
        Err(format!("unknown action {s:?}; one of {}", known.join(", ")))
    }
}

/// Live terminals for agents, people and scripts.
///
/// Sessions are real PTYs held by small detached processes, so a session created by one
/// kpty invocation is live for the next one, for another terminal, and for an MCP client.
/// State lives in <project root>/ai/checkpoints/pty unless --state-dir says otherwise.
#[derive(Debug, Parser)]
#[command(
    name = "kpty",
    version,
    disable_help_subcommand = true,
    max_term_width = 100
)]
pub struct Cli {
    /// State directory (default: <project root>/ai/checkpoints/pty).
    #[arg(
        long,
        global = true,
        env = "KPTY_STATE_DIR",
        hide_env_values = true,
        value_name = "DIR"
    )]
    pub state_dir: Option<PathBuf>,

    /// Print the action's JSON object instead of human output (secrets redacted).
    #[arg(long, global = true)]
    pub json: bool,

    /// Keep secrets in --json output (also KPTY_REDACT=off).
    #[arg(long, global = true)]
    pub no_redact: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a new terminal session; prints its id once the shell's first prompt is up.
    Create(CreateArgs),
    /// List sessions and their state: running, exited (with exit code), dead.
    List,
    /// Run a command in a session, print its output, exit with its exit code.
    ///
    /// Without --session, uses this state directory's default session (created on first use).
    #[command(visible_alias = "run")]
    Talk(TalkArgs),
    /// Would talk or send-line type a command, or block it as dangerous? Types nothing.
    ///
    /// Judges COMMAND as talk and send-line would before typing it — escapes (\x15, \x1b …)
    /// decoded, line-editing keys applied — and prints the verdict, the rule that blocks it and
    /// the commands the policy saw. Needs no session. Exits 0 when allowed and 116
    /// (DANGEROUS_COMMAND_BLOCKED) when blocked, so `kpty check "$c" && kpty talk "$c"` works
    /// in scripts; --json prints the verdict object.
    ///
    /// The policy is a guard-rail against accidents and careless agents, not a sandbox: it
    /// stops the likes of `rm -rf /`, `mkfs` or reading ~/.aws/credentials when typed, not a
    /// program set on doing harm (a script, another interpreter, downloaded code). Run
    /// untrusted agents in a sandboxed session (`create --sandbox`, enforced by the kernel),
    /// a container or a VM.
    Check(CheckArgs),
    /// Type one line into a session and press Enter.
    SendLine(SendLineArgs),
    /// Print a session's recent output (raw), or follow it.
    Read(ReadArgs),
    /// Print the rendered terminal screen (no escape codes): tail, viewport or delta.
    TermRead(TermReadArgs),
    /// Change a session's terminal size.
    Resize(ResizeArgs),
    /// End a session: hang up its shell and everything it started.
    Kill(KillArgs),
    /// Show the actions, configuration and exit codes (or help for one command).
    Help(HelpArgs),
    /// Print the id of the one session an agent (or owner session, or label) owns.
    Resolve(IdentityArgs),
    /// Type a line into the session an agent owns (resolve + send-line).
    SendLineToAgent(SendLineToAgentArgs),
    /// Change a session's owner, role, label or cli type.
    UpdateOwnership(UpdateOwnershipArgs),
    /// Register an external (desktop) session reached through its bridge.
    Register(RegisterArgs),
    /// Remove a registered session (a leader's needs --force).
    Unregister(UnregisterArgs),
    /// Mark a session as alive now.
    Heartbeat(HeartbeatArgs),
    /// Remove registered sessions without a heartbeat for 7 days (and, with --force, ended local ones).
    Prune(PruneArgs),
    /// Show the audit trail: every send-line, talk, resolve, register … with its outcome.
    Log(LogArgs),
    /// Serve the k_pty tool to an MCP client over stdio (e.g. `claude mcp add kpty -- kpty mcp`).
    Mcp,
    /// Serve this state directory's sessions over HTTP as a desktop bridge (loopback only).
    ///
    /// Prints one JSON line, {"ok":true,"url":…,"secret_file":…}, then serves until SIGTERM or
    /// Ctrl-C. Every request needs the secret stored in <state dir>/_bridge_secret (made on
    /// first start, mode 0600) as X-Kuroryuu-Desktop-Secret or Authorization: Bearer. Another
    /// kpty reaches a session here with `kpty register ID --desktop-url URL` and
    /// KURORYUU_DESKTOP_SECRET set to that secret. At most 256 connections stay open (at the
    /// cap the oldest one not serving a request makes room); a client has 10 s to send a
    /// request header and as long for its body, and a keep-alive connection idle that long
    /// is closed (KPTY_SERVE_HEADER_TIMEOUT_MS changes it).
    Serve(ServeArgs),
    /// Write shell completions and man pages into DIR (maintainers).
    #[command(name = "__generate-assets", hide = true)]
    GenerateAssets {
        /// Output directory (completions/ and man/ are created in it).
        out: PathBuf,
    },
}

/// Which session: id, unique id prefix, or label — or the one owned by an agent.
#[derive(Debug, Args)]
pub struct SessionArg {
    /// Session id, unique id prefix, or label (default: the default session).
    #[arg(
        short,
        long,
        env = "KPTY_SESSION",
        hide_env_values = true,
        value_name = "SESSION"
    )]
    pub session: Option<String>,
    /// The session owned by this agent (resolved; exactly one must match).
    #[arg(long, value_name = "AGENT_ID", conflicts_with = "session")]
    pub agent: Option<String>,
    /// The session with this label (resolved; exactly one must match).
    #[arg(long, value_name = "LABEL", conflicts_with = "session")]
    pub label: Option<String>,
}

/// Owner identity to resolve (at least one).
#[derive(Debug, Args)]
pub struct IdentityArgs {
    /// Owner agent id (primary routing key).
    #[arg(long = "agent", visible_alias = "agent-id", value_name = "AGENT_ID")]
    pub agent_id: Option<String>,
    /// Owner session id.
    #[arg(long, value_name = "ID")]
    pub owner_session_id: Option<String>,
    /// Label.
    #[arg(long)]
    pub label: Option<String>,
}

/// Owner fields to set.
#[derive(Debug, Args)]
pub struct OwnerArgs {
    /// Owner agent id (routing identity).
    #[arg(long)]
    pub owner_agent_id: Option<String>,
    /// Owner session id.
    #[arg(long)]
    pub owner_session_id: Option<String>,
    /// Owner role: leader or worker.
    #[arg(long, value_parser = spellings(OwnerRole::SPELLINGS))]
    pub owner_role: Option<String>,
    /// A label to name the session by.
    #[arg(long)]
    pub label: Option<String>,
    /// Kind of program in the terminal (e.g. bash, claude).
    #[arg(long)]
    pub cli_type: Option<String>,
}

/// `create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Shell to run (default: KURORYUU_PTY_SHELL, $SHELL, /bin/bash).
    #[arg(long)]
    pub shell: Option<String>,
    /// Working directory (default: the project root).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Terminal columns (default: KURORYUU_PTY_COLS or 120).
    #[arg(long)]
    pub cols: Option<u16>,
    /// Terminal rows (default: KURORYUU_PTY_ROWS or 30).
    #[arg(long)]
    pub rows: Option<u16>,
    /// Lines of scrollback term-read can reach (default: KPTY_SCROLLBACK or 10000; at most
    /// 1000000).
    #[arg(long, value_name = "LINES")]
    pub scrollback: Option<u32>,
    /// Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    #[command(flatten)]
    pub owner: OwnerArgs,
}

/// `create`'s sandbox flags.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// Confine the shell and everything it starts with Landlock (Linux 5.13+): writes only in
    /// the project root, the cwd, /tmp, $TMPDIR and --allow-write paths; ~/.ssh, ~/.aws,
    /// ~/.gnupg, ~/.config/gh, ~/.docker, ~/.kube, ~/.netrc, ~/.git-credentials and
    /// --deny-read paths unreadable (their names still list); no signals to processes
    /// outside. Directories on the way to a hidden path (`~`, `/`) get no new entries. The
    /// shell gets its own mount namespace where kpty's socket directories and this state
    /// directory are empty and read-only: no other session can be driven from inside (needs
    /// user namespaces when not root). Default: KPTY_SANDBOX=1.
    #[arg(long, overrides_with = "no_sandbox")]
    pub sandbox: bool,
    /// Do not sandbox, even with KPTY_SANDBOX=1.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Sandbox: also allow writing under PATH (repeatable; must exist).
    #[arg(long = "allow-write", value_name = "PATH")]
    pub allow_write: Vec<String>,
    /// Sandbox: also hide PATH and everything under it (repeatable).
    #[arg(long = "deny-read", value_name = "PATH")]
    pub deny_read: Vec<String>,
    /// Sandbox: deny TCP bind and connect (Landlock ABI 4, Linux 6.7; UDP and Unix sockets
    /// stay open).
    #[arg(long)]
    pub no_network: bool,
}

/// `talk`.
#[derive(Debug, Args)]
pub struct TalkArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000).
    #[arg(long, short = 't', value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Use the sentinel method with this marker instead of shell integration.
    #[arg(long)]
    pub sentinel: Option<String>,
    /// Return at most N characters of output, the end kept (default: all).
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
    /// Type even when another program holds the foreground: for a nested shell (ssh, su,
    /// docker exec …), completion by a POSIX sentinel.
    #[arg(long)]
    pub force: bool,
    /// The command (several words are joined with spaces). kpty's own options go before
    /// it: everything from the first word on is the command (`kpty talk --json 'ls -la'`),
    /// as with `ssh host CMD`; an unknown option before it is a usage error, and `--`
    /// starts a command that begins with `-`.
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The command to judge (several words are joined with spaces; escapes like \x15 are
    /// processed); `-` reads it from stdin (all of it, trailing newlines removed). kpty's own
    /// options go before it.
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `send-line`.
#[derive(Debug, Args)]
pub struct SendLineArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// The text to type (escapes like \x03 are processed; Enter is added).
    #[arg(allow_hyphen_values = true, value_name = "DATA")]
    pub data: String,
}

/// `read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Most bytes to return (default 4096, at most 1048576).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<usize>,
    /// Wait this long for output when there is none yet (default 5000).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Read from this absolute offset (see next_offset in --json output).
    #[arg(long, value_name = "OFFSET")]
    pub since: Option<u64>,
    /// Remove ANSI escape sequences.
    #[arg(long)]
    pub strip_ansi: bool,
    /// Keep printing new output until the session ends or you interrupt.
    #[arg(long, short = 'f', visible_alias = "watch")]
    pub follow: bool,
}

/// `term-read`.
#[derive(Debug, Args)]
pub struct TermReadArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// tail: the last lines of scrollback + screen; viewport: the visible screen; delta: only
    /// lines added since --marker.
    #[arg(long, value_parser = spellings(TermMode::SPELLINGS), default_value = "tail")]
    pub mode: String,
    /// Most lines (default 40, at most 200).
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
    /// Most characters (default 12000, at most 50000).
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
    /// With --mode delta: the marker_id of the previous term-read (see --json).
    #[arg(long = "marker", value_name = "ID")]
    pub marker: Option<u64>,
    /// Keep soft-wrapped rows as separate lines.
    #[arg(long)]
    pub no_merge_wrapped: bool,
    /// Redraw the visible screen whenever the session prints, until interrupted.
    #[arg(long = "follow", short = 'f', visible_alias = "watch", conflicts_with_all = ["marker", "json"])]
    pub watch: bool,
}

/// `resize`.
#[derive(Debug, Args)]
pub struct ResizeArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Columns.
    #[arg(long)]
    pub cols: u16,
    /// Rows.
    #[arg(long)]
    pub rows: u16,
}

/// `kill`.
#[derive(Debug, Args)]
pub struct KillArgs {
    /// Session id, unique id prefix, or label (no default: kill names its session).
    #[arg(
        value_name = "SESSION",
        required_unless_present_any = ["session_flag", "agent", "label"]
    )]
    pub session: Option<String>,
    /// The same, as the other commands spell it.
    #[arg(
        short = 's',
        long = "session",
        value_name = "SESSION",
        conflicts_with = "session"
    )]
    pub session_flag: Option<String>,
    /// The session owned by this agent.
    #[arg(long, value_name = "AGENT_ID", conflicts_with_all = ["session", "session_flag"])]
    pub agent: Option<String>,
    /// The session with this label.
    #[arg(long, value_name = "LABEL", conflicts_with_all = ["session", "session_flag"])]
    pub label: Option<String>,
}

/// `send-line-to-agent`.
#[derive(Debug, Args)]
pub struct SendLineToAgentArgs {
    #[command(flatten)]
    pub who: IdentityArgs,
    /// The text to type (escapes processed; Enter is added).
    #[arg(allow_hyphen_values = true, value_name = "DATA")]
    pub data: String,
}

/// `update-ownership`.
#[derive(Debug, Args)]
pub struct UpdateOwnershipArgs {
    /// Session id, unique id prefix, or label.
    #[arg(value_name = "SESSION")]
    pub session: String,
    #[command(flatten)]
    pub owner: OwnerArgs,
}

/// `register`.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The external session's id.
    #[arg(value_name = "SESSION_ID")]
    pub session: String,
    /// The bridge that serves it (e.g. http://127.0.0.1:8201).
    #[arg(long, value_name = "URL")]
    pub desktop_url: Option<String>,
    /// Where it lives (default: desktop).
    #[arg(long)]
    pub source: Option<String>,
    /// Process id of the program in the terminal.
    #[arg(long)]
    pub pid: Option<u32>,
    #[command(flatten)]
    pub owner: OwnerArgs,
}

/// `unregister`.
#[derive(Debug, Args)]
pub struct UnregisterArgs {
    /// The registered session's id.
    #[arg(value_name = "SESSION_ID")]
    pub session: String,
    /// Also remove a leader's session.
    #[arg(long)]
    pub force: bool,
}

/// `heartbeat`.
#[derive(Debug, Args)]
pub struct HeartbeatArgs {
    /// Session id, unique id prefix, or label.
    #[arg(value_name = "SESSION")]
    pub session: String,
}

/// `prune`.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Also remove local sessions whose shell has ended or whose holder is gone.
    #[arg(long)]
    pub force: bool,
}

/// `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on; when taken, the next free one (up to +20). 0: any free port.
    /// Default: KURORYUU_PTY_BRIDGE_PORT or 8201.
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
}

/// `help`.
#[derive(Debug, Args)]
pub struct HelpArgs {
    /// A command to show the flags of (as `kpty COMMAND --help`).
    pub command: Option<String>,
}

/// `log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only this session (id).
    #[arg(short, long, value_name = "SESSION")]
    pub session: Option<String>,
    /// Only events of this agent.
    #[arg(long, value_name = "AGENT_ID")]
    pub agent: Option<String>,
    /// Only this action (e.g. talk, send_line; send-line works too).
    #[arg(long, value_parser = action_name)]
    pub action: Option<String>,
    /// Only failed actions.
    #[arg(long)]
    pub errors_only: bool,
    /// Only blocked (dangerous) commands.
    #[arg(long)]
    pub blocked_only: bool,
    /// Only events since this time: RFC 3339 (2026-11-22T07:00:00Z) or an age (10m, 2h, 1d).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Keep printing new events as they are recorded.
    #[arg(long, short = 'f')]
    pub follow: bool,
}
