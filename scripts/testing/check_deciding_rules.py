#!/usr/bin/env python3
"""Every flip of a release diff: the engine's deciding rule equals Explain's, and the diff names it.

usage: check_deciding_rules.py RADARBLOCK DIFF.json OLD_RELEASE NEW_RELEASE [--flips N] [--all-rules-every K]

The flipped requests of DIFF.json (`radarblock diff --format json`) are answered on each side by
`radarblock match RELEASE --explain` three ways: by the engine from its automata (the fast path `diff` uses),
by Explain rule by rule over the rules the url automaton reports (--explain-with rules, every flip), and by
Explain over every rule, independent of the automata (--explain-with all-rules, every K-th flip). The
answers must agree line for line, and the rule the diff names on each side must be the engine's rule's
provenance. This runs on the release binary (the debug XCTest checks a sample): 28,304 flips take
minutes in debug and seconds here. Prints the counts and exits 1 on any disagreement.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def match(radarblock, release, requests, explain_with):
    out = subprocess.run(
        [radarblock, "match", release, "--requests", requests, "--explain", "--explain-with", explain_with],
        check=True,
        stdout=subprocess.PIPE,
    ).stdout.decode()
    return [json.loads(line) for line in out.splitlines()]


def decided(answer):
    """(list, rule) of an answer's decidedBy, or None; an error line is its own value (never equal to a rule)."""
    if "error" in answer:
        return ("error", answer["error"])
    d = answer.get("decidedBy")
    return None if d is None else (d["list"], d["rule"])


def disagreements(a, b, label):
    """Lines whose deciding rules differ (or whose counts differ), as printable strings."""
    if len(a) != len(b):
        return ["%s: %d answers against %d" % (label, len(a), len(b))]
    return [
        "%s line %d: %s against %s" % (label, i + 1, decided(x), decided(y))
        for i, (x, y) in enumerate(zip(a, b, strict=True))
        if decided(x) != decided(y)
    ]


def named_by_diff(flips, answers, side):
    """Flips whose diff names another rule than the engine's answer (by provenance), or a blocked side without a
    rule."""
    bad = []
    for i, (flip, answer) in enumerate(zip(flips, answers, strict=True)):
        d = answer.get("decidedBy")
        provenance = None if d is None else d.get("provenance")
        if flip[side]["rule"] != provenance:
            bad.append(
                "%s flip %d: the diff names %s, the engine %s"
                % (side, i, json.dumps(flip[side]["rule"]), json.dumps(provenance))
            )
        elif flip[side]["outcome"] != "allowed" and d is None:
            bad.append("%s flip %d: %s but no deciding rule" % (side, i, flip[side]["outcome"]))
    return bad


def main():
    p = argparse.ArgumentParser()
    p.add_argument("radarblock")
    p.add_argument("diff")
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--flips", type=int, help="the number of flips the diff must have")
    p.add_argument("--all-rules-every", type=int, default=500, help="every K-th flip is also explained over every rule")
    args = p.parse_args()

    flips = json.load(open(args.diff))["requests"]["changed"]
    failures = []
    if args.flips is not None and len(flips) != args.flips:
        failures.append("%d flips, expected %d" % (len(flips), args.flips))
    if not flips:
        failures.append("the diff has no flips to check")

    with tempfile.TemporaryDirectory() as tmp:
        every = os.path.join(tmp, "flips.jsonl")
        sample = os.path.join(tmp, "sample.jsonl")
        with open(every, "w") as f:
            for flip in flips:
                f.write(json.dumps(flip["request"]) + "\n")
        sampled = flips[:: args.all_rules_every]
        with open(sample, "w") as f:
            for flip in sampled:
                f.write(json.dumps(flip["request"]) + "\n")

        for side, release in (("old", args.old), ("new", args.new)):
            engine = match(args.radarblock, release, every, "automaton")
            explained = match(args.radarblock, release, every, "rules")
            failures += disagreements(engine, explained, side + " (engine against Explain over the candidates)")
            failures += disagreements(
                engine[:: args.all_rules_every],
                match(args.radarblock, release, sample, "all-rules"),
                side + " sample (engine against Explain over every rule)",
            )
            failures += named_by_diff(flips, engine, side)
            # The comparison itself must be able to fail: one changed rule is one disagreement.
            if explained:
                doctored = [dict(a) for a in explained]
                doctored[0]["decidedBy"] = {"list": "doctored", "rule": -1}
                if len(disagreements(engine, doctored, "self-check")) != 1:
                    failures.append("self-check: a doctored answer was not reported")

    for f in failures[:20]:
        print(f)
    if len(failures) > 20:
        print("... %d more" % (len(failures) - 20))
    print(
        "deciding rules of %d flips on both sides: engine = Explain (candidates) on every flip, "
        "= Explain (every rule) on %d sampled; the diff names the same rules: %s"
        % (
            len(flips),
            len(flips[:: args.all_rules_every]),
            "ok" if not failures else "%d disagreements" % len(failures),
        )
    )
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
