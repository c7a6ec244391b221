"""Requests loaded in real WebKit under several rule lists: the page-loading step that the checkers of
scripts/testing share (verify_flips_in_webkit.py, verify_optimizer_in_webkit.py)."""

import json
import os
import subprocess
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "webkit-check")


def blocked_in_webkit(lists, requests):
    """lists: {side: the rule lists (parsed JSON) a page of that side loads together}; requests: [{"url", "topURL",
    "type"}] (type: a harness load type). Loads the requests of each top URL in one page per side with
    scripts/webkit-check pages and returns {request index: {side: blocked}}; a request WebKit gave no answer for is
    missing. Harness errors are printed."""
    by_top = {}
    for i, r in enumerate(requests):
        by_top.setdefault(r["topURL"], []).append(i)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for side, rules in lists.items():
            for top, ids in sorted(by_top.items()):
                loads = [{"id": "s%d" % i, "url": requests[i]["url"], "type": requests[i]["type"]} for i in ids]
                f.write(
                    json.dumps({"id": side + "|" + top, "rules": rules, "topURL": top, "loads": loads, "elements": []})
                    + "\n"
                )
        scenarios = f.name
    try:
        out = subprocess.run([CHECK, "pages", scenarios], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(scenarios)
    got = {}
    for line in out.splitlines():
        r = json.loads(line)
        side = r["id"].split("|")[0]
        if r.get("error"):
            print("harness error in %s: %s" % (r["id"], r["error"]))
        for lid, load in (r.get("loads") or {}).items():
            got.setdefault(int(lid[1:]), {})[side] = load["blocked"]
    return got
