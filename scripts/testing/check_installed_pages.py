#!/usr/bin/env python3
"""Pages loaded in a real WebKitWebView with the lists `radarblock install` put in a filter store block exactly
what `radarblock match` says for the release.

usage: check_installed_pages.py RADARBLOCK RELEASE_DIR STORE_DIR REQUESTS.jsonl
The store's identifiers come from STORE_DIR/radarblock-install.json (the entry for RELEASE_DIR); WebKit loads
them with webkit_user_content_filter_store_load (`"installed"` scenarios of `scripts/webkit-check pages`), so
nothing is compiled by the harness. Top-frame subresource requests of the types the harness can issue are used,
one page per top URL; `match` answers the same requests from the release's .rbc lists in manifest order.
Needs at least one blocked and one allowed load; prints one line per disagreement; exit 1 on any.
"""

import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict

radarblock, release, store, requests_path = sys.argv[1:5]
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
state = json.load(open(os.path.join(store, "radarblock-install.json"), encoding="utf-8"))
entry = [r for r in state["releases"] if os.path.realpath(r["path"]) == os.path.realpath(release)]
assert entry, "%s is not installed in %s" % (release, store)
identifiers = [listed["identifier"] for listed in entry[0]["lists"]]
manifest = json.load(open(os.path.join(release, "manifest.json"), encoding="utf-8"))
rbcs = [os.path.join(release, listed["rbc"]) for listed in manifest["lists"]]

harness_types = {"script", "image", "xmlhttprequest", "stylesheet", "fetch"}
requests = []
for line in open(requests_path, encoding="utf-8"):
    r = json.loads(line)
    if r.get("resourceType") in harness_types and "frameURL" not in r and r["url"] != r["topURL"]:
        requests.append(r)
pages = OrderedDict()
for i, r in enumerate(requests):
    pages.setdefault(r["topURL"], []).append({"id": "r%d" % i, "url": r["url"], "type": r["resourceType"]})

with tempfile.TemporaryDirectory() as tmp:
    scen = os.path.join(tmp, "scenarios.jsonl")
    with open(scen, "w", encoding="utf-8") as f:
        for top, loads in pages.items():
            f.write(
                json.dumps(
                    {
                        "id": top,
                        "topURL": top,
                        "loads": loads,
                        "installed": {"store": os.path.abspath(store), "identifiers": identifiers},
                    }
                )
                + "\n"
            )
    req = os.path.join(tmp, "requests.jsonl")
    with open(req, "w", encoding="utf-8") as f:
        for r in requests:
            f.write(json.dumps(r) + "\n")
    webkit = subprocess.run([os.path.join(here, "webkit-check"), "pages", scen], capture_output=True, text=True)
    if webkit.returncode != 0:
        sys.exit("webkit-check pages failed: %s" % webkit.stderr[-2000:])
    match = subprocess.run([radarblock, "match", *rbcs, "--requests", req], capture_output=True, text=True, check=True)

verdicts = {}
for line in webkit.stdout.splitlines():
    res = json.loads(line)
    if res.get("error"):
        sys.exit("page %s: %s" % (res.get("id"), res["error"]))
    for load_id, v in res["loads"].items():
        verdicts[load_id] = v and v["blocked"]
answers = [json.loads(line) for line in match.stdout.splitlines()]
assert len(answers) == len(requests), "match answered %d of %d" % (len(answers), len(requests))
failed = blocked_count = 0
for i, (r, a) in enumerate(zip(requests, answers, strict=True)):
    predicted = any(x.get("type") == "block" for x in a.get("actions", []))
    seen = verdicts.get("r%d" % i)
    blocked_count += bool(seen)
    if seen is None or seen != predicted:
        failed += 1
        print(
            "DISAGREE %s on %s (%s): WebKit %s, match %s"
            % (
                r["url"],
                r["topURL"],
                r["resourceType"],
                {True: "blocked", False: "allowed", None: "no verdict"}[seen],
                "blocked" if predicted else "allowed",
            )
        )
print(
    "installed lists %s: %d loads on %d pages, %d blocked by WebKit, %d disagreements with match"
    % (", ".join(identifiers), len(requests), len(pages), blocked_count, failed)
)
sys.exit(1 if failed or blocked_count == 0 or blocked_count == len(requests) else 0)
