
use builtin;
use str;

set edit:completion:arg-completer[kpty] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kpty'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kpty'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Start a new terminal session; prints its id once the shell''s first prompt is up'
            cand list 'List sessions and their state: running, exited (with exit code), dead'
            cand talk 'Run a command in a session, print its output, exit with its exit code'
            cand run 'Run a command in a session, print its output, exit with its exit code'
            cand check 'Would talk or send-line type a command, or block it as dangerous? Types nothing'
            cand send-line 'Type one line into a session and press Enter'
            cand read 'Print a session''s recent output (raw), or follow it'
            cand term-read 'Print the rendered terminal screen (no escape codes): tail, viewport or delta'
            cand resize 'Change a session''s terminal size'
            cand kill 'End a session: hang up its shell and everything it started'
            cand help 'Show the actions, configuration and exit codes (or help for one command)'
            cand resolve 'Print the id of the one session an agent (or owner session, or label) owns'
            cand send-line-to-agent 'Type a line into the session an agent owns (resolve + send-line)'
            cand update-ownership 'Change a session''s owner, role, label or cli type'
            cand register 'Register an external (desktop) session reached through its bridge'
            cand unregister 'Remove a registered session (a leader''s needs --force)'
            cand heartbeat 'Mark a session as alive now'
            cand prune 'Remove registered sessions without a heartbeat for 7 days (and, with --force, ended local ones)'
            cand log 'Show the audit trail: every send-line, talk, resolve, register … with its outcome'
            cand mcp 'Serve the k_pty tool to an MCP client over stdio (e.g. `claude mcp add kpty -- kpty mcp`)'
            cand serve 'Serve this state directory''s sessions over HTTP as a desktop bridge (loopback only)'
            cand __generate-assets 'Write shell completions and man pages into DIR (maintainers)'
        }
        &'kpty;create'= {
            cand --shell 'Shell to run (default: KURORYUU_PTY_SHELL, $SHELL, /bin/bash)'
            cand --cwd 'Working directory (default: the project root)'
            cand --cols 'Terminal columns (default: KURORYUU_PTY_COLS or 120)'
            cand --rows 'Terminal rows (default: KURORYUU_PTY_ROWS or 30)'
            cand --scrollback 'Lines of scrollback term-read can reach (default: KPTY_SCROLLBACK or 10000; at most 1000000)'
            cand --env 'Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …)'
            cand --allow-write 'Sandbox: also allow writing under PATH (repeatable; must exist)'
            cand --deny-read 'Sandbox: also hide PATH and everything under it (repeatable)'
            cand --owner-agent-id 'Owner agent id (routing identity)'
            cand --owner-session-id 'Owner session id'
            cand --owner-role 'Owner role: leader or worker'
            cand --label 'A label to name the session by'
            cand --cli-type 'Kind of program in the terminal (e.g. bash, claude)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --sandbox 'Confine the shell and everything it starts with Landlock (Linux 5.13+): writes only in the project root, the cwd, /tmp, $TMPDIR and --allow-write paths; ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.docker, ~/.kube, ~/.netrc, ~/.git-credentials and --deny-read paths unreadable (their names still list); no signals to processes outside. Directories on the way to a hidden path (`~`, `/`) get no new entries. The shell gets its own mount namespace where kpty''s socket directories and this state directory are empty and read-only: no other session can be driven from inside (needs user namespaces when not root). Default: KPTY_SANDBOX=1'
            cand --no-sandbox 'Do not sandbox, even with KPTY_SANDBOX=1'
            cand --no-network 'Sandbox: deny TCP bind and connect (Landlock ABI 4, Linux 6.7; UDP and Unix sockets stay open)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;list'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;talk'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --agent 'The session owned by this agent (resolved; exactly one must match)'
            cand --label 'The session with this label (resolved; exactly one must match)'
            cand -t 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --timeout-ms 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --sentinel 'Use the sentinel method with this marker instead of shell integration'
            cand --max-chars 'Return at most N characters of output, the end kept (default: all)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --force 'Type even when another program holds the foreground: for a nested shell (ssh, su, docker exec …), completion by a POSIX sentinel'
            cand -n 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take'
            cand --no-stdin 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kpty;run'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --agent 'The session owned by this agent (resolved; exactly one must match)'
            cand --label 'The session with this label (resolved; exactly one must match)'
            cand -t 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --timeout-ms 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --sentinel 'Use the sentinel method with this marker instead of shell integration'
            cand --max-chars 'Return at most N characters of output, the end kept (default: all)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --force 'Type even when another program holds the foreground: for a nested shell (ssh, su, docker exec …), completion by a POSIX sentinel'
            cand -n 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take'
            cand --no-stdin 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kpty;check'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kpty;send-line'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --agent 'The session owned by this agent (resolved; exactly one must match)'
            cand --label 'The session with this label (resolved; exactly one must match)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;read'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --agent 'The session owned by this agent (resolved; exactly one must match)'
            cand --label 'The session with this label (resolved; exactly one must match)'
            cand --max-bytes 'Most bytes to return (default 4096, at most 1048576)'
            cand --timeout-ms 'Wait this long for output when there is none yet (default 5000)'
            cand --since 'Read from this absolute offset (see next_offset in --json output)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --strip-ansi 'Remove ANSI escape sequences'
            cand -f 'Keep printing new output until the session ends or you interrupt'
            cand --follow 'Keep printing new output until the session ends or you interrupt'
            cand --watch 'Keep printing new output until the session ends or you interrupt'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;term-read'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --agent 'The session owned by this agent (resolved; exactly one must match)'
            cand --label 'The session with this label (resolved; exactly one must match)'
            cand --mode 'tail: the last lines of scrollback + screen; viewport: the visible screen; delta: only lines added since --marker'
            cand --max-lines 'Most lines (default 40, at most 200)'
            cand --max-chars 'Most characters (default 12000, at most 50000)'
            cand --marker 'With --mode delta: the marker_id of the previous term-read (see --json)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --no-merge-wrapped 'Keep soft-wrapped rows as separate lines'
            cand -f 'Redraw the visible screen whenever the session prints, until interrupted'
            cand --follow 'Redraw the visible screen whenever the session prints, until interrupted'
            cand --watch 'Redraw the visible screen whenever the session prints, until interrupted'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;resize'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --agent 'The session owned by this agent (resolved; exactly one must match)'
            cand --label 'The session with this label (resolved; exactly one must match)'
            cand --cols 'Columns'
            cand --rows 'Rows'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;kill'= {
            cand -s 'The same, as the other commands spell it'
            cand --session 'The same, as the other commands spell it'
            cand --agent 'The session owned by this agent'
            cand --label 'The session with this label'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;help'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;resolve'= {
            cand --agent 'Owner agent id (primary routing key)'
            cand --agent-id 'Owner agent id (primary routing key)'
            cand --owner-session-id 'Owner session id'
            cand --label 'Label'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;send-line-to-agent'= {
            cand --agent 'Owner agent id (primary routing key)'
            cand --agent-id 'Owner agent id (primary routing key)'
            cand --owner-session-id 'Owner session id'
            cand --label 'Label'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;update-ownership'= {
            cand --owner-agent-id 'Owner agent id (routing identity)'
            cand --owner-session-id 'Owner session id'
            cand --owner-role 'Owner role: leader or worker'
            cand --label 'A label to name the session by'
            cand --cli-type 'Kind of program in the terminal (e.g. bash, claude)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;register'= {
            cand --desktop-url 'The bridge that serves it (e.g. http://127.0.0.1:8201)'
            cand --source 'Where it lives (default: desktop)'
            cand --pid 'Process id of the program in the terminal'
            cand --owner-agent-id 'Owner agent id (routing identity)'
            cand --owner-session-id 'Owner session id'
            cand --owner-role 'Owner role: leader or worker'
            cand --label 'A label to name the session by'
            cand --cli-type 'Kind of program in the terminal (e.g. bash, claude)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;unregister'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --force 'Also remove a leader''s session'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;heartbeat'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;prune'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --force 'Also remove local sessions whose shell has ended or whose holder is gone'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;log'= {
            cand -s 'Only this session (id)'
            cand --session 'Only this session (id)'
            cand --agent 'Only events of this agent'
            cand --action 'Only this action (e.g. talk, send_line; send-line works too)'
            cand --since 'Only events since this time: RFC 3339 (2026-11-22T07:00:00Z) or an age (10m, 2h, 1d)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --errors-only 'Only failed actions'
            cand --blocked-only 'Only blocked (dangerous) commands'
            cand -f 'Keep printing new events as they are recorded'
            cand --follow 'Keep printing new events as they are recorded'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;mcp'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;serve'= {
            cand --port 'Port to listen on; when taken, the next free one (up to +20). 0: any free port. Default: KURORYUU_PTY_BRIDGE_PORT or 8201'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kpty;__generate-assets'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output (secrets redacted)'
            cand --no-redact 'Keep secrets in --json output (also KPTY_REDACT=off)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
    ]
    $completions[$command]
}
