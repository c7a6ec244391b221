"""DuckDuckGo's privacy-reference-tests for privacy-config features, run on a radarblock release in real WebKit.

`webkit-check features RELEASE_DIR --suite request-blocklist|click-to-load [--tests tests.json]`

The release's lists are read from its manifest's `lists` array (the one place that says which lists a release
holds). Each test is a page at the site URL that loads the request URL:
- request-blocklist (`websiteUrl`, `requestUrl`, `requestType`, `expectAction` block|allow): every list is
  loaded. A `main_frame` test is the top document itself: it passes when the page was not blocked.
- click-to-load (`siteUrl`, `requestUrl`, `userUnblockedRuleActions`, `expectedOutcome` block|redirect|ignore):
  the main lists plus every click-to-load list whose rule action the user has not unblocked (what an app does
  for that tab); the request is a script load; blocked is expected for block and redirect (on Apple platforms a
  surrogate replaces a blocked request).
Tests sharing a page and a set of lists share one page load. Prints one line per test and `N passed, N failed`.

With `--tracker-report TDS.json` (the bundle `surrogates` builds by default, with the report) every test also checks the
bundle's radarblock:tracker events (tracker_report.py); on the request-blocklist suite the surrogate checks below
are then left out.

With `--surrogates-js BUNDLE` the bundle runs in every page, after the script an app injects for the tab
(`window.radarblockUnblockedRuleActions = [...]`, the test's unblocked actions): a "redirect" test also needs its
surrogate to have run (the bundle's `radarblock:surrogate` event with `executed: true` for the request URL), and
no other test may run one.
"""

import json
import os
import sys

from . import tracker_report
from .harness import Browser
from .reference_tests import grouped_in_order

SUITES = ("request-blocklist", "click-to-load")
_HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "shared"))


def default_tests(suite):
    return os.path.join(SHARED, "data", "ddg", "reference-tests", suite, "tests.json")


def load_lists(release):
    with open(os.path.join(release, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    lists = []
    for entry in manifest.get("lists", []):
        with open(os.path.join(release, entry["rules"]), encoding="utf-8") as f:
            lists.append({"ruleAction": entry.get("ruleAction"), "file": entry["rules"], "rules": json.load(f)})
    if not lists:
        raise ValueError("%s: the manifest lists no rule lists" % release)
    return lists


def load_tests(path, suite):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    tests = []
    for group, body in data.items():
        for i, t in enumerate(body.get("tests", [])):
            key = "%s/%d" % (group, i)
            if suite == "request-blocklist":
                tests.append(
                    {
                        "key": key,
                        "name": t["name"],
                        "site": t["websiteUrl"],
                        "url": t["requestUrl"],
                        "type": t["requestType"],
                        "expected": t["expectAction"],
                        "expectBlocked": t["expectAction"] == "block",
                        "unblocked": [],
                        "exceptPlatforms": t.get("exceptPlatforms") or [],
                    }
                )
            else:
                tests.append(
                    {
                        "key": key,
                        "name": t["name"],
                        "site": t["siteUrl"],
                        "url": t["requestUrl"],
                        "type": "script",
                        "expected": t["expectedOutcome"],
                        "expectBlocked": t["expectedOutcome"] in ("block", "redirect"),
                        "unblocked": sorted(t.get("userUnblockedRuleActions") or []),
                        "exceptPlatforms": t.get("exceptPlatforms") or [],
                    }
                )
    return tests


def lists_for(lists, unblocked):
    """The main lists, and each click-to-load list whose rule action is not unblocked."""
    return [entry for entry in lists if entry["ruleAction"] is None or entry["ruleAction"] not in unblocked]


def build_scenarios(lists, tests):
    def page(t):
        top_only = t["type"] == "main_frame"
        return (t["site"] if not top_only else t["key"], tuple(t["unblocked"]))

    scenarios = []
    for key, ts in grouped_in_order(tests, page):
        chosen = lists_for(lists, ts[0]["unblocked"])
        loads = [{"id": t["key"], "url": t["url"], "type": t["type"]} for t in ts if t["type"] != "main_frame"]
        sc = {
            "id": "features:%s:%s" % key,
            "rules": [entry["rules"] for entry in chosen],
            "topURL": ts[0]["site"],
            "loads": loads,
        }
        scenarios.append((sc, ts, [entry["file"] for entry in chosen]))
    return scenarios


def preset_script(unblocked):
    """What an app injects before the bundle for a tab where the user unblocked these rule actions."""
    return "window.radarblockUnblockedRuleActions = %s;" % json.dumps(list(unblocked))


def run(lists, tests, timeout=20.0, out=sys.stdout, surrogates_js=None, trackers=None, check_surrogates=None):
    """With `surrogates_js`, the bundle runs in every page (after the app's unblocked-actions preset) and a test
    expecting "redirect" also needs its surrogate to have run; no other test may run one."""
    results = []
    if surrogates_js is None:
        batches = [((), tests)]
    else:
        by_unblocked = {}
        for t in tests:
            by_unblocked.setdefault(tuple(t["unblocked"]), []).append(t)
        batches = sorted(by_unblocked.items())
    for unblocked, batch in batches:
        scripts = [] if surrogates_js is None else [preset_script(unblocked), surrogates_js]
        with Browser(timeout=timeout, user_scripts=scripts) as b:
            results += _run_batch(
                b,
                lists,
                batch,
                surrogates_js is not None if check_surrogates is None else check_surrogates,
                out,
                trackers,
            )
    return results


def _run_batch(b, lists, tests, check_surrogates, out, trackers=None):
    """`trackers` (tracker_report.TrackerSet of the suite's TDS): the bundle reports trackers; a request is a
    tracker request when the TDS says so or when it is expected blocked (the request blocklist blocks
    non-trackers too, and says so)."""
    results = []
    for sc, ts, files in build_scenarios(lists, tests):
        res = b.run_scenario(sc)
        for t in ts:
            if t["type"] == "main_frame":
                blocked = res.get("topBlocked")
            else:
                load = (res.get("loads") or {}).get(t["key"])
                blocked = None if load is None else load["blocked"]
            ok = blocked is not None and blocked == t["expectBlocked"] and not res.get("rejected")
            ran = None
            if check_surrogates:
                ran = any(
                    isinstance(s, dict) and s.get("url") == t["url"] and s.get("executed")
                    for s in res.get("surrogates") or []
                )
                ok = ok and ran == (t["expected"] == "redirect")
            tracker_problems = None
            if trackers is not None and t["type"] != "main_frame":
                load = (res.get("loads") or {}).get(t["key"])
                tracker_problems = tracker_report.problems(
                    load,
                    t["url"],
                    trackers.is_tracker(t["url"]) or t["expectBlocked"],
                    t["expectBlocked"],
                    expect_surrogate=True if t["expected"] == "redirect" else None,
                )
                ok = ok and not tracker_problems
            r = dict(
                t,
                blocked=blocked,
                passed=ok,
                lists=files,
                harnessError=res.get("error"),
                rejected=res.get("rejected"),
                surrogateRan=ran,
                trackerProblems=tracker_problems,
            )
            results.append(r)
            got = {True: "blocked", False: "allowed", None: "unknown"}[blocked]
            extra = ""
            if t["unblocked"]:
                extra += "  [unblocked: %s]" % ",".join(t["unblocked"])
            if ran is not None:
                extra += "  [surrogate ran: %s]" % ran
            if res.get("rejected"):
                extra += "  [WebKit rejected a list: %s]" % res["rejected"]
            if res.get("error"):
                extra += "  [harness: %s]" % res["error"]
            if tracker_problems:
                extra += "  [tracker events: %s]" % "; ".join(tracker_problems)
            print(
                "%s %-14s %s: %s -> %s (%s) expect=%s got=%s lists=%s%s"
                % (
                    "PASS" if ok else "FAIL",
                    t["key"],
                    t["name"],
                    t["site"],
                    t["url"],
                    t["type"],
                    t["expected"],
                    got,
                    "+".join(files),
                    extra,
                ),
                file=out,
                flush=True,
            )
    return results


def main(args):
    tests_path = args.tests or default_tests(args.suite)
    if not os.path.exists(tests_path):
        print(
            "webkit-check features: SKIP: %s not found (the shared data lives in ../shared; pass --tests)" % tests_path,
            file=sys.stderr,
        )
        return 77
    lists = load_lists(args.release)
    tests = load_tests(tests_path, args.suite)
    surrogates_js = None
    if args.surrogates_js:
        with open(args.surrogates_js, encoding="utf-8") as f:
            surrogates_js = f.read()
    trackers = tracker_report.TrackerSet(args.tracker_report) if args.tracker_report else None
    # With --tracker-report on the request-blocklist suite the bundle is there for its events: that suite says
    # nothing about surrogates (a blocklisted script with a TDS surrogate gets it, as any blocked one).
    check_surrogates = None if trackers is None or args.suite == "click-to-load" else False
    results = run(
        lists,
        tests,
        timeout=args.timeout,
        surrogates_js=surrogates_js,
        trackers=trackers,
        check_surrogates=check_surrogates,
    )
    passed = sum(1 for r in results if r["passed"])
    print("%d passed, %d failed" % (passed, len(results) - passed), flush=True)
    if trackers is not None:
        checked = [r for r in results if r["trackerProblems"] is not None]
        print(
            "tracker events agree with WebKit and the expectation: %d/%d (main_frame tests: the page itself, no event)"
            % (sum(1 for r in checked if not r["trackerProblems"]), len(checked)),
            flush=True,
        )
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "release": os.path.abspath(args.release),
                    "tests": os.path.abspath(tests_path),
                    "suite": args.suite,
                    "passed": passed,
                    "total": len(results),
                    "results": results,
                },
                f,
                indent=2,
            )
            f.write("\n")
    return 0 if passed == len(results) else 1
