//! The session verbs' arguments: create, talk, check, send-line, read, term-read, resize, kill.

use super::{OwnerArgs, SessionArg, spellings};
use crate::api::TermMode;
use clap::Args;

// `create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Shell to run (default: KPTY_SHELL, $SHELL, /bin/bash).
    #[arg(long, value_hint = clap::ValueHint::ExecutablePath)]
    pub shell: Option<String>,
    /// Working directory (default: the project root).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub cwd: Option<String>,
    /// Terminal columns (default: KPTY_COLS or 120).
    #[arg(long)]
    pub cols: Option<u16>,
    /// Terminal rows (default: KPTY_ROWS or 30).
    #[arg(long)]
    pub rows: Option<u16>,
    /// Lines of scrollback term-read can reach (default: KPTY_SCROLLBACK or 10000; at most
    /// 1000000).
    #[arg(long, value_name = "LINES")]
    pub scrollback: Option<u32>,
    /// Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Wait at most this many milliseconds for the shell's first prompt, then go on without
    /// it (talk then completes by sentinel; default: KPTY_READY_TIMEOUT_MS or 10000).
    #[arg(long, short = 't', value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Do not record this session (recordings are on unless KPTY_RECORD=0; see `kpty rec`).
    #[arg(long, overrides_with = "record")]
    pub no_record: bool,
    /// Record this session even when KPTY_RECORD=0.
    #[arg(long, overrides_with = "no_record")]
    pub record: bool,
    #[command(flatten)]
    pub(crate) program: ProgramArgs,
    #[command(flatten)]
    pub(crate) sandbox: SandboxArgs,
    #[command(flatten)]
    pub owner: OwnerArgs,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `create`'s agent-program and input-filter flags.
#[derive(Debug, Args)]
pub(crate) struct ProgramArgs {
    /// Run this program instead of an interactive shell — an agent CLI, a REPL, a dev server
    /// (split as a POSIX shell would: --command 'python3 -q'). Its input filter is on unless
    /// --no-input-filter. When it exits the session ends, or with --auto-restart it starts
    /// again.
    #[arg(long, value_name = "CMD", conflicts_with = "shell")]
    pub command: Option<String>,
    /// With --command: start the program again whenever it exits (clients stay attached).
    #[arg(long, requires = "command")]
    pub auto_restart: bool,
    /// Wait this many milliseconds before a restart (default: 1000; doubled after quick
    /// exits, up to 30000; at most 600000).
    #[arg(long, value_name = "MS", requires = "auto_restart")]
    pub restart_delay_ms: Option<u64>,
    /// Filter writes from agents and remote clients (MCP, kpty serve, send-line, send-keys,
    /// talk — never kpty attach): Ctrl-D, Ctrl-\, exit/quit/\/exit + Enter and
    /// --block-sequence never reach the program (INPUT_BLOCKED, exit 106), and Ctrl-C pressed
    /// again within --ctrl-c-debounce-ms is dropped. Default: on with --command.
    #[arg(long, overrides_with = "no_input_filter")]
    pub input_filter: bool,
    /// No input filter, even with --command.
    #[arg(long, conflicts_with = "block_sequence")]
    pub no_input_filter: bool,
    /// Also block this byte sequence (repeatable; escapes like \x07 or \r work); turns the
    /// filter on.
    #[arg(long = "block-sequence", value_name = "SEQ")]
    pub block_sequence: Vec<String>,
    /// The filter drops Ctrl-C pressed again within this many milliseconds (default: 500; 0
    /// turns it off).
    #[arg(long, value_name = "MS")]
    pub ctrl_c_debounce_ms: Option<u64>,
}

// `create`'s sandbox flags.
#[derive(Debug, Args)]
pub(crate) struct SandboxArgs {
    /// Confine the shell and everything it starts with Landlock (Linux 5.13+): writes only in
    /// the project root, the cwd, /tmp, $TMPDIR and --allow-write paths; ~/.ssh, ~/.aws,
    /// ~/.gnupg, ~/.config/gh, ~/.docker, ~/.kube, ~/.netrc, ~/.git-credentials and
    /// --deny-read paths unreadable (their names still list); no signals to processes
    /// outside. Directories on the way to a hidden path (`~`, `/`) get no new entries. The
    /// shell gets its own mount namespace where kpty's socket directories and this state
    /// directory are empty and read-only: no other session can be driven from inside (needs
    /// user namespaces when not root). Default: KPTY_SANDBOX (1: every session, and no flag
    /// may drop or widen it; default: unless --no-sandbox).
    #[arg(long, overrides_with = "no_sandbox")]
    pub sandbox: bool,
    /// Do not sandbox (with KPTY_SANDBOX=default; KPTY_SANDBOX=1 requires a sandbox and
    /// refuses this with SANDBOX_REQUIRED).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Sandbox: also allow writing under PATH (repeatable; must exist).
    #[arg(long = "allow-write", value_name = "PATH", value_hint = clap::ValueHint::DirPath)]
    pub allow_write: Vec<String>,
    /// Sandbox: also hide PATH and everything under it (repeatable).
    #[arg(long = "deny-read", value_name = "PATH", value_hint = clap::ValueHint::AnyPath)]
    pub deny_read: Vec<String>,
    /// Sandbox: deny TCP bind and connect (Landlock ABI 4, Linux 6.7; UDP and Unix sockets
    /// stay open).
    #[arg(long)]
    pub no_network: bool,
}

// `talk`.
#[derive(Debug, Args)]
#[command(after_long_help = TALK_AFTER_HELP)]
pub struct TalkArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Give up after this many milliseconds (default: KPTY_TIMEOUT_MS or 30000; the
    /// command keeps running).
    #[arg(long, short = 't', value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Use the sentinel method with this marker instead of shell integration.
    #[arg(long, value_name = "MARKER")]
    pub sentinel: Option<String>,
    /// Return at most N characters of output, the end kept (default: all).
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
    /// Type even when another program holds the foreground: for a nested shell (ssh, su,
    /// docker exec …), completion by a POSIX sentinel. At the shell's prompt: clear text left
    /// on its input line first (Ctrl-E Ctrl-U), and say what it was.
    #[arg(long)]
    pub force: bool,
    /// Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a
    /// `while read` loop, whose input it would otherwise take.
    #[arg(long, short = 'n')]
    pub no_stdin: bool,
    /// Make an evidence pack around the command (screens before and after, its recording,
    /// output, audit entries, git diff): its id is printed on stderr (`kpty evidence`).
    #[arg(long)]
    pub evidence: bool,
    /// The command (several words are joined with spaces). kpty's own options go before
    /// it: everything from the first word on is the command (`kpty talk --json 'ls -la'`),
    /// as with `ssh host CMD`; an unknown option before it is a usage error, and `--`
    /// starts a command that begins with `-`.
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty talk --help`'s notes on stdin and signals: it behaves as `ssh host CMD`.
const TALK_AFTER_HELP: &str = "\
Standard input: when stdin is not a terminal, its bytes are the command's standard input, \
then end of file, as with `ssh host CMD < file` (`printf 'a\\nb\\n' | kpty talk 'wc -l'` \
prints 2). They go through a private FIFO the command reads as `eval 'COMMAND' < FIFO`, not \
through the terminal: any size, binary bytes and a missing final newline arrive unchanged, \
and the dangerous-command check still judges COMMAND itself. A command that does not read \
stdin is not held up by it, but (as with ssh) what kpty has taken from the pipe is gone: \
inside a `while read` loop use -n (--no-stdin). Stdin from /dev/null (or closed) forwards \
nothing: the command is typed as is. Not forwarded to PowerShell or cmd.exe sessions, desktop sessions, or with \
--force (a nested shell cannot see the FIFO).

Signals: Ctrl-C (SIGINT), SIGTERM and SIGHUP interrupt the command in the session (Ctrl-C \
into its terminal) rather than leaving it running, wait up to 2 s for the shell's prompt, \
record the talk as CANCELLED in the audit trail (`kpty log`) and exit 130, whichever the \
signal; with --json the answer is the CANCELLED error object (details: signal, at_prompt, \
partial_output). A second signal exits at once.";

// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The command to judge (several words are joined with spaces; escapes like \x15 are
    /// processed); `-` reads it from stdin (all of it, trailing newlines removed). kpty's own
    /// options go before it.
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `send-line`.
#[derive(Debug, Args)]
pub struct SendLineArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// The text to type (escapes like \x03 are processed; Enter is added).
    #[arg(allow_hyphen_values = true, value_name = "DATA")]
    pub data: String,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Most bytes to return (default: 4096; at most 1048576).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<usize>,
    /// Wait this many milliseconds for output when there is none yet (default: 5000).
    #[arg(long, short = 't', value_name = "MS")]
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
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `term-read`.
#[derive(Debug, Args)]
pub struct TermReadArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// tail: the last lines of scrollback + screen; viewport: the visible screen; delta: only
    /// lines added since --marker.
    #[arg(long, value_parser = spellings(TermMode::SPELLINGS), default_value = "tail")]
    pub mode: String,
    /// Most lines (default: 40; at most 200).
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
    /// Most characters (default: 12000; at most 50000).
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
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `screenshot`.
#[derive(Debug, Args)]
pub struct ScreenshotArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// svg: an image (colours, bold, italic, underline, the cursor and the title); png: the
    /// same image in pixels (binary: use -o or a redirect; base64 with --json); txt: the
    /// screen's text.
    #[arg(long, value_parser = ["svg", "png", "txt"], default_value = "svg")]
    pub format: String,
    /// Write the image to FILE instead of printing it.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `resize`.
#[derive(Debug, Args)]
pub struct ResizeArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Terminal columns (2-1000).
    #[arg(long)]
    pub cols: u16,
    /// Terminal rows (1-1000).
    #[arg(long)]
    pub rows: u16,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `kill`.
#[derive(Debug, Args)]
pub struct KillArgs {
    /// Session id, unique id prefix, or label — all its PTYs end — or SESSION:N for PTY N
    /// alone (no default: kill names its session).
    #[arg(
        value_name = "SESSION",
        add = crate::cli::complete::sessions(),
        required_unless_present_any = ["session_flag", "agent", "label", "all"]
    )]
    pub session: Option<String>,
    /// The same, as the other commands spell it.
    #[arg(
        short = 's',
        long = "session",
        value_name = "SESSION",
        conflicts_with = "session",
        add = crate::cli::complete::sessions()
    )]
    pub session_flag: Option<String>,
    /// The session owned by this agent.
    #[arg(long, value_name = "AGENT_ID", conflicts_with_all = ["session", "session_flag"])]
    pub agent: Option<String>,
    /// The session with this label.
    #[arg(long, value_name = "LABEL", conflicts_with_all = ["session", "session_flag"], add = crate::cli::complete::labels())]
    pub label: Option<String>,
    /// Every session of this state directory (prints each one killed; asks nothing).
    #[arg(long, conflicts_with_all = ["session", "session_flag", "agent", "label"])]
    pub all: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// Session id, unique id prefix, or label; SESSION:N for its PTY N (default: the default
    /// session, made when missing).
    #[arg(value_name = "SESSION", conflicts_with = "session", add = crate::cli::complete::sessions())]
    pub target: Option<String>,
    #[command(flatten)]
    pub session: SessionArg,
    /// Watch only: your keys are not sent (the detach key still works).
    #[arg(long, short = 'r')]
    pub read_only: bool,
    /// The key that detaches: C-\ (default), C-], C-^, C-_ or C-a … C-z. Pressed twice, it is
    /// sent to the session instead.
    #[arg(long, env = "KPTY_DETACH_KEY", value_name = "KEY")]
    pub detach_key: Option<String>,
    /// Attach to the session labelled LABEL, creating it first when there is none (as tmux
    /// new -A).
    #[arg(long, value_name = "LABEL", conflicts_with_all = ["target", "session"])]
    pub create: Option<String>,
    /// Let the session set your clipboard (OSC 52). Without it, clipboard writes are dropped;
    /// reading your clipboard, terminal queries and other control strings are always dropped.
    #[arg(long)]
    pub allow_clipboard: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `rename`.
#[derive(Debug, Args)]
pub struct RenameArgs {
    /// The session to rename: id, unique id prefix, or current label (default:
    /// $KPTY_SESSION).
    #[arg(
        short,
        long,
        value_name = "SESSION",
        add = crate::cli::complete::sessions()
    )]
    pub session: Option<String>,
    /// The new label: 1-64 printable characters, not used by another session of this state
    /// directory.
    #[arg(value_name = "NEW_LABEL")]
    pub new_label: String,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
