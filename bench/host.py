#!/usr/bin/env python3
"""The host's own floors, measured in the same run as kpty's figures, so that the absolute
targets (MCP stdio talk, 20 HTTP clients) can be read against what this machine allows:

- a pipe round trip between two processes (one byte there and back), free to run on any CPU
  and then both pinned to one CPU: on a VM whose idle vCPUs sleep, waking a process on another
  CPU costs far more than a switch on the same one, and every hand-over between threads or
  processes in a request's path pays it;
- a raw PTY round trip to an interactive bash with no rc files and a plain prompt: write
  `echo $((6*7))` + CR to the master, read until the output and the next prompt came back —
  the least any tool that talks to a shell through a terminal can cost per command.

Usage: python3 bench/host.py [runs]   (prints a Markdown table; medians)
"""
import os
import pty
import select
import statistics
import sys
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
DEADLINE = 5.0  # seconds for any single wait


def pipe_round_trip(pin):
    """Median µs of a one-byte round trip between this process and a child."""
    there, back = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            if pin:
                os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
            for _ in range(RUNS):
                os.write(back[1], os.read(there[0], 1))
        finally:
            os._exit(0)
    cpus = os.sched_getaffinity(0)
    if pin:
        os.sched_setaffinity(0, {min(cpus)})
    times = []
    try:
        for _ in range(RUNS):
            t = time.perf_counter()
            os.write(there[1], b"x")
            os.read(back[0], 1)
            times.append((time.perf_counter() - t) * 1e6)
    finally:
        os.sched_setaffinity(0, cpus)
        os.waitpid(pid, 0)
        for fd in (*there, *back):
            os.close(fd)
    return statistics.median(times)


def pty_round_trip():
    """Median ms of `echo $((6*7))` typed into an interactive bash on a fresh PTY."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(PS1="PROMPT> ", PROMPT_COMMAND="")
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])

    def read_until(token, buf=b""):
        end = time.monotonic() + DEADLINE
        while token not in buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise SystemExit(f"bench/host.py: bash did not answer ({buf[-80:]!r})")
            buf += os.read(fd, 65536)
        return buf

    try:
        read_until(b"PROMPT> ")
        times = []
        for _ in range(max(RUNS // 4, 50)):
            t = time.perf_counter()
            os.write(fd, b"echo $((6*7))\r")
            out = read_until(b"42\r\n")
            read_until(b"PROMPT> ", out[out.index(b"42\r\n"):])
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times)
    finally:
        os.close(fd)
        os.kill(pid, 9)
        os.waitpid(pid, 0)


cross = pipe_round_trip(False)
same = pipe_round_trip(True)
raw = pty_round_trip()
print("| floor | median |")
print("| --- | ---: |")
print(f"| pipe round trip between two processes, any CPU | {cross:.1f} µs |")
print(f"| the same, both pinned to one CPU | {same:.1f} µs |")
print(f"| raw PTY round trip: `echo $((6*7))` typed into `bash --norc -i` | {raw:.3f} ms |")
print()
print(
    f"A hand-over to a process on another CPU costs about {cross / 2:.0f} µs here "
    f"({cross / max(same, 0.1):.0f}× a switch on one CPU); an MCP talk crosses at least six "
    "(client → kpty mcp → holder → bash → holder → kpty mcp → client) beside the thread "
    "hand-overs inside each process."
)
