//! The reference tables the man pages show (EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES) and the
//! README repeats: kept here, once; a test checks the README against them.

use crate::error::ErrorCode;

/// Exit statuses besides kpty's own error codes (those come from [`ErrorCode::exit_code`]).
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "success"),
    (
        "1-255 (talk)",
        "kpty talk exits with the command's own exit code, as ssh does, also when the \
         command ends the shell (kpty talk 'exit 3' exits 3)",
    ),
    ("2", "usage error (unknown flag, missing argument)"),
];

/// What each error code means to a user, for the exit-status table.
pub fn error_meaning(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::TermReadDisabled => "term_read is disabled (KPTY_TERM_READ=off)",
        ErrorCode::BridgeError => {
            "a registered session's bridge (the HTTP server that serves it) answered with a failure"
        }
        ErrorCode::BridgeUnavailable => "a registered session's bridge cannot be reached",
        ErrorCode::DesktopResizeDisabled => "a desktop session is resized in the desktop UI",
        ErrorCode::PtyAccessDenied => "a leader's terminal, without force",
        ErrorCode::Deprecated => "a deprecated action",
        ErrorCode::StateError => "unreadable, corrupt or unsafe state files",
        ErrorCode::Ambiguous => "a prefix or label matches several sessions",
        ErrorCode::InvalidParams => "invalid parameters",
        ErrorCode::DangerousCommandBlocked => "the command was blocked as dangerous",
        ErrorCode::PtyBusy => "the session is busy with another command",
        ErrorCode::PtyProcessExited => "the session's shell has ended",
        ErrorCode::PtySessionNotFound | ErrorCode::NotFound => "no such session",
        ErrorCode::PtySpawnFailed => "the session could not be started",
        ErrorCode::PtyWriteFailed => "typing into the session failed",
        ErrorCode::PtyReadFailed => "reading the session failed",
        ErrorCode::PtyTimeout => "the command did not finish in time",
        ErrorCode::Internal => "an internal error",
        ErrorCode::Cancelled => "the caller cancelled the call",
        ErrorCode::InputBlocked => "an input filter kept a sequence from the program",
        ErrorCode::AuditFailed => "the audit entry could not be written, so nothing was done",
        ErrorCode::SandboxRequired => {
            "the operator's sandbox floor forbids an unsandboxed or wider session"
        }
        ErrorCode::HostUnreachable => {
            "--host: ssh could not reach or log in to the host, or the connection dropped"
        }
    }
}

/// Every environment variable kpty reads: (variable, default, effect).
pub const ENVIRONMENT: &[(&str, &str, &str)] = &[
    (
        "KPTY_STATE_DIR",
        "discovered",
        "state directory (as --state-dir)",
    ),
    ("KPTY_SESSION", "default session", "session for -s"),
    (
        "KPTY_LOG",
        "warn (holder: info)",
        "log filter (stderr / holder.log); else RUST_LOG",
    ),
    (
        "KPTY_LOG_FORMAT",
        "text",
        "json: logs are one JSON object a line (for kpty serve under a service manager)",
    ),
    (
        "KPTY_RUNTIME_DIR",
        "$XDG_RUNTIME_DIR/kpty, else /tmp/kpty-<uid>",
        "socket directory",
    ),
    (
        "KPTY_SERVE_HEADER_TIMEOUT_MS",
        "10000",
        "kpty serve: longest wait for a request's header and body, and longest idle keep-alive",
    ),
    (
        "KPTY_REDACT",
        "on",
        "off: the CLI's --json output is not redacted (as --no-redact); MCP, kpty serve and \
         the audit trail always are",
    ),
    (
        "KPTY_AUDIT_FAIL",
        "closed",
        "open: an action whose audit entry cannot be written (a full disk) runs anyway, with \
         a warning; closed refuses it (AUDIT_FAILED)",
    ),
    (
        "KPTY_ALLOW_BRIDGE",
        "-",
        "hosts (comma-separated) whose bridges (the HTTP servers of registered sessions) kpty \
         may register and call besides loopback \
         (as kpty serve --allow-bridge)",
    ),
    (
        "KPTY_LOCK_TIMEOUT_MS",
        "10000",
        "longest wait for the registry lock (the default-session lock waits this plus the \
         ready timeout)",
    ),
    (
        "KPTY_READY_TIMEOUT_MS",
        "10000",
        "how long create waits for the first prompt",
    ),
    (
        "KPTY_SANDBOX",
        "off",
        "the operator's sandbox floor: 1 (or required): every session is sandboxed and no \
         request (CLI, MCP, HTTP) may drop or widen it (SANDBOX_REQUIRED); default: sandboxed \
         unless --no-sandbox (MCP sandbox: false); off: only when asked; kpty mcp|serve \
         --sandbox overrides it",
    ),
    (
        "KPTY_DETACH_KEY",
        "C-\\",
        "kpty attach's detach key (as --detach-key)",
    ),
    ("KPTY_SHELL", "$SHELL, else /bin/bash", "default shell"),
    ("KPTY_COLS", "120", "default columns"),
    ("KPTY_ROWS", "30", "default rows"),
    (
        "KPTY_BUFFER_SIZE",
        "102400",
        "ring buffer bytes per session",
    ),
    ("KPTY_TIMEOUT_MS", "30000", "default talk timeout"),
    (
        "KPTY_SCROLLBACK",
        "10000",
        "screen scrollback lines per session (create's --scrollback overrides it)",
    ),
    ("KPTY_TERM_READ", "on", "off disables term_read"),
    (
        "KPTY_RECORD",
        "1",
        "0 (false, off, no): new sessions are not recorded (create --record still asks for it)",
    ),
    (
        "KPTY_RECORD_SEGMENT",
        "64M",
        "a recording rolls to a new segment past this size (bytes, or K/M/G; at least 64K)",
    ),
    (
        "KPTY_RECORD_TOTAL",
        "1G",
        "the state directory's recordings are kept under this total (kpty gc)",
    ),
    (
        "KPTY_HOST",
        "-",
        "run every verb by the kpty on this host, over ssh (as --host)",
    ),
    (
        "KPTY_REMOTE_DIR",
        "-",
        "the directory verbs run in on a host (as --remote-dir; for MCP's host too)",
    ),
    (
        "KPTY_HOSTS",
        "-",
        "more hosts for list --all-hosts, comma-separated (besides kpty hosts add)",
    ),
    (
        "KPTY_SSH_COMMAND",
        "ssh",
        "the ssh to run for --host, split as a shell would (e.g. ssh -F ./config)",
    ),
    (
        "KPTY_SSH_CONNECT_TIMEOUT",
        "10",
        "seconds a connection to a host may take",
    ),
    (
        "KPTY_REMOTE_INSTALL",
        "1",
        "0: never copy this kpty to a host that has none (the error says how to install it)",
    ),
    (
        "KPTY_AGENT_ID",
        "-",
        "the acting agent, recorded in audit events; create/register: the owner_agent_id when \
         none is given; a registered leader's id makes the caller a leader",
    ),
    (
        "KPTY_OWNER_SESSION_ID",
        "-",
        "create/register: the owner_session_id when none is given; owning a leader's terminal \
         makes the caller a leader",
    ),
    (
        "KPTY_AGENT_ROLE",
        "-",
        "create/register: the owner_role when none is given; leader makes the caller a leader",
    ),
    (
        "KPTY_IS_LEADER",
        "-",
        "1: the caller is a leader (unregisters a leader's terminal without --force); \
         create/register: owner_role leader when none is given",
    ),
    (
        "KPTY_GATEWAY_URL",
        "-",
        "also send audit events to this gateway",
    ),
    (
        "KPTY_DESKTOP_URL",
        "-",
        "register: the bridge URL when --desktop-url is not given",
    ),
    (
        "KPTY_DESKTOP_SECRET",
        "-",
        "the secret sent to a registered session's bridge (kpty serve's secret file); sent only to loopback or allowed hosts",
    ),
    ("KPTY_PORT", "8201", "kpty serve's port"),
    (
        "KPTY_INTERNAL_SECRET",
        "-",
        "kpty serve: also accept this secret in X-Kuroryuu-Internal-Secret (a second secret, \
         for internal callers and k_pty clients)",
    ),
    (
        "COMPLETE",
        "-",
        "bash, zsh, fish, elvish or powershell: print that shell's completion script \
         (COMPLETE=bash kpty); the scripts set it to ask kpty for candidates",
    ),
];

/// The files kpty keeps: (path, what).
pub const FILES: &[(&str, &str)] = &[
    (
        "<project root>/ai/checkpoints/pty/",
        "the state directory (--state-dir / KPTY_STATE_DIR override it); the project root is \
         the nearest ancestor of the working directory with ai/checkpoints/pty, else with \
         .git, else the working directory",
    ),
    (
        "<state dir>/_registry.json",
        "every known session (schema pty_registry_v1), replaced atomically under a lock \
         (_registry.lock)",
    ),
    (
        "<state dir>/_registry_events.jsonl",
        "session_created, session_killed, pruned ... (append-only)",
    ),
    (
        "<state dir>/sessions/<id>/",
        "metadata.json, buffer.txt (last output), events.jsonl (the audit trail of that \
         session), holder.log; removed by kpty prune once the session has ended",
    ),
    (
        "$XDG_STATE_HOME/kpty (else ~/.local/state/kpty)",
        "kpty's private directory (0700): kpty serve's secrets (bridge-<hash>.secret, 0600, \
         made on first start or by --new-secret) and the key that seals registry entries \
         kpty made (registry.secret)",
    ),
    (
        "<state dir>/_leaders.json",
        "agents registered as leaders through kpty serve's leader registry (their sessions \
         are protected from unregister)",
    ),
    (
        "$XDG_RUNTIME_DIR/kpty/, else /tmp/kpty-<uid>/",
        "the private runtime directory (KPTY_RUNTIME_DIR overrides it): holder sockets \
         <tag>-<id>.sock and shell integration files",
    ),
    (
        "<runtime dir>/state-dirs",
        "the state directories this user has used (one a line, for kpty list --all); added to \
         by create, pruned of directories gone or without sessions",
    ),
];

/// What `kpty --help` (and `kpty help`) shows after the commands and options: the MCP
/// spelling, the environment and the exit codes, in short (the man page has them in full).
pub fn after_help() -> String {
    let mut s = String::from(
        "Over MCP (`kpty mcp`, `kpty serve`) the commands are actions spelled with underscores \
         (send_line, term_read …) and the flags are parameters (--timeout-ms is timeout_ms); \
         `kpty --json help` lists them, with this state directory and the sandbox kpty can \
         use.\n\nEnvironment: ",
    );
    let vars: Vec<&str> = ENVIRONMENT.iter().map(|(v, _, _)| *v).collect();
    s.push_str(&vars.join(", "));
    s.push_str(
        " (`man kpty` says what each does).\n\nExit codes: 0 ok; 2 a usage error; `talk` exits \
         with its command's own code (123: the command waits for input); kpty's failures:\n",
    );
    let mut codes: Vec<ErrorCode> = ErrorCode::ALL.to_vec();
    codes.sort_by_key(|c| c.exit_code());
    for c in codes {
        s.push_str(&format!("  {}  {c}\n", c.exit_code()));
    }
    s.push_str("\n`kpty help COMMAND` or `kpty COMMAND --help` shows a command's flags.");
    s
}

/// Examples: (command line, what it does). A subcommand's page shows those that use it.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "kpty talk 'git status'",
        "run in this project's default session (created on first use; it stays alive until \
         kpty kill ends it)",
    ),
    (
        "kpty talk -s build 'make -j2'",
        "... or in a named one; exits with make's own exit code",
    ),
    (
        "S=$(kpty create --label build --cwd ~/src/app --cols 160)",
        "start a session labelled build; prints its id",
    ),
    (
        "kpty send-line -s build 'python3'",
        "type a line + Enter (escapes like \\x03 work: Ctrl-C)",
    ),
    (
        "kpty read -s build --follow",
        "watch its output (raw, colours and all)",
    ),
    (
        "kpty attach build",
        "sit down at the session yourself: its screen, your keys; Ctrl-\\ detaches",
    ),
    ("kpty list", "sessions: running / exited(code) / dead"),
    (
        "kpty resize -s build --cols 200 --rows 50",
        "change its terminal size",
    ),
    ("kpty kill build", "end the session labelled build"),
    (
        "kpty list --all",
        "sessions of every state directory this user has used",
    ),
    (
        "kpty kill --all",
        "end every session of this state directory",
    ),
    ("kpty prune", "remove ended sessions and their files"),
    (
        "kpty check 'rm -rf /' || echo blocked",
        "would talk type this? (exit 116 when blocked)",
    ),
    (
        "kpty serve --print-config",
        "print the claude mcp add --transport http line and a client config for this \
         project's kpty serve",
    ),
    (
        "kpty --json talk 'ls'",
        "the action's JSON object instead of text",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    const README: &str = include_str!("../../README.md");

    /// The README's section under `heading`, up to the next heading.
    fn section(heading: &str) -> &'static str {
        let start = README.find(heading).expect("README section") + heading.len();
        let rest = &README[start..];
        &rest[..rest.find("\n#").unwrap_or(rest.len())]
    }

    /// The README's compatibility table is [`crate::api::config::COMPAT`], and every kpty
    /// name in it is in the man page's table.
    #[test]
    fn readme_compatibility_table_is_the_one_kpty_reads() {
        let table = section("## Compatibility with k_pty");
        let rows: Vec<(String, String)> = table
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("| `KPTY_"))
            .map(|l| {
                let names: Vec<&str> = l.split('`').skip(1).step_by(2).collect();
                (names[0].to_string(), names[1].to_string())
            })
            .collect();
        let want: Vec<(String, String)> = crate::api::config::COMPAT
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(rows, want);
        for (ours, _) in crate::api::config::COMPAT {
            assert!(ENVIRONMENT.iter().any(|(v, _, _)| v == ours), "{ours}");
        }
    }

    #[test]
    fn every_readme_variable_is_in_the_man_page_table() {
        let table = section("### Environment");
        let mut seen = 0;
        for row in table.lines().filter(|l| l.starts_with("| `")) {
            let first = row.split('|').nth(1).unwrap_or_default();
            for var in first.split('`').skip(1).step_by(2) {
                seen += 1;
                assert!(
                    ENVIRONMENT.iter().any(|(v, _, _)| *v == var),
                    "README's {var} is missing from reference::ENVIRONMENT"
                );
            }
        }
        assert!(seen > 10, "README's environment table not found");
    }

    #[test]
    fn readme_exit_codes_match_the_error_codes() {
        let table = section("### Exit codes");
        for code in ErrorCode::ALL {
            let cell = format!("| {} | `{code}`", code.exit_code());
            let also = format!("`, `{code}`");
            assert!(
                table.contains(&cell) || table.contains(&also),
                "README's exit-code table lacks {code} = {}",
                code.exit_code()
            );
        }
    }

    #[test]
    fn readme_examples_are_the_man_pages() {
        let block = section("## Use");
        for line in block
            .lines()
            .filter(|l| l.starts_with("kpty ") || l.starts_with("S=$("))
        {
            let cmd = line.split("  #").next().unwrap_or(line).trim_end();
            assert!(
                EXAMPLES.iter().any(|(c, _)| *c == cmd),
                "README example {cmd:?} is missing from reference::EXAMPLES"
            );
        }
    }
}
