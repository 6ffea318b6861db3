#!/usr/bin/env python3
"""bench/recording.py KPTY RUNS: what recording every session costs, and what reading it back
costs (issue 27's figures). Whole processes, medians, recorded and unrecorded sessions timed
in alternation in the same run:

  (r1) `kpty talk 'echo hi'` on a recorded session vs one made with --no-record
  (r2) `kpty talk 'seq 1 200000'`, the same two sessions
  (r3) the recording's growth for `seq 1 200000` against the bytes the terminal printed
  (r4) `kpty screenshot --format png` of a 200x50 screen full of text (when the build has PNG)
  (r5) `kpty evidence` of a range of 10 commands

Prints a Markdown table on stdout. KPTY_STATE_DIR must be a private directory.
"""

import json
import os
import statistics
import subprocess
import sys
import time

KPTY = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 30


def kpty(*args, check=True):
    out = subprocess.run([KPTY, *args], capture_output=True, text=True)
    if check and out.returncode != 0:
        raise SystemExit(f"kpty {args}: {out.returncode} {out.stderr}")
    return out.stdout


def timed(*args):
    t = time.perf_counter()
    subprocess.run([KPTY, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - t) * 1000


def create(*extra):
    size = () if "--cols" in extra else ("--cols", "120", "--rows", "30")
    v = json.loads(kpty("--json", "create", *size, *extra))
    return v["session_id"]


def alternate(a_args, b_args, runs):
    """Median ms of each, the two interleaved run by run."""
    a, b = [], []
    for i in range(runs):
        pair = [(a, a_args), (b, b_args)] if i % 2 == 0 else [(b, b_args), (a, a_args)]
        for acc, args in pair:
            acc.append(timed(*args))
    return statistics.median(a), statistics.median(b)


def segments_bytes(session):
    d = os.path.join(os.environ["KPTY_STATE_DIR"], "sessions", session)
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".cast"))


def offset(session):
    for s in json.loads(kpty("--json", "list"))["sessions"]:
        if s["session_id"] == session:
            return s.get("output_offset", 0)
    return 0


def main():
    rec, plain = create(), create("--no-record")
    for s in (rec, plain):
        for _ in range(3):
            kpty("talk", "-s", s, "echo warm")
    rows = []
    r_on, r_off = alternate(["talk", "-s", rec, "echo hi"], ["talk", "-s", plain, "echo hi"], RUNS)
    rows.append(("(r1) talk 'echo hi': recorded / not", f"{r_on:.2f} / {r_off:.2f} ms",
                 f"{r_on - r_off:+.3f} ms", "≤ +0.05 ms"))
    n = max(5, RUNS // 3)
    s_on, s_off = alternate(["talk", "-s", rec, "seq 1 200000"], ["talk", "-s", plain, "seq 1 200000"], n)
    rows.append(("(r2) talk 'seq 1 200000': recorded / not", f"{s_on:.1f} / {s_off:.1f} ms",
                 f"{(s_on / s_off - 1) * 100:+.1f} %", "≤ +5 %"))
    fresh = create()
    kpty("talk", "-s", fresh, "echo warm")
    before_bytes, before_off = segments_bytes(fresh), offset(fresh)
    kpty("talk", "-s", fresh, "seq 1 200000")
    kpty("--json", "evidence", "-s", fresh, "--from", "seq 1")  # syncs the recording
    grew, printed = segments_bytes(fresh) - before_bytes, offset(fresh) - before_off
    rows.append(("(r3) cast growth for seq 1 200000 / bytes printed", f"{grew} / {printed} B",
                 f"{grew / printed:.2f}×", "≤ 1.5×"))
    big = create("--cols", "200", "--rows", "50")
    kpty("talk", "-s", big, "for i in $(seq 1 60); do printf '\\033[3%dm%s\\033[0m\\n' $((i % 8)) "
         "\"line $i $(printf '%.0sx' $(seq 1 150))\"; done")
    png = os.path.join(os.environ["KPTY_STATE_DIR"], "shot.png")
    has_png = subprocess.run([KPTY, "screenshot", "-s", big, "--format", "png", "-o", png],
                             capture_output=True).returncode == 0
    if has_png:
        times = sorted(timed("screenshot", "-s", big, "--format", "png", "-o", png) for _ in range(RUNS))
        rows.append(("(r4) screenshot --format png, 200×50", f"{statistics.median(times):.1f} ms",
                     f"p90 {times[int(len(times) * 0.9) - 1]:.1f} ms", "< 50 ms"))
    else:
        rows.append(("(r4) screenshot --format png, 200×50", "not in this build", "", "< 50 ms"))
    ten = create()
    for i in range(10):
        kpty("talk", "-s", ten, f"echo command-{i}; ls / > /dev/null")
    times = sorted(timed("evidence", "-s", ten, "--from", "command-0") for _ in range(max(5, RUNS // 3)))
    rows.append(("(r5) evidence of a 10-command range", f"{statistics.median(times):.1f} ms",
                 f"max {times[-1]:.1f} ms", "< 200 ms"))
    for s in (rec, plain, fresh, big, ten):
        kpty("kill", "-s", s, check=False)
    print("| figure | measured | difference / ratio | target |")
    print("| --- | ---: | ---: | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"\nMedians of {RUNS} runs ((r2), (r5): {n}); (r1) and (r2) alternate the two sessions run by run.")


main()
