#!/usr/bin/env python3
"""MCP latency: a `tools/call` k_pty talk of `echo hi` over stdio to one long-lived
`kpty mcp`, against the same action through the CLI (`kpty talk 'echo hi'`, a whole process
per call), both on the same warmed session, medians in the same run: N CLI runs, and ten
times as many MCP calls (at least 300: a call costs half a millisecond, and a median of 30
moved by ±10 % from run to run on this machine).

Usage: python3 bench/mcp.py [path/to/kpty] [runs]   (prints a Markdown table)
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time
import glob as _glob

# The release binary: under target/<host>/release/ (.cargo/config.toml builds for the host
# tuple explicitly) or, for a plain build, target/release/.
RELEASE_BIN = next(iter(sorted(_glob.glob("target/*/release/kpty"))), "target/release/kpty")

KPTY = sys.argv[1] if len(sys.argv) > 1 else RELEASE_BIN
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
MCP_RUNS = max(10 * RUNS, 300)

state = tempfile.mkdtemp(prefix="kpty-bench-mcp-")
env = dict(os.environ, KPTY_STATE_DIR=state, KPTY_USER_BASHRC="/dev/null")
env.pop("KPTY_SESSION", None)


def cli(*args):
    return subprocess.run([KPTY, *args], env=env, capture_output=True, text=True, check=True).stdout


sid = cli("create").strip()
try:
    # CLI: one process per call.
    cli("talk", "-s", sid, "echo warm")
    cli_ms = []
    for _ in range(RUNS):
        t = time.perf_counter()
        out = cli("talk", "-s", sid, "echo hi")
        cli_ms.append((time.perf_counter() - t) * 1000)
        assert out.strip() == "hi", out

    # MCP: one server, many calls.
    p = subprocess.Popen([KPTY, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(msg):
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()

    def recv(want_id):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("kpty mcp closed stdout")
            msg = json.loads(line)
            if msg.get("id") == want_id:
                return msg

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    recv(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = lambda i: {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "k_pty", "arguments": {"action": "talk", "session_id": sid, "command": "echo hi"}}}
    send(call(1)); recv(1)  # warm-up
    mcp_ms = []
    for i in range(2, MCP_RUNS + 2):
        t = time.perf_counter()
        send(call(i))
        r = recv(i)
        mcp_ms.append((time.perf_counter() - t) * 1000)
        assert r["result"]["structuredContent"]["output"] == "hi", r

    # Result size: what a model's context receives for a big output, lean (the default) and
    # with include_raw (the full object, as every MCP talk returned before 0.2).
    sizes = []
    for n in (5000, 50000):
        for raw in (False, True):
            args = {"action": "talk", "session_id": sid, "command": f"seq 1 {n}"}
            if raw:
                args["include_raw"] = True
            i += 1
            send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                  "params": {"name": "k_pty", "arguments": args}})
            r = recv(i)["result"]
            text = r["content"][0]["text"]
            sc = r["structuredContent"]
            sizes.append((n, raw, len(text), len(sc.get("output", "")), sc.get("truncated")))
    p.stdin.close()
    p.wait(timeout=10)
finally:
    subprocess.run([KPTY, "kill", sid], env=env, capture_output=True)
    shutil.rmtree(state, ignore_errors=True)

c, m = statistics.median(cli_ms), statistics.median(mcp_ms)
print(f"| path | median ms | p90 ms | runs |")
print(f"| --- | ---: | ---: | ---: |")
for name, xs in [("`kpty talk 'echo hi'` (CLI process)", cli_ms), ("MCP `tools/call` talk over stdio", mcp_ms)]:
    xs = sorted(xs)
    print(f"| {name} | {statistics.median(xs):.2f} | {xs[int(len(xs) * 0.9) - 1]:.2f} | {len(xs)} |")
print()
verdict = "PASS" if m - c < 2.0 else "FAIL"
print(f"MCP minus CLI: {m - c:+.2f} ms (target: under +2 ms) — **{verdict}**")
print()
verdict = "PASS" if m <= 0.5 else "FAIL"
print(f"MCP stdio talk median: {m:.2f} ms (issue 25's target: at most 0.5 ms; 0.68 ms when it was filed) — **{verdict}**")
print()
print("MCP `talk` result size (characters of the tool result's JSON text; the cap is 50 000):")
print()
print("| command | result | result chars | of which `output` | truncated |")
print("| --- | --- | ---: | ---: | --- |")
for n, raw, total, out, trunc in sizes:
    kind = "`include_raw: true` (before: every result)" if raw else "lean (default)"
    print(f"| `seq 1 {n}` | {kind} | {total:,} | {out:,} | {trunc} |")
