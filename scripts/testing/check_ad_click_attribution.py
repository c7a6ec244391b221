#!/usr/bin/env python3
"""Ad-click attribution in real WebKit (issue 34), on a release of the iOS TDS + iOS config.

usage: check_ad_click_attribution.py RADARBLOCK TDS CONFIG SURROGATES SEED WORKDIR

- Default state (the release's lists: its main lists + the ad-click attribution list):
  https://bat.bing.com/action/0?ti=1 is blocked on https://advertiser.example/.
- Attributed for advertiser.example (main + `radarblock attribution RELEASE --vendor advertiser.example`): it is
  allowed on https://advertiser.example/ and https://www.advertiser.example/, still blocked on
  https://other-shop.example/.
- https://bat.bing.com/bat.js (the same conversion host) likewise.
- Every other Bing URL below and every request of the 200-tracker iOS sample page (Tests/js: 200 tracker requests,
  50 benign, seeded) decides exactly as in the default state on each of the three pages, and `radarblock match`
  (the release directory, with --attributed-vendor for the attributed state) agrees with WebKit on every load.
- The bundle (--report-trackers; the app presets window.radarblockAttributedVendor in the attributed state) reports
  each tracker load once, blocked as WebKit did; the allowed conversion load with reason ad-click-attribution.
- The feature disabled in a copy of the config: the release has no attribution list, and its main list is
  byte-identical to the one built with the feature removed from the config (what radarblock built before).
Prints figures and mismatches; exit 1 on any. Runs itself under xvfb-run when there is no display.
"""

import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from release_lists import main_lists, rule_lists  # noqa: E402

BAT = "https://bat.bing.com/action/0?ti=1"
# Another URL of the conversion host (the attributed rule covers the whole host), then other Bing URLs.
BAT_SCRIPT = "https://bat.bing.com/bat.js"
BING_OTHERS = [
    "https://www.bing.com/th?id=OHR.rb",
    "https://c.bing.com/c.gif?rb=1",
    "https://r.bing.com/rp/rb.js",
    "https://bing.com/fd/ls/l?IG=rb",
    "https://www.bing.com/api/maps/mapcontrol",
]
PAGES = ["https://advertiser.example/", "https://www.advertiser.example/", "https://other-shop.example/"]
VENDOR = "advertiser.example"


def reexec_under_xvfb():
    env = dict(
        os.environ,
        WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS="1",
        WEBKIT_DISABLE_COMPOSITING_MODE="1",
        LIBGL_ALWAYS_SOFTWARE="1",
        PYTHONDONTWRITEBYTECODE="1",
        RB_ACA_XVFB="1",
        PYTHONPATH=SCRIPTS + (":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""),
    )
    os.execvpe(
        "xvfb-run", ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -nolisten tcp", "/usr/bin/python3"] + sys.argv, env
    )


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def build(rb, tds, config, surrogates, out):
    run([rb, "build", "--tds", tds, "--config", config, "--surrogates", surrogates, "--report-trackers", "--out", out])
    return json.load(open(os.path.join(out, "manifest.json")))


def sha(paths):
    h = hashlib.sha256()
    for path in paths:
        h.update(open(path, "rb").read())
    return h.hexdigest()


def feature_disabled(rb, tds, config, surrogates, work):
    """The release without the split: no attribution list, the main list as with the feature absent."""
    cfg = json.load(open(config))
    variants = {}
    for name in ("disabled", "absent"):
        c = json.loads(json.dumps(cfg))
        if name == "disabled":
            c["features"]["adClickAttribution"]["state"] = "disabled"
        else:
            del c["features"]["adClickAttribution"]
        path = os.path.join(work, "config-%s.json" % name)
        json.dump(c, open(path, "w"))
        out = os.path.join(work, "release-%s" % name)
        m = build(rb, tds, path, surrogates, out)
        variants[name] = (m, sha(main_lists(out)))
    roles = [list_entry.get("role") for list_entry in variants["disabled"][0]["lists"]]
    files = sorted(f for f in os.listdir(os.path.join(work, "release-disabled")) if f.startswith("attribution"))
    print(
        "feature disabled: lists %s, attribution files %s; main lists sha256 %s (feature absent: %s)"
        % (
            [list_entry["rules"] for list_entry in variants["disabled"][0]["lists"]],
            files,
            variants["disabled"][1],
            variants["absent"][1],
        )
    )
    return (
        []
        if "ad-click-attribution" not in roles and not files and variants["disabled"][1] == variants["absent"][1]
        else ["feature disabled: the release still splits, or its main list differs"]
    )


def match_blocked(rb, release, requests, vendor=None):
    path = release + "/.aca-requests.jsonl"
    with open(path, "w") as f:
        for r in requests:
            f.write(json.dumps(r) + "\n")
    cmd = [rb, "match", release, "--requests", path] + (["--attributed-vendor", vendor] if vendor else [])
    out = run(cmd).splitlines()
    os.unlink(path)
    return [any(a.get("type") == "block" for a in json.loads(line).get("actions", [])) for line in out]


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    if not os.environ.get("DISPLAY") and not os.environ.get("RB_ACA_XVFB"):
        reexec_under_xvfb()
    rb, tds, config, surrogates, seed, work = sys.argv[1:]
    sys.path.insert(0, SCRIPTS)
    from webkit import tracker_report
    from webkit.harness import Browser

    os.makedirs(work, exist_ok=True)
    release = os.path.join(work, "release")
    manifest = build(rb, tds, config, surrogates, release)
    entry = next(
        (list_entry for list_entry in manifest["lists"] if list_entry.get("role") == "ad-click-attribution"), None
    )
    if entry is None:
        sys.exit("the release has no ad-click attribution list")
    print(
        "release lists: %s; attribution list covers %s"
        % (
            ", ".join(
                "%s (%d rules)" % (list_entry["rules"], list_entry["ruleCount"]) for list_entry in manifest["lists"]
            ),
            ", ".join("%s/%s" % (a["blocklistEntry"], a["host"]) for a in entry["allowlist"]),
        )
    )
    attributed_path = os.path.join(work, "attributed.json")
    line = json.loads(run([rb, "attribution", release, "--vendor", "www." + VENDOR, "-o", attributed_path]))
    print("attributed list: %s, %d rules" % (line["identifier"], line["ruleCount"]))
    mains = rule_lists(release)
    blocking = json.load(open(os.path.join(release, entry["rules"])))
    attributed = json.load(open(attributed_path))
    bundle = open(os.path.join(release, "surrogates.js"), encoding="utf-8").read()
    tracker_set = tracker_report.TrackerSet(tds)

    sample = tracker_report.sampled_loads(tds, int(seed))
    urls = [BAT, BAT_SCRIPT] + BING_OTHERS + [load["url"] for load in sample]
    loads = [{"id": "r%d" % i, "url": u, "type": "script" if i % 2 else "image"} for i, u in enumerate(urls)]
    failures = []
    results = {}
    states = {
        "default": ([*mains, blocking], [bundle]),
        "attributed": (
            [*mains, attributed],
            ["window.radarblockAttributedVendor = %s;" % json.dumps(VENDOR), bundle],
        ),
    }
    for state, (lists, scripts) in states.items():
        with Browser(timeout=60, user_scripts=scripts) as b:
            for page in PAGES:
                res = b.run_scenario({"id": state + page, "rules": lists, "topURL": page, "loads": loads})
                if res.get("error"):
                    failures.append("%s %s: harness: %s" % (state, page, res["error"]))
                results[(state, page)] = res.get("loads") or {}
        for page in PAGES:
            requests = [{"url": load["url"], "topURL": page, "resourceType": load["type"]} for load in loads]
            said = match_blocked(rb, release, requests, VENDOR if state == "attributed" else None)
            got = results[(state, page)]
            agree = 0
            for load, m in zip(loads, said, strict=True):
                w = (got.get(load["id"]) or {}).get("blocked")
                if w is m:
                    agree += 1
                else:
                    failures.append("%s %s %s: WebKit blocked=%s, match blocked=%s" % (state, page, load["url"], w, m))
                problems = tracker_report.problems(
                    got.get(load["id"]), load["url"], tracker_set.is_tracker(load["url"]), bool(w)
                )
                failures += ["%s %s %s: event: %s" % (state, page, load["url"], p) for p in problems]
            print(
                "%-10s %-32s WebKit blocked %3d of %d loads; match agrees on %d"
                % (
                    state,
                    page,
                    sum(1 for load in loads if (got.get(load["id"]) or {}).get("blocked")),
                    len(loads),
                    agree,
                )
            )

    def blocked(state, page, i=0):
        return (results[(state, page)].get(loads[i]["id"]) or {}).get("blocked")

    expect = {
        ("default", PAGES[0]): True,
        ("attributed", PAGES[0]): False,
        ("attributed", PAGES[1]): False,
        ("attributed", PAGES[2]): True,
        ("default", PAGES[1]): True,
        ("default", PAGES[2]): True,
    }
    for (state, page), want in sorted(expect.items()):
        for i in (0, 1):
            got = blocked(state, page, i)
            print(
                "%s on %s (%s): %s"
                % (loads[i]["url"], page, state, {True: "blocked", False: "allowed", None: "no answer"}[got])
            )
            if got is not want:
                failures.append(
                    "%s on %s (%s): expected %s" % (loads[i]["url"], page, state, "blocked" if want else "allowed")
                )
    same = 0
    for page in PAGES:
        for i, load in enumerate(loads[2:], 2):
            d, a = blocked("default", page, i), blocked("attributed", page, i)
            if d is a and d is not None:
                same += 1
            else:
                failures.append("%s on %s: default blocked=%s, attributed blocked=%s" % (load["url"], page, d, a))
    print(
        "other loads deciding as in the default state: %d of %d (%d Bing URLs + %d sample requests, 3 pages)"
        % (same, 3 * (len(loads) - 2), len(BING_OTHERS), len(sample))
    )
    for page, want in ((PAGES[0], False), (PAGES[2], True)):
        events = (results[("attributed", page)].get(loads[0]["id"]) or {}).get("trackerEvents") or []
        reasons = [(e.get("reason"), e.get("blocked")) for e in events]
        print("tracker report for %s on %s (attributed): %s" % (BAT, page, reasons))
        if reasons != [("ad-click-attribution", want)]:
            failures.append("tracker report on %s: %s, expected [('ad-click-attribution', %s)]" % (page, reasons, want))
    failures += feature_disabled(rb, tds, config, surrogates, work)
    for f in failures[:40]:
        print("FAIL " + f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
