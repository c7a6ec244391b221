"""surrogates.js in real WebKit (WebKitGTK), through the harness of scripts/webkit (Browser: proxy, rule
lists, document-start user scripts, page expressions). Run with Tests/js/webkit-surrogates.sh.

  reference RULES.json BUNDLE.js TESTS.json
      Every test of domain_matching_tests.json on its own page (topURL = siteURL, one load of requestURL
      with requestType), the rule list installed and the bundle injected at document start in all frames.
      A test with expectAction "redirect" passes when the request was blocked (never reached the network),
      exactly one surrogate was reported and expectExpression is true; every other test passes when no
      surrogate was reported.
  hostile BUNDLE.js
      The bundle (built from hostile data) as a user script AND inline in the page's HTML inside <script>:
      both must run to their end (a marker after the bundle is set) and nothing may set window.PWNED.
  behaviour RULES.json BUNDLE.js
      With cases/behaviour-*: a parser-inserted blocked script (the next inline script already sees the
      surrogate's effect, onload fires, onerror does not), a dynamically added one (addEventListener load),
      an async one, one inside a cross-origin iframe, and a blocked script without surrogate (still an
      error, no surrogate): the surrogate runs once per document, every blocked element gets `load`.
      The same page with nothing blocked: no surrogate except the parser-blocking one (applied at
      insertion, reported with blocked: false).
  trackers RULES.json BUNDLE.js TDS.json [SEED]
      The tracker report on a generated page: 200 requests to trackers sampled (seeded) from TDS.json (half to
      a tracker host, half to a URL spelled by one of its plain rules, some through CNAME aliases) and 50
      benign ones, as scripts and images; BUNDLE.js built with `surrogates` (reporting, the default) of the same TDS,
      RULES.json its `convert`. Every tracker request gets exactly one radarblock:tracker event whose
      `blocked` is what WebKit did, every benign one none.
  paths RULES.json BUNDLE.js
      With cases/report-* (RULES.json its convert, BUNDLE.js its surrogates, reporting): every kind of
      load the harness issues, to a blocked (ads.test) and an allowed (quiet.test) tracker, gets exactly the
      events PATHS_SEEN says: one (blocked as WebKit did) where the bundle sees that path, none for the
      documented gaps, so the README's list of what is not seen stays true.
  inert RULES.json BUNDLE.js
      BUNDLE.js built (reporting) from a config whose contentBlocking is disabled: the same loads
      as `paths` give no event at all, and fetch / XMLHttpRequest are WebKit's own (not wrapped).
  load BUNDLE.js [RULES.json]
      The bundle loads without errors in a real page (a marker after it is set), and, given the rule list
      of the same TDS, a blocked Google Analytics script gets the analytics.js surrogate (window.ga works).

Prints one JSON object per test and a summary line; exits 1 if anything failed.
"""

import json
import sys

from webkit import tracker_report
from webkit.harness import Browser

MARKER = "\n;window.__rbBundleLoaded = (window.__rbBundleLoaded || 0) + 1;\n"


def _print(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def reference(rules_path, bundle_path, tests_path):
    rules = json.load(open(rules_path, encoding="utf-8"))
    bundle = open(bundle_path, encoding="utf-8").read()
    suites = json.load(open(tests_path, encoding="utf-8"))
    tests = [dict(t, suite=k) for k in suites for t in suites[k]["tests"]]
    counts = {"surrogateCases": 0, "surrogatePassed": 0, "otherCases": 0, "otherPassed": 0, "harnessErrors": 0}
    # One browser (web process, memory cache) per test: a URL that an earlier test loaded as its page
    # could otherwise come from WebKit's memory cache and never reach the proxy.
    for i, t in enumerate(tests):
        with Browser(timeout=15, user_scripts=[bundle + MARKER]) as b:
            expr = {"loaded": "window.__rbBundleLoaded === 1"}
            if t.get("expectExpression"):
                expr["expect"] = t["expectExpression"]
            sc = {
                "id": i,
                "rules": [rules],
                "topURL": t["siteURL"],
                "loads": [{"id": "r", "url": t["requestURL"], "type": t["requestType"]}],
                "expressions": expr,
            }
            res = b.run_scenario(sc)
            load = (res.get("loads") or {}).get("r") or {}
            surr = res.get("surrogates") or []
            ex = res.get("expressions") or {}
            wants = t.get("expectAction") == "redirect"
            problems = []
            if ex.get("loaded") is not True:
                problems.append("bundle did not load (marker %r)" % ex.get("loaded"))
            if wants:
                counts["surrogateCases"] += 1
                if not load.get("blocked"):
                    problems.append("request not blocked")
                if len(surr) != 1:
                    problems.append("%d surrogate reports" % len(surr))
                if ex.get("expect") is not True:
                    problems.append("expectExpression %r is %r" % (t.get("expectExpression"), ex.get("expect")))
            else:
                counts["otherCases"] += 1
                if surr:
                    problems.append("surrogate ran: %s" % json.dumps(surr))
            # The harness flags "loaded without reaching the proxy" for every blocked script that got a
            # surrogate: that load event is the surrogate's doing, not a cache.
            harness_error = res.get("error")
            if harness_error and not (surr and "without reaching the proxy" in harness_error):
                counts["harnessErrors"] += 1
                problems.append("harness: %s" % harness_error)
            ok = not problems
            if ok:
                counts["surrogatePassed" if wants else "otherPassed"] += 1
            _print(
                {
                    "test": t["name"],
                    "suite": t["suite"],
                    "expectAction": t.get("expectAction"),
                    "ok": ok,
                    "blocked": load.get("blocked"),
                    "event": load.get("event"),
                    "surrogates": surr,
                    "problems": problems,
                }
            )
    _print({"summary": counts})
    ok = counts["surrogatePassed"] == counts["surrogateCases"] and counts["otherPassed"] == counts["otherCases"]
    return 0 if ok else 1


def hostile(bundle_path):
    bundle = open(bundle_path, encoding="utf-8").read()
    # Inline: the bundle text placed verbatim in an HTML <script> element.
    html = "<script>" + bundle + "\n;window.__rbInlineLoaded = true;</script>"
    expressions = {
        "userScriptRan": "window.__rbBundleLoaded === 1",
        "inlineRan": "window.__rbInlineLoaded === true",
        "noPWNED": "window.PWNED === undefined",
        "oneScriptElementsInBody": "document.querySelectorAll('script').length >= 1",
    }
    with Browser(timeout=15, user_scripts=[bundle + MARKER]) as b:
        res = b.run_scenario(
            {
                "id": "hostile",
                "rules": [[{"trigger": {"url-filter": "^never-matches:"}, "action": {"type": "block"}}]],
                "topURL": "https://site.example/",
                "html": html,
                "loads": [],
                "expressions": expressions,
            }
        )
    ex = res.get("expressions") or {}
    failed = [k for k in expressions if ex.get(k) is not True]
    _print({"hostile": ex, "error": res.get("error"), "failed": failed})
    return 1 if failed or res.get("error") else 0


def load(bundle_path, rules_path=None):
    bundle = open(bundle_path, encoding="utf-8").read()
    rules = (
        json.load(open(rules_path, encoding="utf-8"))
        if rules_path
        else [{"trigger": {"url-filter": "^never-matches:"}, "action": {"type": "block"}}]
    )
    expressions = {"loaded": "window.__rbBundleLoaded === 1"}
    loads = []
    if rules_path:
        loads = [{"id": "ga", "url": "https://www.google-analytics.com/analytics.js", "type": "script"}]
        expressions["gaWorks"] = "typeof window.ga === 'function' && (window.ga('create', 'UA-1', 'auto'), true)"
    with Browser(timeout=15, user_scripts=[bundle + MARKER]) as b:
        res = b.run_scenario(
            {
                "id": "load",
                "rules": [rules],
                "topURL": "https://news.example/",
                "loads": loads,
                "expressions": expressions,
            }
        )
    ex = res.get("expressions") or {}
    surr = res.get("surrogates") or []
    failed = [k for k in expressions if ex.get(k) is not True]
    if rules_path:
        ga = (res.get("loads") or {}).get("ga") or {}
        if not ga.get("blocked"):
            failed.append("analytics.js not blocked")
        if [s.get("name") for s in surr] != ["analytics.js"]:
            failed.append("surrogates reported: %s" % json.dumps(surr))
    _print({"load": ex, "surrogates": surr, "loads": res.get("loads"), "error": res.get("error"), "failed": failed})
    return 1 if failed else 0


BEHAVIOUR_HTML = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<script src="https://tracker.test/lib.js?n=1"
  onload="window.l1 = (window.l1 || 0) + 1" onerror="window.e1 = 1"></script>
<script>window.after1 = window.runs === 1;</script>
<script>
var s = document.createElement('script'); s.src = 'https://tracker.test/lib.js?n=2';
s.addEventListener('load', function () { window.l2 = (window.l2 || 0) + 1; });
s.onerror = function () { window.e2 = 1; };
document.head.appendChild(s);
</script>
</body></html>"""


def behaviour(rules_path, bundle_path):
    rules = json.load(open(rules_path, encoding="utf-8"))
    bundle = open(bundle_path, encoding="utf-8").read()
    loads = [
        {"id": "async", "url": "https://tracker.test/lib.js?n=3", "type": "script"},
        {"id": "frame", "url": "https://frame.test/", "type": "child-document"},
        {"id": "inFrame", "url": "https://tracker.test/lib.js?n=4", "type": "script", "frame": "https://frame.test/"},
        {"id": "plain", "url": "https://tracker.test/other.js", "type": "script"},
    ]
    nothing = [{"trigger": {"url-filter": "^never-matches:"}, "action": {"type": "block"}}]
    cases = [
        # Blocked: every element gets its surrogate (once per document) and a load event; the parser-blocking
        # one already before the next inline script; the plain blocked script still fails.
        (
            "blocked",
            rules,
            {
                "ranOnce": "window.runs === 1",
                "beforeNextParserScript": "window.after1 === true",
                "parserOnload": "window.l1 === 1",
                "parserNoOnerror": "window.e1 === undefined",
                "dynamicLoad": "window.l2 === 1",
                "dynamicNoOnerror": "window.e2 === undefined",
            },
            {"async": (True, "load"), "inFrame": (True, "load"), "plain": (True, "error")},
            [(1, True, True), (2, True, False), (3, True, False), (4, True, True)],
        ),
        # Nothing blocked: no surrogate for the async and dynamic scripts; the parser-blocking one got its
        # surrogate at insertion (WebKit would not have waited had it been blocked) and is reported unblocked.
        (
            "notBlocked",
            nothing,
            {
                "parserRanEarly": "window.runs === 1",
                "parserOnload": "window.l1 === 1",
                "dynamicLoad": "window.l2 === 1",
            },
            {"async": (False, "load"), "inFrame": (False, "load"), "plain": (False, "load")},
            [(1, False, True)],
        ),
    ]
    failed_any = False
    with Browser(timeout=15, user_scripts=[bundle + MARKER]) as b:
        for name, rule_list, expressions, want_loads, want_reports in cases:
            res = b.run_scenario(
                {
                    "id": name,
                    "rules": [rule_list],
                    "topURL": "https://site.test/",
                    "html": BEHAVIOUR_HTML,
                    "loads": loads,
                    "expressions": expressions,
                }
            )
            ex = res.get("expressions") or {}
            failed = [k for k in expressions if ex.get(k) is not True]
            got = res.get("loads") or {}
            for k, (blocked, event) in want_loads.items():
                r = got.get(k) or {}
                if r.get("blocked") is not blocked or r.get("event") != event:
                    failed.append("%s: %s" % (k, json.dumps(r)))
            reports = sorted((s.get("url"), s.get("blocked"), s.get("executed")) for s in (res.get("surrogates") or []))
            expected = [
                ("https://tracker.test/lib.js?n=%d" % n, blocked, executed) for n, blocked, executed in want_reports
            ]
            if reports != expected:
                failed.append("surrogate reports %s, expected %s" % (reports, expected))
            _print(
                {
                    "behaviour": name,
                    "expressions": ex,
                    "loads": got,
                    "surrogates": res.get("surrogates"),
                    "failed": failed,
                }
            )
            failed_any = failed_any or bool(failed)
    return 1 if failed_any else 0


def trackers(rules_path, bundle_path, tds_path, seed="1"):
    rules = json.load(open(rules_path, encoding="utf-8"))
    bundle = open(bundle_path, encoding="utf-8").read()
    tracker_set = tracker_report.TrackerSet(tds_path)
    loads = tracker_report.sampled_loads(tds_path, int(seed))
    with Browser(timeout=60, user_scripts=[bundle + MARKER]) as b:
        res = b.run_scenario(
            {
                "id": "trackers",
                "rules": [rules],
                "topURL": "https://news.rb-sample.example/",
                "loads": loads,
                "expressions": {"loaded": "window.__rbBundleLoaded === 1"},
            }
        )
    counts = {"requests": len(loads), "trackerRequests": 0, "blockedByWebKit": 0, "agree": 0, "benignWithoutEvent": 0}
    failed = []
    if (res.get("expressions") or {}).get("loaded") is not True:
        failed.append("bundle did not load: %s" % res.get("error"))
    for page_load in loads:
        got = (res.get("loads") or {}).get(page_load["id"])
        is_tracker = tracker_set.is_tracker(page_load["url"])
        counts["trackerRequests"] += is_tracker
        counts["blockedByWebKit"] += bool(got and got.get("blocked"))
        p = tracker_report.problems(got, page_load["url"], is_tracker, bool(got and got.get("blocked")))
        if p:
            failed.append("%s %s: %s" % (page_load["id"], page_load["url"], "; ".join(p)))
        elif is_tracker:
            counts["agree"] += 1
        else:
            counts["benignWithoutEvent"] += 1
    for f in failed[:20]:
        _print({"failed": f})
    _print({"trackers": counts, "failures": len(failed), "harness": res.get("error"), "seconds": res.get("seconds")})
    return 1 if failed else 0


# Load kind -> (seen when blocked, seen when allowed). WebSockets are never listed by Resource Timing and
# are not wrapped; a blocked font (CSS), beacon or ping leaves no Resource Timing entry.
PATHS_SEEN = {
    "script": (True, True),
    "image": (True, True),
    "style-sheet": (True, True),
    "font": (False, True),
    "media": (True, True),
    "fetch": (True, True),
    "xmlhttprequest": (True, True),
    "child-document": (True, True),
    "websocket": (False, False),
    "beacon": (False, True),
    "ping": (False, True),
}


# The wrapped fetch and XMLHttpRequest look and behave like WebKit's own (values measured without the bundle):
# names, lengths, property attributes, not constructible, no prototype, the URL argument read only once.
WRAPPER_HTML = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script>
window.__reads = 0;
fetch({toString: function () { window.__reads++; return "https://benign.example/once"; }}).catch(function () {});
window.__readsAfterFetch = window.__reads;
try { fetch(); } catch (e) { window.__fetchThrew = true; }
</script></body></html>"""
WRAPPER_EXPRESSIONS = {
    "fetchShape": "fetch.name === 'fetch' && fetch.length === 1 && !('prototype' in fetch)",
    "fetchProperty": "(function (d) { return d.writable && d.enumerable && d.configurable; })"
    "(Object.getOwnPropertyDescriptor(window, 'fetch'))",
    "fetchNotConstructible": "(function () { try { new fetch('https://benign.example/'); return false; }"
    " catch (e) { return e instanceof TypeError; } })()",
    "fetchReturnsRejection": "window.__fetchThrew === undefined",
    "urlReadOnce": "window.__readsAfterFetch === 1",
    "xhrShape": "XMLHttpRequest.prototype.open.name === 'open' && XMLHttpRequest.prototype.open.length === 2 && "
    "XMLHttpRequest.prototype.send.name === 'send' && XMLHttpRequest.prototype.send.length === 0 && "
    "!('prototype' in XMLHttpRequest.prototype.open)",
    "xhrThrowsAsBefore": "(function () { try { XMLHttpRequest.prototype.open.call({}, 'GET', '/'); return false; }"
    " catch (e) { return e instanceof TypeError; } })()",
}


def _path_loads():
    loads = []
    for host, blocked in (("ads.test", True), ("quiet.test", False)):
        for kind in PATHS_SEEN:
            url = ("wss://%s/ws" % host) if kind == "websocket" else "https://%s/%s/x" % (host, kind)
            loads.append({"id": "%s:%s" % (host, kind), "url": url, "type": kind, "blocked": blocked})
    return loads


def inert(rules_path, bundle_path):
    rules = json.load(open(rules_path, encoding="utf-8"))
    bundle = open(bundle_path, encoding="utf-8").read()
    expressions = {
        "loaded": "window.__rbBundleLoaded === 1",
        "fetchNative": "/\\[native code\\]/.test(Function.prototype.toString.call(fetch))",
        "xhrNative": "/\\[native code\\]/.test(Function.prototype.toString.call(XMLHttpRequest.prototype.open))",
    }
    with Browser(timeout=20, user_scripts=[bundle + MARKER]) as b:
        res = b.run_scenario(
            {
                "id": "inert",
                "rules": [rules],
                "topURL": "https://news.example/",
                "loads": [{k: page_load[k] for k in ("id", "url", "type")} for page_load in _path_loads()],
                "expressions": expressions,
            }
        )
    ex = res.get("expressions") or {}
    failed = [k for k in expressions if ex.get(k) is not True]
    events = sum(
        len(page_load.get("trackerEvents") or []) for page_load in (res.get("loads") or {}).values() if page_load
    )
    if events:
        failed.append("%d tracker events" % events)
    _print({"inert": ex, "events": events, "failed": failed})
    return 1 if failed else 0


def paths(rules_path, bundle_path):
    rules = json.load(open(rules_path, encoding="utf-8"))
    bundle = open(bundle_path, encoding="utf-8").read()
    loads = _path_loads()
    with Browser(timeout=20, user_scripts=[bundle + MARKER]) as b:
        res = b.run_scenario(
            {
                "id": "paths",
                "rules": [rules],
                "topURL": "https://news.example/",
                "html": WRAPPER_HTML,
                "loads": [{k: page_load[k] for k in ("id", "url", "type")} for page_load in loads],
                "expressions": WRAPPER_EXPRESSIONS,
            }
        )
    ex = res.get("expressions") or {}
    failed = ["wrappers: %s is %r" % (k, ex.get(k)) for k in WRAPPER_EXPRESSIONS if ex.get(k) is not True]
    for page_load in loads:
        got = (res.get("loads") or {}).get(page_load["id"]) or {}
        seen = PATHS_SEEN[page_load["type"]][0 if page_load["blocked"] else 1]
        events = got.get("trackerEvents") or []
        if got.get("blocked") is not page_load["blocked"]:
            failed.append(
                "%s: WebKit blocked=%r, the fixture expects %r"
                % (page_load["id"], got.get("blocked"), page_load["blocked"])
            )
        elif seen:
            failed += [
                "%s: %s" % (page_load["id"], p)
                for p in tracker_report.problems(got, page_load["url"], True, page_load["blocked"])
            ]
        elif events:
            failed.append("%s: now seen (%s): update PATHS_SEEN and the README" % (page_load["id"], json.dumps(events)))
    _print(
        {
            "paths": {
                page_load["id"]: len(((res.get("loads") or {}).get(page_load["id"]) or {}).get("trackerEvents") or [])
                for page_load in loads
            },
            "failed": failed,
            "harness": res.get("error"),
        }
    )
    return 1 if failed else 0


def main(argv):
    if len(argv) == 3 and argv[0] == "paths":
        return paths(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "inert":
        return inert(argv[1], argv[2])
    if len(argv) in (4, 5) and argv[0] == "trackers":
        return trackers(*argv[1:])
    if len(argv) >= 4 and argv[0] == "reference":
        return reference(argv[1], argv[2], argv[3])
    if len(argv) == 2 and argv[0] == "hostile":
        return hostile(argv[1])
    if len(argv) == 3 and argv[0] == "behaviour":
        return behaviour(argv[1], argv[2])
    if len(argv) in (2, 3) and argv[0] == "load":
        return load(*argv[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
