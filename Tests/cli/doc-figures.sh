#!/usr/bin/env bash
# The figures and behaviours the docs state, read from the docs and compared with what the tool prints, so a doc
# cannot drift from the tool again (issue 41, item 9):
# - data/README.md, data/unprotected-sites.txt and `build --help`: a user-unprotected host covers its subdomains,
#   and request 19 of data/requests.jsonl (a subdomain of an unprotected host) is allowed by `match`;
# - docs/surrogates.md: the bundle's size for the iOS TDS v5 + iOS config, with and without the tracker report;
# - docs/cookie-popups.md: rules and JSON bytes of the v7 release's `rules.json` and `cpm.json`.
# The last two need ../shared and are skipped, saying so, without it.
# usage: Tests/cli/doc-figures.sh RADARBLOCK
set -uo pipefail
. "$(dirname "$0")/lib.sh"
start_in_scratch "${1:?usage: Tests/cli/doc-figures.sh RADARBLOCK}"
ddg=${SHARED:-$root/../shared}/data/ddg

# figure FILE PYTHON-REGEX: the first group of the regex in FILE, thousands separators removed.
figure() {
  /usr/bin/python3 -c 'import re,sys; m=re.search(sys.argv[2], open(sys.argv[1], encoding="utf-8").read());
print(m.group(1).replace(",", "") if m else "")' "$1" "$2"
}
# same NAME DOC TOOL: one case; the documented figure equals the tool's.
same() {
  cases=$((cases + 1))
  if [ -z "$2" ]; then fail "$1: the doc no longer states the figure"; elif [ "$2" != "$3" ]; then
    fail "$1: the doc says $2, the tool gives $3"
  else echo "   $1: $2"; fi
}

echo "-- user-unprotected hosts cover their subdomains"
cases=$((cases + 1))
grep -q 'login.my-bank.example` is unprotected too (request 19)' "$root/data/README.md" \
  || fail "data/README.md does not say a subdomain of an unprotected host is unprotected"
cases=$((cases + 1))
grep -q '^# .*(each host with its subdomains)' "$root/data/unprotected-sites.txt" \
  || fail "data/unprotected-sites.txt's comment does not say subdomains are included"
expect "build --help" 0 "$rb" build --help
contains "build --help" "one host per line (each with its subdomains)"
expect "build of data/" 0 "$rb" build --tds "$root/data/tds.json" --config "$root/data/privacy-config.json" \
  --surrogates "$root/data/surrogates.txt" --unprotected "$root/data/unprotected-sites.txt" --out "$tmp/data"
sed -n 19p "$root/data/requests.jsonl" > "$tmp/request-19.jsonl"
grep -q '"topURL": "https://login.my-bank.example/"' "$tmp/request-19.jsonl" || fail "request 19 is not the subdomain case"
expect "match request 19" 0 "$rb" match "$tmp/data" --requests "$tmp/request-19.jsonl"
contains "request 19 allowed" '{"actions":[]}'

if [ ! -d "$ddg/tds" ]; then
  echo "SKIP: the shared data (not found at $ddg): the surrogate bundle and cookie pop-up figures were not checked"
  finish
  exit
fi

echo "-- docs/surrogates.md: the bundle of the iOS TDS v5 + iOS config"
inputs=(--tds "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json"
  --surrogates "$ddg/surrogates/surrogates.txt")
expect "surrogates" 0 "$rb" surrogates "${inputs[@]}" -o "$tmp/report.js"
expect "surrogates --no-report-trackers" 0 "$rb" surrogates "${inputs[@]}" --no-report-trackers -o "$tmp/plain.js"
kb() { echo $((($(stat -c %s "$1") + 500) / 1000)); }
doc=$root/docs/surrogates.md
same "bundle kB" "$(figure "$doc" '\((\d+) kB for the iOS TDS v5')" "$(kb "$tmp/report.js")"
same "bundle kB without the report" "$(figure "$doc" 'against (\d+) kB with \x60--no-report-trackers\x60')" \
  "$(kb "$tmp/plain.js")"

echo "-- docs/cookie-popups.md: the v7 release built without a config"
expect "build of v7" 0 "$rb" build --tds "$ddg/tds/ios-tds_v7_2024-07-12.json" --single-list --out "$tmp/v7"
doc=$root/docs/cookie-popups.md
rules() { /usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$1"; }
same "rules.json rules" "$(figure "$doc" '\| \x60rules.json\x60 \(tracker list\) \| ([\d,]+) \|')" "$(rules "$tmp/v7/rules.json")"
same "rules.json bytes" "$(figure "$doc" '\| \x60rules.json\x60 \(tracker list\) \| [\d,]+ \| ([\d,]+) \|')" \
  "$(stat -c %s "$tmp/v7/rules.json")"
same "cpm.json rules" "$(figure "$doc" '\| \x60cpm.json\x60 \| ([\d,]+) \|')" "$(rules "$tmp/v7/cpm.json")"
same "cpm.json bytes" "$(figure "$doc" '\| \x60cpm.json\x60 \| [\d,]+ \| ([\d,]+) \|')" "$(stat -c %s "$tmp/v7/cpm.json")"
finish
