#!/usr/bin/env python3
"""A release with filter lists in real WebKit (issue 40): the iOS TDS v5 + config + EasyPrivacy + EasyList.

usage: check_filter_release.py RADARBLOCK DDG_DATA LISTS_DIR WORK [SAMPLE [SEED]]
1. `build --verify-webkit --filter-list easyprivacy.txt --filter-list easylist.txt` of DDG_DATA's iOS TDS v5 and
   config, with a user-unprotected site: WebKitGTK accepts every list of the release (the manifest's
   webkitVerification names each).
2. The same lists beside the reference TDS's release: DuckDuckGo's 134 reference cases still pass in WebKit with
   the filter lists loaded (`webkit-check reference rules.json --extra-rules filters.json`).
3. `install` puts every list of the iOS release into a filter store; SAMPLE (default 12) EasyPrivacy `||host^`
   filters (seed SEED) give a script URL each, which `match` says the release blocks on an ordinary site and lets
   through on the user-unprotected site and on the config's first temporarily unprotected site. Pages in a
   WebKitWebView with the installed lists (`webkit-check pages`, the loopback proxy) must agree on every load.
Prints the figures; exit 1 on any disagreement.
"""

import json
import os
import random
import re
import subprocess
import sys

radarblock, ddg, lists_dir, work = sys.argv[1:5]
sample = int(sys.argv[5]) if len(sys.argv) > 5 else 12
seed = int(sys.argv[6]) if len(sys.argv) > 6 else 40
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
check = os.path.join(here, "webkit-check")
target = os.environ.get("RADARBLOCK_TARGET", "webkitgtk-2.50")
lists = [os.path.join(lists_dir, name) for name in ("easyprivacy.txt", "easylist.txt")]
filter_options = [x for path in lists for x in ("--filter-list", path)]
ordinary, unprotected = "https://news-site.example/", "https://unprotected-site.example/"
os.makedirs(work, exist_ok=True)


def run(*args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("%s failed (exit %d): %s" % (" ".join(args[:3]), done.returncode, done.stderr[-2000:]))
    return done.stdout


def build(tds, out, *options):
    """A release of TDS and the two lists for the target."""
    run(radarblock, "build", "--target", target, "--tds", tds, *filter_options, *options, "--out", out)
    return json.load(open(os.path.join(out, "manifest.json"), encoding="utf-8"))


def accepted_by_webkit():
    user = os.path.join(work, "unprotected.txt")
    with open(user, "w", encoding="utf-8") as f:
        f.write(unprotected.split("/")[2] + "\n")
    release = os.path.join(work, "ios")
    config = os.path.join(ddg, "privacy-config", "ios-config_v4_embedded_2025-02-17.json")
    manifest = build(
        os.path.join(ddg, "tds", "ios-tds_v5_2025-06-17.json"),
        release,
        "--config",
        config,
        "--unprotected",
        user,
        "--verify-webkit",
    )
    accepted = {a["list"] for a in manifest["webkitVerification"]["accepted"]}
    names = [entry["rules"] for entry in manifest["lists"]]
    missing = [n for n in names if n not in accepted]
    if missing:
        sys.exit("WebKit's verification lacks %s" % missing)
    parts = [e for e in manifest["lists"] if e.get("role") == "filter-lists"]
    print(
        "WebKit %s accepts all %d lists of the release (filter lists: %s, %d rules)"
        % (
            manifest["webkitVerification"]["webkitVersion"],
            len(names),
            ", ".join(e["rules"] for e in parts),
            sum(e["ruleCount"] for e in parts),
        )
    )
    # The config's temporarily unprotected sites: its unprotectedTemporary and the contentBlocking exceptions.
    settings = json.load(open(config, encoding="utf-8"))
    temp = settings.get("unprotectedTemporary", []) + settings["features"]["contentBlocking"].get("exceptions", [])
    return release, manifest, ["https://%s/" % temp[0]["domain"]] if temp else []


def reference_with_filter_lists():
    ref = os.path.join(ddg, "reference-tests", "tracker-radar-tests", "TR-domain-matching")
    release = os.path.join(work, "reference")
    manifest = build(os.path.join(ref, "tracker_radar_reference.json"), release)
    extra = [x for e in manifest["lists"][1:] for x in ("--extra-rules", os.path.join(release, e["rules"]))]
    done = subprocess.run(
        [check, "reference", os.path.join(release, "rules.json"), *extra, "--expect-passed", "134"],
        capture_output=True,
        text=True,
    )
    lines = done.stdout.strip().splitlines() or [done.stderr[-2000:]]
    print("reference cases with the filter lists loaded: %s" % lines[-1])
    if done.returncode != 0:
        sys.exit("\n".join(line for line in lines if "FAIL" in line) or lines[-1])


def sampled_requests(release):
    """Script URLs of sampled EasyPrivacy `||host^` filters that the release blocks on an ordinary site."""
    provenance = json.load(open(os.path.join(release, "filters.provenance.json"), encoding="utf-8"))
    hosts = sorted(
        {
            p["filter"][2:-1]
            for p in provenance
            if p.get("list") == "easyprivacy.txt"
            and p.get("role") == "block"
            and re.fullmatch(r"\|\|[a-z0-9][a-z0-9.-]*\.[a-z]+\^", p.get("filter", ""))
        }
    )
    random.Random(seed).shuffle(hosts)
    return ["https://%s/rb-check.js" % h for h in hosts[: sample * 2]]


def answers(release, urls, top):
    path = os.path.join(work, "requests.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for url in urls:
            f.write(json.dumps({"url": url, "topURL": top, "resourceType": "script"}) + "\n")
    out = run(radarblock, "match", release, "--requests", path)
    return [any(a.get("type") == "block" for a in json.loads(line).get("actions", [])) for line in out.splitlines()]


def pages_in_webkit(release, tops):
    store = os.path.join(work, "store")
    run(radarblock, "install", release, "--store", store)
    state = json.load(open(os.path.join(store, "radarblock-install.json"), encoding="utf-8"))
    identifiers = [entry["identifier"] for entry in state["releases"][-1]["lists"]]
    urls = [
        u
        for u, blocked in zip(
            sampled_requests(release), answers(release, sampled_requests(release), ordinary), strict=True
        )
        if blocked
    ][:sample]
    if len(urls) < sample:
        sys.exit("only %d sampled EasyPrivacy hosts are blocked by the release on %s" % (len(urls), ordinary))
    scenarios = os.path.join(work, "scenarios.jsonl")
    expected = {}
    with open(scenarios, "w", encoding="utf-8") as f:
        for top in tops:
            for url, blocked in zip(urls, answers(release, urls, top), strict=True):
                expected[(top, url)] = blocked
            f.write(
                json.dumps(
                    {
                        "id": top,
                        "topURL": top,
                        "installed": {"store": store, "identifiers": identifiers},
                        "loads": [{"id": u, "url": u, "type": "script"} for u in urls],
                    }
                )
                + "\n"
            )
    failed = 0
    for line in run(check, "pages", scenarios).splitlines():
        page = json.loads(line)
        if page.get("error"):
            sys.exit("page %s: %s" % (page["id"], page["error"]))
        seen = {u: v["blocked"] for u, v in page["loads"].items()}
        want = [expected[(page["id"], u)] for u in urls]
        got = [seen[u] for u in urls]
        if page["id"] == ordinary and not all(want):
            failed += 1
            print("match lets a sampled load through on %s" % ordinary)
        if page["id"] != ordinary and any(want):
            failed += 1
            print("match blocks a sampled load on the unprotected site %s" % page["id"])
        wrong = [u for u, w, g in zip(urls, want, got, strict=True) if w != g]
        failed += len(wrong)
        print(
            "%s: WebKit blocks %d of %d sampled EasyPrivacy loads, match %d; disagreements: %s"
            % (page["id"], sum(got), len(urls), sum(want), wrong or "none")
        )
    return failed


release, manifest, temp_sites = accepted_by_webkit()
reference_with_filter_lists()
failures = pages_in_webkit(release, [ordinary, unprotected, *temp_sites])
sys.exit(1 if failures else 0)
