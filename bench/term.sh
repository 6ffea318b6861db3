#!/usr/bin/env bash
# term.sh — the cost of the holder's terminal-emulator screen (term_read, issue 5).
#
#   bash bench/term.sh            # builds the release binary; needs tmux, hyperfine, python3
#
# Measures, and writes bench/results/term.md:
#  (a) throughput of output through a kpty holder (ring + screen model + completion markers)
#      vs the same output in a tmux pane (tmux's own emulator): `seq 1 2000000` (~14.9 MB) and
#      `cat` of a 20 MB file full of SGR colour codes generated here. kpty: the talk's own
#      duration_ms (typing → completion seen by the holder). tmux: typing → end marker visible
#      in the pane (polled every 10 ms with capture-pane, so up to +10 ms). Best of RUNS.
#  (b) `kpty term-read --max-lines 40` latency with a full 10 000-line scrollback (hyperfine,
#      ≥ 20 runs; the whole CLI process: start, registry, socket round trip, render, redaction),
#      with the floors of the same run (`kpty --version`, `tmux capture-pane -p`), and the same
#      request as an MCP tools/call to one long-lived `kpty mcp` (the path agents use).
#  (c) holder RSS with a full scrollback of 120-column lines.
# Targets (issue 5): throughput ≥ tmux; term_read < 2 ms; RSS < 16 MB.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RES="$ROOT/bench/results"
SOCK=kpty-term-bench
RUNS=${RUNS:-3}
log() { printf '[term.sh] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
for c in tmux hyperfine python3 cargo; do command -v "$c" >/dev/null || die "$c is needed"; done

cd "$ROOT"
BUILT=$(bash "$ROOT/bench/release_bin.sh")
[ -x "$BUILT" ] || die "no release binary after the build"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpty-term-bench.XXXXXX")
KPTY="$WORK/kpty"
cp "$BUILT" "$KPTY"
export KPTY_STATE_DIR="$WORK/state"
export KPTY_USER_BASHRC=/dev/null
unset KPTY_SESSION TMUX KPTY_SCROLLBACK
t() { tmux -L "$SOCK" "$@"; }
SIDS=()
cleanup() {
  local rc=$?
  set +e
  for s in "${SIDS[@]}"; do "$KPTY" kill "$s" >/dev/null 2>&1; done
  t kill-server 2>/dev/null
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- inputs ------------------------------------------------------------------------------------
log "generating a 20 MB coloured file"
python3 - "$WORK/colour.txt" <<'EOF'
import sys
cols = [31, 32, 33, 34, 35, 36, 91, 92]
out, size, i = [], 0, 0
while size < 20 * 1024 * 1024:
    c = cols[i % len(cols)]
    line = f"\x1b[{c}m{i:08d}\x1b[0m \x1b[1mbold\x1b[0m some coloured text \x1b[38;5;{i % 256}mxterm-256\x1b[0m padding {'=' * (i % 40)}\n"
    out.append(line); size += len(line); i += 1
open(sys.argv[1], "w").write("".join(out))
EOF
COLOUR_MB=$(python3 -c "import os,sys; print(round(os.path.getsize(sys.argv[1]) / 1e6, 1))" "$WORK/colour.txt")
SEQ_MB=$(seq 1 2000000 | wc -c | python3 -c "import sys; print(round(int(sys.stdin.read()) / 1e6, 1))")

# --- sessions ----------------------------------------------------------------------------------
SID=$("$KPTY" create --cols 120 --rows 30 --cwd "$WORK")
SIDS+=("$SID")
t -f /dev/null start-server \; set -g history-limit 10000 \; \
  new-session -d -s bench -x 120 -y 30 -c "$WORK" "bash --rcfile /dev/null -i"
sleep 0.5

kpty_ms() { # command -> the talk's duration_ms
  "$KPTY" --json talk -s "$SID" -t 600000 "$1" |
    python3 -c 'import json,sys; v=json.load(sys.stdin); assert v["ok"], v; print(v["duration_ms"])'
}
tmux_ms() { # command -> ms from typing to the end marker on screen
  local id="E$RANDOM$RANDOM" start end
  t clear-history -t bench
  start=${EPOCHREALTIME/./}
  t send-keys -t bench -l "${1}; echo __KE_''${id}"
  t send-keys -t bench Enter
  while ! t capture-pane -p -t bench | grep -q "__KE_${id}"; do sleep 0.01; done
  end=${EPOCHREALTIME/./}
  echo $(((end - start) / 1000))
}
best() { sort -n | head -1; }

declare -A RESULT
for name in seq colour; do
  case $name in
    seq) cmd="seq 1 2000000"; mb=$SEQ_MB ;;
    colour) cmd="cat colour.txt"; mb=$COLOUR_MB ;;
  esac
  log "throughput: $cmd (kpty, tmux; best of $RUNS)"
  k=$(for _ in $(seq "$RUNS"); do kpty_ms "$cmd"; done | best)
  x=$(for _ in $(seq "$RUNS"); do tmux_ms "$cmd"; done | best)
  RESULT[$name]="$k $x $mb"
done

# --- (b) term_read latency with a full scrollback ----------------------------------------------
log "filling the scrollback (seq 1 20000 → 10 000 lines held) and timing term-read"
"$KPTY" talk -s "$SID" "seq 1 20000" >/dev/null
LINES_HELD=$("$KPTY" --json term-read -s "$SID" --max-lines 40 | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["scrollback"], v["first_line"])')
t send-keys -t bench -l "seq 1 20000" \; send-keys -t bench Enter
while ! t capture-pane -p -t bench | grep -q '^20000$'; do sleep 0.01; done
# The same run also times the floors: a kpty process that does nothing (`--version`) and
# tmux's own equivalent of term-read (`capture-pane -p` of the last 40 lines, a process too).
hyperfine -N --warmup 5 --runs 50 --export-json "$WORK/tr.json" \
  "$KPTY term-read -s $SID --max-lines 40" \
  "$KPTY read -s $SID --max-bytes 4096 --timeout-ms 0" \
  "$KPTY --version" \
  "tmux -L $SOCK capture-pane -p -t bench -S -40" >/dev/null 2>&1
read -r TR_MEAN TR_SD TR_MIN RD_MEAN VER_MEAN TX_MEAN < <(python3 -c '
import json,sys
r = json.load(open(sys.argv[1]))["results"]
print("%.2f %.2f %.2f %.2f %.2f %.2f" % (r[0]["mean"]*1e3, r[0]["stddev"]*1e3, r[0]["min"]*1e3, r[1]["mean"]*1e3, r[2]["mean"]*1e3, r[3]["mean"]*1e3))' "$WORK/tr.json")

# The path agents use: one long-lived `kpty mcp`, term_read as a tools/call over stdio.
MCP_TR=$(python3 - "$KPTY" "$SID" <<'EOF2'
import json, statistics, subprocess, sys, time
kpty, sid = sys.argv[1], sys.argv[2]
p = subprocess.Popen([kpty, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
def call(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "0"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
args = {"name": "k_pty", "arguments": {"action": "term_read", "session_id": sid, "max_lines": 40}}
xs = []
for i in range(1, 221):
    t0 = time.perf_counter()
    r = call(i, "tools/call", args)
    if i > 20:
        xs.append((time.perf_counter() - t0) * 1e3)
    assert r["result"]["structuredContent"]["ok"], r
p.stdin.close(); p.wait(timeout=10)
print("%.2f" % statistics.median(xs))
EOF2
)

# In-holder render cost: the same request straight to the socket, many times, one process.
# (The CLI number above is dominated by process start-up.)
HOLDER_US=$(python3 - "$KPTY_STATE_DIR" "$SID" <<'EOF'
import json, socket, struct, sys, time, glob, os
state, sid = sys.argv[1], sys.argv[2]
meta = json.load(open(os.path.join(state, "sessions", sid, "metadata.json")))
s = socket.socket(socket.AF_UNIX); s.connect(meta["socket"])
req = json.dumps({"v": 1, "req": {"op": "term_read", "mode": "tail", "max_lines": 40, "max_chars": 12000}}).encode()
def call():
    s.sendall(struct.pack(">I", len(req)) + req)
    n = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
    body = b""
    while len(body) < n: body += s.recv(n - len(body))
    return body
for _ in range(50): call()
N = 500; t0 = time.perf_counter()
for _ in range(N): call()
print(round((time.perf_counter() - t0) / N * 1e6, 1))
EOF
)

# --- (c) holder RSS with a full scrollback of 120-column lines -----------------------------------
# In a fresh session (the long-lived one above also holds what the allocator kept from the
# multi-megabyte talk replies of (a); reported separately).
holder_pid() {
  "$KPTY" --json list | python3 -c 'import json,sys; print([s for s in json.load(sys.stdin)["sessions"] if s["session_id"]==sys.argv[1]][0]["holder_pid"])' "$1"
}
kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
RSS_AFTER_A=$(kb "$(holder_pid "$SID")" VmRSS)
log "holder RSS with 10 000 lines of 120 columns (fresh session)"
FRESH=$("$KPTY" create --cols 120 --rows 30 --cwd "$WORK")
SIDS+=("$FRESH")
FRESH_PID=$(holder_pid "$FRESH")
RSS_IDLE=$(kb "$FRESH_PID" VmRSS)
"$KPTY" talk -s "$FRESH" "for i in \$(seq 1 12000); do printf '%0119d\n' \$i; done" >/dev/null
RSS_FULL=$(kb "$FRESH_PID" VmRSS)
HWM=$(kb "$FRESH_PID" VmHWM)

# --- report ------------------------------------------------------------------------------------
mkdir -p "$RES"
read -r SK SX SMB <<<"${RESULT[seq]}"
read -r CK CX CMB <<<"${RESULT[colour]}"
mbps() { python3 -c "import sys; print(round(float(sys.argv[1]) / (int(sys.argv[2]) / 1000), 1))" "$1" "$2"; }
verdict() { python3 -c "import sys; print('met' if float(sys.argv[1]) $2 float(sys.argv[2]) else 'NOT met')" "$1" "$3"; }
{
  echo "# term_read: screen-model costs"
  echo
  echo "Run by \`bench/term.sh\` on $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, kpty $("$KPTY" --version | awk '{print $2}'), tmux $(tmux -V | awk '{print $2}'). Terminal 120x30, scrollback 10 000."
  echo
  echo "| measure | kpty | tmux / target | verdict |"
  echo "|---|---|---|---|"
  echo "| \`seq 1 2000000\` ($SMB MB), ms (best of $RUNS) | $SK ms ($(mbps "$SMB" "$SK") MB/s) | $SX ms ($(mbps "$SMB" "$SX") MB/s) | throughput ≥ tmux: $(verdict "$SX" '>=' "$SK") |"
  echo "| \`cat\` 20 MB SGR-coloured file ($CMB MB), ms | $CK ms ($(mbps "$CMB" "$CK") MB/s) | $CX ms ($(mbps "$CMB" "$CX") MB/s) | throughput ≥ tmux: $(verdict "$CX" '>=' "$CK") |"
  echo "| \`kpty term-read --max-lines 40\`, full scrollback, whole CLI process (hyperfine, 50 runs) | $TR_MEAN ± $TR_SD ms (min $TR_MIN) | < 2 ms | $(verdict "$TR_MEAN" '<' 2) |"
  echo "| same request over MCP (\`tools/call\` term_read to one long-lived \`kpty mcp\`, median of 200) | $MCP_TR ms | < 2 ms | $(verdict "$MCP_TR" '<' 2) |"
  echo "| same request inside the holder (socket round trip, 500 calls) | $HOLDER_US µs | < 2 ms | $(verdict "$HOLDER_US" '<' 2000) |"
  echo "| \`kpty read --max-bytes 4096\` for comparison (whole CLI process) | $RD_MEAN ms | | |"
  echo "| floor: \`kpty --version\` (a kpty process doing nothing) | $VER_MEAN ms | | |"
  echo "| tmux's equivalent: \`tmux capture-pane -p -S -40\` (a process too) | $TX_MEAN ms | | |"
  echo "| holder RSS, 10 000 × 120-column lines held | $((RSS_FULL / 1024)) MB ($RSS_FULL kB; peak $((HWM / 1024)) MB) | < 16 MB | $(verdict "$RSS_FULL" '<' 16384) |"
  echo "| holder RSS, fresh session (empty screen) | $((RSS_IDLE / 1024)) MB ($RSS_IDLE kB) | | |"
  echo "| holder RSS of the session used for (a) and (b), afterwards | $((RSS_AFTER_A / 1024)) MB ($RSS_AFTER_A kB) | | allocator keeps freed talk buffers |"
  echo
  echo "Scrollback / first line held after \`seq 1 20000\`: $LINES_HELD."
  echo
  echo "Notes: kpty's time is the talk's duration_ms (typing → completion marker seen by the holder, which"
  echo "has parsed every byte into the ring and the screen by then); tmux's is typing → end marker visible"
  echo "via capture-pane polled every 10 ms. The CLI term-read latency includes process start-up, registry"
  echo "read and socket connect; the in-holder line is the render itself plus one socket round trip."
} >"$RES/term.md"
cat "$RES/term.md"
