//! The clap model: one subcommand per action, kebab-case flags mirroring the action's
//! parameters. Doc comments here are the help text (and the man page and completions),
//! shown verbatim: `<placeholders>` in them are not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod agents;
mod housekeeping;
mod keys;
mod recording;
mod session;
mod shell;
mod wait;

pub use agents::*;
pub use housekeeping::*;
pub use keys::*;
pub use recording::*;
pub use session::*;
pub use shell::*;
pub use wait::*;

use crate::api::OwnerRole;
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
    let known: Vec<&str> = crate::api::Action::ALL
        .iter()
        .map(|a| a.as_str())
        .chain(crate::core::audit::OTHER_ACTIONS.iter().copied())
        .collect();
    if known.contains(&name.as_str()) {
        Ok(name)
    } else {
        Err(format!("unknown action {s:?}; one of {}", known.join(", ")))
    }
}

/// kpty's whole command line, as `kpty --help`, the man page and `kpty help` show it: the
/// derived model with the long help's closing text (the MCP spelling, the environment, the
/// exit codes). That text is built from tables, so [`super::parse`] leaves it out unless
/// help is asked for.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command().after_long_help(crate::cli::reference::after_help())
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
    /// The global options, wherever they were given (before the command's name or after).
    #[command(flatten)]
    pub(crate) globals: Globals,

    /// Run the verb by the kpty on HOST, over ssh (an alias from ~/.ssh/config, user@host or
    /// ssh://user@host:port; also KPTY_HOST). Given before the verb.
    #[arg(long, value_name = "HOST", help_heading = "Global options")]
    pub host: Option<String>,

    /// With --host: run the verb in DIR there (its project's state directory); default: the
    /// login's home.
    #[arg(
        long,
        value_name = "DIR",
        requires = "host",
        help_heading = "Global options"
    )]
    pub remote_dir: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

// The options every command takes, before its name (`kpty --json talk …`) or after it
// (`kpty talk --json …`). Each command declares them itself rather than clap copying
// global options into every command's model on each start: a `kpty talk` builds the
// options of `talk` alone (`Cli::settle` takes the command's into account). No doc comment:
// clap would take it for the `about` of every command that flattens these.
#[derive(Debug, Default, Args)]
pub(crate) struct Globals {
    /// State directory (default: $KPTY_STATE_DIR, else <project root>/ai/checkpoints/pty).
    #[arg(
        long,
        help_heading = "Global options",
        value_name = "DIR",
        value_hint = clap::ValueHint::DirPath
    )]
    pub state_dir: Option<PathBuf>,

    /// Print the action's JSON object instead of human output (secrets redacted).
    #[arg(long, help_heading = "Global options")]
    pub json: bool,

    /// Keep secrets in --json output (also KPTY_REDACT=off).
    #[arg(long, help_heading = "Global options")]
    pub no_redact: bool,
}

impl Globals {
    /// These options with `later`'s (given after the command's name) added: a flag is set
    /// if either set it, a later directory wins.
    fn and(self, later: Globals) -> Self {
        Self {
            state_dir: later.state_dir.or(self.state_dir),
            json: self.json || later.json,
            no_redact: self.no_redact || later.no_redact,
        }
    }
}

impl Cli {
    /// The global options given after the command's name folded into the globals given before it.
    pub fn settle(mut self) -> Self {
        let later = std::mem::take(self.command.globals_mut());
        self.globals = std::mem::take(&mut self.globals).and(later);
        self
    }
}

/// The subcommands. Each one's arguments are built only when clap needs them (`defer`): a
/// `kpty talk` does not pay for building the other verbs' flags on every start. (So the
/// argument structs carry no doc comment: one would replace its verb's `about`.)
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Start a new terminal session; prints its id once the shell's first prompt is up.
    Create(CreateArgs),
    /// List sessions and their state: running, exited (with exit code), dead.
    List(ListArgs),
    /// Run a command in a session, print its output, exit with its exit code (also: kpty run).
    ///
    /// Without --session, uses this state directory's default session (created on first use).
    ///
    /// A command that waits for input (a prompt, a password, `cat`) returns early: its output
    /// so far, a note on stderr, exit code 123; answer it with `kpty send-line`.
    // `run` is a hidden alias: a visible one would be completed instead of `talk` (clap's
    // completion offers one name per command, the first in sorted order).
    #[command(alias = "run")]
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
    /// Press keys in a session, in tmux's spelling: kpty send-keys C-c; kpty send-keys Up Enter.
    ///
    /// The keys' bytes pass the dangerous-command check send-line's text does, with what
    /// earlier input left on the line: `send-keys BSpace Enter` cannot finish a blocked
    /// command. Keys whose effect kpty cannot see (Tab completion, Up and other history keys,
    /// C-r) pass alone, but a line edited around them is refused when submitted: press C-c
    /// and type the whole command instead. Text left on the line (send-keys -l without Enter)
    /// is the start of whatever is typed next, talk and send-line included. Arrows, Home and
    /// End follow the terminal's application cursor-key mode.
    SendKeys(SendKeysArgs),
    /// Join a session's terminal as with tmux attach: see it, type into it, detach with Ctrl-\.
    ///
    /// The screen is redrawn as it is (colours, cursor, full-screen programs), then output
    /// streams live. Your keys reach the session in the order they arrive, mixed with every
    /// other writer's (agents, other people attached). The terminal takes the smallest
    /// attached size, and the size create or resize set once the last client leaves. Detach
    /// with the detach key (Ctrl-\; --detach-key or KPTY_DETACH_KEY change it; pressed twice
    /// it is sent to the session); SIGTERM and SIGHUP detach too. Your terminal's modes are
    /// put back as they were. Exits 0 after detaching, with the shell's exit code when it
    /// ends, 118 when the session's holder goes away.
    Attach(AttachArgs),
    /// Open a shell beside a session's program: PTY 1, 2 … of SESSION; prints SESSION:N.
    ///
    /// The shell starts in the session's working directory with its environment, inside its
    /// sandbox, and runs the session's shell (or --command). Every command that takes -s
    /// takes SESSION:N for it (talk, send-line, read, attach, kill …); plain SESSION stays
    /// PTY 0. It is not filtered, not restarted, and gone when it exits (clients see
    /// "[process exited (code N)]"); `kpty kill SESSION` ends all of a session's PTYs,
    /// `kpty kill SESSION:N` just that one.
    Shell(ShellArgs),
    /// Print a session's recent output (raw), or follow it.
    Read(ReadArgs),
    /// Wait until a session's output matches PATTERN, is quiet for --quiet-ms, or the shell is
    /// back at its --prompt (whichever comes first); print the output since. Exit 124 on
    /// timeout: kpty send-line 'python3 -q' && kpty wait-for '>>> '.
    WaitFor(WaitForArgs),
    /// Print the rendered terminal screen (no escape codes): tail, viewport or delta.
    TermRead(TermReadArgs),
    /// A session's screen as an image: SVG or PNG (colours, cursor, title) or text.
    Screenshot(ScreenshotArgs),
    /// Change a session's terminal size.
    Resize(ResizeArgs),
    /// End a session: hang up its shell and everything it started.
    Kill(KillArgs),
    /// Give a session a new label (as tmux's rename-session): kpty rename -s pty_a3f8 build.
    ///
    /// The label names the session wherever a session is named (-s, --label). It must be 1-64
    /// printable characters, not look like a secret, and not be another session's label in
    /// this state directory.
    Rename(RenameArgs),
    /// Show the commands, configuration and exit codes, or one command's help.
    Help(HelpArgs),
    /// Print the id of the one session an agent (or owner session, or label) owns.
    Resolve(IdentityArgs),
    /// Type a line into the session an agent owns (resolve + send-line).
    SendLineToAgent(SendLineToAgentArgs),
    /// Change a session's owner, role, label or cli type.
    UpdateOwnership(UpdateOwnershipArgs),
    /// Register an external session: one another program serves over HTTP (a desktop terminal
    /// app, another kpty serve), its "bridge".
    Register(RegisterArgs),
    /// Remove a registered session (a leader's needs --force).
    Unregister(UnregisterArgs),
    /// Mark a session as alive now.
    Heartbeat(HeartbeatArgs),
    /// Remove ended sessions: their registry entries and files (shell exited or holder gone).
    ///
    /// Forgets every local session whose shell has exited or whose holder is gone and removes
    /// its folder (sessions/<id>/: output buffer, events, metadata), the folders left by
    /// sessions killed earlier, and registered (desktop) sessions without a heartbeat for 7
    /// days. A running session is never touched, nor one still starting. --dry-run lists the
    /// ended sessions and removes only the stale registered ones. (The MCP `prune` action
    /// removes ended local sessions only with `force: true`.)
    Prune(PruneArgs),
    /// Show the audit trail: every send-line, talk, resolve, register … with its outcome.
    Log(LogArgs),
    /// Recordings: list them, print one as text, export one (cast, txt, html, gif).
    ///
    /// Every session is recorded (asciicast v3, sessions/<id>/recording.cast, 0600) unless
    /// created with --no-record or KPTY_RECORD=0: its output, the input of every writer with
    /// who wrote it (secrets redacted), resizes, a marker for each talk and wait_for, the exit.
    /// A recording rolls to a new segment past KPTY_RECORD_SEGMENT (default 64M); the state
    /// directory's recordings are kept under KPTY_RECORD_TOTAL (default 1G, see `kpty gc`).
    Rec(RecArgs),
    /// Play a recording in this terminal: space pauses, `.` steps while paused, q quits.
    Replay(ReplayArgs),
    /// Show the recordings' caps and usage, and remove the oldest closed segments over the
    /// total (ended sessions' first; never a segment being written).
    Gc(GcArgs),
    /// Make an evidence pack of a session: evidence/<id>/ with screenshots before and after,
    /// the recording of the range, its output, the commands with exit codes, the audit
    /// entries and (in a git work tree) git status and diff — every file's SHA-256 in a
    /// sealed manifest, everything redacted. `verify ID` checks one; `list` lists them.
    Evidence(EvidenceArgs),
    /// The hosts `kpty list --all-hosts` asks (kept in kpty's config directory; KPTY_HOSTS
    /// adds more): `add HOST`, `remove HOST`, `list`.
    Hosts(HostsArgs),
    /// Serve kpty's MCP tool (named k_pty) over stdio (e.g. `claude mcp add kpty -- kpty mcp`).
    ///
    /// `--sandbox=required` makes every session the agent creates sandboxed, and refuses
    /// (SANDBOX_REQUIRED) a request to drop or widen the sandbox: the operator's floor.
    Mcp(McpArgs),
    /// Serve MCP over HTTP (/mcp) and this state directory's sessions (loopback only).
    ///
    /// One hub for many agents: MCP clients connect with Streamable HTTP at /mcp (`kpty serve
    /// --print-config` prints the `claude mcp add --transport http` line). Beside it answer the
    /// plain-HTTP tool endpoints (/, /tools, /health, and the leader registry under /_x9k_*,
    /// kept under their old names for existing clients) and the bridge API (/pty/*,
    /// /v1/pty/*) through which another kpty — or a desktop terminal app — drives these
    /// sessions. Prints one JSON line, {"ok":true,"url":…,"secret_file":…}, then
    /// serves until SIGTERM or Ctrl-C (MCP calls in flight are cancelled as a client cancels
    /// them, other requests get 5 s; sessions stay).
    /// Every request needs the secret stored in kpty's private directory
    /// (~/.local/state/kpty/bridge-<hash>.secret, made on first start, mode 0600; never in the
    /// state directory, which a repository could ship: `--new-secret` makes a new one) as Authorization: Bearer, X-Kuroryuu-Desktop-Secret or
    /// X-Kuroryuu-Internal-Secret, and must name a loopback host and come from no web page
    /// (--allow-host, --allow-origin). Another kpty reaches a session here with `kpty
    /// register ID --desktop-url URL` and KPTY_DESKTOP_SECRET set to that secret. At most
    /// 256 connections stay open (at the cap the oldest one not working on a request makes
    /// room: idle, or still sending its header or body); a client has 10 s to send a
    /// request header and as long, in total, for its body (then 408), and a keep-alive
    /// connection idle that long is closed (KPTY_SERVE_HEADER_TIMEOUT_MS changes it).
    /// --sandbox=required makes every session agents create here sandboxed, as
    /// `kpty mcp --sandbox=required` does. Logs go to stderr (KPTY_LOG sets the level, KPTY_LOG_FORMAT=json makes them
    /// JSON lines).
    Serve(ServeArgs),
    /// Print a login link for the web console of this state directory's `kpty serve`.
    ///
    /// The console, at http://127.0.0.1:PORT/console/ of a running `kpty serve`, shows every
    /// session kpty knows as a live tile: its state (prompt, running, full_screen,
    /// waiting_input, exited …, as `kpty list --json` says), the command it runs, its
    /// directory, owner and attached clients; a session waiting for input stands out. The link
    /// carries a console token after `#` (never sent to a server or logged); the page trades
    /// it for a login cookie (HttpOnly, SameSite=Strict, 12 hours). The token is kept in
    /// kpty's private directory (~/.local/state/kpty/console-<hash>.token, 0600), apart from
    /// the API secret. Only pages of the console's own origin are answered. `--revoke` ends
    /// every console login.
    Console(ConsoleArgs),
}

impl Command {
    /// The global options given after this command's name.
    fn globals_mut(&mut self) -> &mut Globals {
        match self {
            Self::Create(a) => &mut a.globals,
            Self::List(a) => &mut a.globals,
            Self::Talk(a) => &mut a.globals,
            Self::Check(a) => &mut a.globals,
            Self::SendLine(a) => &mut a.globals,
            Self::SendKeys(a) => &mut a.globals,
            Self::Attach(a) => &mut a.globals,
            Self::Shell(a) => &mut a.globals,
            Self::Read(a) => &mut a.globals,
            Self::WaitFor(a) => &mut a.globals,
            Self::TermRead(a) => &mut a.globals,
            Self::Screenshot(a) => &mut a.globals,
            Self::Resize(a) => &mut a.globals,
            Self::Kill(a) => &mut a.globals,
            Self::Rename(a) => &mut a.globals,
            Self::Help(a) => &mut a.globals,
            Self::Resolve(a) => &mut a.globals,
            Self::SendLineToAgent(a) => &mut a.who.globals,
            Self::UpdateOwnership(a) => &mut a.globals,
            Self::Register(a) => &mut a.globals,
            Self::Unregister(a) => &mut a.globals,
            Self::Heartbeat(a) => &mut a.globals,
            Self::Prune(a) => &mut a.globals,
            Self::Log(a) => &mut a.globals,
            Self::Rec(a) => match &mut a.command {
                RecCommand::List(a) => &mut a.globals,
                RecCommand::Cat(a) => &mut a.globals,
                RecCommand::Export(a) => &mut a.globals,
            },
            Self::Replay(a) => &mut a.globals,
            Self::Gc(a) => &mut a.globals,
            Self::Hosts(a) => &mut a.globals,
            Self::Evidence(a) => match &mut a.command {
                Some(EvidenceCommand::Verify(v)) => &mut v.globals,
                Some(EvidenceCommand::List(l)) => &mut l.globals,
                None => &mut a.globals,
            },
            Self::Mcp(a) => &mut a.globals,
            Self::Serve(a) => &mut a.globals,
            Self::Console(a) => &mut a.globals,
        }
    }
}

// Which session: id, unique id prefix, or label — or the one owned by an agent.
#[derive(Debug, Args)]
pub struct SessionArg {
    /// Session id, unique id prefix, or label; SESSION:N for its PTY N (default: $KPTY_SESSION,
    /// else the default session).
    #[arg(
        short,
        long,
        value_name = "SESSION",
        add = crate::cli::complete::sessions()
    )]
    pub session: Option<String>,
    /// The session owned by this agent (resolved; exactly one must match).
    #[arg(long, value_name = "AGENT_ID", conflicts_with = "session")]
    pub agent: Option<String>,
    /// The session with this label (resolved; exactly one must match).
    #[arg(long, value_name = "LABEL", conflicts_with = "session", add = crate::cli::complete::labels())]
    pub label: Option<String>,
}

impl SessionArg {
    /// The session named: -s, else (when neither --agent nor --label names one)
    /// `KPTY_SESSION`. Read here rather than by clap, so that an environment default never
    /// shows in a usage line as if typed, nor conflicts with --agent, --label or a SESSION
    /// argument.
    pub fn named(&self) -> Option<String> {
        if self.session.is_some() || self.agent.is_some() || self.label.is_some() {
            return self.session.clone();
        }
        env_value("KPTY_SESSION")
    }
}

/// A variable of kpty's environment, unset when empty.
pub fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

// Owner identity to resolve (at least one).
#[derive(Debug, Args)]
pub struct IdentityArgs {
    /// Owner agent id (primary routing key).
    #[arg(long = "agent", visible_alias = "agent-id", value_name = "AGENT_ID")]
    pub agent_id: Option<String>,
    /// Owner session id.
    #[arg(long, value_name = "ID")]
    pub owner_session_id: Option<String>,
    /// The Claude Code session linked to the terminal.
    #[arg(long, value_name = "ID")]
    pub claude_code_session_id: Option<String>,
    /// The session's label.
    #[arg(long, value_name = "LABEL", add = crate::cli::complete::labels())]
    pub label: Option<String>,
    #[command(flatten)]
    pub(crate) globals: Globals,
}

// Owner fields to set.
#[derive(Debug, Args)]
pub struct OwnerArgs {
    /// Owner agent id (routing identity).
    #[arg(long, value_name = "AGENT_ID")]
    pub owner_agent_id: Option<String>,
    /// Owner session id.
    #[arg(long, value_name = "ID")]
    pub owner_session_id: Option<String>,
    /// The Claude Code session linked to the terminal.
    #[arg(long, value_name = "ID")]
    pub claude_code_session_id: Option<String>,
    /// Owner role: leader or worker.
    #[arg(long, value_name = "ROLE", value_parser = spellings(OwnerRole::SPELLINGS))]
    pub owner_role: Option<String>,
    /// A label to name the session by.
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
    /// Kind of program in the terminal (e.g. bash, claude).
    #[arg(long, value_name = "TYPE")]
    pub cli_type: Option<String>,
}
