#!/usr/bin/env bash
# `diff` with filter lists: a list file as a side (detected by its content), the filters added and removed with
# their list and line, the flips of the corpus derived from the filters (each side's deciding filter named), the
# same in every format, `--save-corpus` of that corpus (the exactness check's input), a list against a rule list,
# and `match --explain` on a filter-list file.
# usage: Tests/cli/filter-diff.sh RADARBLOCK
# Filters are written in single quotes: their `$option` is Adblock Plus syntax, never a shell expansion.
# shellcheck disable=SC2016
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_in_scratch "$1"

printf '%s\n' '[Adblock Plus 2.0]' '! Title: test' '||tracker.example^' '||ads.example^$script' \
  '@@||ads.example/ok.js' > old.txt
printf '%s\n' '! Title: test, next version' '||ads.example^$script' '@@||ads.example/ok.js' \
  '||pixel.example^$image,third-party' > new.txt

expect "a list against itself" 0 "$rb" diff old.txt old.txt --save-corpus corpus.jsonl
contains "a list against itself" "no differences"
[ "$(wc -l < corpus.jsonl)" -ge 8 ] || fail "--save-corpus: fewer than 8 requests for 3 filters: $(cat corpus.jsonl)"
grep -qF '"url":"https://' corpus.jsonl && grep -qF 'tracker.example' corpus.jsonl \
  || fail "--save-corpus: no request for ||tracker.example^: $(head -c 600 corpus.jsonl)"
cp corpus.jsonl first.jsonl
expect "the corpus is deterministic" 0 "$rb" diff old.txt old.txt --save-corpus corpus.jsonl
cmp -s first.jsonl corpus.jsonl || fail "--save-corpus: two runs give different corpora"

expect "text" 1 "$rb" diff old.txt new.txt
contains "text: counts" "filters: 1 added, 1 removed"
contains "text: added" "+ new.txt:4: ||pixel.example^\$image,third-party"
contains "text: removed" "- old.txt:3: ||tracker.example^"
contains "text: corpus" "each network filter and tracker rule"

expect "json" 1 "$rb" diff old.txt new.txt --format json -o report.json
python3 - <<'EOF' || fail "json: $(head -c 900 report.json)"
import json
r = json.load(open("report.json"))
f = r["filters"]
assert f["added"] == 1 and f["removed"] == 1, f
assert f["addedFilters"] == [{"list": "new.txt", "line": 4, "filter": "||pixel.example^$image,third-party"}], f
assert f["removedFilters"] == [{"list": "old.txt", "line": 3, "filter": "||tracker.example^"}], f
flips = r["requests"]["changed"]
assert flips, "no flips"
for c in flips:
    side = c["old"] if c["new"]["outcome"] == "allowed" else c["new"]
    p = side["rule"]
    assert p["source"] == "filter-list" and p["list"] in ("old.txt", "new.txt") and p["lines"], c
    assert p["filter"] in ("||tracker.example^", "||pixel.example^$image,third-party"), c
assert {c["new"]["outcome"] for c in flips} == {"allowed", "blocked"}, flips
assert r["requests"]["corpus"] == {"kind": "derived", "synthetic": True}, r["requests"]["corpus"]
EOF

expect "markdown" 1 "$rb" diff old.txt new.txt --format markdown --full
contains "markdown" "### Filters removed (1)"
contains "markdown: a flip names the filter and line" '"lines":\[4\],"list":"new.txt"'
contains "markdown: a flip names the filter (bars escaped)" '"filter":"\|\|pixel.example^$image,third-party"'
expect "html" 1 "$rb" diff old.txt new.txt --format html -o report.html
grep -qF 'id="filters-added"' report.html || fail "html: no filters-added section"

printf '%s\n' '[{"trigger":{"url-filter":"tracker\\.example"},"action":{"type":"block"}}]' > rules.json
expect "a rule list against a filter list" 1 "$rb" diff rules.json new.txt --format json -o mixed.json
python3 -c "import json; r=json.load(open('mixed.json')); f=r['filters']; assert f['removed']==0 and f['added']==3, f" \
  || fail "rule list vs filter list: $(head -c 600 mixed.json)"
expect "a TDS diff has no filters member" 0 "$rb" diff rules.json rules.json --format json
python3 -c "import json,sys; assert 'filters' not in json.load(open('$tmp/out'))" \
  || fail "rule-list diff: a filters member: $(head -c 600 "$tmp/out")"

expect "match on a filter list names the filter and line" 0 "$rb" match new.txt --explain \
  --url https://pixel.example/p.gif --top-url https://news.test/ --type image
contains "match on a filter list" '"filter":"||pixel.example^$image,third-party"'
contains "match on a filter list: line" '"lines":[4]'
contains "match on a filter list: list" '"list":"new.txt"'

printf '{"trackers": \n' > broken.json
expect "broken JSON is no filter list" 2 "$rb" diff broken.json new.txt
stderr_has "broken JSON is no filter list" "broken.json: invalid JSON"
finish
