"""`make bench`, tracker report overhead: time to the `load` event of a page with 500 subresources in real WebKit
(WebKitGTK), with the iOS rule list installed, (a) without a bundle, (b) with the default surrogates.js and
(c) with the --report-trackers bundle. Run through scripts/bench-tracker-report.sh (xvfb, WebKit environment).

The page: 400 requests to trackers sampled from the iOS TDS (webkit/tracker_report.sampled_loads, as the real-WebKit
test) and 100 benign ones, images and async scripts; every allowed URL is served by the harness's proxy. Time to
load = the navigation entry's loadEventStart (ms from navigation start), median of REPEAT loads per configuration,
the configurations interleaved so that drift hits all three alike. Most of that time is the network through the
harness's proxy (400 distinct tracker hosts), so the bundle's own start-up (parse + run at document start,
performance.now() around it) is printed too: it is the part that does not drown in that noise.

usage: tracker_overhead.py RULES.json SURROGATES.js REPORT.js TDS.json [REPEAT]
"""

import html
import json
import statistics
import sys

from webkit import pages, tracker_report
from webkit.gtkenv import wait_until
from webkit.harness import Browser
from webkit.proxy import normalize_url

# Plain HTTP: the proxy would otherwise mint a TLS certificate for each of the ~400 hosts, the largest and
# noisiest part of the load (the rule list matches any scheme the same way).
TOP = "http://bench.rb-sample.example/"
MARK_BEFORE = "window.__rbT0 = performance.now();"
MARK_AFTER = "window.__rbT1 = performance.now();"


def page_html(loads):
    tags = []
    for l in loads:
        url = html.escape(l["url"], quote=True)
        tags.append('<script async src="%s"></script>' % url if l["type"] == "script" else '<img alt="" src="%s">' % url)
    return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n%s\n</body></html>\n" % "\n".join(tags)


def time_to_load(b, rules, loads, doc):
    b._set_filters([rules])
    routes = {normalize_url(TOP): (200, "text/html; charset=utf-8", doc, [])}
    hints = {normalize_url(l["url"]): pages.BODY_KIND[l["type"]] for l in loads}
    b.proxy.new_epoch(routes, hints)
    b._navigate(TOP)
    if not wait_until(lambda: b._nav.get("finished") or b._nav.get("failed"), 60.0) or b._nav.get("failed"):
        raise RuntimeError("the bench page did not load: %s" % b._nav.get("failed"))
    ms = b.evaluate("performance.getEntriesByType('navigation')[0].loadEventStart")
    setup = b.evaluate("window.__rbT1 - window.__rbT0")
    b._reset()
    return float(ms), float(setup)


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    rules_path, surrogates_path, report_path, tds_path = argv[:4]
    repeat = int(argv[4]) if len(argv) == 5 else 5
    rules = json.load(open(rules_path, encoding="utf-8"))
    loads = [dict(l, url="http://" + l["url"][len("https://"):]) for l in
             tracker_report.sampled_loads(tds_path, 1, trackers=400, benign=100)]
    doc = page_html(loads).encode("utf-8")
    configs = [("no bundle", None), ("surrogates.js", open(surrogates_path, encoding="utf-8").read()),
               ("surrogates.js --report-trackers", open(report_path, encoding="utf-8").read())]
    browsers = [Browser(timeout=60, user_scripts=[MARK_BEFORE] + ([src] if src else []) + [MARK_AFTER]) for _, src in configs]
    times = {name: [] for name, _ in configs}
    setups = {name: [] for name, _ in configs}
    try:
        for b in browsers:
            b.__enter__()
            time_to_load(b, rules, loads, doc)  # warm-up: rule list compiled, web process started
        for _ in range(repeat):
            for (name, _), b in zip(configs, browsers):
                ms, setup = time_to_load(b, rules, loads, doc)
                times[name].append(ms)
                setups[name].append(setup)
    finally:
        for b in browsers:
            b.__exit__(None, None, None)
    base = statistics.median(times["no bundle"])
    print("tracker report overhead: page with %d subresources (%d tracker, %d benign), iOS rule list, median of %d loads"
          % (len(loads), len(loads) - 100, 100, repeat))
    # On a shared machine the minimum is the steadier estimate of what the page itself costs.
    best = min(times["no bundle"])
    print("%-34s %10s %9s %9s %9s %18s   %s" % ("configuration", "median ms", "vs none", "min ms", "vs none",
                                             "bundle start (ms)", "all loads (ms)"))
    for name, _ in configs:
        m, lo = statistics.median(times[name]), min(times[name])
        print("%-34s %10.1f %+8.1f%% %9.1f %+8.1f%% %18.1f   %s"
              % (name, m, 100.0 * (m - base) / base, lo, 100.0 * (lo - best) / best, statistics.median(setups[name]),
                 " ".join("%.0f" % t for t in times[name])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
