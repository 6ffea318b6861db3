# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kpty_global_optspecs
    string join \n state-dir= json no-redact h/help V/version
end

function __fish_kpty_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kpty_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kpty_using_subcommand
    set -l cmd (__fish_kpty_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kpty -n "__fish_kpty_needs_command" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_needs_command" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_needs_command" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kpty -n "__fish_kpty_needs_command" -s V -l version -d 'Print version'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "create" -d 'Start a new terminal session; prints its id once the shell\'s first prompt is up'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "list" -d 'List sessions and their state: running, exited (with exit code), dead'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "talk" -d 'Run a command in a session, print its output, exit with its exit code'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "run" -d 'Run a command in a session, print its output, exit with its exit code'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "check" -d 'Would talk or send-line type a command, or block it as dangerous? Types nothing'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "send-line" -d 'Type one line into a session and press Enter'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "read" -d 'Print a session\'s recent output (raw), or follow it'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "term-read" -d 'Print the rendered terminal screen (no escape codes): tail, viewport or delta'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "resize" -d 'Change a session\'s terminal size'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "kill" -d 'End a session: hang up its shell and everything it started'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "help" -d 'Show the actions, configuration and exit codes (or help for one command)'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "resolve" -d 'Print the id of the one session an agent (or owner session, or label) owns'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "send-line-to-agent" -d 'Type a line into the session an agent owns (resolve + send-line)'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "update-ownership" -d 'Change a session\'s owner, role, label or cli type'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "register" -d 'Register an external (desktop) session reached through its bridge'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "unregister" -d 'Remove a registered session (a leader\'s needs --force)'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "heartbeat" -d 'Mark a session as alive now'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "prune" -d 'Remove registered sessions without a heartbeat for 7 days (and, with --force, ended local ones)'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "log" -d 'Show the audit trail: every send-line, talk, resolve, register … with its outcome'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "mcp" -d 'Serve the k_pty tool to an MCP client over stdio (e.g. `claude mcp add kpty -- kpty mcp`)'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "serve" -d 'Serve this state directory\'s sessions over HTTP as a desktop bridge (loopback only)'
complete -c kpty -n "__fish_kpty_needs_command" -f -a "__generate-assets" -d 'Write shell completions and man pages into DIR (maintainers)'
complete -c kpty -n "__fish_kpty_using_subcommand create" -l shell -d 'Shell to run (default: KURORYUU_PTY_SHELL, $SHELL, /bin/bash)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l cwd -d 'Working directory (default: the project root)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l cols -d 'Terminal columns (default: KURORYUU_PTY_COLS or 120)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l rows -d 'Terminal rows (default: KURORYUU_PTY_ROWS or 30)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l scrollback -d 'Lines of scrollback term-read can reach (default: KPTY_SCROLLBACK or 10000; at most 1000000)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l env -d 'Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l allow-write -d 'Sandbox: also allow writing under PATH (repeatable; must exist)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l deny-read -d 'Sandbox: also hide PATH and everything under it (repeatable)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l owner-agent-id -d 'Owner agent id (routing identity)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l owner-session-id -d 'Owner session id' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l owner-role -d 'Owner role: leader or worker' -r -f -a "leader\t''
worker\t''"
complete -c kpty -n "__fish_kpty_using_subcommand create" -l label -d 'A label to name the session by' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l cli-type -d 'Kind of program in the terminal (e.g. bash, claude)' -r
complete -c kpty -n "__fish_kpty_using_subcommand create" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand create" -l sandbox -d 'Confine the shell and everything it starts with Landlock (Linux 5.13+): writes only in the project root, the cwd, /tmp, $TMPDIR and --allow-write paths; ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.docker, ~/.kube, ~/.netrc, ~/.git-credentials and --deny-read paths unreadable (their names still list); no signals to processes outside. Directories on the way to a hidden path (`~`, `/`) get no new entries. The shell gets its own mount namespace where kpty\'s socket directories and this state directory are empty and read-only: no other session can be driven from inside (needs user namespaces when not root). Default: KPTY_SANDBOX=1'
complete -c kpty -n "__fish_kpty_using_subcommand create" -l no-sandbox -d 'Do not sandbox, even with KPTY_SANDBOX=1'
complete -c kpty -n "__fish_kpty_using_subcommand create" -l no-network -d 'Sandbox: deny TCP bind and connect (Landlock ABI 4, Linux 6.7; UDP and Unix sockets stay open)'
complete -c kpty -n "__fish_kpty_using_subcommand create" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand create" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand create" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand list" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand list" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand list" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand list" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand talk" -s s -l session -d 'Session id, unique id prefix, or label (default: the default session)' -r
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l agent -d 'The session owned by this agent (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l label -d 'The session with this label (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand talk" -s t -l timeout-ms -d 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)' -r
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l sentinel -d 'Use the sentinel method with this marker instead of shell integration' -r
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l max-chars -d 'Return at most N characters of output, the end kept (default: all)' -r
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l force -d 'Type even when another program holds the foreground: for a nested shell (ssh, su, docker exec …), completion by a POSIX sentinel'
complete -c kpty -n "__fish_kpty_using_subcommand talk" -s n -l no-stdin -d 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take'
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand talk" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand talk" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kpty -n "__fish_kpty_using_subcommand run" -s s -l session -d 'Session id, unique id prefix, or label (default: the default session)' -r
complete -c kpty -n "__fish_kpty_using_subcommand run" -l agent -d 'The session owned by this agent (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand run" -l label -d 'The session with this label (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand run" -s t -l timeout-ms -d 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)' -r
complete -c kpty -n "__fish_kpty_using_subcommand run" -l sentinel -d 'Use the sentinel method with this marker instead of shell integration' -r
complete -c kpty -n "__fish_kpty_using_subcommand run" -l max-chars -d 'Return at most N characters of output, the end kept (default: all)' -r
complete -c kpty -n "__fish_kpty_using_subcommand run" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand run" -l force -d 'Type even when another program holds the foreground: for a nested shell (ssh, su, docker exec …), completion by a POSIX sentinel'
complete -c kpty -n "__fish_kpty_using_subcommand run" -s n -l no-stdin -d 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take'
complete -c kpty -n "__fish_kpty_using_subcommand run" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand run" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kpty -n "__fish_kpty_using_subcommand check" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand check" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand check" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -s s -l session -d 'Session id, unique id prefix, or label (default: the default session)' -r
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -l agent -d 'The session owned by this agent (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -l label -d 'The session with this label (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand send-line" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand read" -s s -l session -d 'Session id, unique id prefix, or label (default: the default session)' -r
complete -c kpty -n "__fish_kpty_using_subcommand read" -l agent -d 'The session owned by this agent (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand read" -l label -d 'The session with this label (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand read" -l max-bytes -d 'Most bytes to return (default 4096, at most 1048576)' -r
complete -c kpty -n "__fish_kpty_using_subcommand read" -l timeout-ms -d 'Wait this long for output when there is none yet (default 5000)' -r
complete -c kpty -n "__fish_kpty_using_subcommand read" -l since -d 'Read from this absolute offset (see next_offset in --json output)' -r
complete -c kpty -n "__fish_kpty_using_subcommand read" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand read" -l strip-ansi -d 'Remove ANSI escape sequences'
complete -c kpty -n "__fish_kpty_using_subcommand read" -s f -l follow -l watch -d 'Keep printing new output until the session ends or you interrupt'
complete -c kpty -n "__fish_kpty_using_subcommand read" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand read" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand read" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -s s -l session -d 'Session id, unique id prefix, or label (default: the default session)' -r
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l agent -d 'The session owned by this agent (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l label -d 'The session with this label (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l mode -d 'tail: the last lines of scrollback + screen; viewport: the visible screen; delta: only lines added since --marker' -r -f -a "tail\t''
viewport\t''
delta\t''"
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l max-lines -d 'Most lines (default 40, at most 200)' -r
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l max-chars -d 'Most characters (default 12000, at most 50000)' -r
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l marker -d 'With --mode delta: the marker_id of the previous term-read (see --json)' -r
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l no-merge-wrapped -d 'Keep soft-wrapped rows as separate lines'
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -s f -l follow -l watch -d 'Redraw the visible screen whenever the session prints, until interrupted'
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand term-read" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand resize" -s s -l session -d 'Session id, unique id prefix, or label (default: the default session)' -r
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l agent -d 'The session owned by this agent (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l label -d 'The session with this label (resolved; exactly one must match)' -r
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l cols -d 'Columns' -r
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l rows -d 'Rows' -r
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand resize" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand resize" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand kill" -s s -l session -d 'The same, as the other commands spell it' -r
complete -c kpty -n "__fish_kpty_using_subcommand kill" -l agent -d 'The session owned by this agent' -r
complete -c kpty -n "__fish_kpty_using_subcommand kill" -l label -d 'The session with this label' -r
complete -c kpty -n "__fish_kpty_using_subcommand kill" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand kill" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand kill" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand kill" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand help" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand help" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand help" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand help" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -l agent -l agent-id -d 'Owner agent id (primary routing key)' -r
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -l owner-session-id -d 'Owner session id' -r
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -l label -d 'Label' -r
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand resolve" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -l agent -l agent-id -d 'Owner agent id (primary routing key)' -r
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -l owner-session-id -d 'Owner session id' -r
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -l label -d 'Label' -r
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand send-line-to-agent" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l owner-agent-id -d 'Owner agent id (routing identity)' -r
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l owner-session-id -d 'Owner session id' -r
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l owner-role -d 'Owner role: leader or worker' -r -f -a "leader\t''
worker\t''"
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l label -d 'A label to name the session by' -r
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l cli-type -d 'Kind of program in the terminal (e.g. bash, claude)' -r
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand update-ownership" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand register" -l desktop-url -d 'The bridge that serves it (e.g. http://127.0.0.1:8201)' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l source -d 'Where it lives (default: desktop)' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l pid -d 'Process id of the program in the terminal' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l owner-agent-id -d 'Owner agent id (routing identity)' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l owner-session-id -d 'Owner session id' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l owner-role -d 'Owner role: leader or worker' -r -f -a "leader\t''
worker\t''"
complete -c kpty -n "__fish_kpty_using_subcommand register" -l label -d 'A label to name the session by' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l cli-type -d 'Kind of program in the terminal (e.g. bash, claude)' -r
complete -c kpty -n "__fish_kpty_using_subcommand register" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand register" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand register" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand register" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand unregister" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand unregister" -l force -d 'Also remove a leader\'s session'
complete -c kpty -n "__fish_kpty_using_subcommand unregister" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand unregister" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand unregister" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand heartbeat" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand heartbeat" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand heartbeat" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand heartbeat" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand prune" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand prune" -l force -d 'Also remove local sessions whose shell has ended or whose holder is gone'
complete -c kpty -n "__fish_kpty_using_subcommand prune" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand prune" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand prune" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand log" -s s -l session -d 'Only this session (id)' -r
complete -c kpty -n "__fish_kpty_using_subcommand log" -l agent -d 'Only events of this agent' -r
complete -c kpty -n "__fish_kpty_using_subcommand log" -l action -d 'Only this action (e.g. talk, send_line; send-line works too)' -r
complete -c kpty -n "__fish_kpty_using_subcommand log" -l since -d 'Only events since this time: RFC 3339 (2026-11-22T07:00:00Z) or an age (10m, 2h, 1d)' -r
complete -c kpty -n "__fish_kpty_using_subcommand log" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand log" -l errors-only -d 'Only failed actions'
complete -c kpty -n "__fish_kpty_using_subcommand log" -l blocked-only -d 'Only blocked (dangerous) commands'
complete -c kpty -n "__fish_kpty_using_subcommand log" -s f -l follow -d 'Keep printing new events as they are recorded'
complete -c kpty -n "__fish_kpty_using_subcommand log" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand log" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand log" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand mcp" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand mcp" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand mcp" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c kpty -n "__fish_kpty_using_subcommand serve" -l port -d 'Port to listen on; when taken, the next free one (up to +20). 0: any free port. Default: KURORYUU_PTY_BRIDGE_PORT or 8201' -r
complete -c kpty -n "__fish_kpty_using_subcommand serve" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand serve" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand serve" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kpty -n "__fish_kpty_using_subcommand __generate-assets" -l state-dir -d 'State directory (default: <project root>/ai/checkpoints/pty)' -r -F
complete -c kpty -n "__fish_kpty_using_subcommand __generate-assets" -l json -d 'Print the action\'s JSON object instead of human output (secrets redacted)'
complete -c kpty -n "__fish_kpty_using_subcommand __generate-assets" -l no-redact -d 'Keep secrets in --json output (also KPTY_REDACT=off)'
complete -c kpty -n "__fish_kpty_using_subcommand __generate-assets" -s h -l help -d 'Print help'
