#!/usr/bin/env python3
"""Bench: `radarblock attribution` on the release of every shared TDS with the iOS config (faithful and ddg), the
on-demand step an app runs when a user clicks an ad (issue 34 goal: at most 100 ms). Each run is a fresh process
with a new vendor: wall time of the whole command (start, reading the release, building, compiling, writing both files)
and its CPU time (user + system), which a loaded machine does not inflate.

usage: scripts/bench/attribution.py RADARBLOCK WORKDIR [RUNS]   (SHARED: the shared data, default ../shared)
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("SHARED", os.path.join(ROOT, "..", "shared"))
DDG = os.path.join(SHARED, "data", "ddg")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rb, work = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) == 4 else 20
    tds_dir = os.path.join(DDG, "tds")
    config = os.path.join(DDG, "privacy-config", "ios-config_v4_embedded_2025-02-17.json")
    if not os.path.isdir(tds_dir):
        print("attribution bench: SKIP: %s not found" % tds_dir)
        return 0
    os.makedirs(work, exist_ok=True)
    results = {}
    for name in sorted(f for f in os.listdir(tds_dir) if f.endswith(".json")):
        results[name] = measure(rb, work, os.path.join(tds_dir, name), config, runs)
    json.dump(results, open(os.path.join(work, "results.json"), "w"), indent=2)
    return 0


def measure(rb, work, tds, config, runs):
    """Both modes of one TDS's release: `runs` fresh processes each, a new vendor every time."""
    label = os.path.basename(tds)[: -len(".json")]
    results = {}
    for mode in ("faithful", "ddg"):
        release = os.path.join(work, label + "-" + mode)
        if not os.path.exists(os.path.join(release, "manifest.json")):
            subprocess.run(
                [rb, "build", "--tds", tds, "--config", config, "--mode", mode, "--out", release],
                check=True,
                capture_output=True,
            )
        times, cpu = [], []
        for i in range(runs):
            out = os.path.join(work, "attributed-%s.json" % mode)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            line = subprocess.run(
                [rb, "attribution", release, "--vendor", "shop%d.example" % i, "-o", out],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            times.append((time.monotonic() - t0) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        rules = json.loads(line)["ruleCount"]
        results[mode] = {
            "runs": runs,
            "rules": rules,
            "wallMedianMs": round(statistics.median(times), 1),
            "wallMinMs": round(min(times), 1),
            "wallMaxMs": round(max(times), 1),
            "cpuMedianMs": round(statistics.median(cpu), 1),
            "cpuMaxMs": round(max(cpu), 1),
            "loadAverage": os.getloadavg()[0],
        }
        print(
            "attribution (%s + iOS config, %s): %d rules; wall median %.1f ms (min %.1f, max %.1f); CPU median %.1f ms "
            "(max %.1f) over %d runs; load average %.1f (goal <= 100 ms)"
            % (
                label,
                mode,
                rules,
                statistics.median(times),
                min(times),
                max(times),
                statistics.median(cpu),
                max(cpu),
                runs,
                os.getloadavg()[0],
            )
        )
    return results


if __name__ == "__main__":
    sys.exit(main())
