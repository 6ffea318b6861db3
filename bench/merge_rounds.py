#!/usr/bin/env python3
"""bench/merge_rounds.py OUT ROUND.json... — pool hyperfine exports of the same commands,
timed in rounds (each round runs every command a few times, one after another), into one
export of the same shape: every run's time kept, median, mean, σ, min and max recomputed
over all of them. Rounds interleave the commands in time, so a host that slows down or
speeds up mid-run bends every command's figures alike instead of one command's alone."""
import json
import statistics
import sys


def main(out, paths):
    merged = {}
    order = []
    for p in paths:
        for r in json.load(open(p))["results"]:
            name = r["command"]
            if name not in merged:
                order.append(name)
                merged[name] = {"command": name, "times": [], "exit_codes": [], "user": [], "system": []}
            m = merged[name]
            m["times"] += r["times"]
            m["exit_codes"] += r.get("exit_codes", [])
            m["user"].append(r.get("user", 0.0))
            m["system"].append(r.get("system", 0.0))
    results = []
    for name in order:
        m = merged[name]
        t = m["times"]
        results.append({
            "command": name,
            "mean": statistics.fmean(t),
            "stddev": statistics.stdev(t) if len(t) > 1 else None,
            "median": statistics.median(t),
            "user": statistics.fmean(m["user"]),
            "system": statistics.fmean(m["system"]),
            "min": min(t),
            "max": max(t),
            "times": t,
            "exit_codes": m["exit_codes"],
            "rounds": len(paths),
        })
    with open(out, "w") as f:
        json.dump({"results": results}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
