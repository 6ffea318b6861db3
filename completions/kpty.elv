
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
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Start a new terminal session; prints its id once the shell''s first prompt is up'
            cand list 'List sessions and their state: running, exited (with exit code), dead'
            cand talk 'Run a command in a session, print its output, exit with its exit code'
            cand run 'Run a command in a session, print its output, exit with its exit code'
            cand send-line 'Type one line into a session and press Enter'
            cand read 'Print a session''s recent output (raw), or follow it'
            cand resize 'Change a session''s terminal size'
            cand kill 'End a session: hang up its shell and everything it started'
            cand help 'Show the actions, configuration and exit codes (or help for one command)'
            cand __holder 'Run as a session holder (internal)'
            cand __generate-assets 'Write shell completions and man pages into DIR (maintainers)'
        }
        &'kpty;create'= {
            cand --shell 'Shell to run (default: KURORYUU_PTY_SHELL, $SHELL, /bin/bash)'
            cand --cwd 'Working directory (default: the project root)'
            cand --cols 'Terminal columns (default: KURORYUU_PTY_COLS or 120)'
            cand --rows 'Terminal rows (default: KURORYUU_PTY_ROWS or 30)'
            cand --label 'A label to name the session by'
            cand --env 'Extra environment for the shell, KEY=VALUE (repeatable; overrides PAGER, TERM …)'
            cand --owner-agent-id 'Owner agent id (routing identity)'
            cand --owner-session-id 'Owner session id'
            cand --owner-role 'Owner role: leader or worker'
            cand --cli-type 'Kind of program in the terminal (e.g. bash, claude)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;list'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;talk'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand -t 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --timeout-ms 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --sentinel 'Use the sentinel method with this marker instead of shell integration'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kpty;run'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand -t 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --timeout-ms 'Give up after this many milliseconds (default: KURORYUU_PTY_TIMEOUT_MS or 30000)'
            cand --sentinel 'Use the sentinel method with this marker instead of shell integration'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kpty;send-line'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;read'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --max-bytes 'Most bytes to return (default 4096, at most 1048576)'
            cand --timeout-ms 'Wait this long for output when there is none yet (default 5000)'
            cand --since 'Read from this absolute offset (see next_offset in --json output)'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --strip-ansi 'Remove ANSI escape sequences'
            cand -f 'Keep printing new output until the session ends or you interrupt'
            cand --follow 'Keep printing new output until the session ends or you interrupt'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;resize'= {
            cand -s 'Session id, unique id prefix, or label (default: the default session)'
            cand --session 'Session id, unique id prefix, or label (default: the default session)'
            cand --cols 'Columns'
            cand --rows 'Rows'
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;kill'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;help'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;__holder'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'kpty;__generate-assets'= {
            cand --state-dir 'State directory (default: <project root>/ai/checkpoints/pty)'
            cand --json 'Print the action''s JSON object instead of human output'
            cand -h 'Print help'
            cand --help 'Print help'
        }
    ]
    $completions[$command]
}
