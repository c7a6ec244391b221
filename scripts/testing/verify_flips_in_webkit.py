#!/usr/bin/env python3
"""Flipped decisions of a `radarblock diff` confirmed in real WebKit.

usage: verify_flips_in_webkit.py DIFF.json OLD_RULES.json NEW_RULES.json [SAMPLE]
Takes a fixed-seed sample of the requests the diff says changed outcome, loads each in a page under both
rule lists with scripts/webkit-check pages, and checks that WebKit blocks it exactly when the diff says
(surrogate counts as blocked: the rule list blocks, the bundle replaces). Prints mismatches and
`N passed, N failed`; exit 1 on any mismatch or if the diff flipped nothing.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

diff_path, old_path, new_path = sys.argv[1:4]
sample_size = int(sys.argv[4]) if len(sys.argv) > 4 else 60
check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "webkit-check")

changed = json.load(open(diff_path))["requests"]["changed"]
if not changed:
    print("the diff lists no flipped decisions")
    print("0 passed, 1 failed")
    sys.exit(1)
random.seed(7)
sample = random.sample(changed, min(sample_size, len(changed)))
rules = {"old": json.load(open(old_path)), "new": json.load(open(new_path))}

with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    for side in ("old", "new"):
        by_top = {}
        for i, c in enumerate(sample):
            by_top.setdefault(c["request"]["topURL"], []).append((i, c))
        for top, items in sorted(by_top.items()):
            loads = [{"id": "s%d" % i, "url": c["request"]["url"], "type": c["request"]["resourceType"]} for i, c in items]
            f.write(json.dumps({"id": side + "|" + top, "rules": [rules[side]], "topURL": top, "loads": loads,
                                "elements": []}) + "\n")
    scenarios = f.name
out = subprocess.run([check, "pages", scenarios], capture_output=True, text=True, check=True).stdout
got = {}
for line in out.splitlines():
    r = json.loads(line)
    side = r["id"].split("|")[0]
    if r.get("error"):
        print("harness error in %s: %s" % (r["id"], r["error"]))
    for lid, load in (r.get("loads") or {}).items():
        got.setdefault(int(lid[1:]), {})[side] = load["blocked"]
passed = failed = 0
for i, c in enumerate(sample):
    want = {"old": c["old"]["outcome"] != "allowed", "new": c["new"]["outcome"] != "allowed"}
    if got.get(i) == want:
        passed += 1
    else:
        failed += 1
        print("MISMATCH %s on %s (%s): diff says %s -> %s, WebKit %s" % (
            c["request"]["url"], c["request"]["topURL"], c["request"]["resourceType"],
            c["old"]["outcome"], c["new"]["outcome"], got.get(i)))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
