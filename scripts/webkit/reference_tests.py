"""DuckDuckGo's privacy-reference-tests (TR-domain-matching/domain_matching_tests.json) in real WebKit.

Each test is a page at `siteURL` that loads `requestURL` as `requestType`; the test expects the load to
be blocked iff `expectAction` is "block" or "redirect" (a surrogate replaces a *blocked* request on
Apple platforms). Every test is run, including those with `exceptPlatforms` (they are only labelled).

Tests sharing a siteURL share one page (the harness splits duplicate URLs into separate page loads).
Tests with `expectExpression` get a page of their own, because the expression (e.g.
`window.surrogate1 === true`) is evaluated in the page after it settled; with --surrogates-js the
expression must be true for `redirect` tests.
"""

import gzip
import json
import os
import sys

from . import tracker_report
from .harness import SURROGATE_EVENT, Browser

_HERE = os.path.dirname(os.path.abspath(__file__))
# ../shared relative to the repository (scripts/webkit -> repo root -> ..)
SHARED = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "shared"))
DEFAULT_TESTS = os.path.join(
    SHARED, "data", "ddg", "reference-tests", "tracker-radar-tests", "TR-domain-matching", "domain_matching_tests.json"
)


def read_rules(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read()


def load_tests(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    tests = []
    for suite_key, suite in data.items():
        for i, t in enumerate(suite.get("tests", [])):
            t = dict(t)
            t["suite"] = suite_key
            t["key"] = "%s/%d" % (suite_key, i)
            tests.append(t)
    return tests


def _expected_blocked(t):
    return t.get("expectAction") in ("block", "redirect")


def grouped_in_order(items, key):
    """(key, items with that key) pairs, keys in order of first appearance: one page per group of loads."""
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return list(groups.items())


def build_scenarios(rules_text, tests, one_per_page=False, extra_rules=()):
    """Scenario dicts (harness format) and, for each, the tests it answers."""
    rules = json.loads(rules_text)
    lists = [rules] + [json.loads(t) for t in extra_rules]  # every list installed, as an app adds a release's lists

    def page(t):
        own = one_per_page or bool(t.get("expectExpression"))
        return ("own", t["key"]) if own else ("site", t["siteURL"])

    scenarios = []
    for key, ts in grouped_in_order(tests, page):
        sc = {
            "id": "ref:%s" % (key[1],),
            "rules": lists,
            "topURL": ts[0]["siteURL"],
            "loads": [{"id": t["key"], "url": t["requestURL"], "type": t["requestType"]} for t in ts],
        }
        exprs = {t["key"]: t["expectExpression"] for t in ts if t.get("expectExpression")}
        if exprs:
            sc["expressions"] = exprs
        scenarios.append((sc, ts))
    return scenarios


def run(
    rules_text,
    tests,
    surrogates_js=None,
    timeout=20.0,
    one_per_page=False,
    out=sys.stdout,
    trackers=None,
    extra_rules=(),
):
    """`trackers` (a tracker_report.TrackerSet): the bundle reports trackers; each test also checks its events."""
    scripts = [surrogates_js] if surrogates_js else []
    results = []
    with Browser(timeout=timeout, user_scripts=scripts) as b:
        for sc, ts in build_scenarios(rules_text, tests, one_per_page, extra_rules):
            res = b.run_scenario(sc)
            for t in ts:
                load = (res.get("loads") or {}).get(t["key"])
                blocked = None if load is None else load["blocked"]
                r = {
                    "key": t["key"],
                    "suite": t["suite"],
                    "name": t["name"],
                    "siteURL": t["siteURL"],
                    "requestURL": t["requestURL"],
                    "requestType": t["requestType"],
                    "expectAction": t.get("expectAction"),
                    "exceptPlatforms": t.get("exceptPlatforms") or [],
                    "expectedBlocked": _expected_blocked(t),
                    "blocked": blocked,
                    "event": None if load is None else load.get("event"),
                    "harnessError": res.get("error"),
                }
                ok = blocked is not None and blocked == r["expectedBlocked"]
                if t.get("expectExpression"):
                    val = (res.get("expressions") or {}).get(t["key"])
                    r["expectExpression"] = t["expectExpression"]
                    r["expression"] = val
                    r["surrogates"] = res.get("surrogates", [])
                    if surrogates_js and t.get("expectAction") == "redirect":
                        ok = ok and val is True
                if trackers is not None:
                    r["trackerEvents"] = None if load is None else load.get("trackerEvents")
                    r["trackerProblems"] = tracker_report.problems(
                        load,
                        t["requestURL"],
                        t.get("expectAction") is not None,
                        r["expectedBlocked"],
                        expect_surrogate=t.get("expectAction") == "redirect",
                    )
                    ok = ok and not r["trackerProblems"]
                r["passed"] = bool(ok)
                results.append(r)
                flag = "PASS" if ok else "FAIL"
                extra = ""
                if r["exceptPlatforms"]:
                    extra += "  [exceptPlatforms: %s]" % ",".join(r["exceptPlatforms"])
                if "expression" in r:
                    extra += "  [%s -> %s]" % (t["expectExpression"], r["expression"])
                if r["harnessError"]:
                    extra += "  [harness: %s]" % r["harnessError"]
                if r.get("trackerProblems"):
                    extra += "  [tracker events: %s]" % "; ".join(r["trackerProblems"])
                got = {True: "blocked", False: "allowed", None: "unknown"}[blocked]
                print(
                    "%s %-16s %s: %s -> %s (%s) expect=%s got=%s%s"
                    % (
                        flag,
                        t["key"],
                        t["name"],
                        t["siteURL"],
                        t["requestURL"],
                        t["requestType"],
                        t.get("expectAction"),
                        got,
                        extra,
                    ),
                    file=out,
                    flush=True,
                )
    return results


def summary(results):
    passed = sum(1 for r in results if r["passed"])
    failed = len(results) - passed

    def split(pred):
        sel = [r for r in results if pred(r)]
        return {"total": len(sel), "passed": sum(1 for r in sel if r["passed"])}

    events = [r for r in results if "trackerProblems" in r]
    return {
        "passed": passed,
        "failed": failed,
        "total": len(results),
        "trackerEventsAgree": sum(1 for r in events if not r["trackerProblems"]) if events else None,
        "iosBrowserExceptions": split(lambda r: "ios-browser" in r["exceptPlatforms"]),
        "withoutIosBrowserExceptions": split(lambda r: "ios-browser" not in r["exceptPlatforms"]),
        "harnessErrors": sum(1 for r in results if r["harnessError"]),
    }


def main(args):
    tests_path = args.tests or DEFAULT_TESTS
    if not os.path.exists(tests_path):
        print(
            "webkit-check reference: SKIP: %s not found (the shared data lives in ../shared; pass --tests)"
            % tests_path,
            file=sys.stderr,
        )
        return 77  # the automake "skipped" code: absent data is not a failure
    rules_text = read_rules(args.rules)
    surrogates_js = None
    if args.surrogates_js:
        with open(args.surrogates_js, encoding="utf-8") as f:
            surrogates_js = f.read()
    tests = load_tests(tests_path)
    trackers = tracker_report.TrackerSet(args.tracker_report) if args.tracker_report else None
    extra = [read_rules(p) for p in args.extra_rules or []]
    results = run(
        rules_text,
        tests,
        surrogates_js,
        timeout=args.timeout,
        one_per_page=args.one_per_page,
        trackers=trackers,
        extra_rules=extra,
    )
    s = summary(results)
    print("%d passed, %d failed" % (s["passed"], s["failed"]), flush=True)
    if trackers is not None:
        print(
            "tracker events agree with WebKit and expectAction: %d/%d" % (s["trackerEventsAgree"], s["total"]),
            flush=True,
        )
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "rules": os.path.abspath(args.rules),
                    "tests": os.path.abspath(tests_path),
                    "surrogatesJS": args.surrogates_js,
                    "surrogateEvent": SURROGATE_EVENT,
                    "summary": s,
                    "results": results,
                },
                f,
                indent=2,
            )
            f.write("\n")
    if args.expect_passed is not None:
        return 0 if s["passed"] == args.expect_passed else 1
    return 0 if s["failed"] == 0 else 1
