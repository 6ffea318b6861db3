#!/usr/bin/env bash
# bench/release_bin.sh — build the release binary and print its path. Where cargo puts it
# depends on the build's target (.cargo/config.toml builds for the host tuple explicitly, so
# the binary lands under target/<host>/release/), so ask cargo instead of guessing.
#
#   BUILT=$(bash bench/release_bin.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --quiet --message-format=json-render-diagnostics --bin kpty |
  python3 -c '
import json, sys
path = None
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "kpty":
        path = m["executable"]
if not path:
    sys.exit("bench: cargo built no kpty binary")
print(path)'
