#!/usr/bin/env bash
# What the WebKitGTK app loads, end to end (README, "What an app loads"; docs/install.md): a release is built with
# the default target, `radarblock install` compiles its lists into a filter store, and a real WebKitWebView loads
# them from the store (webkit_user_content_filter_store_load, nothing compiled by the harness) with the release's
# surrogates.js injected at document start in all frames. One page then checks: a tracker script is blocked, an
# analytics script is replaced by its surrogate (the page sees what the surrogate defines) and the blocked request
# is reported to the page as a `radarblock:tracker` event saying blocked. It runs on the sample data, and with
# DuckDuckGo's iOS data in ../shared on the real TDS, config and surrogates.txt, where the page calls ga() after
# loading google-analytics.com/analytics.js: that works only when the surrogate ran.
# usage: scripts/testing/check_app_page.sh RADARBLOCK   (SHARED: the shared data, default ../shared)
set -uo pipefail
# lib.sh: $rb, $root and the scratch directory $tmp; a failure here ends the check at once.
source "$(dirname "${BASH_SOURCE[0]}")/../../Tests/cli/lib.sh"
start_in_scratch "${1:?usage: scripts/testing/check_app_page.sh RADARBLOCK}"
fail() { echo "FAIL: $*"; exit 1; }
bin=$rb here=$root data=$root/data

# The page's scenario for the harness, from the store's install record: STATE RELEASE TOP TRACKER SURROGATE EXPR.
scenario_py='
import json, os, sys
state_file, release, top, tracker, surrogate, expression = sys.argv[1:]
state = json.load(open(state_file, encoding="utf-8"))
entry = [r for r in state["releases"] if os.path.realpath(r["path"]) == os.path.realpath(release)]
print(json.dumps({
    "id": "app-page",
    "topURL": top,
    "installed": {"store": os.path.dirname(os.path.abspath(state_file)),
                  "identifiers": [listed["identifier"] for listed in entry[0]["lists"]]},
    "loads": [{"id": "tracker", "url": tracker, "type": "script"}, {"id": "ga", "url": surrogate, "type": "script"}],
    "expressions": {"ga": expression},
}))
'
# What the page got: the tracker blocked, the surrogate's script blocked and its expression true, the event.
verdict_py='
import json, sys
r = json.loads(open(sys.argv[1], encoding="utf-8").readline())
print("   page: %s" % json.dumps({k: r.get(k) for k in ("loads", "expressions", "surrogates", "error")}))
problems = []
if r.get("error") or r.get("rejected"):
    problems.append("harness: %s" % (r.get("error") or r.get("rejected")))
loads = r.get("loads") or {}
if not (loads.get("tracker") or {}).get("blocked"):
    problems.append("the tracker script was not blocked")
if not (loads.get("ga") or {}).get("blocked"):
    problems.append("the surrogate script reached the network (the list should block it)")
if (r.get("expressions") or {}).get("ga") is not True:
    problems.append("the surrogate did not run (the page expression is not true)")
events = (loads.get("tracker") or {}).get("trackerEvents") or []
if not any(e.get("blocked") is True for e in events):
    problems.append("no radarblock:tracker event saying blocked for the tracker: %s" % events)
for p in problems:
    print("   " + p)
sys.exit(1 if problems else 0)
'

# check_page NAME TOP_URL TRACKER_URL SURROGATE_URL EXPRESSION BUILD_ARGS...
check_page() {
  local name=$1 top=$2 tracker=$3 surrogate=$4 expression=$5
  shift 5
  "$bin" build "$@" --out "$tmp/$name" > /dev/null 2> "$tmp/$name.err" || fail "$name: build: $(cat "$tmp/$name.err")"
  "$bin" install "$tmp/$name" --store "$tmp/$name-store" > "$tmp/$name.install" 2>&1 \
    || fail "$name: install: $(cat "$tmp/$name.install")"
  echo "-- $name: $(tail -1 "$tmp/$name.install")"
  /usr/bin/python3 -c "$scenario_py" "$tmp/$name-store/radarblock-install.json" "$tmp/$name" "$top" "$tracker" \
    "$surrogate" "$expression" > "$tmp/$name.jsonl" || fail "$name: scenario"
  "$here/scripts/webkit-check" pages "$tmp/$name.jsonl" --user-script "$tmp/$name/surrogates.js" \
    > "$tmp/$name.result" 2> "$tmp/$name.pages" || fail "$name: webkit-check pages: $(tail -5 "$tmp/$name.pages")"
  /usr/bin/python3 -c "$verdict_py" "$tmp/$name.result" || fail "$name: the page did not get what the app loads"
  echo "OK: $name: blocked tracker, surrogate loaded, radarblock:tracker event"
}

# The sample: news.example loads tracker.example/ads.js (default block) and analytics.example/ga.js (a surrogate
# rule: blocked by the list, replaced by data/surrogates.txt's ga.js, which defines window.sampleAnalytics).
check_page sample https://news.example/article https://tracker.example/ads.js https://analytics.example/ga.js \
  "window.sampleAnalytics !== undefined && window.sampleAnalytics.loaded === true" \
  --tds "$data/tds.json" --config "$data/privacy-config.json" --surrogates "$data/surrogates.txt"

ddg=${SHARED:-$root/../shared}/data/ddg
if [ ! -d "$ddg/tds" ]; then
  echo "SKIPPED: the real ga surrogate: DuckDuckGo's data is not in $ddg"
  exit 0
fi
# The real data: bat.bing.com/bat.js is blocked; analytics.js is replaced by DuckDuckGo's surrogate, so the page's
# ga() calls work (without the bundle they throw).
check_page ios https://example.com/ https://bat.bing.com/bat.js https://www.google-analytics.com/analytics.js \
  "(function () { try { ga('create', 'UA-1-1', 'auto'); ga('send', 'pageview'); return true } catch (e) { return false } })()" \
  --tds "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json" \
  --surrogates "$ddg/surrogates/surrogates.txt"
