//! One flat parameter struct for every action (the MCP tool's input schema and the CLI's
//! flags map onto it), and the action names. Every field is optional here; each action checks
//! what it needs and answers `INVALID_PARAMS` otherwise.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The actions of the `k_pty` contract (what each does: [`Action::summary`]). Variants carry
/// no doc comments so that the schema is a plain string enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum Action {
    Help,
    List,
    Create,
    SendLine,
    Read,
    Talk,
    Run,
    Check,
    Resize,
    Kill,
    Write,
    Resolve,
    SendLineToAgent,
    Register,
    Unregister,
    Heartbeat,
    UpdateOwnership,
    Rename,
    Prune,
    TermRead,
    SendKeys,
    WaitFor,
    Shell,
    Screenshot,
    Recording,
    Evidence,
}

impl Action {
    /// Every action, in help order.
    pub const ALL: [Action; 26] = [
        Action::Help,
        Action::List,
        Action::Create,
        Action::SendLine,
        Action::Read,
        Action::TermRead,
        Action::Screenshot,
        Action::Recording,
        Action::Evidence,
        Action::Talk,
        Action::Run,
        Action::Check,
        Action::Resize,
        Action::Kill,
        Action::Write,
        Action::Resolve,
        Action::SendLineToAgent,
        Action::Register,
        Action::Unregister,
        Action::Heartbeat,
        Action::UpdateOwnership,
        Action::Rename,
        Action::Prune,
        Action::SendKeys,
        Action::WaitFor,
        Action::Shell,
    ];

    /// The wire name (`send_line`).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Help => "help",
            Action::List => "list",
            Action::Create => "create",
            Action::SendLine => "send_line",
            Action::Read => "read",
            Action::Talk => "talk",
            Action::Run => "run",
            Action::Check => "check",
            Action::Resize => "resize",
            Action::Kill => "kill",
            Action::Write => "write",
            Action::Resolve => "resolve",
            Action::SendLineToAgent => "send_line_to_agent",
            Action::Register => "register",
            Action::Unregister => "unregister",
            Action::Heartbeat => "heartbeat",
            Action::UpdateOwnership => "update_ownership",
            Action::Rename => "rename",
            Action::Prune => "prune",
            Action::TermRead => "term_read",
            Action::SendKeys => "send_keys",
            Action::WaitFor => "wait_for",
            Action::Shell => "shell",
            Action::Screenshot => "screenshot",
            Action::Recording => "recording",
            Action::Evidence => "evidence",
        }
    }

    /// One line on what the action does, for `help`.
    pub fn summary(self) -> &'static str {
        match self {
            Action::Help => "Show available actions, configuration and exit codes.",
            Action::List => {
                "List sessions with their state: running, exited (with exit code) or dead (all=true: those of every state directory this user has used too, each with its state_dir)."
            }
            Action::Create => {
                "Create a local PTY session (shell, cwd, cols, rows, label, env); returns once the shell's first prompt is up."
            }
            Action::SendLine => {
                "Type one line into a session and press Enter (CR). Embedded CR/LF are stripped."
            }
            Action::Read => {
                "Read raw output: the most recent max_bytes, or everything after `since` (absolute offset) with next_offset."
            }
            Action::Talk => {
                "Run a command and wait for it to finish: clean output, exit_code, duration_ms."
            }
            Action::Run => "Alias of talk.",
            Action::Check => {
                "Judge `command` without typing it (no session needed): would talk/send_line send it, or block it as dangerous? Returns allowed, the rule and category, the commands the policy saw and, after line-editing keys, the line the shell would read; blocked is an answer (allowed=false), not an error. The policy is a guard-rail against accidents and careless agents, not a sandbox."
            }
            Action::Resize => "Resize a session's terminal (cols, rows).",
            Action::Screenshot => {
                "The visible screen as an image: format svg (default; colours, bold, italic, underline, cursor, title), png (the same drawing as pixels: base64 in image, encoding=base64, and an image content item) or txt. Secrets on screen are redacted."
            }
            Action::Recording => {
                "A session's recording (every session is recorded unless created with record=false): format txt (default: the output as text, each line as it was left) or cast (asciicast v3), from a marker's text or a time (`from`), with its markers (talk by …, talk done: exit N, input from …). Redacted; max_chars keeps the end."
            }
            Action::Evidence => {
                "Make an evidence pack of a session (evidence/<evidence_id>/): manifest.json with the commands (exit codes, durations) and every file's sha256, screenshots before and after, the recording of the range (`from`: a marker's text or a time; default the whole recording), its output text, the audit entries, and git status/diff when the session's cwd is a git work tree. Everything redacted; `note` is kept. talk with evidence=true makes one around its command."
            }
            Action::Kill => {
                "End a session: hang up its shell and everything it started (all=true: every local session of this state directory)."
            }
            Action::Write => "DEPRECATED: use send_line or talk.",
            Action::Resolve => {
                "Find the one session owned by agent_id / owner_session_id / claude_code_session_id / label; NOT_FOUND or AMBIGUOUS otherwise. Never broadcasts."
            }
            Action::SendLineToAgent => {
                "resolve + send_line: type a line into the session an agent owns."
            }
            Action::Register => {
                "Register an external (desktop) session reached through its bridge (desktop_url), with owner fields."
            }
            Action::Unregister => "Remove a registered session (a leader's only with force).",
            Action::Heartbeat => {
                "Mark a session as alive now (registered sessions are pruned after 7 days without one)."
            }
            Action::UpdateOwnership => {
                "Change a session's owner_agent_id / owner_session_id / claude_code_session_id / owner_role / label / cli_type."
            }
            Action::Rename => {
                "Give a session (session_id) a new label: 1-64 printable characters, unique in the state directory, not secret-looking."
            }
            Action::TermRead => {
                "Read the rendered terminal screen (no escape codes): mode tail (last max_lines of scrollback+screen), viewport (visible screen) or delta (lines since marker_id); secrets redacted."
            }
            Action::Prune => {
                "Remove registered sessions without a heartbeat for 7 days, and (with force) dead or exited local ones with their files (sessions/<id>/, also those of sessions killed earlier)."
            }
            Action::SendKeys => {
                "Press keys in a session, in tmux's spelling: `keys` [\"C-c\"], [\"Up\", \"Enter\"], [\"Tab\"] — names (Enter, Tab, BTab, Space, BSpace, Escape, Up/Down/Left/Right, Home, End, PageUp, PageDown, Insert, Delete, F1-F12), one character, or 0xNN, with C-/M-/S- modifiers. An unknown name is INVALID_PARAMS; literal=true types each element as text (no Enter). Checked like send_line."
            }
            Action::Shell => {
                "Open a shell PTY beside a session's program (seed 002 §8.2.2): PTY 1, 2 … of session_id, started in the session's cwd with its environment and inside its sandbox, running its shell (or `command`); not filtered, not restarted, gone when it exits. Returns `address` (SESSION:N), which every action takes as session_id. kill SESSION ends all its PTYs."
            }
            Action::WaitFor => {
                "Wait until a session's output since `since` (default: since kpty last typed into it, so what a send_line caused counts however fast it came) matches `pattern` (a regex, escape codes stripped; screen=true: the visible screen), or no output came for quiet_ms, or (prompt=true) the shell is back at its prompt — whichever comes first; returns reason, match, output, next_offset. timeout_ms (default 30000) ends it with PTY_TIMEOUT (details: output so far, next_offset)."
            }
        }
    }
}

impl Params {
    /// Every parameter's name (the MCP tool's properties besides `action`), in declaration
    /// order.
    pub fn names() -> Vec<String> {
        let schema = schemars::schema_for!(Params);
        schema
            .as_object()
            .and_then(|o| o.get("properties"))
            .and_then(|p| p.as_object())
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// Every parameter of every action, all optional. Unknown fields are rejected by the front ends.
/// Written, only those set appear (a call to another host is a few dozen bytes, not every
/// parameter as `null`); read, those absent are `None`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Params {
    /// Target session: id (`pty_a3f87c2d`), unique id prefix, or label; `SESSION:N` names its
    /// PTY N (a shell opened with `shell`; `SESSION:0` or plain SESSION is its own). Omitted:
    /// the state directory's default session (`talk` creates it on first use).
    pub session_id: Option<String>,
    /// create: shell executable (default `KPTY_SHELL`, `$SHELL`, `/bin/bash`).
    pub shell: Option<String>,
    /// create: working directory (must exist; default the project root).
    pub cwd: Option<String>,
    /// create/resize/shell: columns (default 120, `KPTY_COLS`; 2-1000).
    pub cols: Option<u16>,
    /// create/resize/shell: rows (default 30, `KPTY_ROWS`; 1-1000).
    pub rows: Option<u16>,
    /// create/rename/update_ownership: a human label (1-64 chars, unique), usable wherever a
    /// session is named.
    pub label: Option<String>,
    /// create: lines of scrollback the session's screen keeps for term_read (default 10000,
    /// `KPTY_SCROLLBACK`; 0-1000000).
    pub scrollback: Option<u32>,
    /// create: extra environment variables for the shell (override PAGER, TERM …).
    pub env: Option<BTreeMap<String, String>>,
    /// create: owner agent id (routing identity).
    pub owner_agent_id: Option<String>,
    /// create: owner session id.
    pub owner_session_id: Option<String>,
    /// create/register/update_ownership: the Claude Code session linked to the terminal
    /// (seed 000's registry field); resolve: route by it.
    pub claude_code_session_id: Option<String>,
    /// create: owner role, `leader` or `worker`.
    pub owner_role: Option<String>,
    /// create: the kind of program in the terminal (e.g. `bash`, `claude`).
    pub cli_type: Option<String>,
    /// create: confine the shell and everything under it with Landlock (Linux): writes only
    /// in the project root, the cwd, /tmp and allow_write; credential stores (~/.ssh, ~/.aws …)
    /// and deny_read unreadable; no signals to processes outside. Default: the operator's
    /// floor (`help` shows it). Under a `required` floor, sandbox=false, writable paths
    /// (allow_write, cwd, env TMPDIR) outside the project root, /tmp and the operator's, and
    /// network=true under the operator's --no-network fail with SANDBOX_REQUIRED. Fails with
    /// PTY_SPAWN_FAILED where the kernel cannot enforce it.
    pub sandbox: Option<bool>,
    /// create (sandbox): extra paths the session may write (must exist).
    pub allow_write: Option<Vec<String>>,
    /// create (sandbox): extra paths the session may not read.
    pub deny_read: Option<Vec<String>>,
    /// create (sandbox): false denies TCP bind and connect (Landlock ABI 4, Linux 6.7).
    /// Default true.
    pub network: Option<bool>,
    /// create: the input filter on writes from remote writers — MCP clients,
    /// `kpty serve`, the CLI's send-line/send-keys/talk; never a person's `kpty attach`: it
    /// keeps Ctrl-D, Ctrl-\, `exit`/`/exit`/`quit` + Enter and block_sequences from the
    /// program (INPUT_BLOCKED) and drops a repeated Ctrl-C within ctrl_c_debounce_ms. Default:
    /// on for a `command` session (an agent program), off for a shell.
    pub input_filter: Option<bool>,
    /// create: record the session (asciicast v3, `sessions/<id>/recording.cast`: output,
    /// input with who typed it, resizes, a marker per talk and wait_for). Default true unless
    /// KPTY_RECORD=0; false turns it off.
    pub record: Option<bool>,
    /// create: more byte sequences the input filter blocks (escapes like `\x03` work); they
    /// turn the filter on.
    pub block_sequences: Option<Vec<String>>,
    /// create: the input filter drops Ctrl-C presses within this many ms of the one that passed
    /// (default 500; 0 turns the debounce off; at most 600000).
    pub ctrl_c_debounce_ms: Option<u64>,
    /// create (with `command`): start the program again when it exits, after
    /// restart_delay_ms (doubling on quick exits, up to 30 s). Default false.
    pub auto_restart: Option<bool>,
    /// create (auto_restart): wait this many ms before starting the program again (default
    /// 1000; at most 600000).
    pub restart_delay_ms: Option<u64>,
    /// send_line: the text to type (escape sequences processed; CR/LF stripped).
    pub data: Option<String>,
    /// send_keys: the keys to press, in tmux's spelling (`C-c`, `Up`, `Enter`, `F5`, `M-b`,
    /// a single character, `0x1b`); an element may hold several, space-separated.
    pub keys: Option<Vec<String>>,
    /// send_keys: type each element of `keys` as text, not as key names (tmux's `-l`).
    pub literal: Option<bool>,
    /// talk: the command to run; check: the command to judge, as talk or send_line would type
    /// it (escape sequences processed); create: run this program (split as a POSIX shell
    /// would, found on PATH) instead of an interactive shell — an agent CLI, a REPL, a server;
    /// shell: run this program on the new PTY instead of the session's shell.
    pub command: Option<String>,
    /// talk: force the sentinel method with this marker (4-64 chars of `[A-Za-z0-9_:.-]`)
    /// instead of shell integration; usually leave it out.
    pub sentinel: Option<String>,
    /// talk: give up after this many ms (default 30000, `KPTY_TIMEOUT_MS`); read: wait
    /// this long for new data (default 5000); create: wait at most this long for the shell's
    /// first prompt, then go on without it (default 10000, `KPTY_READY_TIMEOUT_MS`; shell too).
    /// At most 3600000.
    pub timeout_ms: Option<u64>,
    /// read: most bytes to return (default 4096, cap 1 MiB).
    pub max_bytes: Option<usize>,
    /// read/wait_for: absolute offset to read from; the response's next_offset continues it.
    pub since: Option<u64>,
    /// read: remove ANSI escape sequences from the output (default false).
    pub strip_ansi: Option<bool>,
    /// resolve/send_line_to_agent: the owner agent id to route to (primary key).
    pub agent_id: Option<String>,
    /// register: where the session lives, `desktop` (default) or another external source.
    pub source: Option<String>,
    /// register: the bridge serving the session (e.g. `http://127.0.0.1:8201`).
    pub desktop_url: Option<String>,
    /// register: the process id of the program in the terminal.
    pub pid: Option<u32>,
    /// unregister: also remove a leader's session; prune: also remove dead/exited local
    /// sessions; talk: type even when a program other than the shell holds the foreground —
    /// for a nested shell (ssh, su, docker exec …) — with a POSIX sentinel for completion;
    /// at the shell's prompt, clear text left on its input line first (Ctrl-E Ctrl-U; the
    /// reply's cleared_line says what was there).
    pub force: Option<bool>,
    /// kill: end every local session of this state directory (name no session then; each
    /// is audited as its own kill; answers killed and failed); list: also the sessions of
    /// every other state directory this user has used, each with its state_dir.
    pub all: Option<bool>,
    /// term_read: `tail` (default: the last max_lines lines of scrollback + screen), `viewport`
    /// (the visible screen) or `delta` (only lines added since marker_id).
    pub mode: Option<String>,
    /// screenshot: `svg` (default), `png` (base64) or `txt`. recording: `txt` (default) or
    /// `cast`.
    pub format: Option<String>,
    /// recording/evidence: where to start — the text of a marker (the first one containing
    /// it, e.g. `talk by`) or a time into the recording (`90`, `1m30s`, `01:30`).
    pub from: Option<String>,
    /// evidence: a note kept in the pack's manifest (at most 2000 characters).
    pub note: Option<String>,
    /// every action: run it by the kpty on this host, over ssh (an alias from ~/.ssh/config,
    /// user@host or ssh://user@host:port); its sessions, policy and audit are that host's.
    /// HOST_UNREACHABLE when ssh cannot reach it.
    pub host: Option<String>,
    /// talk: make an evidence pack around the command (screenshots before and after, its
    /// recording, output, audit entries, git diff); the reply carries its `evidence_id`.
    pub evidence: Option<bool>,
    /// term_read: most lines to return (default 40, cap 200).
    pub max_lines: Option<usize>,
    /// term_read: most characters of text (default 12000, cap 50000). talk: most characters
    /// of output returned, the end kept (default: all from the CLI, 50000 over MCP). Cuts are
    /// reported in truncated / dropped_chars.
    pub max_chars: Option<usize>,
    /// talk: also return `raw_output`, the output as the terminal printed it (escape codes and
    /// all). Left out over MCP unless true; the CLI's `--json` always has it.
    pub include_raw: Option<bool>,
    /// term_read: join soft-wrapped rows into one line (default true).
    pub merge_wrapped: Option<bool>,
    /// term_read mode=delta: the marker_id from the previous term_read; omitted, delta starts
    /// with the tail and returns a marker.
    pub marker_id: Option<u64>,
    /// wait_for: a regex to wait for in the output since `since` (default: since the last
    /// input typed; escape codes stripped, `^`/`$` match at line ends), or on the visible
    /// screen with `screen`.
    pub pattern: Option<String>,
    /// wait_for: done once no output came for this many ms (1-3600000).
    pub quiet_ms: Option<u64>,
    /// wait_for: done once the shell is back at its prompt.
    pub prompt: Option<bool>,
    /// wait_for: match `pattern` against the rendered visible screen, not the output stream.
    pub screen: Option<bool>,
}
