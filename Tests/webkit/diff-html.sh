#!/usr/bin/env bash
# `diff --format html` in real WebKit (issue 30): the page loads from a file with no console error and no
# request to the network, its charts are drawn, filtering a tracker shows exactly that tracker's flips (counted
# from the JSON report), 100,000 flips load and filter, and hostile dataset strings stay text. A screenshot of
# the iOS report is kept in $RADARBLOCK_ARTIFACTS (default out/test-artifacts). The iOS case needs ../shared.
# usage: Tests/webkit/diff-html.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../cli/lib.sh"
start_in_scratch "$1"
artifacts=${RADARBLOCK_ARTIFACTS:-$root/out/test-artifacts}
mkdir -p "$artifacts"
check="$root/scripts/webkit-check"

# page NAME HTML STEPS.json: loads HTML in WebKit (steps run after the load); the result is NAME.result.json.
page() {
  expect "$1 in WebKit" 0 "$check" page "$2" --steps "$3" ${4:+--screenshot "$4"}
  cp "$tmp/out" "$1.result.json"
}
# result NAME PYTHON-EXPR: over r (the page's result) and `want` (the expected values), the expression holds.
result() {
  cases=$((cases + 1))
  python3 -c "import json,sys; r=json.load(open('$1.result.json')); want=json.load(open('$1.want.json')); sys.exit(0 if ($2) else 1)" \
    || fail "$1: $2 does not hold for $(head -c 800 "$1.result.json")"
}
inputs="$here/diff_html_inputs.py"   # the steps, expected counts and datasets below, one subcommand each

# report NAME TRACKER [SCREENSHOT] -- DIFF-ARGS...: the HTML and JSON reports of one diff, the counts expected
# from the JSON, and the page's result in WebKit (a tracker filter of TRACKER among its steps).
report() {
  local name=$1 tracker=$2 shot=$3; shift 4
  expect "$name html" 1 "$rb" diff "$@" --format html -o "$name.html"
  expect "$name json" 1 "$rb" diff "$@" --format json -o "$name.json"
  python3 "$inputs" want "$name.json" "$tracker" "$name.want.json"
  python3 "$inputs" steps "$name.steps.json" "$tracker"
  page "$name" "$name.html" "$name.steps.json" "$shot"
}

# 100,000 flips: every request is allowed by the old list and blocked by the new one.
printf '%s\n' '[{"trigger":{"url-filter":"^https://never\\.invalid/"},"action":{"type":"block"}}]' > none.json
echo '[{"trigger":{"url-filter":".*"},"action":{"type":"block"}}]' > all.json
python3 "$inputs" flips-corpus 100000 many.jsonl
report many t7.example "" -- none.json all.json --requests many.jsonl
result many "r['errors'] == [] and r['proxyRequests'] == 0 and int(r['results'][0].split(',')[0]) >= 1 and r['results'][0].split(',')[1] == '4'"
result many "r['results'][1] == want['flips'] == 100000"
result many "json.loads(r['results'][2]) == [want['tracker'], want['tracker'], True] and want['tracker'] == 100"
echo "100,000 flips: $(stat -c %s many.html) bytes, loaded in $(python3 -c "import json; print(json.load(open('many.result.json'))['seconds'])") s"

# Hostile dataset strings: an entity name and a tracker rule that try to close the data block or add markup.
python3 "$inputs" hostile-tds "$root/data/tds.json" evil-old.json evil-new.json
report evil tracker.example "" -- evil-old.json evil-new.json
result evil "r['errors'] == [] and r['proxyRequests'] == 0 and r['results'][3] == 'undefined'"
result evil "want['tracker'] > 0 and json.loads(r['results'][2]) == [want['tracker'], want['tracker'], True]"
result evil "sorted(json.loads(r['results'][4])[1:]) == want['entities'] and any('</script>' in e for e in want['entities'])"

# The iOS diff (embedded -> v5, derived corpus): the screenshot is the test's artifact.
ddg=${SHARED:-$root/../shared}/data/ddg
if [ -d "$ddg/tds" ]; then
  config="$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json"
  report ios iocnt.net "$artifacts/diff-report-ios.png" -- "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config"
  result ios "r['errors'] == [] and r['proxyRequests'] == 0 and int(r['results'][0].split(',')[0]) >= 15 and r['results'][0].split(',')[1] == '4'"
  result ios "r['results'][1] == want['flips'] == 28304"
  result ios "json.loads(r['results'][2]) == [want['tracker'], min(want['tracker'], 500), True]"
  [ -s "$artifacts/diff-report-ios.png" ] || fail "ios: no screenshot in $artifacts"
  echo "iOS report: $(stat -c %s ios.html) bytes, loaded in $(python3 -c "import json; print(json.load(open('ios.result.json'))['seconds'])") s; screenshot $artifacts/diff-report-ios.png"
else
  echo "Tests/webkit/diff-html.sh: the iOS report is SKIPPED: $ddg not found (DuckDuckGo's data is not in the repository)"
fi

finish
