#!/usr/bin/env bash
# The diff report for people (issue 30): on the iOS diffs (embedded -> v5, v5 -> v7; derived corpus), the
# Markdown report fits one pull-request comment (<= 60,000 characters), leads with the verdict, says the corpus
# is synthetic, and names the top 10 entities by flips with counts that agree with the JSON report (recounted
# here from its flips); text says the same; --full lists every flip. Issue 41 (check_diff_report.py): the counts
# stand beside the distinct URLs and pages they cover, the examples show both directions and several URLs with both
# sides' deciding rules, and the HTML report has the deciding rules and the trackers added, removed and changed.
# Needs ../shared (SHARED); skipped without.
# usage: Tests/cli/diff-report.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
start_in_scratch "$1"
need_ddg_data "the iOS diff"

config="$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json"

check_pair() {
  local name=$1 old=$2 new=$3
  expect "$name markdown" 1 "$rb" diff "$old" "$new" --config "$config" --format markdown -o "$name.md"
  expect "$name json" 1 "$rb" diff "$old" "$new" --config "$config" --format json -o "$name.json"
  expect "$name text" 1 "$rb" diff "$old" "$new" --config "$config" -o "$name.txt"
  expect "$name html" 1 "$rb" diff "$old" "$new" --config "$config" --format html -o "$name.html"
  cases=$((cases + 1))
  python3 "$here/check_diff_report.py" "$name" || fail "$name: the Markdown report does not agree with the JSON report"
}

check_pair "embedded-v5" "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json"
check_pair "v5-v7" "$ddg/tds/ios-tds_v5_2025-06-17.json" "$ddg/tds/ios-tds_v7_2024-07-12.json"

# build --previous writes the same reports: changes.md and changes.html say why too.
surrogates="$ddg/surrogates/surrogates.txt"
"$rb" build --tds "$ddg/tds/ios-tds_embedded_2025-02-17.json" --config "$config" --surrogates "$surrogates" --out embedded >/dev/null 2>&1 \
  || fail "building embedded"
expect "build --previous" 0 "$rb" build --tds "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config" --surrogates "$surrogates" \
  --previous embedded --out v5
grep -qE "^- a flip is one request of the corpus .* the [0-9]+ flips are [0-9]+ distinct URLs on [0-9]+ pages" v5/changes.md \
  || fail "changes.md: no line saying what a flip counts"
grep -qF "### Trackers added, with their rules" v5/changes.md || fail "changes.md: no trackers added with their rules"
grep -qF "<th>old deciding rule</th><th>new deciding rule</th>" v5/changes.html || fail "changes.html: no deciding-rule columns"
grep -qF '<ul id="trackers-changed">' v5/changes.html || fail "changes.html: no trackers changed"

# --full and --max-flips list the flips; the bounded default does not.
expect "--full" 1 "$rb" diff "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config" --format markdown --full -o full.md
flips=$(python3 -c "import json; print(len(json.load(open('embedded-v5.json'))['requests']['changed']))")
grep -qF "Requests that changed outcome ($flips of $flips)" full.md || fail "--full does not list the $flips flips"
expect "--max-flips" 1 "$rb" diff "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config" --max-flips 7 -o seven.txt
grep -qF "requests that changed outcome (7 of $flips)" seven.txt || fail "--max-flips 7 does not list 7 flips"
expect "--full with --max-flips" 2 "$rb" diff a b --full --max-flips 3

finish
