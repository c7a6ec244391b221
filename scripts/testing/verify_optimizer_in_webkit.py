#!/usr/bin/env python3
"""The optimizer's rewrites in real WebKit (issue 13): requests decided by a joined host+in-url rule, and others,
loaded in WebKit under the unoptimized and the optimized list; WebKit must decide each the same way under both,
and as `radarblock match` says.

usage: verify_optimizer_in_webkit.py RADARBLOCK PLAIN_RELEASE OPTIMIZED_RELEASE REQUESTS.jsonl [SAMPLE]
The first main list of each release (`build` and `build --no-optimize` of the same inputs split alike), and the
optimized one's provenance, as its manifest names them.
The sample (default 150): at most two thirds requests whose deciding rule in the optimized list is a joined
host+in-url rule (blocked by one, or let through by an exception of one), the rest other requests, taken from the
pages (top URLs) with the most such requests so that few pages are loaded. Prints mismatches and `N passed, N
failed`; exit 1 on any mismatch, or when no request is decided by a joined rule (the check would prove nothing).
"""

import json
import os
import random
import subprocess
import sys

from release_lists import main_entries
from webkit_sides import blocked_in_webkit

# Request types the harness can load as the same WebKit resource type ("other" has no page-side load).
HARNESS_TYPES = {
    "script": "script",
    "image": "image",
    "xmlhttprequest": "xmlhttprequest",
    "stylesheet": "style-sheet",
    "font": "font",
    "media": "media",
    "ping": "ping",
    "sub_frame": "child-document",
}


def match(rb, rules, provenance, requests_path):
    cmd = [rb, "match", rules, "--requests", requests_path, "--explain"] + (
        ["--provenance", provenance] if provenance else []
    )
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def blocked(answer):
    return any(a.get("type") == "block" for a in answer.get("actions", []))


def joined(answer):
    d = answer.get("decidedBy") or {}
    return ((d.get("provenance") or {}).get("role") or "").endswith("host+in-url")


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    rb, plain_release, optimized_release, requests_path = sys.argv[1:5]
    size = int(sys.argv[5]) if len(sys.argv) == 6 else 150
    first = main_entries(optimized_release)[0]
    plain = os.path.join(plain_release, main_entries(plain_release)[0]["rules"])
    optimized = os.path.join(optimized_release, first["rules"])
    provenance = os.path.join(optimized_release, first["provenance"])
    requests = [json.loads(line) for line in open(requests_path, encoding="utf-8") if line.strip()]
    answers = match(rb, optimized, provenance, requests_path)
    if len(answers) != len(requests):
        sys.exit("verify_optimizer_in_webkit: %d answers for %d requests" % (len(answers), len(requests)))
    rng = random.Random(13)
    by_top = {}
    for i, (req, ans) in enumerate(zip(requests, answers, strict=True)):
        if "error" not in ans and req["resourceType"] in HARNESS_TYPES:
            by_top.setdefault(req["topURL"], []).append(i)
    tops = sorted(by_top, key=lambda t: (-sum(joined(answers[i]) for i in by_top[t]), t))
    want_joined, sample = size * 2 // 3, []
    for top in tops:
        ids = by_top[top]
        js = [i for i in ids if joined(answers[i])]
        others = [i for i in ids if not joined(answers[i])]
        rng.shuffle(js)
        rng.shuffle(others)
        take_j = js[: max(0, want_joined - sum(joined(answers[i]) for i in sample))][:12]
        take_o = others[: max(0, (size - want_joined) - sum(not joined(answers[i]) for i in sample))][:6]
        sample += take_j + take_o
        if len(sample) >= size:
            break
    n_joined = sum(joined(answers[i]) for i in sample)
    if n_joined == 0:
        print("no request is decided by a joined host+in-url rule")
        print("0 passed, 1 failed")
        sys.exit(1)
    lists = {
        "plain": [json.load(open(plain, encoding="utf-8"))],
        "optimized": [json.load(open(optimized, encoding="utf-8"))],
    }
    got = blocked_in_webkit(
        lists,
        [
            {
                "url": requests[i]["url"],
                "topURL": requests[i]["topURL"],
                "type": HARNESS_TYPES[requests[i]["resourceType"]],
            }
            for i in sample
        ],
    )
    passed = failed = 0
    for k, i in enumerate(sample):
        want = blocked(answers[i])
        if got.get(k) == {"plain": want, "optimized": want}:
            passed += 1
        else:
            failed += 1
            print(
                "MISMATCH %s on %s (%s): match says blocked=%s, WebKit %s"
                % (requests[i]["url"], requests[i]["topURL"], requests[i]["resourceType"], want, got.get(k))
            )
    print(
        "%d requests (%d decided by a joined host+in-url rule, %d blocked) on %d pages: %d passed, %d failed"
        % (
            len(sample),
            n_joined,
            sum(blocked(answers[i]) for i in sample),
            len({requests[i]["topURL"] for i in sample}),
            passed,
            failed,
        )
    )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
