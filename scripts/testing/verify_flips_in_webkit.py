#!/usr/bin/env python3
"""Flipped decisions of a `radarblock diff` confirmed in real WebKit.

usage: verify_flips_in_webkit.py DIFF.json OLD NEW [SAMPLE]
OLD and NEW: each a release directory (its main lists, loaded together as an app loads them) or a rules JSON file.
Takes a fixed-seed sample of the requests the diff says changed outcome, loads each in a page under both
sides' rule lists with scripts/webkit-check pages, and checks that WebKit blocks it exactly when the diff says
(surrogate counts as blocked: the rule list blocks, the bundle replaces). Prints mismatches and
`N passed, N failed`; exit 1 on any mismatch or if the diff flipped nothing.
"""

import json
import random
import sys

from release_lists import rule_lists
from webkit_sides import blocked_in_webkit

diff_path, old_path, new_path = sys.argv[1:4]
sample_size = int(sys.argv[4]) if len(sys.argv) > 4 else 60

changed = json.load(open(diff_path))["requests"]["changed"]
if not changed:
    print("the diff lists no flipped decisions")
    print("0 passed, 1 failed")
    sys.exit(1)
random.seed(7)
sample = random.sample(changed, min(sample_size, len(changed)))
rules = {"old": rule_lists(old_path), "new": rule_lists(new_path)}

got = blocked_in_webkit(
    rules,
    [
        {"url": c["request"]["url"], "topURL": c["request"]["topURL"], "type": c["request"]["resourceType"]}
        for c in sample
    ],
)
passed = failed = 0
for i, c in enumerate(sample):
    want = {"old": c["old"]["outcome"] != "allowed", "new": c["new"]["outcome"] != "allowed"}
    if got.get(i) == want:
        passed += 1
    else:
        failed += 1
        print(
            "MISMATCH %s on %s (%s): diff says %s -> %s, WebKit %s"
            % (
                c["request"]["url"],
                c["request"]["topURL"],
                c["request"]["resourceType"],
                c["old"]["outcome"],
                c["new"]["outcome"],
                got.get(i),
            )
        )
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
