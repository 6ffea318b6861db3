#!/usr/bin/env python3
"""Turn bench/results/ (hyperfine JSON, rss.json, checks.json) into Markdown tables + targets.

    python3 bench/summarize.py bench/results > bench/results/summary.md

Standard library only. Commands are found by the names run.sh gives them with hyperfine -n:
"kpty talk", "tmux loop" and "bash -c (floor)".
"""

import json
import sys
from pathlib import Path

KPTY, TMUX, FLOOR = "kpty talk", "tmux loop", "bash -c (floor)"
PTY = "script (PTY floor)"  # informational, present when `script` is installed
HOLDER_LIMIT_KB = 8 * 1024  # target (c): holder RSS <= 8 MB, taken as 8 MiB = 8192 KiB
LIST, LIST_JSON = "kpty list", "kpty list --json"  # (l), with run.sh's LIST_N live sessions
LIST_LIMIT_S = 0.010  # target (l): list with 100 live sessions <= 10 ms


def load(path):
    p = Path(path)
    return json.loads(p.read_text()) if p.exists() else None


def by_name(hf):
    return {r["command"]: r for r in hf["results"]}


def ms(seconds):
    return seconds * 1000.0


def fmt_ms(seconds):
    v = ms(seconds)
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def timing_table(title, hf, checks):
    rows = by_name(hf)
    floor = rows[FLOOR]["median"]
    tmux = rows[TMUX]["median"]
    out = [
        f"### {title}",
        "",
        "| tool | median ms | mean ± σ ms | min … max ms | × floor | × tmux | output check |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name in [n for n in (KPTY, TMUX, FLOOR, PTY) if n in rows]:
        r = rows[name]
        key = {KPTY: "kpty", TMUX: "tmux", FLOOR: "floor"}.get(name)
        chk = (checks or {}).get(key) if key else None
        if chk is None:
            chk_s = "not checked"
        else:
            chk_s = ("identical" if chk["identical"] else "**DIFFERS**") + f", {chk['lines']} lines"
        out.append(
            f"| {name} | {fmt_ms(r['median'])} | {fmt_ms(r['mean'])} ± {fmt_ms(r['stddev'] or 0)} "
            f"| {fmt_ms(r['min'])} … {fmt_ms(r['max'])} | {r['median'] / floor:.2f}× "
            f"| {r['median'] / tmux:.2f}× | {chk_s} |"
        )
    out.append("")
    out.append(
        f"{len(rows[KPTY]['times'])} timed runs each; × floor and × tmux are ratios of medians "
        "(below 1 = faster than that tool)."
    )
    return out


def mb(kb):
    return f"{kb / 1024:.1f} MB" if kb is not None else "n/a"


def rss_table(rss):
    names = [
        ("kpty_holder", "kpty holder"),
        ("kpty_shell", "kpty's bash"),
        ("tmux_server", "tmux server"),
        ("tmux_pane_shell", "tmux pane's bash"),
    ]
    out = [
        "### (c) Resident memory (RSS)",
        "",
        "| process | idle RSS | (anon + file) | idle PSS | after the timed runs: RSS | (anon + file) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]

    def cell(d):
        pss = d.get("pss_kb")
        return (
            f"{d['rss_kb']} KB = {mb(d['rss_kb'])}",
            f"{d.get('anon_kb')} + {d.get('file_kb')} KB",
            f"{pss} KB" if pss is not None else "n/a",
        )

    for key, label in names:
        a = cell(rss["idle"][key])
        b = cell(rss["after_bench"][key])
        out.append(f"| {label} | {a[0]} | {a[1]} | {a[2]} | {b[0]} | {b[1]} |")
    idle = rss["idle"]
    kt = idle["kpty_holder"]["rss_kb"] + idle["kpty_shell"]["rss_kb"]
    tt = idle["tmux_server"]["rss_kb"] + idle["tmux_pane_shell"]["rss_kb"]
    out += [
        "",
        f"Idle totals: kpty holder + shell {kt} KB = {mb(kt)}; tmux server + pane shell "
        f"{tt} KB = {mb(tt)}. RSS counts shared library pages in full (the `file` part).",
    ]
    return out


def list_table(hf, checks):
    rows = by_name(hf)
    n = (checks or {}).get("sessions", "?")
    running = (checks or {}).get("running", "?")
    out = [
        f"### (l) `kpty list` with {n} live sessions",
        "",
        "| command | median ms | mean ± σ ms | min … max ms | × floor |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    floor = rows[FLOOR]["median"]
    for name in [n for n in (LIST, LIST_JSON, FLOOR) if n in rows]:
        r = rows[name]
        out.append(
            f"| {name} | {fmt_ms(r['median'])} | {fmt_ms(r['mean'])} ± {fmt_ms(r['stddev'] or 0)} "
            f"| {fmt_ms(r['min'])} … {fmt_ms(r['max'])} | {r['median'] / floor:.2f}× |"
        )
    out += [
        "",
        f"{running} of {n} sessions running when timed (each holder answers a status probe); "
        f"{len(rows[LIST]['times'])} timed runs each.",
    ]
    return out


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def main():
    res = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
    a, b = load(res / "a_talk.json"), load(res / "b_seq.json")
    rss, checks = load(res / "rss.json"), load(res / "checks.json") or {}
    lines = ["## Results", ""]
    targets = []

    if a:
        lines += timing_table("(a) `talk 'echo hi'` on an existing session", a, checks.get("a"))
        lines.append("")
        r = by_name(a)
        k, t, f = r[KPTY]["median"], r[TMUX]["median"], r[FLOOR]["median"]
        ok_ids = all(c["identical"] for c in checks.get("a", {}).values()) if checks.get("a") else True
        targets.append(
            f"| (a) kpty ≤ 3× the `bash -c` floor | {k / f:.2f}× ({fmt_ms(k)} vs {fmt_ms(f)} ms) "
            f"| {verdict(k <= 3 * f and ok_ids)} |"
        )
        targets.append(
            f"| (a) kpty ≤ 1.5× the `bash -c` floor (issue 25) | {k / f:.2f}× "
            f"| {verdict(k <= 1.5 * f and ok_ids)} |"
        )
        targets.append(
            f"| (a) kpty ≥ 5× faster than the tmux loop | {t / k:.2f}× faster ({fmt_ms(k)} vs {fmt_ms(t)} ms) "
            f"| {verdict(t >= 5 * k and ok_ids)} |"
        )
    if b:
        lines += timing_table("(b) `talk 'seq 1 200000'`, full output", b, checks.get("b"))
        lines.append("")
        r = by_name(b)
        k, t = r[KPTY]["median"], r[TMUX]["median"]
        kchk = (checks.get("b") or {}).get("kpty", {"identical": True})
        targets.append(
            f"| (b) kpty faster than the tmux loop | {t / k:.2f}× faster ({fmt_ms(k)} vs {fmt_ms(t)} ms) "
            f"| {verdict(k < t and kchk['identical'])} |"
        )
    if rss:
        lines += rss_table(rss)
        lines.append("")
        h = rss["idle"]["kpty_holder"]["rss_kb"]
        after = rss["after_bench"]["kpty_holder"]["rss_kb"]
        if after > HOLDER_LIMIT_KB:
            lines.append(
                f"Note: after the timed runs the holder stays at {after} KB = {mb(after)}, above the "
                "8 MB mark: memory taken for the large (b) replies is kept, not given back."
            )
            lines.append("")
        targets.append(
            f"| (c) idle holder RSS ≤ 8 MB (8192 KB) | {h} KB = {mb(h)} "
            f"(after the timed runs: {mb(rss['after_bench']['kpty_holder']['rss_kb'])}) "
            f"| {verdict(h <= HOLDER_LIMIT_KB)} |"
        )

    lst, lchecks = load(res / "l_list.json"), load(res / "l_checks.json") or {}
    if lst:
        lines += list_table(lst, lchecks)
        lines.append("")
        r = by_name(lst)
        k = r[LIST]["median"]
        all_up = lchecks.get("running") == lchecks.get("sessions")
        targets.append(
            f"| (l) `list` with {lchecks.get('sessions', '?')} live sessions ≤ 10 ms "
            f"| {fmt_ms(k)} ms (`--json`: {fmt_ms(r[LIST_JSON]['median'])} ms) "
            f"| {verdict(k <= LIST_LIMIT_S and all_up)} |"
        )

    lines += ["## Targets", "", "| target | measured | verdict |", "| --- | --- | --- |"]
    lines += targets
    print("\n".join(lines))


if __name__ == "__main__":
    main()
