#!/usr/bin/env python3
"""bench/console.py — what the web console costs (issue 26's figures), whole processes.

    python3 bench/console.py KPTY_BINARY        # prints a Markdown table (bench/run.sh)

Starts its own `kpty serve` on a state directory of its own, logs in with the link `kpty
console` prints, and measures with raw WebSocket clients (what a browser tab opens):
  - flood: a session's shell times `seq 1 2000000` written to its terminal, with no page and
    with VIEWS pages watching its terminal view (each reading as fast as it can), in
    alternating rounds; medians
  - echo: a key typed from a writing view and through `kpty attach` in a PTY, in alternating
    blocks on one session; medians and their ratio
  - memory: the RSS of `kpty serve` before and with VIEWS terminal views open, per view
  - overview: with OVERVIEW_N sessions, the time from opening the overview WebSocket to its
    first message (the server's part of a first paint), median over several opens
"""
import base64
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import struct
import termios
import statistics
import subprocess
import sys
import tempfile
import threading
import time

VIEWS = int(os.environ.get("CONSOLE_VIEWS", "10"))
OVERVIEW_N = int(os.environ.get("CONSOLE_OVERVIEW_SESSIONS", "50"))
ROUNDS = int(os.environ.get("CONSOLE_ROUNDS", "5"))
FLOOD = "seq 1 2000000"


def kpty(binary, env, *args):
    return subprocess.run([binary, *args], env=env, capture_output=True, text=True, check=True).stdout


def ws_open(port, path, cookie):
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    req = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\n"
           f"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n"
           f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n")
    s.sendall(req.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise RuntimeError("closed during the handshake")
        head += chunk
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(head.decode(errors="replace"))
    return s


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def ws_frame(s):
    b0, b1 = recv_exact(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(recv_exact(s, 2), "big")
    elif n == 127:
        n = int.from_bytes(recv_exact(s, 8), "big")
    return b0 & 0x0F, recv_exact(s, n)


def drain(s, stop):
    try:
        while not stop.is_set():
            op, _ = ws_frame(s)
            if op == 8:
                return
    except (EOFError, OSError):
        return


def client_frame(msg):
    """A page's message as the masked text frame a client sends."""
    payload = json.dumps(msg).encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    n = len(payload)
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_send(s, msg):
    s.sendall(client_frame(msg))


def until(s, pick):
    """Read frames until `pick(opcode, data)` is true."""
    while True:
        op, data = ws_frame(s)
        if pick(op, data):
            return


def quiet(s, ms=20):
    """Read until nothing comes for `ms` (as bench/attach.py does between keys)."""
    s.settimeout(ms / 1000)
    try:
        while True:
            ws_frame(s)
    except (socket.timeout, TimeoutError):
        pass
    finally:
        s.settimeout(None)


def echo_ms(port, sid, cookie, runs):
    """A writing view types letters at bash's prompt, each timed until it is echoed, with a
    quiet spell between keys, then a fresh line (bench/attach.py's method). The key's message
    is built before the clock starts, as the attach client's key byte is: Python's JSON and
    masking, run cold after each quiet spell, took 40-50 µs, which no browser spends."""
    s = ws_open(port, f"/console/ws/session/{sid}", cookie)
    until(s, lambda op, d: op == 1 and json.loads(d)["type"] == "joined")
    ws_send(s, {"type": "write"})
    until(s, lambda op, d: op == 1 and json.loads(d).get("mode") == "write")
    quiet(s, 150)
    times = []
    for i in range(runs):
        ch = chr(ord("a") + i % 26)
        key = client_frame({"type": "input", "data": ch})
        t0 = time.perf_counter()
        s.sendall(key)
        until(s, lambda op, d: op == 2 and ch.encode() in d[8:])  # after the 8-byte offset
        times.append((time.perf_counter() - t0) * 1000)
        quiet(s)
    ws_send(s, {"type": "input", "data": "\x15"})
    quiet(s, 150)
    s.close()
    return times


def attach_echo_ms(binary, env, sid, runs):
    """The same keys through `kpty attach` in a PTY of its own (bench/attach.py's client)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(binary, [binary, "attach", sid], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))

    def pty_quiet(ms):
        while select.select([fd], [], [], ms / 1000)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                return

    pty_quiet(500)
    times = []
    for i in range(runs):
        ch = bytes([ord("a") + i % 26])
        buf = b""
        t0 = time.perf_counter()
        os.write(fd, ch)
        while ch not in buf:
            select.select([fd], [], [], 10)
            buf += os.read(fd, 65536)
        times.append((time.perf_counter() - t0) * 1000)
        pty_quiet(20)
    os.write(fd, b"\x15")
    pty_quiet(150)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    os.close(fd)
    return times


def echoes_side_by_side(binary, env, port, sid, cookie):
    """Web and attach echo in alternating blocks of 40 keys on one session, 120 keys each."""
    web, attach = [], []
    for _ in range(3):
        web += echo_ms(port, sid, cookie, 40)
        attach += attach_echo_ms(binary, env, sid, 40)
    return web, attach


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def flood_ms(binary, env, sid):
    cmd = (f"s=$(date +%s%N); {FLOOD}; "
           "echo flood-ms=$(( ($(date +%s%N) - s) / 1000000 ))")
    out = kpty(binary, env, "--json", "talk", "-s", sid, "--timeout-ms", "120000", cmd)
    return int(re.search(r"flood-ms=(\d+)", json.loads(out)["output"]).group(1))


def main():
    binary = os.path.abspath(sys.argv[1])
    state = tempfile.mkdtemp(prefix="kpty-console-bench-")
    env = dict(os.environ, KPTY_STATE_DIR=state, KPTY_USER_BASHRC="/dev/null")
    serve = subprocess.Popen([binary, "serve", "--port", "0"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(json.loads(serve.stdout.readline())["url"].rsplit(":", 1)[1])
        link = kpty(binary, env, "console", "--port", str(port)).strip()
        token = link.split("#token=", 1)[1]
        c = socket.create_connection(("127.0.0.1", port))
        body = json.dumps({"token": token})
        c.sendall((f"POST /console/login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                   f"Connection: close\r\n\r\n{body}").encode())
        answer = c.makefile("rb").read().decode(errors="replace")
        cookie = re.search(r"(?i)set-cookie: ([^;]+)", answer).group(1)

        sid = kpty(binary, env, "create").strip()
        echoes, attach_echoes = echoes_side_by_side(binary, env, port, sid, cookie)
        flood_ms(binary, env, sid)  # warm-up
        # Rounds alternate a flood with no page and one with VIEWS pages watching, so a host
        # that slows down midway weighs on both sides.
        alone, watched = [], []
        rss_before = rss_kb(serve.pid)
        rss_views = 0
        for _ in range(ROUNDS):
            alone.append(flood_ms(binary, env, sid))
            stop = threading.Event()
            views = [ws_open(port, f"/console/ws/session/{sid}", cookie) for _ in range(VIEWS)]
            readers = [threading.Thread(target=drain, args=(v, stop), daemon=True) for v in views]
            for t in readers:
                t.start()
            watched.append(flood_ms(binary, env, sid))
            rss_views = max(rss_views, rss_kb(serve.pid))
            stop.set()
            for v in views:
                v.shutdown(socket.SHUT_RDWR)  # wakes its reader
                v.close()
            for t in readers:
                t.join(timeout=10)

        for _ in range(OVERVIEW_N - 1):
            kpty(binary, env, "create")
        firsts = []
        for _ in range(max(5, ROUNDS)):
            t0 = time.perf_counter()
            s = ws_open(port, "/console/ws", cookie)
            op, data = ws_frame(s)
            firsts.append((time.perf_counter() - t0) * 1000)
            assert op == 1 and len(json.loads(data)["sessions"]) >= OVERVIEW_N
            s.close()

        a, w = statistics.median(alone), statistics.median(watched)
        cost = (w - a) / w * 100 if w else 0.0
        per_view = (rss_views - rss_before) / VIEWS
        first = statistics.median(firsts)
        verdict = lambda ok: "**PASS**" if ok else "**FAIL**"
        echo = statistics.median(echoes)
        attach_echo = statistics.median(attach_echoes)
        ratio = echo / attach_echo if attach_echo else 0.0
        print("| figure | measured | target (issue 26) | verdict |")
        print("| --- | ---: | --- | --- |")
        print(f"| `{FLOOD}` in the session, no page / {VIEWS} pages watching (median ms) | "
              f"{a:.0f} / {w:.0f} ({cost:.1f} % of the throughput) | under 20 % | {verdict(cost < 20)} |")
        print(f"| `kpty serve` RSS, before / with {VIEWS} terminal views | "
              f"{rss_before} / {rss_views} KB ({per_view:.0f} KB a view) | under 2 MB a view | "
              f"{verdict(per_view < 2048)} |")
        print(f"| a key typed to its echo at bash's prompt, a writing view / `kpty attach` in a "
              f"PTY, alternating blocks on one session (median of {len(echoes)} each) | "
              f"{echo:.2f} / {attach_echo:.2f} ms = {ratio:.2f}× | within 1.2× of `kpty attach`'s | "
              f"{verdict(ratio <= 1.2)} (a raw client; a browser's drawing is not timed) |")
        print(f"| overview with {OVERVIEW_N} sessions: WebSocket opened to its first message "
              f"(median of {len(firsts)}) | {first:.1f} ms | first paint under 500 ms | "
              f"{verdict(first < 500)} (the server's part; the browser's paint is not timed) |")
    finally:
        subprocess.run([binary, "kill", "--all"], env=env, capture_output=True)
        serve.terminate()
        serve.wait(timeout=20)
        shutil.rmtree(state, ignore_errors=True)  # the flood's recordings are large


if __name__ == "__main__":
    main()
