"""`make bench`, tracker report overhead in real WebKit (WebKitGTK), the iOS rule list installed, one browser per
configuration (no bundle, and each bundle given), the configurations interleaved load by load so that drift hits
them alike. Run through scripts/bench/tracker-report.sh (xvfb, WebKit environment).

1. A page with 500 subresources: 400 requests to trackers sampled from the iOS TDS (webkit/tracker_report.
   sampled_loads, as the real-WebKit test) and 100 benign ones, images and async scripts; every allowed URL is
   served by the harness's proxy. Time to load = the navigation entry's loadEventStart (ms from navigation start):
   median, quartiles and range of REPEAT loads. Most of it is the network through the proxy, so the bundle's own
   start-up (parse + run at document start, performance.now() around it) is printed too.
2. A page with 20 iframes (same origin, so that the top page can read each frame's figures), each requesting 10
   trackers: the bundle's start-up summed over the 21 documents, the radarblock:tracker events the frames got,
   and the time to load; median of REPEAT loads.

usage: tracker_overhead.py RULES.json TDS.json REPEAT NAME=BUNDLE.js...
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
FRAMES_TOP = "http://frames.rb-sample.example/"
FRAMES, PER_FRAME = 20, 10
MARK_BEFORE = "window.__rbT0 = performance.now();"
# After the bundle: its start-up, and a count of its tracker events in this document.
MARK_AFTER = (
    "window.__rbT1 = performance.now(); window.__rbN = 0;"
    "window.addEventListener('radarblock:tracker', function () { window.__rbN++; });"
)
SUM_FRAMES = """(function () {
  var t = window.__rbT1 - window.__rbT0, n = 0;
  for (var i = 0; i < window.frames.length; i++) {
    var w = window.frames[i]; t += w.__rbT1 - w.__rbT0; n += w.__rbN;
  }
  return JSON.stringify([t, n, window.frames.length]);
})()"""


def tags(loads):
    out = []
    for page_load in loads:
        url = html.escape(page_load["url"], quote=True)
        out.append(
            '<script async src="%s"></script>' % url if page_load["type"] == "script" else '<img alt="" src="%s">' % url
        )
    return "\n".join(out)


def document(body):
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>\n%s\n</body></html>\n' % body).encode(
        "utf-8"
    )


def frames_site(loads):
    """The iframe page and its frames: routes for the proxy."""
    frame_tags = ['<iframe src="%sframe%d.html"></iframe>' % (FRAMES_TOP, i) for i in range(FRAMES)]
    routes = {normalize_url(FRAMES_TOP): (200, "text/html; charset=utf-8", document("\n".join(frame_tags)), [])}
    for i in range(FRAMES):
        mine = loads[i * PER_FRAME : (i + 1) * PER_FRAME]
        routes[normalize_url("%sframe%d.html" % (FRAMES_TOP, i))] = (
            200,
            "text/html; charset=utf-8",
            document(tags(mine)),
            [],
        )
    return routes


def load(b, rules, top, routes, hints, probe):
    b._set_filters([rules])
    b.proxy.new_epoch(routes, hints)
    b._navigate(top)
    if not wait_until(lambda: b._nav.get("finished") or b._nav.get("failed"), 60.0) or b._nav.get("failed"):
        raise RuntimeError("the bench page did not load: %s" % b._nav.get("failed"))
    ms = float(b.evaluate("performance.getEntriesByType('navigation')[0].loadEventStart"))
    extra = b.evaluate(probe)
    b._reset()
    return ms, extra


def quartiles(xs):
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], q[2]


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    rules_path, tds_path, repeat = argv[0], argv[1], int(argv[2])
    configs = [("no bundle", None)] + [
        (a.split("=", 1)[0], open(a.split("=", 1)[1], encoding="utf-8").read()) for a in argv[3:]
    ]
    rules = json.load(open(rules_path, encoding="utf-8"))
    loads = [
        dict(page_load, url="http://" + page_load["url"][len("https://") :])
        for page_load in tracker_report.sampled_loads(tds_path, 1, trackers=400, benign=100)
    ]
    hints = {normalize_url(page_load["url"]): pages.BODY_KIND[page_load["type"]] for page_load in loads}
    page_routes = {normalize_url(TOP): (200, "text/html; charset=utf-8", document(tags(loads)), [])}
    frame_routes = frames_site(loads[: len(loads) - 100])  # the tracker requests come first
    setup_probe = "window.__rbT1 - window.__rbT0"
    browsers = [
        Browser(timeout=60, user_scripts=[MARK_BEFORE] + ([src] if src else []) + [MARK_AFTER]) for _, src in configs
    ]
    page = {name: ([], []) for name, _ in configs}
    frames = {name: ([], [], []) for name, _ in configs}
    try:
        for b in browsers:
            b.__enter__()
            load(b, rules, TOP, page_routes, hints, setup_probe)  # warm-up: rule list compiled, web process started
        for _ in range(repeat):
            for (name, _), b in zip(configs, browsers, strict=True):
                ms, setup = load(b, rules, TOP, page_routes, hints, setup_probe)
                page[name][0].append(ms)
                page[name][1].append(float(setup))
        for _ in range(repeat):
            for (name, _), b in zip(configs, browsers, strict=True):
                ms, probe = load(b, rules, FRAMES_TOP, frame_routes, hints, SUM_FRAMES)
                total, events, count = json.loads(probe)
                if count != FRAMES:
                    raise RuntimeError("%s: %d frames, not %d" % (name, count, FRAMES))
                frames[name][0].append(ms)
                frames[name][1].append(float(total))
                frames[name][2].append(int(events))
    finally:
        for b in browsers:
            b.__exit__(None, None, None)

    base = statistics.median(page["no bundle"][0])
    print(
        "tracker report overhead: page with %d subresources (%d tracker, %d benign), iOS rule list, %d alternating "
        "loads per configuration" % (len(loads), len(loads) - 100, 100, repeat)
    )
    print(
        "%-28s %9s %8s %17s %17s %16s"
        % ("configuration", "median ms", "vs none", "quartiles ms", "range ms", "start-up ms (med)")
    )
    for name, _ in configs:
        times, setups = page[name]
        m, (q1, q3) = statistics.median(times), quartiles(times)
        print(
            "%-28s %9.1f %+7.1f%% %8.0f-%-8.0f %8.0f-%-8.0f %16.2f"
            % (name, m, 100.0 * (m - base) / base, q1, q3, min(times), max(times), statistics.median(setups))
        )
    print(
        "page with %d iframes x %d tracker requests, %d alternating loads: the bundle's start-up summed over the %d "
        "documents, radarblock:tracker events, time to load" % (FRAMES, PER_FRAME, repeat, FRAMES + 1)
    )
    print("%-28s %22s %15s %18s" % ("configuration", "script start-up ms (med)", "events (med)", "load ms (med)"))
    for name, _ in configs:
        ms, total, events = frames[name]
        print(
            "%-28s %22.1f %15d %18.1f"
            % (name, statistics.median(total), statistics.median(events), statistics.median(ms))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
