#!/usr/bin/env bash
# tmux_talk.sh — the "talk" loop people write by hand on top of tmux, used as the baseline that
# `kpty talk` is compared with in bench/run.sh.
#
#   bash bench/tmux_talk.sh TARGET 'COMMAND'        # e.g. TARGET=bench:0.0
#
# Runs COMMAND in an existing, idle tmux pane, prints the command's output (only that: no
# prompt, no echoed command line) and exits with the command's exit code. The tmux server is
# picked with -L "$TMUX_BENCH_SOCKET" (default: kpty-bench).
#
# How it works, the careful way:
#  * Markers unique to this call (pid + $RANDOM + microsecond clock), a begin marker before the command
#    and an end marker carrying $? after it. They are typed split by '' (`echo __KB_''ID`), so the
#    echoed command line never contains the marker itself: only the shell's output does.
#  * Poll the *visible* screen (`capture-pane -p`, cheap) every 0.01 s until the end-marker line is
#    there; then capture once with the whole history (`-S - -J`: scrollback, wrapped lines joined)
#    and print what lies between the two marker lines. The pane needs a history-limit large enough
#    for the output (run.sh sets 300000 before the pane is created).
#  * Clear the pane's scrollback before each call, so captures stay proportional to this call's
#    output rather than to everything the pane ever printed.
#  * Give up after TMUX_TALK_TIMEOUT seconds (default 30) with exit 124.
set -euo pipefail

target=${1:?usage: tmux_talk.sh TARGET COMMAND}
cmd=${2:?usage: tmux_talk.sh TARGET COMMAND}
sock=${TMUX_BENCH_SOCKET:-kpty-bench}
timeout=${TMUX_TALK_TIMEOUT:-30}

t() { tmux -L "$sock" "$@"; }

id="$$_${RANDOM}_${EPOCHREALTIME/./}"
begin="__KB_${id}"
end="__KE_${id}"

t clear-history -t "$target"
# -l: send the text literally (no key-name lookup), then press Enter.
t send-keys -t "$target" -l "echo __KB_''${id}; ${cmd}; echo __KE_''${id}:\$?"
t send-keys -t "$target" Enter

deadline=$((SECONDS + timeout))
while :; do
  screen=$(t capture-pane -p -J -t "$target")
  # The end marker followed by the exit code. Only the shell's output can contain it contiguously.
  if [[ $screen =~ "${end}":([0-9]+) ]]; then
    rc=${BASH_REMATCH[1]}
    break
  fi
  if ((SECONDS >= deadline)); then
    echo "tmux_talk: no end marker after ${timeout}s" >&2
    exit 124
  fi
  sleep 0.01
done

# One full capture; print what lies between the begin-marker line and the end marker.
#  - The begin marker ends its line, but need not start it: when the echoed command line exactly
#    fills the pane's width, tmux marks it as wrapped and -J joins it with the marker line.
#  - The end marker starts its line unless the output did not end in a newline; then the text
#    before it on that line is the output's last (unterminated) line.
t capture-pane -p -J -S - -t "$target" |
  awk -v b="$begin" -v e="$end:" '
    !on && !done && length($0) >= length(b) && substr($0, length($0) - length(b) + 1) == b { on = 1; next }
    on && (i = index($0, e)) > 0 { if (i > 1) printf "%s", substr($0, 1, i - 1); on = 0; done = 1; next }
    on { print }'
exit "$rc"
