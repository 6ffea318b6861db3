#!/usr/bin/env bash
# screenshot.sh — the cost of `kpty screenshot` (issue: a PNG of a 200×50 screen < 50 ms).
#
#   bash bench/screenshot.sh      # builds the release binary; needs hyperfine, python3
#
# A 200×50 session whose whole screen is coloured text (every cell written: 16 colours, 256
# colours, RGB, bold, underline, inverse runs), then, with hyperfine (the whole CLI process:
# start, registry, the holder's screen over its socket, drawing, encoding, the file written):
#   `kpty screenshot --format png -o FILE`   (the figure the issue asks for: its median)
#   `kpty screenshot --format svg -o FILE`   (the same screen as SVG, for comparison)
#   `kpty screenshot --format txt`           (the screen model's round trip alone)
#   `kpty --version`                          (the floor: a kpty process doing nothing)
# Writes bench/results/screenshot.md. Does not touch BENCHMARKS.md.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RES="$ROOT/bench/results"
RUNS=${BENCH_RUNS:-50}
log() { printf '[screenshot.sh] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
for c in hyperfine python3 cargo; do command -v "$c" >/dev/null || die "$c is needed"; done

cd "$ROOT"
BUILT=$(bash "$ROOT/bench/release_bin.sh")
[ -x "$BUILT" ] || die "no release binary after the build"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpty-shot-bench.XXXXXX")
KPTY="$WORK/kpty"
cp "$BUILT" "$KPTY"
export KPTY_STATE_DIR="$WORK/state"
export KPTY_USER_BASHRC=/dev/null
unset KPTY_SESSION TMUX
SID=""
cleanup() {
  local rc=$?
  set +e
  [ -n "$SID" ] && "$KPTY" kill "$SID" >/dev/null 2>&1
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- a full, colourful 200×50 screen ----------------------------------------------------------
python3 - "$WORK/screen.txt" <<'EOF'
import sys
words = "the quick brown fox jumps over the lazy dog 0123456789 ~/src/kpty $ cargo build".split()
lines = []
for row in range(49):
    out, width, i = [], 0, row
    while width < 200:
        w = words[i % len(words)][: 200 - width]
        kind = i % 6
        sgr = [f"3{i % 8}", f"38;5;{(i * 7) % 256}", f"38;2;{i * 37 % 256};{i * 91 % 256};200",
               f"1;9{i % 8}", f"4;3{i % 8}", f"7;3{i % 8}"][kind]
        out.append(f"\x1b[{sgr}m{w}\x1b[0m")
        width += len(w)
        if width < 200:
            out.append(" ")
            width += 1
        i += 1
    lines.append("".join(out))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
EOF
SID=$("$KPTY" create --cols 200 --rows 50 --cwd "$WORK")
"$KPTY" talk -s "$SID" "clear; cat screen.txt" >/dev/null
"$KPTY" screenshot -s "$SID" --format png -o "$WORK/shot.png" 2>/dev/null
SIZE=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", b[16:24])
print(f"{w}×{h} px, {len(b) // 1024} KiB")' "$WORK/shot.png")
log "the PNG: $SIZE"

log "timing ($RUNS runs each)"
hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$WORK/shot.json" \
  "$KPTY screenshot -s $SID --format png -o $WORK/a.png" \
  "$KPTY screenshot -s $SID --format svg -o $WORK/a.svg" \
  "$KPTY screenshot -s $SID --format txt" \
  "$KPTY --version" >/dev/null 2>&1
read -r PNG_MED PNG_MIN PNG_MAX SVG_MED TXT_MED VER_MED < <(python3 -c '
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
med = lambda x: statistics.median(x["times"]) * 1e3
print("%.1f %.1f %.1f %.1f %.1f %.1f" % (med(r[0]), r[0]["min"] * 1e3, r[0]["max"] * 1e3,
      med(r[1]), med(r[2]), med(r[3])))' "$WORK/shot.json")

verdict=$(python3 -c "print('met' if $PNG_MED < 50 else 'NOT met')")
mkdir -p "$RES"
{
  echo "# kpty screenshot: a 200×50 screen of coloured text"
  echo
  echo "Whole CLI process, hyperfine medians of $RUNS runs ($(nproc) cores, release build)."
  echo
  echo "| what | median | target |"
  echo "| --- | --- | --- |"
  echo "| \`kpty screenshot --format png -o FILE\` ($SIZE) | $PNG_MED ms (min $PNG_MIN, max $PNG_MAX) | < 50 ms: $verdict |"
  echo "| \`kpty screenshot --format svg -o FILE\` | $SVG_MED ms | |"
  echo "| \`kpty screenshot --format txt\` (the screen's round trip) | $TXT_MED ms | |"
  echo "| floor: \`kpty --version\` | $VER_MED ms | |"
} >"$RES/screenshot.md"
cat "$RES/screenshot.md"
