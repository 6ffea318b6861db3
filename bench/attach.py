#!/usr/bin/env python3
"""kpty attach against tmux attach, whole processes in real PTYs (this script is the person's
terminal). Prints a Markdown report.

  (1) keystroke-to-echo latency: one key typed at bash's prompt through `kpty attach` and
      through `tmux attach`, timed until the key comes back on the client's terminal; medians.
  (2) output throughput: `seq 1 N > /dev/tty` in a session with 0, 1 and 5 attached clients
      (each drained by a reader), and with 5 `kpty read --follow` followers in pipes, timed
      as a whole `kpty talk`; medians.
  (3) a stalled client (its terminal never read, its buffers full) against `kpty talk 'echo hi'`
      in the same session; medians with and without it.

Usage: python3 bench/attach.py [path/to/kpty] [runs]
"""
import json, os, pty, select, shutil, signal, statistics, subprocess, sys, tempfile, threading, time
import glob as _glob

# The release binary: under target/<host>/release/ (.cargo/config.toml builds for the host
# tuple explicitly) or, for a plain build, target/release/.
RELEASE_BIN = next(iter(sorted(_glob.glob("target/*/release/kpty"))), "target/release/kpty")

KPTY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else RELEASE_BIN)
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
SEQ_N = int(os.environ.get("ATTACH_SEQ_N", "2000000"))
PARTS = os.environ.get("ATTACH_PARTS", "123")  # which of (1) (2) (3) to run
COLS, ROWS = 120, 30

state = tempfile.mkdtemp(prefix="kpty-bench-attach-")
ENV = dict(os.environ, KPTY_STATE_DIR=state, KPTY_USER_BASHRC="/dev/null", TERM="xterm-256color")
ENV.pop("KPTY_SESSION", None)
ENV.pop("TMUX", None)
TMUX = ["tmux", "-L", "kpty-bench-attach", "-f", "/dev/null"]


def kpty(*args, check=True):
    return subprocess.run([KPTY, *args], env=ENV, capture_output=True, text=True, check=check)


class Drainer:
    """One thread reading every drained client's terminal (as cheaply as a harness can: one
    select loop, large reads), so the readers cost little next to what is measured."""

    def __init__(self):
        self.fds = set()
        self.lock = threading.Lock()
        r, self.wake = os.pipe()
        self.fds.add(r)
        self.pipe = r
        threading.Thread(target=self._run, daemon=True).start()

    def add(self, fd):
        with self.lock:
            self.fds.add(fd)
        os.write(self.wake, b"x")

    def discard(self, fd):
        with self.lock:
            self.fds.discard(fd)
        os.write(self.wake, b"x")

    def _run(self):
        while True:
            with self.lock:
                fds = list(self.fds)
            try:
                ready, _, _ = select.select(fds, [], [], 1.0)
            except (OSError, ValueError):
                continue
            for fd in ready:
                try:
                    if not os.read(fd, 1 << 20) and fd != self.pipe:
                        raise OSError
                except OSError:
                    with self.lock:
                        self.fds.discard(fd)


DRAINER = Drainer()


class Client:
    """A program in a PTY of COLS x ROWS; `drain` reads its output on a thread."""

    def __init__(self, argv, drain=False):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, ENV)
        import fcntl, struct, termios
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        os.kill(self.pid, signal.SIGWINCH)
        self.buf = b""
        if drain:
            DRAINER.add(self.fd)

    def until(self, needle, timeout=10.0):
        deadline = time.monotonic() + timeout
        while needle not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{needle!r} not seen; got {self.buf[-300:]!r}")
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                self.buf += os.read(self.fd, 65536)

    def quiet(self, ms=150):
        while select.select([self.fd], [], [], ms / 1000)[0]:
            try:
                self.buf += os.read(self.fd, 65536)
            except OSError:
                return

    def key_latency(self, runs):
        """Type letters one by one; each is timed until it is echoed back."""
        times = []
        for i in range(runs):
            ch = bytes([ord("a") + i % 26])
            self.buf = b""
            t0 = time.perf_counter()
            os.write(self.fd, ch)
            self.until(ch)
            times.append((time.perf_counter() - t0) * 1e6)
            self.quiet(20)
            if i % 40 == 39:
                os.write(self.fd, b"\x15")  # Ctrl-U: a fresh line
                self.quiet()
        os.write(self.fd, b"\x15")
        self.quiet()
        return times

    def close(self):
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                break
            self.quiet(50)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        DRAINER.discard(self.fd)
        os.close(self.fd)


def attached(sid):
    for e in json.loads(kpty("--json", "list").stdout)["sessions"]:
        if e["session_id"] == sid:
            return e.get("attached", 0)
    return 0


def med(xs):
    return statistics.median(xs)


def p90(xs):
    return sorted(xs)[int(len(xs) * 0.9) - 1]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def main():
    out = []
    sid = kpty("create", "--label", "bench", "--cols", str(COLS), "--rows", str(ROWS)).stdout.strip()
    try:
        if "1" in PARTS:
            keys(sid, out)
        if "2" in PARTS:
            throughput(sid, out)
        if "3" in PARTS:
            stalled_talk(sid, out)
    finally:
        kpty("kill", "--all", check=False)
        subprocess.run(TMUX + ["kill-server"], capture_output=True)
        shutil.rmtree(state, ignore_errors=True)
    print("\n".join(out))


def keys(sid, out):
    """(1) keystroke to echo, kpty attach vs tmux attach."""
    subprocess.run(TMUX + ["kill-server"], capture_output=True)
    subprocess.run(TMUX + ["new-session", "-d", "-s", "b", "-x", str(COLS), "-y", str(ROWS),
                           "bash --rcfile /dev/null -i"], env=ENV, check=True)
    subprocess.run(TMUX + ["set", "-g", "status", "off"], check=True)
    k = Client([KPTY, "attach", sid])
    k.quiet(500)
    kt = k.key_latency(RUNS * 4)
    k.close()
    t = Client(TMUX + ["attach", "-t", "b"])
    t.quiet(500)
    tt = t.key_latency(RUNS * 4)
    t.close()
    subprocess.run(TMUX + ["kill-server"], capture_output=True)
    out.append(f"| keystroke → echo ({len(kt)} keys) | median µs | p90 µs |")
    out.append("|---|---|---|")
    out.append(f"| kpty attach | {med(kt):.0f} | {p90(kt):.0f} |")
    out.append(f"| tmux attach | {med(tt):.0f} | {p90(tt):.0f} |")
    out.append(f"\nkpty/tmux median ratio: {med(kt) / med(tt):.2f}× (below 1 = faster than tmux).\n")



class Follower:
    """`kpty read --follow` into a pipe drained by the harness (every byte, as a script gets)."""

    def __init__(self, sid):
        self.p = subprocess.Popen([KPTY, "read", "-s", sid, "--follow"], env=ENV,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        DRAINER.add(self.p.stdout.fileno())

    def close(self):
        self.p.terminate()
        self.p.wait(10)
        DRAINER.discard(self.p.stdout.fileno())
        self.p.stdout.close()


def throughput(sid, out):
    """(2) throughput with 0, 1, 5 attached clients, and with 5 `read --follow` followers."""
    rows = []
    base = None
    for n, kind in ((0, "attach"), (1, "attach"), (5, "attach"), (5, "follow")):
        if kind == "attach":
            clients = [Client([KPTY, "attach", "-r", sid], drain=True) for _ in range(n)]
            deadline = time.monotonic() + 10
            while n and attached(sid) != n:
                if time.monotonic() > deadline:
                    raise TimeoutError("clients did not attach")
                time.sleep(0.05)
            label = str(n)
        else:
            clients = [Follower(sid) for _ in range(n)]
            kpty("talk", "-s", sid, "echo warm")  # (the followers start meanwhile)
            label = f"{n} `read --follow` (not attached)"
        times = []
        for _ in range(max(3, RUNS // 6)):
            t0 = time.perf_counter()
            kpty("talk", "-s", sid, "-t", "120000", f"seq 1 {SEQ_N} > /dev/tty; echo done")
            times.append((time.perf_counter() - t0) * 1000)
        for c in clients:
            c.close()
        m = med(times)
        base = base or m
        rows.append(f"| {label} | {m:.0f} | {min(times):.0f} | {(m / base - 1) * 100:+.1f} % |")
    out.append(f"| clients attached | `seq 1 {SEQ_N} > /dev/tty` median ms | min ms | vs 0 clients |")
    out.append("|---|---|---|---|")
    out.extend(rows)



def stalled_talk(sid, out):
    """(3) a stalled client against talk."""
    def talk_times():
        ts = []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            kpty("talk", "-s", sid, "echo hi")
            ts.append((time.perf_counter() - t0) * 1000)
        return ts
    before = talk_times()
    stalled = Client([KPTY, "attach", sid])  # never read
    kpty("talk", "-s", sid, "-t", "120000", "seq 1 300000 > /dev/tty; echo filled")
    during = talk_times()
    stalled.close()
    out.append(f"\n| `kpty talk 'echo hi'` ({RUNS} runs) | median ms | p90 ms |")
    out.append("|---|---|---|")
    out.append(f"| no client attached | {med(before):.2f} | {p90(before):.2f} |")
    out.append(f"| one stalled client (buffers full) | {med(during):.2f} | {p90(during):.2f} |")


main()
