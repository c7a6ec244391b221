#!/usr/bin/env bash
# `convert --filter-list`: the rule list, OUT.issues.txt naming each filter not converted (line, text, reason),
# provenance that `match --explain` shows, two lists converted together, usage and input errors, and a hostile
# list (not UTF-8, a 10 MB line).
# usage: Tests/cli/filter-list.sh RADARBLOCK
# Filters are written in single quotes: their `$option` is Adblock Plus syntax, never a shell expansion.
# shellcheck disable=SC2016
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_in_scratch "$1"

printf '%s\n' '! Title: test' '||ads.example^$third-party' '@@||ads.example/ok.js' '||ads.example^$redirect=noop.js' \
  'example.com##.ad' 'example.com#?#div:-abp-has(.x)' > list.txt
expect "convert" 0 "$rb" convert --filter-list list.txt -o rules.json --provenance prov.json
stderr_has "convert note" "4 rules (1 blocks, 1 exceptions, 0 important)"
python3 -c "import json; r=json.load(open('rules.json')); assert [x['action']['type'] for x in r] == ['block', 'ignore-previous-rules', 'ignore-previous-rules', 'ignore-previous-rules']" \
  || fail "convert: rules.json is not [block, ignore-previous-rules, the navigation reset as the default target writes it: popup, top-frame document]: $(head -c 600 rules.json)"
grep -qF 'list.txt: line 4: ||ads.example^$redirect=noop.js: [not-converted] $redirect:' rules.json.issues.txt \
  || fail "issues: line 4 not named: $(cat rules.json.issues.txt)"
python3 -c "import json; r=json.load(open('rules.cosmetic.json')); assert [(x['action'], 'if-top-url' in x['trigger']) for x in r] == [({'type': 'css-display-none', 'selector': '.ad'}, True)]" \
  || fail "convert: rules.cosmetic.json is not the one hiding rule of line 5 on example.com: $(head -c 600 rules.cosmetic.json)"
grep -qF '"lines":[5]' prov.cosmetic.json || fail "prov.cosmetic.json does not name line 5: $(cat prov.cosmetic.json)"
grep -qF 'list.txt: line 6: example.com#?#div:-abp-has(.x): [not-converted] procedural filter' rules.json.issues.txt \
  || fail "issues: line 6 not named: $(cat rules.json.issues.txt)"
expect "match --explain names the filter" 0 "$rb" match rules.json --provenance prov.json --explain \
  --url https://ads.example/x.js --top-url https://news.test/
contains "match --explain names the filter" '"filter":"||ads.example^$third-party"'
contains "match --explain names the line" '"lines":[2]'

expect "issues on stderr without -o" 0 "$rb" convert --filter-list list.txt
stderr_has "issues on stderr without -o" "list.txt: line 4:"
expect "--filter-list with --tds" 2 "$rb" convert --filter-list list.txt --tds x.json
stderr_has "--filter-list with --tds" "--tds does not go with it"
expect "missing list" 1 "$rb" convert --filter-list absent.txt -o out.json
stderr_has "missing list" "absent.txt"

# Two lists converted together as one: list B's exception cancels list A's block (one WebKit list), each issue and
# each rule's provenance names its own list; the same list twice by name is refused.
mkdir -p a b
printf '%s\n' '||tracker.example^' '||tracker.example^$csp=x' > a/first.txt
printf '%s\n' '! B' '@@||tracker.example/ok.js' '||other.example^$redirect=noop.js' 'example.com##.b' > b/second.txt
expect "two lists" 0 "$rb" convert --filter-list a/first.txt --filter-list b/second.txt -o two.json --provenance two.prov.json
stderr_has "two lists: note" "first.txt+second.txt: 6 lines"
expect "two lists: B's exception cancels A's block" 0 "$rb" match two.json --url https://tracker.example/ok.js \
  --top-url https://news.test/ --type script
contains "two lists: B's exception cancels A's block" '"actions":[]'
expect "two lists: A's block stays elsewhere" 0 "$rb" match two.json --url https://tracker.example/x.js \
  --top-url https://news.test/ --type script
contains "two lists: A's block stays elsewhere" '"type":"block"'
grep -qF 'first.txt: line 2: ||tracker.example^$csp=x: [not-converted] $csp:' two.json.issues.txt \
  && grep -qF 'second.txt: line 3: ||other.example^$redirect=noop.js: [not-converted] $redirect:' two.json.issues.txt \
  || fail "two lists: the issues do not name both lists: $(cat two.json.issues.txt)"
grep -qF '"list":"first.txt"' two.prov.json && grep -qF '"list":"second.txt"' two.prov.json \
  || fail "two lists: the provenance does not name both lists: $(cat two.prov.json)"
grep -qF '"list":"second.txt"' two.prov.cosmetic.json || fail "two lists: cosmetic provenance: $(cat two.prov.cosmetic.json)"
expect "list A alone" 0 "$rb" convert --filter-list a/first.txt -o one.json
expect "list A alone blocks what B excepts" 0 "$rb" match one.json --url https://tracker.example/ok.js \
  --top-url https://news.test/ --type script
contains "list A alone blocks what B excepts" '"type":"block"'
expect "two lists of one name" 2 "$rb" convert --filter-list a/first.txt --filter-list first.txt -o x.json
stderr_has "two lists of one name" "two lists named first.txt"
expect "a missing second list" 1 "$rb" convert --filter-list a/first.txt --filter-list absent.txt -o x.json
stderr_has "a missing second list" "absent.txt"

{ printf '||a.example^\n||\xff\xfe^\n'; head -c 10485760 /dev/zero | tr '\0' a; printf '\n||b.example^\n'; } > hostile.txt
expect "hostile list" 0 "$rb" convert --filter-list hostile.txt -o hostile.json
grep -qF 'line 2: ' hostile.json.issues.txt && grep -qF 'the line is not UTF-8' hostile.json.issues.txt \
  || fail "hostile: the non-UTF-8 line is not reported: $(head -c 600 hostile.json.issues.txt)"
grep -qF 'line 3: ' hostile.json.issues.txt && grep -qF 'a line of 10485760 bytes' hostile.json.issues.txt \
  || fail "hostile: the 10 MB line is not reported: $(head -c 600 hostile.json.issues.txt)"
stderr_has "hostile list" "-> 4 rules (2 blocks"
finish
