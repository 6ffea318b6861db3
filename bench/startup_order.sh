#!/usr/bin/env bash
# bench/startup_order.sh — remake bench/startup_order.txt: the functions the common CLI calls
# run (`talk`, `list`, `send-line`, `read`, `term-read`, `--version`, with and without --json),
# by their linker symbols, as valgrind's callgrind sees them in the release binary. build.rs
# hands the list to the linker, which lays those functions out together at the start of the
# code, so a short-lived `kpty talk` pages in a few runs of code instead of pieces scattered
# over the whole binary. Run it after large changes to the CLI path; a stale list costs only
# the functions it no longer names (the build skips them).
#
#   bash bench/startup_order.sh        # from the repo root; needs valgrind (apt-get install valgrind)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v valgrind >/dev/null || { echo "startup_order: valgrind is needed" >&2; exit 1; }
BIN=$(bash bench/release_bin.sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpty-order.XXXXXX")
export KPTY_STATE_DIR="$WORK/state" KPTY_USER_BASHRC=/dev/null
cleanup() { "$BIN" kill --all >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$BIN" talk true >/dev/null # the default session, made before anything is traced
SID=$("$BIN" list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"][0]["session_id"])')
n=0
for args in "talk|echo hi" "--json|talk|echo hi" "--version" "list" "list|--json" \
  "send-line|-s|$SID|true" "read|-s|$SID" "term-read|-s|$SID"; do
  n=$((n + 1))
  IFS='|' read -ra argv <<<"$args"
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/run$n.out" \
    "$BIN" "${argv[@]}" >/dev/null 2>&1
done
python3 - "$WORK" bench/startup_order.txt <<'PY'
import glob, re, sys
seen, names = set(), []
for path in sorted(glob.glob(sys.argv[1] + "/run*.out")):
    for line in open(path):
        # A function's name is given where it first appears, as caller (fn=) or callee (cfn=);
        # callgrind marks recursion levels with a 'N suffix.
        m = re.match(r"c?fn=\(\d+\) ([^'\s]+)", line)
        if m and m.group(1) not in seen and not m.group(1).startswith("0x"):
            seen.add(m.group(1))
            names.append(m.group(1))
open(sys.argv[2], "w").write("\n".join(names) + "\n")
print(f"startup_order: {len(names)} functions in {sys.argv[2]}")
PY
