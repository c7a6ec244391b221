#!/usr/bin/env python3
"""What WebKit pays for the cookie pop-up list of TDS v7 (issue 33), beside the tracker list of the same release.

usage: cpm_cost.py RADARBLOCK [WORKDIR]

Builds a release from ../shared's ios-tds_v7_2024-07-12.json (no config: the shared iOS config has no `filterlist`
sub-feature of `autoconsent`, so with it there is no cookie pop-up list at all), then compiles with WebKitGTK, RUNS
times (default 3) alternating:
  rules.json       the tracker list,
  cpm.json         the cookie pop-up list as radarblock writes it (selectors joined per site condition),
  cpm-ungrouped    the same rules with one rule per selector (what a line-by-line converter writes),
and prints per list: rules, JSON bytes, WebKit's compile time (wall and CPU, median), its peak memory rise over a
one-rule list, and the size of the file in WebKit's store. How one compile is measured: webkit_measure.py.
Writes WORKDIR/cpm-cost.json (default /tmp/radarblock-bench/cpm-cost). Without the shared data: SKIP, exit 0.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys

import webkit_measure

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("SHARED", os.path.join(HERE, "..", "..", "..", "shared"))
TDS = os.path.join(SHARED, "data", "ddg", "tds", "ios-tds_v7_2024-07-12.json")


def split_selectors(s):
    """Top-level commas only (not inside (), [] or strings)."""
    out, cur, depth, quote, esc = [], "", 0, None, False
    for c in s:
        if esc:
            esc = False
        elif c == "\\":
            esc = True
        elif quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    out.append(cur.strip())
    return [x for x in out if x]


def ungrouped(rules):
    out = []
    for r in rules:
        if r["action"]["type"] != "css-display-none":
            out.append(r)
            continue
        for sel in split_selectors(r["action"]["selector"]):
            out.append({"trigger": r["trigger"], "action": {"type": "css-display-none", "selector": sel}})
    return out


def main():
    rb = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/radarblock-bench/cpm-cost"
    if not os.path.exists(TDS):
        print("SKIP: %s not found" % TDS)
        return 0
    runs = int(os.environ.get("RUNS", "3"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    release = os.path.join(work, "release")
    subprocess.run([rb, "build", "--tds", TDS, "--out", release], check=True, capture_output=True)
    cpm = json.load(open(os.path.join(release, "cpm.json"), encoding="utf-8"))
    flat = os.path.join(work, "cpm-ungrouped.json")
    json.dump(ungrouped(cpm), open(flat, "w", encoding="utf-8"))
    one = os.path.join(work, "one.json")
    json.dump([{"trigger": {"url-filter": "x"}, "action": {"type": "block"}}], open(one, "w"))
    lists = {
        "rules.json": os.path.join(release, "rules.json"),
        "cpm.json": os.path.join(release, "cpm.json"),
        "cpm-ungrouped": flat,
    }
    base = webkit_measure.webkit_compile(rb, one, "one", work)["rssKB"]
    samples = {k: [] for k in lists}
    for run in range(runs):
        for name, path in lists.items():
            samples[name].append(webkit_measure.webkit_compile(rb, path, "%s-%d" % (name.replace(".", "-"), run), work))
    result = {}
    print("%-14s %8s %10s %9s %8s %10s %11s" % ("list", "rules", "JSON B", "wall s", "CPU s", "RSS+ MB", "store B"))
    for name, path in lists.items():
        s = samples[name]
        r = {
            "rules": len(json.load(open(path, encoding="utf-8"))),
            "jsonBytes": os.path.getsize(path),
            "seconds": statistics.median(x["seconds"] for x in s),
            "cpuSeconds": statistics.median(x["cpuSeconds"] or 0 for x in s),
            "rssRiseMB": round(statistics.median(x["rssKB"] - base for x in s) / 1024, 1),
            "storeBytes": s[0]["bytes"],
            "webkit": s[0]["version"],
            "runs": runs,
        }
        result[name] = r
        print(
            "%-14s %8d %10d %9.2f %8.2f %10.1f %11d"
            % (name, r["rules"], r["jsonBytes"], r["seconds"], r["cpuSeconds"], r["rssRiseMB"], r["storeBytes"])
        )
    manifest = json.load(open(os.path.join(release, "manifest.json"), encoding="utf-8"))
    result["counts"] = {k: v for k, v in manifest["counts"].items() if k.startswith("cookiePopup")}
    print("counts:", json.dumps(result["counts"], sort_keys=True))
    json.dump(result, open(os.path.join(work, "cpm-cost.json"), "w"), indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
