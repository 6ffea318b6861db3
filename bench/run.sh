#!/usr/bin/env bash
# bench/run.sh — whole-process benchmarks of kpty against a hand-written tmux loop and a plain
# `bash -c` floor, all measured in the same run so the ratios compare like with like.
#
#   bash bench/run.sh            # from the repo root; takes about a minute on 2 cores
#
# Measures (hyperfine medians of BENCH_RUNS runs, default 30, taken in BENCH_ROUNDS rounds,
# default 6, that interleave the commands; BENCH_WARMUP warm-ups a round, default 3):
#   (a) `kpty talk 'echo hi'` on a pre-created, warmed session
#       vs bench/tmux_talk.sh (send-keys + unique sentinel + capture-pane polling)
#       vs `bash -c 'echo hi'` (the floor: one fresh process, no terminal)
#   (b) `kpty talk 'seq 1 200000'` vs the tmux loop capturing all 200000 lines
#       vs `bash -c 'seq 1 200000'`; every tool's output is checked once before timing
#   (c) idle RSS: the kpty holder (and, separately, its shell) vs the tmux server with one pane
#   (l) `kpty list` with LIST_N (100) live sessions in a state directory of their own
#   (e) the command policy's cost per line, in process (cargo bench --bench policy)
#   (f) kpty attach vs tmux attach: keystroke echo, fan-out throughput, a stalled client
#   (g) MCP over HTTP (kpty serve) vs stdio, and 20 clients at once (cargo bench --bench http_mcp)
#   (h) the web console: a flood under 10 watching pages, memory per page, the overview's first
#       message with 50 sessions (bench/console.py); in headless chromium, the overview's first
#       full paint and a key's echo drawn (bench/console_browser.py)
#   (r) recordings: their cost per talk and per flood, a cast's size, a PNG screenshot, an
#       evidence pack (bench/recording.py)
#   (s) other machines over a loopback sshd: a warm remote talk vs a local one and vs ssh over a
#       ControlMaster, a cold first call vs `ssh host true`, `list --all-hosts` over ten
#       aliases vs one, and the same with every process of it on one CPU (bench/remote.py)
#   the host's floors: a pipe round trip across CPUs and on one, a raw PTY round trip to bash
# Writes bench/results/ (raw JSON, git-ignored, plus summary.md) and regenerates BENCHMARKS.md.
#
# Both shells are interactive bash started without the user's ~/.bashrc (kpty via
# KPTY_USER_BASHRC=/dev/null, tmux via --rcfile /dev/null), so a PROMPT_COMMAND from the
# user's config (pyenv, starship, ...) does not land in the figures. BENCH_USER_RC=1 keeps it.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BENCH="$ROOT/bench"
RES="$BENCH/results"
RUNS=${BENCH_RUNS:-30}
WARMUP=${BENCH_WARMUP:-3}
ROUNDS=${BENCH_ROUNDS:-6} # each command's runs spread over this many rounds (see hf)
SOCK=kpty-bench          # private tmux server: tmux -L kpty-bench
SEQ_N=200000
LIST_N=${BENCH_LIST_SESSIONS:-100} # live sessions for (l)
HISTORY=300000           # tmux history-limit, > SEQ_N, set before the pane is created

log() { printf '\n== %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------------------------
command -v tmux >/dev/null || die "tmux is needed (apt-get install tmux)"
command -v python3 >/dev/null || die "python3 is needed (for bench/summarize.py)"
command -v cargo >/dev/null || die "cargo is needed to build the release binary"
if ! command -v hyperfine >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing hyperfine"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null; } ||
      die "could not install hyperfine with apt-get"
  else
    die "hyperfine is not installed: install it (apt-get install hyperfine, or cargo install hyperfine) and run again"
  fi
fi

log "building the release binary"
BUILT=$(bash "$ROOT/bench/release_bin.sh")
[ -x "$BUILT" ] || die "no release binary after the build"
REV=$(git -C "$ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)

# --- private state, cleaned up whatever happens -------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpty-bench.XXXXXX")
# Time a private copy, so a rebuild of target/ during the run cannot swap binaries mid-way.
KPTY="$WORK/kpty"
cp "$BUILT" "$KPTY"
export KPTY_STATE_DIR="$WORK/state"
export TMUX_BENCH_SOCKET="$SOCK"
unset KPTY_SESSION TMUX
if [ "${BENCH_USER_RC:-0}" = 1 ]; then
  PANE_SHELL="bash -i"
else
  export KPTY_USER_BASHRC=/dev/null
  PANE_SHELL="bash --rcfile /dev/null -i"
fi
HOLDER_PIDS=()
LIST_STATE="$WORK/state-list" # (l)'s sessions, apart from the default session (a) and (b) use

t() { tmux -L "$SOCK" "$@"; }

cleanup() {
  local rc=$?
  set +e
  if [ -x "$KPTY" ] && [ -d "$KPTY_STATE_DIR" ]; then
    "$KPTY" list --json 2>/dev/null |
      python3 -c 'import json,sys; [print(s["session_id"]) for s in json.load(sys.stdin).get("sessions", [])]' 2>/dev/null |
      while read -r sid; do "$KPTY" kill "$sid" >/dev/null 2>&1; done
  fi
  if [ -x "$KPTY" ] && [ -d "$LIST_STATE" ]; then
    "$KPTY" --state-dir "$LIST_STATE" kill --all >/dev/null 2>&1
  fi
  # Belt and braces: the holders this run started, by pid, if `kill` left any.
  for pid in "${HOLDER_PIDS[@]}"; do
    kill -0 "$pid" 2>/dev/null && kill "$pid" 2>/dev/null
  done
  t kill-server 2>/dev/null
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Wait until none of the pids is alive (at most $1 seconds; a warning past it).
wait_gone() {
  local limit=$1 deadline
  shift
  deadline=$((SECONDS + limit))
  for pid in "$@"; do
    while kill -0 "$pid" 2>/dev/null; do
      if [ "$SECONDS" -ge "$deadline" ]; then
        printf 'bench: WARNING: process %s still runs after %s s\n' "$pid" "$limit" >&2
        return 0
      fi
      sleep 0.05
    done
  done
}

mkdir -p "$RES"
rm -f "$RES"/a_talk.json "$RES"/b_seq.json "$RES"/rss.json "$RES"/checks.json "$RES"/l_list.json "$RES"/l_checks.json # only this script's own files

# A leftover server from an interrupted run would keep its old history-limit.
t kill-server 2>/dev/null || true

# --- set-up: one tmux pane, one kpty session, both warmed --------------------------------------
log "starting tmux (-L $SOCK, history-limit $HISTORY) and a kpty session"
t -f /dev/null start-server \; set -g history-limit "$HISTORY" \; \
  new-session -d -s bench -x 120 -y 30 -c "$WORK" "$PANE_SHELL"
TMUX_TALK=(bash "$BENCH/tmux_talk.sh" bench)
for _ in 1 2 3 4 5; do "${TMUX_TALK[@]}" true >/dev/null; done
"$KPTY" talk true >/dev/null # creates the state dir's default session
for _ in 1 2 3 4 5; do "$KPTY" talk true >/dev/null; done

read -r HOLDER_PID SHELL_PID < <("$KPTY" list --json | python3 -c '
import json, sys
s = [s for s in json.load(sys.stdin)["sessions"] if s.get("state") == "running"]
assert len(s) == 1, s
print(s[0]["holder_pid"], s[0]["pid"])')
HOLDER_PIDS+=("$HOLDER_PID")
TMUX_PID=$(t display-message -p '#{pid}')
PANE_PID=$(t display-message -p -t bench '#{pane_pid}')

# --- (c) idle RSS, before any load -------------------------------------------------------------
rss() { ps -o rss= -p "$1" | tr -d ' '; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null || echo null; }
pss_kb() { awk '$1 == "Pss:" { print $2; f = 1 } END { if (!f) print "null" }' "/proc/$1/smaps_rollup" 2>/dev/null || echo null; }
proc_json() { # name pid -> {"rss_kb":..,"anon_kb":..,"file_kb":..,"pss_kb":..}
  printf '"%s": {"pid": %s, "rss_kb": %s, "anon_kb": %s, "file_kb": %s, "pss_kb": %s}' \
    "$1" "$2" "$(rss "$2")" "$(status_kb "$2" RssAnon)" "$(status_kb "$2" RssFile)" "$(pss_kb "$2")"
}
sleep 1
IDLE_JSON="{$(proc_json kpty_holder "$HOLDER_PID"), $(proc_json kpty_shell "$SHELL_PID"), $(proc_json tmux_server "$TMUX_PID"), $(proc_json tmux_pane_shell "$PANE_PID")}"

# --- correctness (once per scenario, just before it is timed) and timing ---------------------
check() { # name file expected-file -> JSON member
  local lines ok=false
  lines=$(wc -l <"$2" | tr -d ' ')
  cmp -s "$2" "$3" && ok=true
  printf '"%s": {"lines": %s, "identical": %s}' "$1" "$lines" "$ok"
  $ok || printf 'bench: WARNING: %s output differs from the expected output (%s lines)\n' "$1" "$lines" >&2
}
hf() { # json-file then name/command pairs; adds the informational PTY floor when `script` exists
  # Timed in ROUNDS rounds of RUNS/ROUNDS runs of each command (bench/merge_rounds.py pools
  # them): the commands take turns all through the run, so a host that slows down midway
  # weighs on all of them, not on whichever hyperfine happened to be timing then.
  local out=$1; shift
  local args=()
  while (($#)); do args+=(-n "$1" "$2"); shift 2; done
  if [ -n "$PTY_FLOOR" ]; then args+=(-n "script (PTY floor)" "script -qec $(q "$PTY_FLOOR") /dev/null"); fi
  local per=$(((RUNS + ROUNDS - 1) / ROUNDS)) parts=() r
  ((per >= 2)) || per=2
  for r in $(seq 1 "$ROUNDS"); do
    hyperfine -N --style none --runs "$per" --warmup "$WARMUP" --export-json "$out.round$r" "${args[@]}" >/dev/null
    parts+=("$out.round$r")
  done
  python3 "$BENCH/merge_rounds.py" "$out" "${parts[@]}"
  rm -f "${parts[@]}"
  python3 - "$out" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']}: median {r['median'] * 1000:.3f} ms over {len(r['times'])} runs in {r['rounds']} rounds")
PY
}
HAVE_SCRIPT=$(command -v script >/dev/null && echo 1 || true)
q() { printf '%q' "$1"; }

# How busy the machine is right now (all CPUs, 1 s sample; the build above is over by now,
# unlike in the 1-minute load average).
cpu_busy() {
  local a b
  a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
  sleep 1
  b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
    d = y[2] - x[2]; printf "%d", (d > 0) ? 100 * (y[1] - x[1]) / d : 0 }'
}
BUSY_BEFORE=$(cpu_busy)
if [ "$BUSY_BEFORE" -gt 20 ]; then
  printf 'bench: WARNING: the CPUs are %s%% busy with other work: it will show in the timings\n' \
    "$BUSY_BEFORE" >&2
fi

log "(a) talk 'echo hi': checking outputs, then timing"
PTY_FLOOR= # script(1) has a fixed cost of its own (~20 ms here) that would swamp 'echo hi'.
printf 'hi\n' >"$WORK/hi.expected"
"$KPTY" talk 'echo hi' >"$WORK/a.kpty"
"${TMUX_TALK[@]}" 'echo hi' >"$WORK/a.tmux"
bash -c 'echo hi' >"$WORK/a.floor"
CHECK_A="$(check kpty "$WORK/a.kpty" "$WORK/hi.expected"), $(check tmux "$WORK/a.tmux" "$WORK/hi.expected"), $(check floor "$WORK/a.floor" "$WORK/hi.expected")"
hf "$RES/a_talk.json" \
  "kpty talk" "$(q "$KPTY") talk 'echo hi'" \
  "tmux loop" "bash $(q "$BENCH/tmux_talk.sh") bench 'echo hi'" \
  "bash -c (floor)" "bash -c 'echo hi'"

log "(b) talk 'seq 1 $SEQ_N', full output: checking outputs, then timing"
PTY_FLOOR=${HAVE_SCRIPT:+seq 1 $SEQ_N}
expect_seq="$WORK/seq.expected"
seq 1 "$SEQ_N" >"$expect_seq"
"$KPTY" talk "seq 1 $SEQ_N" >"$WORK/b.kpty"
"${TMUX_TALK[@]}" "seq 1 $SEQ_N" >"$WORK/b.tmux"
bash -c "seq 1 $SEQ_N" >"$WORK/b.floor"
CHECK_B="$(check kpty "$WORK/b.kpty" "$expect_seq"), $(check tmux "$WORK/b.tmux" "$expect_seq"), $(check floor "$WORK/b.floor" "$expect_seq")"
printf '{"a": {%s},\n "b": {%s}}\n' "$CHECK_A" "$CHECK_B" >"$RES/checks.json"
hf "$RES/b_seq.json" \
  "kpty talk" "$(q "$KPTY") talk 'seq 1 $SEQ_N'" \
  "tmux loop" "bash $(q "$BENCH/tmux_talk.sh") bench 'seq 1 $SEQ_N'" \
  "bash -c (floor)" "bash -c 'seq 1 $SEQ_N'"

# --- (c) again, after the load ------------------------------------------------------------------
sleep 1
LOADED_JSON="{$(proc_json kpty_holder "$HOLDER_PID"), $(proc_json kpty_shell "$SHELL_PID"), $(proc_json tmux_server "$TMUX_PID"), $(proc_json tmux_pane_shell "$PANE_PID")}"
printf '{"idle": %s,\n "after_bench": %s}\n' "$IDLE_JSON" "$LOADED_JSON" >"$RES/rss.json"

# --- (l) list with LIST_N live sessions ---------------------------------------------------------
log "(l) list with $LIST_N live sessions: creating them, checking, then timing"
seq 1 "$LIST_N" | xargs -P 4 -I{} "$KPTY" --state-dir "$LIST_STATE" create --label "l{}" >/dev/null
LIST_PIDS=()
while read -r pid; do LIST_PIDS+=("$pid"); done < <("$KPTY" --state-dir "$LIST_STATE" list --json |
  python3 -c 'import json, sys; [print(s["holder_pid"]) for s in json.load(sys.stdin)["sessions"] if s.get("holder_pid")]')
HOLDER_PIDS+=("${LIST_PIDS[@]}")
RUNNING=$("$KPTY" --state-dir "$LIST_STATE" list --json |
  python3 -c 'import json, sys; print(sum(s.get("state") == "running" for s in json.load(sys.stdin)["sessions"]))')
[ "$RUNNING" = "$LIST_N" ] || printf 'bench: WARNING: %s of %s sessions are running for (l)\n' "$RUNNING" "$LIST_N" >&2
printf '{"sessions": %s, "running": %s}\n' "$LIST_N" "$RUNNING" >"$RES/l_checks.json"
PTY_FLOOR=
hf "$RES/l_list.json" \
  "kpty list" "$(q "$KPTY") --state-dir $(q "$LIST_STATE") list" \
  "kpty list --json" "$(q "$KPTY") --state-dir $(q "$LIST_STATE") list --json" \
  "bash -c (floor)" "bash -c 'echo hi'"
"$KPTY" --state-dir "$LIST_STATE" kill --all >/dev/null
# The next figures are latencies: measured once the hundred holders (and their shells) have
# wound down, not while they exit (the host's floors read half as fast again then).
wait_gone 30 "${LIST_PIDS[@]}"

# --- the host's floors: hand-overs between processes, a raw PTY round trip ----------------------
log "host floors: pipe round trips, a raw PTY round trip to bash"
python3 "$BENCH/host.py" >"$RES/host.md"

# --- MCP: tools/call over stdio vs the CLI, same run ---------------------------------------------
log "MCP tools/call latency vs the CLI"
python3 "$BENCH/mcp.py" "$KPTY" "$RUNS" >"$RES/mcp.md"

# --- MCP over HTTP: kpty serve vs kpty mcp, and 20 clients at once ------------------------------
log "MCP over HTTP vs stdio, 20 clients (cargo bench --bench http_mcp)"
KPTY_BENCH_BIN="$KPTY" KPTY_BENCH_RUNS="$RUNS" cargo bench --quiet --bench http_mcp 2>/dev/null >"$RES/http_mcp.md"

# --- wait_for: from the matching output to the holder's reply ----------------------------------
log "wait_for latency in the holder"
python3 "$BENCH/wait_for.py" "$KPTY" "$RUNS" >"$RES/wait_for.md"

# --- kpty attach: keystroke echo vs tmux attach, fan-out throughput, a stalled client -------------
log "kpty attach vs tmux attach"
python3 "$BENCH/attach.py" "$KPTY" "$RUNS" >"$RES/attach.md" 2>/dev/null

# --- the web console: a flood under watching pages, memory per page, the overview ---------------
log "web console: watching pages, memory, overview"
python3 "$BENCH/console.py" "$KPTY" >"$RES/console.md"
python3 "$BENCH/console_browser.py" "$KPTY" >"$RES/console_browser.md"

# --- recordings: their cost on the session, reading them back --------------------------------------
log "recordings: cost per talk and per flood, cast size, PNG screenshot, evidence pack"
python3 "$BENCH/recording.py" "$KPTY" "$RUNS" >"$RES/recording.md"

# --- other machines: a remote talk over the host's channel, a cold call, every host at once -------
log "remote hosts over a private loopback sshd (bench/remote.py)"
python3 "$BENCH/remote.py" "$KPTY" "$RUNS" >"$RES/remote.md"

# --- the command policy's cost per line, in process ----------------------------------------------
log "command policy: cost per line (cargo bench --bench policy)"
cargo bench --quiet --bench policy 2>/dev/null >"$RES/policy.md"

# --- report ------------------------------------------------------------------------------------
log "writing bench/results/summary.md and BENCHMARKS.md"
python3 "$BENCH/summarize.py" "$RES" >"$RES/summary.md"

MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
{
  cat <<EOF
# Benchmarks

Generated by \`bash bench/run.sh\` — do not edit by hand; run it again.

- Date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')
- Machine: $(nproc) CPUs, ${MODEL:-unknown CPU}, Linux $(uname -r)
- kpty: \`$REV\` (release build), $("$KPTY" --version 2>/dev/null || echo kpty)
- Tools: $(hyperfine --version), $(tmux -V), $(bash --version | head -1 | sed 's/ (.*//')
- Method: hyperfine \`-N\`, whole processes, medians of $RUNS runs of each command taken in
  $ROUNDS rounds that interleave the commands (\`bench/merge_rounds.py\`; $WARMUP warm-ups a
  round); every ratio compares figures from this same run. Other work on the machine just before timing: ${BUSY_BEFORE}% CPU.
- Shells: interactive bash in both tools, $(if [ "${BENCH_USER_RC:-0}" = 1 ]; then echo "with the user's ~/.bashrc"; else echo "without the user's ~/.bashrc (KPTY_USER_BASHRC=/dev/null; tmux pane: bash --rcfile /dev/null -i)"; fi), 120×30.

EOF
  cat "$RES/summary.md"
  printf '\n### The host: what a hand-over and a terminal round trip cost here\n\n'
  printf 'Measured in this run (bench/host.py), to read the absolute targets of (d) and (g) against.\n\n'
  cat "$RES/host.md"
  printf '\n### (d) MCP: a `tools/call` talk of `echo hi` over stdio vs the CLI\n\n'
  printf 'One long-lived `kpty mcp` (ten times as many calls, at least 300), against `kpty talk` as a process per call (%s runs); same session, this run (bench/mcp.py).\n\n' "$RUNS"
  cat "$RES/mcp.md"
  printf '\n### (g) MCP over HTTP: `kpty serve` vs `kpty mcp`, and 20 clients at once\n\n'
  printf 'A `tools/call` talk of `echo hi` on one warmed session: over stdio to one `kpty mcp`, and over Streamable HTTP to one `kpty serve` (a keep-alive connection; an MCP session answered as SSE, and a plain POST answered as JSON), interleaved call by call, %s calls each. Then 20 clients, each with its own MCP session, connection and kpty session, %s calls each (at least 100): flat out (each calls again as soon as it is answered, so the latency is 20 / the machine'"'"'s throughput) and paced (each calls every 50 ms). Rust client on one thread (bench/http_mcp.rs).\n\n' "$RUNS" "$((RUNS * 5 > 100 ? RUNS * 5 : 100))"
  cat "$RES/http_mcp.md"
  printf '\n### (d2) wait_for: from the matching output to the reply\n\n'
  printf 'One long-lived `kpty mcp`; send_line of `sleep 0.2; echo MARK-N`, then wait_for `MARK-N`; the holder reports the time from taking in the matching chunk to writing its reply (bench/wait_for.py).\n\n'
  cat "$RES/wait_for.md"
  printf '\n### (f) kpty attach: keystrokes, fan-out, a stalled client\n\n'
  printf 'A PTY-driven client (bench/attach.py): one key typed at bash'"'"'s prompt until it is echoed, through `kpty attach` and `tmux attach` (status line off); `seq 1 2000000 > /dev/tty` timed as a whole `kpty talk` with 0, 1 and 5 read-only clients attached, each drained by a reader thread; `kpty talk '"'"'echo hi'"'"'` with and without a client whose terminal is never read.\n\n'
  cat "$RES/attach.md"
  printf '\n### (h) The web console: watching pages, memory, the overview\n\n'
  printf 'bench/console.py: raw WebSocket clients as the pages (each reads as fast as it can), against one `kpty serve`; the flood is timed by the session'"'"'s own shell (`date` around it), so it shows what the watchers cost the program.\n\n'
  cat "$RES/console.md"
  printf '\nIn a real browser (bench/console_browser.py: headless chromium over WebDriver, the page as a person loads it):\n\n'
  cat "$RES/console_browser.md"
  printf '\n### (r) Recordings: what recording costs, what reading it back costs\n\n'
  printf 'bench/recording.py: whole `kpty` processes; a recorded session and one made with `--no-record` timed in alternation; the cast'"'"'s growth against the output offset; a PNG screenshot of a 200×50 screen of coloured text; an evidence pack of a 10-command range.\n\n'
  cat "$RES/recording.md"
  printf '\n### (s) Other machines: `--host` over OpenSSH\n\n'
  printf 'bench/remote.py: a private sshd on 127.0.0.1 (its own host key and client config; `benchbox` and ten aliases of it); whole `kpty` processes, medians, the local and remote talks and the ssh command interleaved run by run; both sessions'"'"' shells without the user'"'"'s ~/.bashrc. The cold call starts from an empty runtime directory (no ControlMaster, no channel; the kpty there already installed). `list --all-hosts` is then timed again with every process of it (sshd and what it runs, the channels, the holders) started from a process pinned to one CPU.\n\n'
  cat "$RES/remote.md"
  printf '\n### (e) The command policy: cost per line\n\n'
  printf 'In process (`cargo bench --bench policy`, bench/policy.rs): parse, expand and judge one line, as every talk/send_line does before typing; median and p99 of 200 rounds.\n\n'
  cat "$RES/policy.md"
  for extra in term bridge screenshot; do
    if [ -f "$RES/$extra.md" ]; then
      printf '\n## From bench/%s.sh (its own run; see its header)\n\n' "$extra"
      sed '1s/^# /### /' "$RES/$extra.md"
    fi
  done
  cat <<'EOF'

## What is compared

- **kpty talk**: `kpty talk CMD` against the state directory's default session, created and
  warmed before timing. One process: connect to the holder's socket, run, print the clean
  output, exit with the command's status.
- **tmux loop**: [`bench/tmux_talk.sh`](bench/tmux_talk.sh), the loop a careful person writes on
  tmux: `clear-history`, `send-keys -l` of `echo BEGIN; CMD; echo END:$?` with markers unique to
  the call (typed split by `''`, so the echoed command line never matches), poll the visible
  screen with `capture-pane -p` every 0.01 s until the end marker shows, then one
  `capture-pane -p -J -S -` and print what lies between the markers; exits with CMD's status.
  Full output for (b) comes from the pane's scrollback: `history-limit 300000` is set on the
  private server (`tmux -L kpty-bench`) before its pane is created (checked: all 200000 lines,
  byte-identical to `seq`). `pipe-pane` was not used: it yields the raw byte stream (echoed
  command line, prompts, CRs and escapes) that would need its own cleaning.
- **bash -c (floor)**: `bash -c CMD`, a fresh shell with no terminal and no session: the least
  any tool that runs a shell command can cost.
- **script (PTY floor)**, in (b) only, for information (no target): `script -qec CMD /dev/null`,
  a fresh shell in a fresh pseudo-terminal, output thrown away: roughly what pushing 1.3 MB
  through a terminal costs by itself on this kernel (plus script's own fixed start/stop cost,
  which is why it is left out of (a)). Its output is not checked (it has CRLF line ends).
- **kpty list** (l): `kpty --state-dir DIR list` (and `--json`) over a state directory of its
  own holding BENCH_LIST_SESSIONS (default 100) live sessions, created before timing (4 at a
  time) and killed after; every holder is probed (status) on each call. The `bash -c` floor
  is timed beside it for the ratio.
- **RSS**: `ps -o rss=` (KiB) of the kpty holder and of its shell, and of the tmux server and of
  its pane's shell; anon/file split from `/proc/PID/status`; PSS (shared pages divided among the
  processes that map them) from `/proc/PID/smaps_rollup`. "Idle" is after creation and five
  warm-up commands; "after" is after all the timed runs above.

## How to run

```sh
bash bench/run.sh                 # builds the release binary, needs tmux, python3, hyperfine
BENCH_RUNS=50 bash bench/run.sh   # more runs (default 30 in BENCH_ROUNDS=6 rounds, warm-up BENCH_WARMUP=3)
BENCH_USER_RC=1 bash bench/run.sh # let both shells load ~/.bashrc (PROMPT_COMMAND and all)
bash bench/term.sh                # screen model: throughput vs tmux, term_read latency, RSS
bash bench/bridge.sh              # talk through `kpty serve` vs direct
bash bench/screenshot.sh          # `kpty screenshot --format png` of a full 200×50 screen
```

hyperfine is installed with `apt-get` when missing and running as root; otherwise install it
yourself. The run uses a temporary `KPTY_STATE_DIR` and a private tmux server, and kills both
on exit. Raw hyperfine JSON lands in `bench/results/*.json` (git-ignored);
`bench/results/summary.md` holds the tables. On a busy machine the absolute times move; the
ratios, taken within one run, move less.
EOF
} >"$ROOT/BENCHMARKS.md"

log "done"
cat "$RES/summary.md"
