#!/usr/bin/env python3
"""EasyPrivacy and EasyList converted by radarblock beside SafariConverterLib's (SCL) conversion (issue 40).

usage: filterlist_cost.py RADARBLOCK [WORKDIR]

  * convert: `radarblock convert --filter-list` of each list and of both together (`--filter-list` twice, as
    docs/filter-lists.md says lists meant to act as one are converted), wall, user and system seconds of each of
    RUNS runs, their medians and the best wall;
  * WebKit's compile of radarblock's list and SCL's (../shared/data/peers/safariconverterlib), alternately, RUNS
    times each, in one run: CPU seconds of the compile (the steadier figure on a shared machine) and the size of
    the file in WebKit's store, with where its bytes go (stored JSON, url-filter automata), and one ratio line per
    list (radarblock / SCL);
  * match: `radarblock match --requests` on the list of both together, compiled to .rbc, over REQUESTS page loads
    (gen_issue_requests' shape: half to hosts of the lists' `||host^` filters, in three subdomain forms; the rest to
    other hosts), best of RUNS: requests per second end to end.

Environment: SHARED (default ../shared beside the package), LISTS (default Debian's webext-ublock-origin-firefox
folder), RUNS (default 3), REQUESTS (default 1000000). Writes WORKDIR/filterlist-cost.json (default WORKDIR
/tmp/radarblock-bench/filterlist-cost). Without the lists or SCL's output it prints SKIP and exits 0; a failed
convert, compile or match exits 1. Goals (issue 40): convert of both <= 1.0 s, WebKit CPU and size <= 0.75x SCL's
on each list, match >= 1M requests/s.
"""

import gzip
import json
import os
import re
import shutil
import statistics
import sys

import gen_issue_requests
import webkit_measure
from webkit_measure import Failed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEBIAN_LISTS = (
    "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/"
    "thirdparties/easylist"
)
LISTS = ["easyprivacy", "easylist"]
# The host of a `||host^` rule as PatternURLFilter writes it.
# Either head of a `||host^` rule (HostPattern in Sources/ContentRules: the subdomain run, or the one that may run
# into a `<`), then the host and `[:/]`.
HOST_RULE = re.compile(
    r"^\^\[\^:\]\+://\+(?:\(\[\^/\]\+\\\.\)\?|\(\(\[\^/\]\+\(/<\)\?\)\+\\\.\)\?)"
    r"((?:[a-z0-9_-]+\\\.)+[a-z0-9-]+)\[:/\]$"
)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def timed(cmd):
    """Wall seconds of one process under /usr/bin/time; Failed on a non-zero exit."""
    wall, _, _ = webkit_measure.timed(cmd, "/tmp/.filterlist-cost-time")
    return wall


def convert(rb, srcs, out, runs):
    """`convert` of the lists `srcs` together into `out`, RUNS times: wall, user and system seconds."""
    cmd = [rb, "convert"] + [arg for src in srcs for arg in ("--filter-list", src)] + ["-o", out]
    times = [webkit_measure.timed_fully(cmd, "/tmp/.filterlist-cost-time")[0] for _ in range(runs)]
    with open(out, encoding="utf-8") as f:
        rules = json.load(f)
    return {
        "seconds": statistics.median(t[0] for t in times),
        "bestSeconds": min(t[0] for t in times),
        "userSeconds": statistics.median(t[2] for t in times),
        "systemSeconds": statistics.median(t[3] for t in times),
        "runs": [{"wall": t[0], "user": t[2], "system": t[3]} for t in times],
        "rules": len(rules),
        "jsonBytes": os.path.getsize(out),
    }


def requests(rules_path, n, out):
    """n requests, half of them to the hosts of the list's `||host^` rules (gen_issue_requests' shape, seed 40)."""
    with open(rules_path, encoding="utf-8") as f:
        hosts = sorted(
            {m.group(1).replace("\\.", ".") for r in json.load(f) if (m := HOST_RULE.match(r["trigger"]["url-filter"]))}
        )
    if not hosts:
        raise Failed("%s has no ||host^ rules to derive requests from" % rules_path)
    gen_issue_requests.write_requests(hosts, n, out, 40)


def compile_side_by_side(rb, pairs, runs, work):
    """{list: {"radarblock": [runs], "scl": [runs]}}, the two compiled alternately."""
    out = {name: {"radarblock": [], "scl": []} for name, _, _ in pairs}
    for run in range(runs):
        for name, ours, scl in pairs:
            for side, path in (("radarblock", ours), ("scl", scl)):
                log("filterlist_cost: WebKit compile %d/%d of %s (%s)" % (run + 1, runs, name, side))
                out[name][side].append(webkit_measure.webkit_compile(rb, path, "%s-%s" % (name, side), work))
    return out


def summary(compiles):
    sections = compiles[0]["sections"] or {}
    return {
        "cpuSeconds": statistics.median(c["cpuSeconds"] for c in compiles),
        "seconds": statistics.median(c["seconds"] for c in compiles),
        "bytes": compiles[0]["bytes"],
        "sourceBytes": sections.get("source"),
        "urlFilterBytes": sections.get("urlFilters"),
    }


def mb(n):
    return "-" if n is None else "%.2f" % (n / 1e6)


def report(results):
    print()
    print("Filter lists against SafariConverterLib (issue 40; %d runs, medians)" % results["runs"])
    for name, c in results["convert"].items():
        print(
            "  convert --filter-list %-11s %.2f s wall (best %.2f), %.2f s user, %.2f s system%s"
            % (
                name,
                c["seconds"],
                c["bestSeconds"],
                c["userSeconds"],
                c["systemSeconds"],
                " (goal <= 1.0 s wall)" if name == "both" else "",
            )
        )
    print("  load average at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    print(
        "  %-12s %-10s %7s  %6s  %8s  %9s  %11s"
        % ("list", "converter", "rules", "CPU s", "file MB", "source MB", "url-filter MB")
    )
    for name in LISTS:
        for side in ("radarblock", "scl"):
            s = results["compile"][name][side]
            print(
                "  %-12s %-10s %7s  %6.2f  %8s  %9s  %11s"
                % (
                    name,
                    side,
                    "{:,}".format(s["rules"]),
                    s["cpuSeconds"],
                    mb(s["bytes"]),
                    mb(s["sourceBytes"]),
                    mb(s["urlFilterBytes"]),
                )
            )
    for name in LISTS:
        r = results["ratio"][name]
        print("  ratio %s radarblock/SCL: CPU %.2fx, size %.2fx (goal <= 0.75x each)" % (name, r["cpu"], r["size"]))
    m = results["match"]
    print(
        "  match --requests on both lists together: %d requests in %.2f s = %s requests/s (best of %d; goal >= 1M)"
        % (m["requests"], m["seconds"], "{:,.0f}".format(m["perSecond"]), results["runs"])
    )


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    rb = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) == 3 else "/tmp/radarblock-bench/filterlist-cost"
    shared = os.environ.get("SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
    lists = os.environ.get("LISTS", DEBIAN_LISTS)
    runs = int(os.environ.get("RUNS", "3"))
    n_requests = int(os.environ.get("REQUESTS", "1000000"))
    peers = os.path.join(shared, "data", "peers", "safariconverterlib")
    sources = {name: os.path.join(lists, name + ".txt") for name in LISTS}
    missing = [p for p in list(sources.values()) + [peers] if not os.path.exists(p)]
    if missing:
        print("SKIP filterlist_cost: %s not found" % ", ".join(missing))
        return 0
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    results = {"runs": runs, "convert": {}, "compile": {}, "ratio": {}}
    try:
        for name, srcs in [(name, [src]) for name, src in sources.items()] + [("both", list(sources.values()))]:
            log("filterlist_cost: convert %s" % name)
            results["convert"][name] = convert(rb, srcs, os.path.join(work, name + ".json"), runs)
        pairs = []
        for name in LISTS:
            scl = os.path.join(work, name + ".scl.json")
            with gzip.open(os.path.join(peers, name + ".scl.json.gz"), "rb") as f, open(scl, "wb") as out:
                out.write(f.read())
            pairs.append((name, os.path.join(work, name + ".json"), scl))
        for name, runs_of in compile_side_by_side(rb, pairs, runs, work).items():
            results["compile"][name] = {side: summary(c) for side, c in runs_of.items()}
            results["compile"][name]["radarblock"]["rules"] = results["convert"][name]["rules"]
            with open(os.path.join(work, name + ".scl.json"), encoding="utf-8") as f:
                results["compile"][name]["scl"]["rules"] = len(json.load(f))
            ours, scl = results["compile"][name]["radarblock"], results["compile"][name]["scl"]
            results["ratio"][name] = {
                "cpu": ours["cpuSeconds"] / scl["cpuSeconds"],
                "size": ours["bytes"] / scl["bytes"],
            }
        rbc = os.path.join(work, "both.rbc")
        timed([rb, "compile", os.path.join(work, "both.json"), "-o", rbc])
        corpus = os.path.join(work, "requests.jsonl")
        requests(os.path.join(work, "both.json"), n_requests, corpus)
        best = min(timed([rb, "match", rbc, "--requests", corpus]) for _ in range(runs))
        results["match"] = {"requests": n_requests, "seconds": best, "perSecond": n_requests / best}
    except Failed as e:
        log("filterlist_cost: %s" % e)
        return 1
    with open(os.path.join(work, "filterlist-cost.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
