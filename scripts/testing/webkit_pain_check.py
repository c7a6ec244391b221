#!/usr/bin/python3
"""Checks `radarblock validate`'s WebKit-pain prediction against real WebKit (issue 16).

Generates rule lists near the predicted threshold (WebKitPainThreshold: a WebKit NFA whose DFA needs more
than 100,000 states, or more than 40,000,000 NFA nodes summed over its states), asks `radarblock validate
--json` whether WebKit will struggle, then compiles each list with WebKitGTK (`scripts/webkit-check
compile`) under a wall-clock timeout. Agreement: no warning and WebKit finishes, or a warning and WebKit
does not finish within the timeout.

usage: scripts/testing/webkit_pain_check.py RADARBLOCK [--timeout S] [--only NAME,...] [--report FILE]
Prints one line per list and a summary; exit 0 when every list agrees, 1 otherwise."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def block(f, **trigger):
    t = {"url-filter": f}
    t.update(trigger)
    return {"trigger": t, "action": {"type": "block"}}


def exponential(k, letters="ab", mark="a", head=""):
    cls = "[%s]" % letters
    return head + cls + "*" + mark + cls * k


def cases():
    """(name, rules): exponential DFAs 2^(k+1) states around k = 15/16, quadratic literals around
    12,000 letters, and lists whose size is in many small NFAs (WebKit builds those separately)."""
    out = []
    for k in (12, 13, 14, 15, 16, 17, 18):
        out.append(("ab*a[ab]{%d}" % k, [block(exponential(k))]))
    for k in (13, 14, 15, 16, 17):
        out.append(("tracker/ab*b[ab]{%d}" % k, [block(exponential(k, mark="b", head="tracker\\.example\\/"))]))
    for k in (15, 16, 17):
        out.append(
            ("xy*x[xy]{%d} with others" % k, [block("ads\\.example"), block(exponential(k, "xy", "x")), block("pixel")])
        )
    for n in (4000, 8000, 16000, 24000):
        out.append(("literal a*%d" % n, [block("a" * n)]))
    for n in (8000, 24000):
        out.append(("literal (ab)*%d" % (n // 2), [block("ab" * (n // 2))]))
    # Sixteen k = 14 patterns with different prefixes: each its own NFA in WebKit, none over the threshold.
    out.append(
        (
            "16 x [cd]*c[cd]{14}, distinct prefixes",
            [block("p%d\\/" % i + exponential(14, "cd", "c")) for i in range(16)],
        )
    )
    # 2,000 `.*x.*y.*z`: WebKit builds 2,000 small NFAs and merges only their small DFAs.
    out.append(("2000 x .*x.*y.*z", [block(".*k%d.*q%d.*z%d" % (i, i % 7, i % 13)) for i in range(2000)]))
    return out


def predict(binary, path):
    p = subprocess.run([binary, "validate", path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("validate failed on %s: %s %s" % (path, p.stdout, p.stderr))
    return json.loads(p.stdout).get("webkitPain", [])


def webkit(path, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(
            [here + "/scripts/webkit-check", "compile", path], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"finished": False, "seconds": round(time.monotonic() - start, 1)}
    result = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
    return {
        "finished": bool(result.get("ok")),
        "seconds": round(time.monotonic() - start, 1),
        "cpuSeconds": result.get("cpuSeconds"),
        "peakRssKB": result.get("peakRssKB"),
        "error": result.get("error"),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--only", default="")
    ap.add_argument("--report")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    results, agree = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        selected = [(n, r) for n, r in cases() if not only or n in only]
        for i, (name, rules) in enumerate(selected):
            path = os.path.join(tmp, "list-%d.json" % i)
            with open(path, "w") as f:
                json.dump(rules, f)
            t0 = time.monotonic()
            warnings = predict(a.binary, path)
            predicted_seconds = round(time.monotonic() - t0, 2)
            w = webkit(path, a.timeout)
            ok = (not warnings) == w["finished"]
            agree += ok
            results.append(
                {
                    "name": name,
                    "rules": len(rules),
                    "warned": bool(warnings),
                    "predictionSeconds": predicted_seconds,
                    "webkit": w,
                    "agrees": ok,
                }
            )
            print(
                "%-40s warned=%-5s webkit=%-8s %6.1f s  %s"
                % (
                    name,
                    bool(warnings),
                    "finished" if w["finished"] else "timeout",
                    w["seconds"],
                    "agrees" if ok else "DISAGREES",
                ),
                flush=True,
            )
    print("%d of %d lists agree (timeout %g s)" % (agree, len(results), a.timeout))
    if a.report:
        with open(a.report, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if agree == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
