
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
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Start a new terminal session; prints its id once the shell''s first prompt is up')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions and their state: running, exited (with exit code), dead')
            [CompletionResult]::new('talk', 'talk', [CompletionResultType]::ParameterValue, 'Run a command in a session, print its output, exit with its exit code')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a command in a session, print its output, exit with its exit code')
            [CompletionResult]::new('send-line', 'send-line', [CompletionResultType]::ParameterValue, 'Type one line into a session and press Enter')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Print a session''s recent output (raw), or follow it')
            [CompletionResult]::new('resize', 'resize', [CompletionResultType]::ParameterValue, 'Change a session''s terminal size')
            [CompletionResult]::new('kill', 'kill', [CompletionResultType]::ParameterValue, 'End a session: hang up its shell and everything it started')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Show the actions, configuration and exit codes (or help for one command)')
            [CompletionResult]::new('__holder', '__holder', [CompletionResultType]::ParameterValue, 'Run as a session holder (internal)')
            [CompletionResult]::new('__generate-assets', '__generate-assets', [CompletionResultType]::ParameterValue, 'Write shell completions and man pages into DIR (maintainers)')
            break
        }
        'kpty;create' {
            [CompletionResult]::new('--shell', '--shell', [CompletionResultType]::ParameterName, 'Shell to run (default: KURORYUU_PTY_SHELL, $SHELL, /bin/bash)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory (default: the project root)')
            [CompletionResult]::new('--cols', '--cols', [CompletionResultType]::ParameterName, 'Terminal columns (default: KURORYUU_PTY_COLS or 120)')
            [CompletionResult]::new('--rows', '--rows', [CompletionResultType]::ParameterName, 'Terminal rows (default: KURORYUU_PTY_ROWS or 30)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label to name the session by')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …)')
            [CompletionResult]::new('--owner-agent-id', '--owner-agent-id', [CompletionResultType]::ParameterName, 'Owner agent id (routing identity)')
            [CompletionResult]::new('--owner-session-id', '--owner-session-id', [CompletionResultType]::ParameterName, 'Owner session id')
            [CompletionResult]::new('--owner-role', '--owner-role', [CompletionResultType]::ParameterName, 'Owner role: leader or worker')
            [CompletionResult]::new('--cli-type', '--cli-type', [CompletionResultType]::ParameterName, 'Kind of program in the terminal (e.g. bash, claude)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;list' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;talk' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--sentinel', '--sentinel', [CompletionResultType]::ParameterName, 'Use the sentinel method with this marker instead of shell integration')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kpty;run' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)')
            [CompletionResult]::new('--sentinel', '--sentinel', [CompletionResultType]::ParameterName, 'Use the sentinel method with this marker instead of shell integration')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kpty;send-line' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;read' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Most bytes to return (default 4096, at most 1048576)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Wait this long for output when there is none yet (default 5000)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Read from this absolute offset (see next_offset in --json output)')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--strip-ansi', '--strip-ansi', [CompletionResultType]::ParameterName, 'Remove ANSI escape sequences')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing new output until the session ends or you interrupt')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing new output until the session ends or you interrupt')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;resize' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session id, unique id prefix, or label (default: the default session)')
            [CompletionResult]::new('--cols', '--cols', [CompletionResultType]::ParameterName, 'Columns')
            [CompletionResult]::new('--rows', '--rows', [CompletionResultType]::ParameterName, 'Rows')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;kill' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;help' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;__holder' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kpty;__generate-assets' {
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'State directory (default: <project root>/ai/checkpoints/pty)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the action''s JSON object instead of human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
