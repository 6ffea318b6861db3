#!/usr/bin/env python3
"""bench/remote.py KPTY RUNS: sessions on another host over OpenSSH (issue 28's figures).

Starts its own sshd on 127.0.0.1 (a generated host key, an authorized key, a private client
config naming the host `benchbox` and ten aliases `box0`..`box9` of it), then times whole
processes, medians:

  (s1) warm `kpty --host benchbox talk 'echo hi'` (the host's channel open) against a local
       `kpty talk 'echo hi'` and a warm `ssh -o ControlPath=… benchbox 'echo hi'`, interleaved
  (s2) a cold first call (no connection, no channel; the kpty there already installed)
       against a plain `ssh benchbox true`
  (s3) `kpty list --all-hosts` over the ten aliases against over one host; then the same
       again with every process of it on one CPU (a fresh sshd, channels and sessions, all
       started from a process pinned to that CPU), to show what the ten cost in CPU time

Both sessions' shells run without the user's ~/.bashrc (KPTY_USER_BASHRC=/dev/null, passed
to the remote session with `create --env`), as in bench/run.sh: a PROMPT_COMMAND from the
user's config (pyenv …) would otherwise be timed on one side only.

Prints Markdown on stdout. Needs sshd (openssh-server) and ssh.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

KPTY = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
COLD_RUNS = max(5, RUNS // 5)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sshd(d):
    """Start a private sshd in d; its pid and the client config path."""
    for key in ("hostkey", "userkey"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{d}/{key}"], check=True)
    shutil.copy(f"{d}/userkey.pub", f"{d}/authorized_keys")
    port = free_port()
    with open(f"{d}/sshd_config", "w") as f:
        f.write(
            f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/hostkey\nPidFile {d}/sshd.pid\n"
            f"AuthorizedKeysFile {d}/authorized_keys\nUsePAM no\nStrictModes no\n"
            "PasswordAuthentication no\nPermitRootLogin yes\nMaxStartups 50\n"
        )
    if os.getuid() == 0:
        os.makedirs("/run/sshd", exist_ok=True)
    subprocess.run(["/usr/sbin/sshd", "-f", f"{d}/sshd_config", "-E", f"{d}/sshd.log"], check=True)
    deadline = time.monotonic() + 10
    while not os.path.exists(f"{d}/sshd.pid") or not open(f"{d}/sshd.pid").read().strip():
        if time.monotonic() > deadline:
            raise SystemExit("sshd did not write its pid file")
        time.sleep(0.01)
    pid = int(open(f"{d}/sshd.pid").read().strip())
    hostkey = " ".join(open(f"{d}/hostkey.pub").read().split()[:2])
    with open(f"{d}/known_hosts", "w") as f:
        f.write(f"[127.0.0.1]:{port} {hostkey}\n")
    user = "root" if os.getuid() == 0 else os.environ.get("USER", "root")
    with open(f"{d}/config", "w") as f:
        for name in ["benchbox"] + [f"box{i}" for i in range(10)]:
            f.write(
                f"Host {name}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n"
                f"  IdentityFile {d}/userkey\n  IdentitiesOnly yes\n"
                f"  UserKnownHostsFile {d}/known_hosts\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
            )
    return pid, f"{d}/config"


def children(pid):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                stat = open(f"/proc/{p}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(p))
    return out


def timed(cmd, env):
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        raise SystemExit(f"{cmd}: exit {r.returncode}: {r.stderr.decode(errors='replace')}")
    return ms, r.stdout


def interleaved(cmds, env, runs):
    """Medians (ms) of each command, run by run in rotating order."""
    acc = [[] for _ in cmds]
    for i in range(runs):
        order = list(range(len(cmds)))
        order = order[i % len(order):] + order[: i % len(order)]
        for j in order:
            acc[j].append(timed(cmds[j], env)[0])
    return [statistics.median(a) for a in acc]


def main():
    if not os.path.exists("/usr/sbin/sshd") or not shutil.which("ssh"):
        print("(sshd or ssh is not installed: no figures)")
        return
    if len(sys.argv) > 3 and sys.argv[3] == "--one-cpu":
        one_cpu()
        return
    with Host() as h:
        one, ten = report(h.env, h.ssh, h.run)
    scaling(one, ten)


class Host:
    """A private sshd in a temporary directory, kpty's directories on both sides and the
    environment that points kpty at them; on exit every process of it stopped, every session
    killed and the directory removed."""

    def __enter__(self):
        self.d = d = tempfile.mkdtemp(prefix="kpty-bench-ssh-")
        self.pid, config = sshd(d)
        self.ssh = ["ssh", "-F", config]
        self.local_dir, self.remote_dir, self.run = f"{d}/local", f"{d}/remote", f"{d}/run"
        for p in (self.local_dir, self.remote_dir, self.run):
            os.makedirs(p, mode=0o700)
        self.env = dict(os.environ)
        self.env.update(
            KPTY_SSH_COMMAND=" ".join(self.ssh),
            KPTY_REMOTE_DIR=self.remote_dir,
            KPTY_RUNTIME_DIR=self.run,
            KPTY_USER_BASHRC="/dev/null",
            KPTY_STATE_DIR=f"{self.local_dir}/ai/checkpoints/pty",
        )
        self.env.pop("KPTY_HOST", None)
        return self

    def __exit__(self, *exc):
        for p in [*children(self.pid), self.pid]:
            try:
                os.kill(p, 15)
            except OSError:
                pass
        # Each side's holders are found through its own runtime directory: the local one
        # this bench set, the host's the default (ssh passes no environment).
        env = self.env
        there = {k: v for k, v in env.items() if k != "KPTY_RUNTIME_DIR"}
        for state, e in (
            (f"{self.local_dir}/ai/checkpoints/pty", env),
            (f"{self.remote_dir}/ai/checkpoints/pty", there),
        ):
            subprocess.run([KPTY, "--state-dir", state, "kill", "--all"], env=e, capture_output=True)
        shutil.rmtree(self.d, ignore_errors=True)
        return False


def one_cpu():
    """(s3) again with this process, and so every process it starts (sshd and what it runs,
    kpty's channels and holders on both sides), on one CPU; its medians as JSON."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    with Host() as h:
        remote_session(h.env)
        one, ten = all_hosts(h.env)
    print(json.dumps({"one": one, "ten": ten}))


def scaling(one, ten):
    """How `list --all-hosts` over ten aliases scales with the CPUs it gets: (s3) on this
    machine's CPUs beside (s3) on one of them."""
    cpus = len(os.sched_getaffinity(0))
    if cpus < 2:
        return
    r = subprocess.run([sys.executable, __file__, KPTY, str(RUNS), "--one-cpu"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"remote.py --one-cpu: exit {r.returncode}: {r.stderr}")
    pinned = json.loads(r.stdout)
    print()
    print("`list --all-hosts` by the CPUs it gets (the same calls, every process of them on one CPU):")
    print()
    print("| CPUs | one host ms | ten aliases ms | ten − one ms | ten / one |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    print(f"| 1 | {pinned['one']:.2f} | {pinned['ten']:.2f} | {pinned['ten'] - pinned['one']:.2f} | {pinned['ten'] / pinned['one']:.2f}× |")
    print(f"| {cpus} | {one:.2f} | {ten:.2f} | {ten - one:.2f} | {ten / one:.2f}× |")


def remote_session(env):
    """A session on the host (the first remote call installs kpty there when needed, and
    opens the channel); its id."""
    made = timed([KPTY, "--host", "benchbox", "--json", "create", "--env", "KPTY_USER_BASHRC=/dev/null"], env)[1]
    return json.loads(made)["session_id"]


def report(env, ssh, run):
    """(s1)-(s3) as Markdown; (s3)'s medians."""
    remote = [KPTY, "--host", "benchbox"]
    local_sid = json.loads(timed([KPTY, "--json", "create"], env)[1])["session_id"]
    remote_sid = remote_session(env)
    master = [*ssh, "-o", f"ControlPath={run}/ssh/%C", "benchbox"]
    for _ in range(3):
        timed([KPTY, "talk", "-s", local_sid, "echo hi"], env)
        timed([*remote, "talk", "-s", remote_sid, "echo hi"], env)
        timed([*master, "echo hi"], env)
    local, warm, over_master = interleaved(
        [
            [KPTY, "talk", "-s", local_sid, "echo hi"],
            [*remote, "talk", "-s", remote_sid, "echo hi"],
            [*master, "echo hi"],
        ],
        env,
        RUNS,
    )
    rc = rc_cost()
    cold, plain = cold_calls(env, ssh, remote_sid)
    one, ten = all_hosts(env)
    print("| call | median ms | runs |")
    print("| --- | ---: | ---: |")
    print(f"| local `kpty talk 'echo hi'` | {local:.2f} | {RUNS} |")
    print(f"| warm `kpty --host benchbox talk 'echo hi'` (channel open) | {warm:.2f} | {RUNS} |")
    print(f"| warm `ssh -o ControlPath=… benchbox 'echo hi'` | {over_master:.2f} | {RUNS} |")
    print(f"| cold `kpty --host benchbox talk 'echo hi'` (no connection yet) | {cold:.1f} | {COLD_RUNS} |")
    print(f"| plain `ssh benchbox true` (a full login) | {plain:.1f} | {COLD_RUNS} |")
    print(f"| `kpty list --all-hosts`, one host | {one:.2f} | {RUNS} |")
    print(f"| `kpty list --all-hosts`, ten host aliases | {ten:.2f} | {RUNS} |")
    print()
    if rc is not None:
        print(
            f"The warm ssh figure includes the host's `~/.bashrc`: bash reads it for every command "
            f"sshd runs, and here that file alone takes {rc:.1f} ms (median of 5 `bash -c '. ~/.bashrc'`). "
            "A kpty call over its open channel starts no shell there."
        )
        print()
    verdict = "PASS" if warm <= local + 2 else "FAIL"
    print(f"Warm remote talk − local talk: {warm - local:+.2f} ms (target: at most +2 ms) — **{verdict}**")
    print()
    verdict = "PASS" if ten <= 1.5 * one else "FAIL"
    print(f"`list --all-hosts`, ten aliases / one host: {ten / one:.2f}× (target: at most 1.5×) — **{verdict}**")
    return one, ten


def rc_cost():
    """What the host's ~/.bashrc costs each ssh command (the host is this machine and user);
    None when the login shell is not bash or there is no such file."""
    rc = os.path.expanduser("~/.bashrc")
    import pwd

    shell = pwd.getpwuid(os.getuid()).pw_shell  # the login shell sshd runs commands with
    if not os.path.basename(shell).startswith("bash") or not os.path.exists(rc):
        return None
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(["bash", "-c", ". ~/.bashrc"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append((time.perf_counter() - t) * 1000)
    return statistics.median(runs)


def cold_calls(env, ssh, sid):
    """A first call with nothing open, each in a fresh runtime directory; a plain login."""
    kpty_ms, ssh_ms = [], []
    for i in range(COLD_RUNS):
        e = dict(env, KPTY_RUNTIME_DIR=f"{env['KPTY_RUNTIME_DIR']}-cold{i}")
        os.makedirs(e["KPTY_RUNTIME_DIR"], mode=0o700)
        kpty_ms.append(timed([KPTY, "--host", "benchbox", "talk", "-s", sid, "echo hi"], e)[0])
        ssh_ms.append(timed([*ssh, "benchbox", "true"], env)[0])
        # Close what the call left open: its master (and with it the channel).
        subprocess.run(
            [*ssh, "-o", f"ControlPath={e['KPTY_RUNTIME_DIR']}/ssh/%C", "-O", "exit", "benchbox"],
            capture_output=True,
        )
    return statistics.median(kpty_ms), statistics.median(ssh_ms)


def all_hosts(env):
    """`list --all-hosts` over one host and over ten aliases of it, warmed, interleaved."""
    one = dict(env, KPTY_HOSTS="benchbox")
    ten = dict(env, KPTY_HOSTS=",".join(f"box{i}" for i in range(10)))
    cmd = [KPTY, "--json", "list", "--all-hosts"]
    for e in (one, ten):
        out = json.loads(timed(cmd, e)[1])
        if not all(h.get("ok") for h in out.get("hosts", [])):
            raise SystemExit(f"list --all-hosts: a host did not answer: {out}")
    a, b = [], []
    for i in range(RUNS):
        pair = [(a, one), (b, ten)] if i % 2 == 0 else [(b, ten), (a, one)]
        for acc, e in pair:
            acc.append(timed(cmd, e)[0])
    return statistics.median(a), statistics.median(b)


if __name__ == "__main__":
    main()
