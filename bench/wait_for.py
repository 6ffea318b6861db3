#!/usr/bin/env python3
"""wait_for latency: one long-lived `kpty mcp`; each run types `sleep 0.2; echo MARK-N` with
send_line, then waits with wait_for 'MARK-N'. Reports the holder's `latency_us` (from the PTY
chunk holding the match entering the holder to its reply) and the whole round trip of the
wait_for call, medians over N runs.

Usage: python3 bench/wait_for.py [path/to/kpty] [runs]   (prints a Markdown table)
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time
import glob as _glob

# The release binary: under target/<host>/release/ (.cargo/config.toml builds for the host
# tuple explicitly) or, for a plain build, target/release/.
RELEASE_BIN = next(iter(sorted(_glob.glob("target/*/release/kpty"))), "target/release/kpty")

KPTY = sys.argv[1] if len(sys.argv) > 1 else RELEASE_BIN
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 30

state = tempfile.mkdtemp(prefix="kpty-bench-wait-")
env = dict(os.environ, KPTY_STATE_DIR=state, KPTY_USER_BASHRC="/dev/null")
env.pop("KPTY_SESSION", None)

p = subprocess.Popen([KPTY, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
ids = iter(range(1, 1 << 30))


def call(args):
    i = next(ids)
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                              "params": {"name": "k_pty", "arguments": args}}) + "\n")
    p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("kpty mcp closed stdout")
        msg = json.loads(line)
        if msg.get("id") == i:
            return msg["result"]["structuredContent"]


p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}) + "\n")
p.stdin.flush()
p.stdout.readline()
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
p.stdin.flush()

sid = call({"action": "create"})["session_id"]
try:
    latency_us, round_ms = [], []
    for n in range(RUNS + 1):
        call({"action": "send_line", "session_id": sid, "data": f"sleep 0.2; echo MARK-$(({n}+1000))"})
        t = time.perf_counter()
        r = call({"action": "wait_for", "session_id": sid, "pattern": f"^MARK-{n + 1000}",
                  "timeout_ms": 10000})
        dt = (time.perf_counter() - t) * 1000
        assert r.get("reason") == "pattern", r
        if n:  # the first is a warm-up
            latency_us.append(r["latency_us"])
            round_ms.append(dt)
    print(f"| wait_for ({RUNS} runs, {os.path.basename(KPTY)}) | median | p90 |")
    print("|---|---|---|")
    q = lambda xs: sorted(xs)[int(len(xs) * 0.9) - 1]
    print(f"| holder: matching output → reply (µs) | {statistics.median(latency_us):.0f} | {q(latency_us):.0f} |")
    print(f"| MCP round trip of the call incl. the 0.2 s sleep (ms) | {statistics.median(round_ms):.1f} | {q(round_ms):.1f} |")
finally:
    call({"action": "kill", "session_id": sid})
    p.stdin.close()
    p.wait(timeout=10)
    shutil.rmtree(state, ignore_errors=True)
