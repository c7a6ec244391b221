#!/usr/bin/env python3
"""Diff and match at scale (issue 14), for `make bench`.

usage: diff_scale.py RADARBLOCK WORKDIR

Builds the two shared iOS TDS releases with the shared iOS config (as scripts/test-webkit.sh's ios_diff
does), then measures, each command a separate process under /usr/bin/time (wall, CPU, peak RSS):
  0. the diff of the v7 (2024-07-12) and v5 (2025-06-17) iOS releases over 200,000 issue-shaped requests
     (--requests) beside two `match` runs of the same requests, one per release directory (the lists the
     diff answers with: main and ad-click attribution), and beside two runs on each rules.rbc alone: 5
     alternating rounds, the median ratio (issue 39: <= 1.3x the release directories' two runs);
  1. the release diff with its derived corpus (every deciding rule named), beside two plain `match` runs
     of the same corpus against each side's .rbc: the diff's cost relative to just answering the corpus
     (5 alternating rounds, medians; the corpus is saved by a separate, untimed run);
  2. `match --requests` end to end on 1,000,000 issue-shaped JSONL lines (gen_issue_requests.py; the best of
     5 runs, with their median), and the cost of loading the .rbc alone (a one-line run);
  3. the release diff over 1,000,000 and 10,000,000 such requests (--requests): wall, peak RSS and the
     cost per request, whose ratio between the two sizes shows whether time grows linearly.
Environment: SHARED; DIFF_SCALE_REQUESTS (default "1000000 10000000"); MATCH_REQUESTS (default 1000000);
DIFF_RATIO_REQUESTS (default 200000); DIFF_RATIO_ONLY=1 runs step 0 alone.
Prints a table and writes WORKDIR/diff-scale.json. Exit 1 when a command fails.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def timed(cmd, ok=(0,), stdout=subprocess.DEVNULL):
    """(wall s, cpu s, peak RSS KiB) of one process."""
    p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        sys.exit("diff_scale: %s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    wall, user, system, rss = p.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss)


def requests_file(tds, n, work):
    path = os.path.join(work, "issue-requests-%d.jsonl" % n)
    if not os.path.exists(path):
        log("diff_scale: generating %d requests" % n)
        subprocess.run(
            [sys.executable, os.path.join(HERE, "gen_issue_requests.py"), tds, str(n), path, "--seed", "14"], check=True
        )
    return path


def median(values):
    return sorted(values)[len(values) // 2]


def release_diff_ratio(rb, ddg, config, work):
    """Step 0: (diff, two matches of the release directories, two matches of the rules.rbc) per round, 5 rounds."""
    n = int(os.environ.get("DIFF_RATIO_REQUESTS", "200000"))
    old_tds = os.path.join(ddg, "tds", "ios-tds_v7_2024-07-12.json")
    new_tds = os.path.join(ddg, "tds", "ios-tds_v5_2025-06-17.json")
    sides = []
    for tds, name in ((old_tds, "v7-2024-07-12"), (new_tds, "v5-2025-06-17")):
        out = os.path.join(work, "ios-" + name)
        subprocess.run(
            [rb, "build", "--tds", tds, "--config", config, "--out", out],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        sides.append(out)
    requests = os.path.join(work, "ratio-requests-%d.jsonl" % n)
    if not os.path.exists(requests):
        subprocess.run(
            [sys.executable, os.path.join(HERE, "gen_issue_requests.py"), new_tds, str(n), requests, "--seed", "39"],
            check=True,
        )
    report = os.path.join(work, "ratio-diff.json")
    rounds = []
    for _ in range(5):
        d = timed([rb, "diff", sides[0], sides[1], "--requests", requests, "--format", "json", "-o", report], ok=(0, 1))
        dirs = [timed([rb, "match", s, "--requests", requests]) for s in sides]
        rbcs = [timed([rb, "match", os.path.join(s, "rules.rbc"), "--requests", requests]) for s in sides]
        rounds.append((d, dirs, rbcs))
    with open(report) as f:
        flips = len(json.load(f)["requests"]["changed"])

    def two(runs, k):
        return runs[0][k] + runs[1][k]

    return {
        "old": old_tds,
        "new": new_tds,
        "config": config,
        "requests": n,
        "requestsFile": requests,
        "flips": flips,
        "diffSeconds": median([r[0][0] for r in rounds]),
        "diffCPUSeconds": median([r[0][1] for r in rounds]),
        "diffRSSKB": median([r[0][2] for r in rounds]),
        "twoMatchSeconds": median([two(r[1], 0) for r in rounds]),
        "twoMatchCPUSeconds": median([two(r[1], 1) for r in rounds]),
        "twoRBCMatchSeconds": median([two(r[2], 0) for r in rounds]),
        "ratios": [r[0][0] / two(r[1], 0) for r in rounds],
        "cpuRatios": [r[0][1] / two(r[1], 1) for r in rounds],
        "rbcRatios": [r[0][0] / two(r[2], 0) for r in rounds],
    }


def print_ratio(r):
    print("  diff of two releases over %s issue-shaped requests (issue 39, goal <= 1.3x):" % format(r["requests"], ","))
    print(
        "    inputs: %s and %s with %s; requests: %s (gen_issue_requests.py, seed 39)"
        % (os.path.basename(r["old"]), os.path.basename(r["new"]), os.path.basename(r["config"]), r["requestsFile"])
    )
    print(
        "    diff: %.2f s wall (%.2f s CPU), %d flips, peak RSS %.0f MiB; two match runs of the release directories: "
        "%.2f s wall (%.2f s CPU); of the rules.rbc alone: %.2f s wall"
        % (
            r["diffSeconds"],
            r["diffCPUSeconds"],
            r["flips"],
            r["diffRSSKB"] / 1024,
            r["twoMatchSeconds"],
            r["twoMatchCPUSeconds"],
            r["twoRBCMatchSeconds"],
        )
    )
    print(
        "    ratio (median of 5 rounds): %.2fx wall (rounds %s), %.2fx CPU; %.2fx wall against the rules.rbc alone"
        % (
            median(r["ratios"]),
            ", ".join("%.2f" % x for x in r["ratios"]),
            median(r["cpuRatios"]),
            median(r["rbcRatios"]),
        )
    )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rb, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shared = os.environ.get("SHARED") or os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "shared")
    ddg = os.path.join(shared, "data", "ddg")
    old_tds = os.path.join(ddg, "tds", "ios-tds_embedded_2025-02-17.json")
    new_tds = os.path.join(ddg, "tds", "ios-tds_v5_2025-06-17.json")
    config = os.path.join(ddg, "privacy-config", "ios-config_v4_embedded_2025-02-17.json")
    if not all(os.path.exists(p) for p in (old_tds, new_tds, config)):
        log("diff_scale: SKIP: the shared iOS TDS and config are not in %s" % ddg)
        return 0
    os.makedirs(work, exist_ok=True)
    old, new = os.path.join(work, "ios-old"), os.path.join(work, "ios-new")
    for tds, out in ((old_tds, old), (new_tds, new)):
        subprocess.run(
            [rb, "build", "--tds", tds, "--config", config, "--out", out],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    results = {"loadAverage": os.getloadavg()[0], "cpus": os.cpu_count()}
    results["releaseDiffRatio"] = release_diff_ratio(rb, ddg, config, work)
    if os.environ.get("DIFF_RATIO_ONLY") == "1":
        print()
        print_ratio(results["releaseDiffRatio"])
        with open(os.path.join(work, "diff-scale.json"), "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        return 0

    # 1. The derived-corpus diff against two plain match runs of the same corpus. The corpus is saved by a run of
    # its own (saving is not part of the diff a reviewer runs); then diff and the two matches alternate, 5 rounds,
    # and each figure is the median of its 5: on a machine whose speed drifts within a minute, 3 rounds let one
    # disturbed round decide.
    corpus = os.path.join(work, "ios-derived-corpus.jsonl")
    diff_json = os.path.join(work, "ios-diff.json")
    timed([rb, "diff", old, new, "--format", "json", "-o", diff_json, "--save-corpus", corpus], ok=(1,))
    rounds = []
    for _ in range(5):
        d = timed([rb, "diff", old, new, "--format", "json", "-o", diff_json], ok=(1,))
        m_old = timed([rb, "match", os.path.join(old, "rules.rbc"), "--requests", corpus])
        m_new = timed([rb, "match", os.path.join(new, "rules.rbc"), "--requests", corpus])
        rounds.append((d, (m_old[0] + m_new[0], m_old[1] + m_new[1])))

    report = json.load(open(diff_json))
    flips = report["requests"]["changed"]
    named = sum(1 for c in flips if c["old"]["rule"] or c["new"]["rule"])
    results["iosDiff"] = {
        "seconds": median([r[0][0] for r in rounds]),
        "cpuSeconds": median([r[0][1] for r in rounds]),
        "rssKB": median([r[0][2] for r in rounds]),
        "checked": report["requests"]["checked"],
        "flips": len(flips),
        "flipsNamingARule": named,
        "twoMatchRunsSeconds": median([r[1][0] for r in rounds]),
        "twoMatchRunsCPUSeconds": median([r[1][1] for r in rounds]),
        "ratios": [r[0][0] / r[1][0] for r in rounds],
    }

    # 2. match end to end on issue-shaped requests, and the load cost alone.
    n_match = int(os.environ.get("MATCH_REQUESTS", "1000000"))
    sizes = [int(s) for s in os.environ.get("DIFF_SCALE_REQUESTS", "1000000 10000000").split()]
    big = requests_file(new_tds, max(sizes + [n_match]), work)

    def prefix(n):
        path = os.path.join(work, "issue-requests-%d.jsonl" % n)
        if not os.path.exists(path):
            with open(big, "rb") as src, open(path + ".tmp", "wb") as dst:
                for i, line in enumerate(src):
                    if i >= n:
                        break
                    dst.write(line)
            os.replace(path + ".tmp", path)
        return path

    rbc = os.path.join(new, "rules.rbc")
    one = prefix(1)
    load = min(timed([rb, "match", rbc, "--requests", one]) for _ in range(3))
    # Best of 5, with the median and every run: on a shared machine a neighbour's load can slow a whole run by a
    # third, and the best run is the one it disturbed least.
    runs = sorted(timed([rb, "match", rbc, "--requests", prefix(n_match)]) for _ in range(5))
    m = runs[0]
    results["match"] = {
        "requests": n_match,
        "seconds": m[0],
        "cpuSeconds": m[1],
        "rssKB": m[2],
        "perSecond": n_match / m[0],
        "medianSeconds": runs[len(runs) // 2][0],
        "runsSeconds": [r[0] for r in runs],
        "loadSeconds": load[0],
        "rbcBytes": os.path.getsize(rbc),
    }

    # 3. Diffs over large request files.
    results["diff"] = []
    for n in sizes:
        out = os.path.join(work, "diff-%d.json" % n)
        r = timed([rb, "diff", old, new, "--requests", prefix(n), "--format", "json", "-o", out], ok=(0, 1))
        with open(out) as f:
            flipped = len(json.load(f)["requests"]["changed"])
        results["diff"].append(
            {
                "requests": n,
                "seconds": r[0],
                "cpuSeconds": r[1],
                "rssKB": r[2],
                "flips": flipped,
                "microsecondsPerRequest": r[0] / n * 1e6,
            }
        )

    i = results["iosDiff"]
    print()
    print(
        "Diff and match at scale (machine: %d CPUs, load average %.1f at start)"
        % (results["cpus"], results["loadAverage"])
    )
    print(
        "  iOS release diff, derived corpus: %.2f s wall (%.2f s CPU), %d requests, %d flips, %d naming a rule; "
        "two plain match runs of the same corpus: %.2f s wall (%.2f s CPU): ratio %.2fx wall, %.2fx CPU"
        % (
            i["seconds"],
            i["cpuSeconds"],
            i["checked"],
            i["flips"],
            i["flipsNamingARule"],
            i["twoMatchRunsSeconds"],
            i["twoMatchRunsCPUSeconds"],
            i["seconds"] / i["twoMatchRunsSeconds"],
            i["cpuSeconds"] / i["twoMatchRunsCPUSeconds"],
        )
    )
    print("    ratio of each round (diff / its two match runs): %s" % ", ".join("%.2fx" % x for x in i["ratios"]))
    print_ratio(results["releaseDiffRatio"])
    mm = results["match"]
    print(
        "  match --requests, %d issue-shaped lines: %.2f s wall (%.2f s CPU) = %s requests/s end to end (best of 5; "
        "median %.2f s = %s/s; runs %s); loading the %d-byte .rbc (a one-line run): %.3f s; peak RSS %.0f MiB"
        % (
            mm["requests"],
            mm["seconds"],
            mm["cpuSeconds"],
            format(int(mm["perSecond"]), ","),
            mm["medianSeconds"],
            format(int(mm["requests"] / mm["medianSeconds"]), ","),
            ", ".join("%.2f" % x for x in mm["runsSeconds"]),
            mm["rbcBytes"],
            mm["loadSeconds"],
            mm["rssKB"] / 1024,
        )
    )
    for r in results["diff"]:
        print(
            "  diff --requests %10d: %7.2f s wall (%7.2f s CPU), peak RSS %5.0f MiB, %d flips, %.2f µs/request"
            % (r["requests"], r["seconds"], r["cpuSeconds"], r["rssKB"] / 1024, r["flips"], r["microsecondsPerRequest"])
        )
    if len(results["diff"]) >= 2:
        a, b = results["diff"][0], results["diff"][-1]
        print(
            "  per-request cost %d -> %d: x%.2f (1.00 = linear)"
            % (a["requests"], b["requests"], b["microsecondsPerRequest"] / a["microsecondsPerRequest"])
        )
    with open(os.path.join(work, "diff-scale.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
