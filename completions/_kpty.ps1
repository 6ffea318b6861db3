
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kpty' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kpty'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kpty' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Start a new terminal session; prints its id once the shell''s first prompt is up')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions and their state: running, exited (with exit code), dead')
            [CompletionResult]::new('talk', 'talk', [CompletionResultType]::ParameterValue, 'Run a command in a session, print its output, exit with its exit code')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a command in a session, print its output, exit with its exit code')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Would talk or send-line type a command, or block it as dangerous? Types nothing')
            [CompletionResult]::new('send-line', 'send-line', [CompletionResultType]::ParameterValue, 'Type one line into a session and press Enter')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Print a session''s recent output (raw), or follow it')
            [CompletionResult]::new('term-read', 'term-read', [CompletionResultType]::ParameterValue, 'Print the rendered terminal screen (no escape codes): tail, viewport or delta')
            [CompletionResult]::new('resize', 'resize', [CompletionResultType]::ParameterValue, 'Change a session''s terminal size')
            [CompletionResult]::new('kill', 'kill', [CompletionResultType]::ParameterValue, 'End a session: hang up its shell and everything it started')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Show the actions, configuration and exit codes (or help for one command)')
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Print the id of the one session an agent (or owner session, or label) owns')
            [CompletionResult]::new('send-line-to-agent', 'send-line-to-agent', [CompletionResultType]::ParameterValue, 'Type a line into the session an agent owns (resolve + send-line)')
            [CompletionResult]::new('update-ownership', 'update-ownership', [CompletionResultType]::ParameterValue, 'Change a session''s owner, role, label or cli type')
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register an external (desktop) session reached through its bridge')
            [CompletionResult]::new('unregister', 'unregister', [CompletionResultType]::ParameterValue, 'Remove a registered session (a leader''s needs --force)')
            [CompletionResult]::new('heartbeat', 'heartbeat', [CompletionResultType]::ParameterValue, 'Mark a session as alive now')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove registered sessions without a heartbeat for 7 days (and, with --force, ended local ones)')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the audit trail: every send-line, talk, resolve, register … with its outcome')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the k_pty tool to an MCP client over stdio (e.g. `claude mcp add kpty -- kpty mcp`)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve this state directory''s sessions over HTTP as a desktop bridge (loopback only)')
            [CompletionResult]::new('__generate-assets', '__generate-assets', [CompletionResultType]::ParameterValue, 'Write shell completions and man pages into DIR (maintainers)')
            break
        }
        'kpty;create' {
            [CompletionResult]::new('--shell', '--shell', [CompletionResultType]::ParameterName, 'Shell to run (default: KURORYUU_PTY_SHELL, $SHELL, /bin/bash)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory (default: the project root)')
            [CompletionResult]::new('--cols', '--cols', [CompletionResultType]::ParameterName, 'Terminal columns (default: KURORYUU_PTY_COLS or 120)')
            [CompletionResult]::new('--rows', '--rows', [CompletionResultType]::ParameterName, 'Terminal rows (default: KURORYUU_PTY_ROWS or 30)')
            [CompletionResult]::new('--scrollback', '--scrollback', [CompletionResultType]::ParameterName, 'Lines of scrollback term-read can reach (default: KPTY_SCROLLBACK or 10000; at most 1000000)')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …)')
            [CompletionResult]::new('--allow-write', '--allow-write', [CompletionResultType]::ParameterName, 'Sandbox: also allow writing under PATH (repeatable; must exist)')
            [CompletionResult]::new('--deny-read', '--deny-read', [CompletionResultType]::ParameterName, 'Sandbox: also hide PATH and everything under it (repeatable)')
            [CompletionResult]::new('--owner-agent-id', '--owner-agent-id', [CompletionResultType]::ParameterName, 'Owner agent id (routing identity)')
            [CompletionResult]::new('--owner-session-id', '--owner-session-id', [CompletionResultType]::ParameterName, 'Owner session id')
            [CompletionResult]::new('--owner-role', '--owner-role', [CompletionResultType]::ParameterName, 'Owner role: leader or worker')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label to name the session by')
            [CompletionResult]::new('--cli-type', '--cli-type', [CompletionResultType]::ParameterName, 'Kind of program in the terminal (e.g. bash, claude)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'Confine the shell and everything it starts with Landlock (Linux 5.13+): writes only in the project root, the cwd, /tmp, $TMPDIR and --allow-write paths; ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.docker, ~/.kube, ~/.netrc, ~/.git-credentials and --deny-read paths unreadable (their names still list); no signals to processes outside. Directories on the way to a hidden path (`~`, `/`) get no new entries. The shell gets its own mount namespace where kpty''s socket directories and this state directory are empty and read-only: no other session can be driven from inside (needs user namespaces when not root). Default: KPTY_SANDBOX=1')
            [CompletionResult]::new('--no-sandbox', '--no-sandbox', [CompletionResultType]::ParameterName, 'Do not sandbox, even with KPTY_SANDBOX=1')
            [CompletionResult]::new('--no-network', '--no-network', [CompletionResultType]::ParameterName, 'Sandbox: deny TCP bind and connect (Landlock ABI 4, Linux 6.7; UDP and Unix sockets stay open)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;list' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;talk' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent (resolved; exactly one must match)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label (resolved; exactly one must match)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--sentinel', '--sentinel', [CompletionResultType]::ParameterName, 'Use the sentinel method with this marker instead of shell integration')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Return at most N characters of output, the end kept (default: all)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Type even when another program holds the foreground: for a nested shell (ssh, su, docker exec …), completion by a POSIX sentinel')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take')
            [CompletionResult]::new('--no-stdin', '--no-stdin', [CompletionResultType]::ParameterName, 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kpty;run' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent (resolved; exactly one must match)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label (resolved; exactly one must match)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--sentinel', '--sentinel', [CompletionResultType]::ParameterName, 'Use the sentinel method with this marker instead of shell integration')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Return at most N characters of output, the end kept (default: all)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Type even when another program holds the foreground: for a nested shell (ssh, su, docker exec …), completion by a POSIX sentinel')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take')
            [CompletionResult]::new('--no-stdin', '--no-stdin', [CompletionResultType]::ParameterName, 'Do not forward stdin to the command (as `ssh -n`): for `kpty talk` inside a `while read` loop, whose input it would otherwise take')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kpty;check' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kpty;send-line' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent (resolved; exactly one must match)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label (resolved; exactly one must match)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;read' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent (resolved; exactly one must match)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label (resolved; exactly one must match)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Most bytes to return (default 4096, at most 1048576)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Wait this long for output when there is none yet (default 5000)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Read from this absolute offset (see next_offset in --json output)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--strip-ansi', '--strip-ansi', [CompletionResultType]::ParameterName, 'Remove ANSI escape sequences')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing new output until the session ends or you interrupt')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing new output until the session ends or you interrupt')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep printing new output until the session ends or you interrupt')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;term-read' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent (resolved; exactly one must match)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label (resolved; exactly one must match)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'tail: the last lines of scrollback + screen; viewport: the visible screen; delta: only lines added since --marker')
            [CompletionResult]::new('--max-lines', '--max-lines', [CompletionResultType]::ParameterName, 'Most lines (default 40, at most 200)')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Most characters (default 12000, at most 50000)')
            [CompletionResult]::new('--marker', '--marker', [CompletionResultType]::ParameterName, 'With --mode delta: the marker_id of the previous term-read (see --json)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--no-merge-wrapped', '--no-merge-wrapped', [CompletionResultType]::ParameterName, 'Keep soft-wrapped rows as separate lines')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Redraw the visible screen whenever the session prints, until interrupted')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Redraw the visible screen whenever the session prints, until interrupted')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Redraw the visible screen whenever the session prints, until interrupted')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;resize' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent (resolved; exactly one must match)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label (resolved; exactly one must match)')
            [CompletionResult]::new('--cols', '--cols', [CompletionResultType]::ParameterName, 'Columns')
            [CompletionResult]::new('--rows', '--rows', [CompletionResultType]::ParameterName, 'Rows')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;kill' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The same, as the other commands spell it')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The same, as the other commands spell it')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The session owned by this agent')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The session with this label')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;help' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;resolve' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Owner agent id (primary routing key)')
            [CompletionResult]::new('--agent-id', '--agent-id', [CompletionResultType]::ParameterName, 'Owner agent id (primary routing key)')
            [CompletionResult]::new('--owner-session-id', '--owner-session-id', [CompletionResultType]::ParameterName, 'Owner session id')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Label')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;send-line-to-agent' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Owner agent id (primary routing key)')
            [CompletionResult]::new('--agent-id', '--agent-id', [CompletionResultType]::ParameterName, 'Owner agent id (primary routing key)')
            [CompletionResult]::new('--owner-session-id', '--owner-session-id', [CompletionResultType]::ParameterName, 'Owner session id')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Label')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;update-ownership' {
            [CompletionResult]::new('--owner-agent-id', '--owner-agent-id', [CompletionResultType]::ParameterName, 'Owner agent id (routing identity)')
            [CompletionResult]::new('--owner-session-id', '--owner-session-id', [CompletionResultType]::ParameterName, 'Owner session id')
            [CompletionResult]::new('--owner-role', '--owner-role', [CompletionResultType]::ParameterName, 'Owner role: leader or worker')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label to name the session by')
            [CompletionResult]::new('--cli-type', '--cli-type', [CompletionResultType]::ParameterName, 'Kind of program in the terminal (e.g. bash, claude)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;register' {
            [CompletionResult]::new('--desktop-url', '--desktop-url', [CompletionResultType]::ParameterName, 'The bridge that serves it (e.g. http://127.0.0.1:8201)')
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'Where it lives (default: desktop)')
            [CompletionResult]::new('--pid', '--pid', [CompletionResultType]::ParameterName, 'Process id of the program in the terminal')
            [CompletionResult]::new('--owner-agent-id', '--owner-agent-id', [CompletionResultType]::ParameterName, 'Owner agent id (routing identity)')
            [CompletionResult]::new('--owner-session-id', '--owner-session-id', [CompletionResultType]::ParameterName, 'Owner session id')
            [CompletionResult]::new('--owner-role', '--owner-role', [CompletionResultType]::ParameterName, 'Owner role: leader or worker')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label to name the session by')
            [CompletionResult]::new('--cli-type', '--cli-type', [CompletionResultType]::ParameterName, 'Kind of program in the terminal (e.g. bash, claude)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;unregister' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Also remove a leader''s session')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;heartbeat' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;prune' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Also remove local sessions whose shell has ended or whose holder is gone')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;log' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Only this session (id)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Only this session (id)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only events of this agent')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'Only this action (e.g. talk, send_line; send-line works too)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only events since this time: RFC 3339 (2026-11-22T07:00:00Z) or an age (10m, 2h, 1d)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--errors-only', '--errors-only', [CompletionResultType]::ParameterName, 'Only failed actions')
            [CompletionResult]::new('--blocked-only', '--blocked-only', [CompletionResultType]::ParameterName, 'Only blocked (dangerous) commands')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing new events as they are recorded')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing new events as they are recorded')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;mcp' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;serve' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'Port to listen on; when taken, the next free one (up to +20). 0: any free port. Default: KURORYUU_PTY_BRIDGE_PORT or 8201')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kpty;__generate-assets' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output (secrets redacted)')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Keep secrets in --json output (also KPTY_REDACT=off)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
