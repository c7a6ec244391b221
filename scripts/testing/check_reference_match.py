#!/usr/bin/env python3
"""The reference tests answered by `radarblock match` exactly as real WebKit answered them.

usage: check_reference_match.py RADARBLOCK RULES.json REPORT.json
REPORT.json is what `scripts/webkit-check reference RULES.json --report REPORT.json` wrote (WebKit's verdict
per test). Each test becomes a `match` request (siteURL as the top URL, requestURL, requestType); a test
agrees when `match` reports a block action exactly when WebKit blocked the load.
Prints one line per disagreement and `N passed, N failed`; exit 1 on any disagreement.
"""

import json
import subprocess
import sys
import tempfile

radarblock, rules, report_path = sys.argv[1:4]
report = json.load(open(report_path, encoding="utf-8"))
results = [r for r in report["results"] if r["blocked"] is not None]
with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    for r in results:
        f.write(json.dumps({"url": r["requestURL"], "topURL": r["siteURL"], "resourceType": r["requestType"]}) + "\n")
    requests = f.name
out = subprocess.run(
    [radarblock, "match", rules, "--requests", requests], capture_output=True, text=True, check=True
).stdout
answers = [json.loads(line) for line in out.splitlines()]
assert len(answers) == len(results), "match answered %d of %d requests" % (len(answers), len(results))
failed = 0
for r, a in zip(results, answers, strict=True):
    blocked = any(x.get("type") == "block" for x in a.get("actions", []))
    if "error" in a or blocked != r["blocked"]:
        failed += 1
        print(
            "DISAGREE %s: %s on %s (%s): WebKit %s, match %s"
            % (
                r["name"],
                r["requestURL"],
                r["siteURL"],
                r["requestType"],
                "blocked" if r["blocked"] else "allowed",
                a.get("error") or ("blocked" if blocked else "allowed"),
            )
        )
unknown = len(report["results"]) - len(results)
print("%d passed, %d failed" % (len(results) - failed, failed + unknown))
sys.exit(1 if failed or unknown else 0)
