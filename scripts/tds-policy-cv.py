#!/usr/bin/env python3
"""Cross-validation of `radarblock tds` policy candidates on the shared Tracker Radar sample.

Reads the sample and DuckDuckGo's published iOS TDS at run time (CC BY-NC-SA data: nothing is copied into the
repository) and prints, for each candidate policy family, the in-sample agreement of its best setting and the
held-out agreement (leave-one-out, and 10-fold repeated 20 times): every threshold of the family is re-tuned on the
training part and the held-out domains are predicted with that setting. See docs/tds-policy.md for the results.

The decisions are the Swift classifier's own (Sources/TDSGenerator/Classifier.swift, through
`radarblock-bench tds-policy`, which also holds the candidate extensions that were measured and not adopted);
this script only builds the grids and computes the statistics.

Usage: scripts/tds-policy-cv.py [--bench RADARBLOCK_BENCH] [SHARED_DDG_DIR]
  (default: .build/release/radarblock-bench, built by `swift build -c release --static-swift-stdlib
  --scratch-path .build --product radarblock-bench`; SHARED_DDG_DIR default: ../shared/data/ddg relative to the
  package root)
"""

import itertools
import json
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = sys.argv[1:]
BENCH = os.path.join(ROOT, ".build", "release", "radarblock-bench")
if ARGS[:1] == ["--bench"] and len(ARGS) >= 2:
    BENCH, ARGS = ARGS[1], ARGS[2:]
DDG = ARGS[0] if ARGS else os.path.join(ROOT, "..", "shared", "data", "ddg")
SAMPLE = os.path.join(DDG, "tracker-radar-sample")
TDS = os.path.join(DDG, "tds", "ios-tds_v5_2025-06-17.json")

# Grid keys -> policy file keys; the other grid keys are radarblock-bench's experiment keys.
POLICY_KEYS = {
    "minSites": "minSites",
    "minCookies": "minCookies",
    "obs": "observedMinPrevalence",
    "K": "blockMinResources",
    "minOwnerTrackingShare": "minOwnerTrackingShare",
}


def candidate_line(p):
    # Off unless the candidate tunes it: the step is not part of the families it extends.
    policy = {"minOwnerTrackingShare": None}
    policy.update({POLICY_KEYS[k]: v for k, v in p.items() if k in POLICY_KEYS})
    experiment = {k: v for k, v in p.items() if k not in POLICY_KEYS}
    return json.dumps({"policy": policy, "experiment": experiment}, sort_keys=True)


def decisions(cands):
    """The classifier's answer per candidate: a list of "block" / "ignore" / "-", one per domain."""
    run = subprocess.run(
        [BENCH, "tds-policy", SAMPLE, "-"],
        input="\n".join(map(candidate_line, cands)) + "\n",
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(f"{BENCH} tds-policy failed (exit {run.returncode}): {run.stderr.strip()}")
    lines = run.stdout.splitlines()
    if len(lines) != len(cands) + 1:
        sys.exit(f"{BENCH} tds-policy answered {len(lines) - 1} of {len(cands)} candidates")
    domains = json.loads(lines[0])["domains"]
    words = {"B": "block", "I": "ignore", "-": "-"}
    return domains, [[words[c] for c in line] for line in lines[1:]]


def labels(domains):
    tds = json.load(open(TDS))["trackers"]
    return ["-" if tds.get(d) is None else tds[d].get("default", "?") for d in domains]


def grid(space):
    keys = sorted(space)
    return [dict(zip(keys, v, strict=True)) for v in itertools.product(*[space[k] for k in keys])]


def evaluate(space):
    cands = grid(space)
    domains, answers = decisions(cands)
    truth = labels(domains)
    hit = [[a == t for a, t in zip(row, truth, strict=True)] for row in answers]
    totals = [sum(h) for h in hit]
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    # Leave-one-out: re-tune on the other 118, predict the held-out one.
    loo = sum(hit[max(range(len(cands)), key=lambda i: (totals[i] - hit[i][j], -i))][j] for j in range(len(domains)))
    # 10-fold, repeated 20 times with fixed seeds (deterministic).
    kfold = []
    for rep in range(20):
        idx = list(range(len(domains)))
        random.Random(rep).shuffle(idx)
        folds = [idx[k::10] for k in range(10)]
        got = 0
        for fold in folds:
            fs = set(fold)
            b = max(range(len(cands)), key=lambda i: (totals[i] - sum(hit[i][j] for j in fs), -i))
            got += sum(hit[b][j] for j in fold)
        kfold.append(got)
    return cands[best], totals[best], loo, sum(kfold) / len(kfold)


BASE = {
    "minSites": [2, 3, 5, 10],
    "minCookies": [0.0003, 0.0007, 0.001, 0.002, 0.003],
    "obs": [None, 0.003, 0.005, 0.0065, 0.01],
    "K": [3, 4, 5, 6, 7],
}
OWNER = [None, 0.01, 0.03, 0.05, 0.08, 0.1, 0.2, 0.3]
FIXED = {"minSites": [2], "minCookies": [0.0007], "obs": [0.005], "K": [5]}
CANDIDATES = [
    ("previous default (fixed)", dict(FIXED)),
    ("previous family, re-tuned", dict(BASE)),
    ("ADOPTED: previous defaults + minOwnerTrackingShare (only it tuned)", dict(FIXED, minOwnerTrackingShare=OWNER)),
    ("family + minOwnerTrackingShare, all re-tuned", dict(BASE, minOwnerTrackingShare=OWNER)),
    (
        "  + cookie share of prevalence as evidence",
        dict(BASE, minOwnerTrackingShare=OWNER, minCookieShare=[None, 0.5, 0.7, 0.9]),
    ),
    (
        "  + evidence must come from a resource on >= m sites",
        dict(BASE, minOwnerTrackingShare=OWNER, evidenceMinResourceSites=[None, 2, 3, 5, 10, 20]),
    ),
    (
        "  + loaded by the page itself (first-party initiator share) -> ignore",
        dict(BASE, minOwnerTrackingShare=OWNER, firstPartyIgnore=[None, 0.5, 0.7, 0.8, 0.9, 0.95]),
    ),
    (
        "  + block needs cookie share (or fingerprinting >= 2)",
        dict(BASE, minOwnerTrackingShare=OWNER, blockMinCookieShare=[None, 0.1, 0.3, 0.5, 0.7]),
    ),
    (
        "  + count distinct regexes instead of resource entries",
        dict(BASE, minOwnerTrackingShare=OWNER, countDistinctRules=[False, True]),
    ),
]


def main():
    if not os.path.isdir(SAMPLE) or not os.path.isfile(TDS):
        sys.exit(f"sample or TDS not found under {DDG}")
    if not os.access(BENCH, os.X_OK):
        sys.exit(
            f"{BENCH} not found:"
            " swift build -c release --static-swift-stdlib --scratch-path .build --product radarblock-bench"
        )
    n = len(decisions([{}])[0])
    print(
        f"{n} domains; in-sample = best setting of the family on all {n};"
        " held-out = re-tuned without the held-out domains"
    )
    print(f"{'candidate':72} {'in-sample':>10} {'LOO':>10} {'10-fold x20':>12}")
    for name, space in CANDIDATES:
        p, ins, loo, kf = evaluate(space)
        print(f"{name:72} {ins:4} {100 * ins / n:4.1f}% {loo:4} {100 * loo / n:4.1f}% {kf:6.1f} {100 * kf / n:4.1f}%")
        print(f"    best setting: {json.dumps(p, sort_keys=True)}")


if __name__ == "__main__":
    main()
