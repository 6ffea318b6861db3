#!/usr/bin/env bash
# bench/bridge.sh — what routing a session through a desktop bridge costs: whole-process
# `kpty talk 'echo hi'` on one warmed session, directly (state dir B, which holds it) and through
# `kpty serve` (state dir A, where the same session is registered with --desktop-url).
#
#   bash bench/bridge.sh          # from the repo root; about 15 s after the build
#
# hyperfine -N, BENCH_RUNS runs (default 30, at least 20) after BENCH_WARMUP warm-ups (default 3).
# Writes bench/results/bridge.md (a Markdown table) and bench/results/bridge.json (raw).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
RES="$ROOT/bench/results"
RUNS=${BENCH_RUNS:-30}
WARMUP=${BENCH_WARMUP:-3}
((RUNS >= 20)) || RUNS=20

die() { printf 'bench: %s\n' "$*" >&2; exit 1; }
command -v hyperfine >/dev/null || die "hyperfine is needed (apt-get install hyperfine)"
command -v python3 >/dev/null || die "python3 is needed"

BUILT=$(bash "$ROOT/bench/release_bin.sh")
[ -x "$BUILT" ] || die "no release binary after the build"
REV=$(git -C "$ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpty-bridge.XXXXXX")
KPTY="$WORK/kpty" # a private copy: a rebuild during the run cannot swap binaries
cp "$BUILT" "$KPTY"
A="$WORK/a" B="$WORK/b"
export KPTY_USER_BASHRC=/dev/null # no PROMPT_COMMAND from the user's config in the figures
unset KPTY_SESSION KPTY_STATE_DIR KURORYUU_DESKTOP_URL
SERVE_PID= SID=

cleanup() {
  local rc=$?
  set +e
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  [ -n "$SID" ] && "$KPTY" --state-dir "$B" kill "$SID" >/dev/null 2>&1
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SID=$("$KPTY" --state-dir "$B" --json create | python3 -c 'import json,sys; print(json.load(sys.stdin)["session_id"])')
coproc SERVE { exec "$KPTY" --state-dir "$B" serve --port 0 2>"$WORK/serve.log"; }
SERVE_PID=$SERVE_PID
read -r -t 20 LINE <&"${SERVE[0]}" || die "kpty serve printed nothing: $(cat "$WORK/serve.log")"
URL=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$LINE")
KURORYUU_DESKTOP_SECRET=$(cat "$B/_bridge_secret")
export KURORYUU_DESKTOP_SECRET
"$KPTY" --state-dir "$A" register "$SID" --desktop-url "$URL" >/dev/null

DIRECT=("$KPTY" --state-dir "$B" talk -s "$SID" 'echo hi')
BRIDGED=("$KPTY" --state-dir "$A" talk -s "$SID" 'echo hi')
check() { # name command… : the command prints exactly "hi"
  local name=$1 out
  shift
  out=$("$@") || die "$name talk failed"
  [ "$out" = hi ] || die "$name talk printed ${out@Q}, not 'hi'"
}
check direct "${DIRECT[@]}"
check bridged "${BRIDGED[@]}"

q() { printf '%q ' "$@"; }
mkdir -p "$RES"
hyperfine -N --style basic --runs "$RUNS" --warmup "$WARMUP" --export-json "$RES/bridge.json" \
  -n "direct (holder socket)" "$(q "${DIRECT[@]}")" \
  -n "through kpty serve (HTTP)" "$(q "${BRIDGED[@]}")"

python3 - "$RES/bridge.json" "$REV" "$RUNS" >"$RES/bridge.md" <<'EOF'
import json, platform, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
ms = lambda s: f"{s * 1000:.2f}"
base = statistics.median(res[0]["times"])
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print("# kpty talk through a bridge\n")
print(f"`kpty talk 'echo hi'` on one warmed session, whole process, hyperfine -N, {sys.argv[3]} runs;")
print(f"kpty {sys.argv[2]}, {platform.machine()} {cpu}. Written by bench/bridge.sh.\n")
print("| route | median ms | mean ± σ ms | min ms | max ms | × direct |")
print("|---|---:|---:|---:|---:|---:|")
for r in res:
    med = statistics.median(r["times"])
    print(f"| {r['command']} | {ms(med)} | {ms(r['mean'])} ± {ms(r['stddev'] or 0)} | {ms(r['min'])} | {ms(r['max'])} | {med / base:.2f} |")
EOF
cat "$RES/bridge.md"
