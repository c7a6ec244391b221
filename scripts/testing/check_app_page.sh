#!/usr/bin/env bash
# What the WebKitGTK app loads, end to end (README, "What an app loads"; docs/install.md): the sample release is
# built with the default target, `radarblock install` compiles its lists into a filter store, and a real
# WebKitWebView loads them from the store (webkit_user_content_filter_store_load, nothing compiled by the harness)
# with the release's surrogates.js injected at document start in all frames. One page then checks: a tracker
# script is blocked, the analytics script is replaced by its surrogate (the page sees the surrogate's global) and
# the blocked request is reported to the page as a `radarblock:tracker` event saying blocked.
# usage: scripts/testing/check_app_page.sh RADARBLOCK
set -uo pipefail
# lib.sh: $rb, $root and the scratch directory $tmp; a failure here ends the check at once.
source "$(dirname "${BASH_SOURCE[0]}")/../../Tests/cli/lib.sh"
start_in_scratch "${1:?usage: scripts/testing/check_app_page.sh RADARBLOCK}"
fail() { echo "FAIL: $*"; exit 1; }
bin=$rb here=$root data=$root/data

"$bin" build --tds "$data/tds.json" --config "$data/privacy-config.json" --surrogates "$data/surrogates.txt" \
  --out "$tmp/release" > /dev/null 2> "$tmp/build.err" || fail "build of data/: $(cat "$tmp/build.err")"
"$bin" install "$tmp/release" --store "$tmp/store" > "$tmp/install.out" 2>&1 || fail "install: $(cat "$tmp/install.out")"
echo "-- $(tail -1 "$tmp/install.out")"

# The page: news.example loads tracker.example/ads.js (default block) and analytics.example/ga.js (a surrogate
# rule: blocked by the list, replaced by data/surrogates.txt's ga.js, which defines window.sampleAnalytics).
/usr/bin/python3 - "$tmp/store/radarblock-install.json" "$tmp/release" > "$tmp/scenario.jsonl" << 'EOF' || fail "scenario"
import json, os, sys
state = json.load(open(sys.argv[1], encoding="utf-8"))
entry = [r for r in state["releases"] if os.path.realpath(r["path"]) == os.path.realpath(sys.argv[2])]
print(json.dumps({
    "id": "app-page",
    "topURL": "https://news.example/article",
    "installed": {"store": os.path.dirname(os.path.abspath(sys.argv[1])),
                  "identifiers": [listed["identifier"] for listed in entry[0]["lists"]]},
    "loads": [{"id": "tracker", "url": "https://tracker.example/ads.js", "type": "script"},
              {"id": "ga", "url": "https://analytics.example/ga.js", "type": "script"}],
    "expressions": {"ga": "window.sampleAnalytics !== undefined && window.sampleAnalytics.loaded === true"},
}))
EOF

"$here/scripts/webkit-check" pages "$tmp/scenario.jsonl" --user-script "$tmp/release/surrogates.js" \
  > "$tmp/result.jsonl" 2> "$tmp/pages.err" || fail "webkit-check pages: $(tail -5 "$tmp/pages.err")"
/usr/bin/python3 - "$tmp/result.jsonl" << 'EOF' || fail "the page did not get what the app is told to load"
import json, sys
r = json.loads(open(sys.argv[1], encoding="utf-8").readline())
print("   page: %s" % json.dumps({k: r.get(k) for k in ("loads", "expressions", "surrogates", "error")}))
problems = []
if r.get("error") or r.get("rejected"):
    problems.append("harness: %s" % (r.get("error") or r.get("rejected")))
loads = r.get("loads") or {}
if not (loads.get("tracker") or {}).get("blocked"):
    problems.append("tracker.example/ads.js was not blocked")
if not (loads.get("ga") or {}).get("blocked"):
    problems.append("analytics.example/ga.js reached the network (the list should block it)")
if (r.get("expressions") or {}).get("ga") is not True:
    problems.append("the ga.js surrogate did not run (window.sampleAnalytics.loaded is not true)")
events = (loads.get("tracker") or {}).get("trackerEvents") or []
if not any(e.get("blocked") is True for e in events):
    problems.append("no radarblock:tracker event saying blocked for tracker.example/ads.js: %s" % events)
for p in problems:
    print("   " + p)
sys.exit(1 if problems else 0)
EOF
echo "OK: blocked tracker, surrogate loaded, radarblock:tracker event"
