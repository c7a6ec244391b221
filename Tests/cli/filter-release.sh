#!/usr/bin/env bash
# `build --filter-list` (issue 40): two lists (a file and a URL served on the loopback, fetched through --cache)
# converted together into filters.json, role filter-lists with its sources, the lists among the manifest's inputs;
# `match` on the release blocks with them, `--explain` names the filter and its line, an exception of one list
# cancels a block of the other, the unprotected sites switch them off; `validate` accepts every filter-lists part;
# `--max-rules` splits them into parts that all hold the exceptions; a list that cannot be read, two lists of one
# name, a malformed line with --strict fail the build naming the list (and line) and publish nothing; `diff` loads
# two releases with filter lists; the nightly job passes --filter-list on (the manifest records it).
# usage: Tests/cli/filter-release.sh RADARBLOCK
# Filters are written in single quotes: their `$option` is Adblock Plus syntax, never a shell expansion.
# shellcheck disable=SC2016
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_in_scratch "${1:?usage: Tests/cli/filter-release.sh RADARBLOCK}"
data=$root/data
json() { python3 -c "import json, sys; m = json.load(open(sys.argv[1])); print($2)" "$1"; }
build() { "$rb" build --tds "$data/tds.json" --config "$data/privacy-config.json" --unprotected "$data/unprotected-sites.txt" \
  --target webkitgtk-2.50 "$@"; }

printf '%s\n' '! Title: privacy' '||ads.test^' '||pixel.test^$image' '@@||cdn.test/ok^' '||beacon.test^$important' > privacy.txt
mkdir -p served
printf '%s\n' '[Adblock Plus 2.0]' '||cdn.test^' '@@||ads.test/allowed^' '||x.test^$nosuchoption' > served/ads.txt
python3 -m http.server --bind 127.0.0.1 0 --directory served > server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
port=""
for _ in $(seq 50); do
  port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' server.log | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "the loopback server did not start: $(cat server.log)"; exit 1; }
url=http://127.0.0.1:$port/ads.txt

expect "build" 0 build --filter-list privacy.txt --filter-list "$url" --cache cache --out rel
contains "build: the summary counts the filter lists' rules" "filter-list rules in 1 list(s)"
stderr_has "build: the issues are counted" "filter lists: 1 filter(s) not converted, each in filters.issues.txt"
[ "$(json rel/manifest.json "[l['role'] for l in m['lists']][-1]")" = "filter-lists" ] || fail "the last list is not filter-lists"
[ "$(json rel/manifest.json "[l for l in m['lists'] if l['role'] == 'filter-lists'][0]['sources']")" = "['privacy.txt', 'ads.txt']" ] \
  || fail "the filter-lists entry does not name its sources"
[ "$(json rel/manifest.json "[(i['name'], i['source'] == '$url', i['copy']) for i in m['inputs']['filterLists']]")" \
  = "[('privacy.txt', False, 'input-filter-list-1.txt'), ('ads.txt', True, 'input-filter-list-2.txt')]" ] \
  || fail "inputs.filterLists: $(json rel/manifest.json "m['inputs'].get('filterLists')")"
cmp -s privacy.txt rel/input-filter-list-1.txt || fail "the release's copy of privacy.txt differs"
grep -qF 'ads.txt: line 4: ||x.test^$nosuchoption: [malformed]' rel/filters.issues.txt \
  || fail "filters.issues.txt lacks the malformed line: $(cat rel/filters.issues.txt)"
expect "validate filters.json" 0 "$rb" validate --target webkitgtk-2.50 rel/filters.json

expect "match: a block of privacy.txt, explained" 0 "$rb" match rel --url https://ads.test/x.js --top-url https://news.test/ --explain
contains "match: a block of privacy.txt" "block"
contains "match --explain names the filter" 'privacy.txt'
contains "match --explain names the line" '||ads.test^'
expect "match: an exception of ads.txt cancels privacy.txt's block" 0 "$rb" match rel --url https://ads.test/allowed/x.js --top-url https://news.test/
contains "match: an exception of ads.txt cancels privacy.txt's block" 'answer     {"actions":[]}'
contains "match: the exception decides" '"list":"ads.txt","filter":"@@||ads.test/allowed^"'
expect "match: an unprotected site" 0 "$rb" match rel --url https://ads.test/x.js --top-url https://my-bank.example/
contains "match: an unprotected site" 'answer     {"actions":[]}'
contains "match: the unprotected site's rule decides" 'user-unprotected'
expect "match: \$important, but on an unprotected site" 0 "$rb" match rel --url https://beacon.test/x.js --top-url https://www.my-bank.example/
contains "match: \$important, but on an unprotected site" 'answer     {"actions":[]}'
expect "match: \$important elsewhere" 0 "$rb" match rel --url https://beacon.test/x.js --top-url https://news.test/
contains "match: \$important elsewhere" 'answer     {"actions":[{"type":"block"}]}'

expect "build again: the URL from the cache" 0 build --filter-list privacy.txt --filter-list "$url" --cache cache --out rel2
[ "$(json rel/manifest.json "m['identifier']")" = "$(json rel2/manifest.json "m['identifier']")" ] \
  || fail "the same lists give another identifier"
expect "diff loads both releases' lists" 0 "$rb" diff rel rel2 --format json -o diff.json

# --max-rules: parts that share out the blocks and all hold every exception.
# (data/'s main list is 55 rules: --max-rules 60 leaves it one list.)
for i in $(seq 120); do echo "||host$i.test^"; done > many.txt
printf '%s\n' '@@||host3.test/ok^' >> many.txt
expect "split" 0 build --filter-list many.txt --max-rules 60 --out split
parts=$(json split/manifest.json "[l['rules'] for l in m['lists'] if l['role'] == 'filter-lists']")
[ "$parts" = "['filters.json', 'filters-2.json', 'filters-3.json']" ] || fail "split: parts $parts"
for part in filters.json filters-2.json filters-3.json; do
  expect "validate $part" 0 "$rb" validate --target webkitgtk-2.50 "split/$part"
  grep -qF 'host3\\.test\\/ok' "split/$part" || fail "$part lacks the exception"
done
for n in 3 60 120; do
  expect "split: host$n.test blocked" 0 "$rb" match split --url "https://host$n.test/x.js" --top-url https://news.test/
  contains "split: host$n.test blocked" 'answer     {"actions":[{"type":"block"}]}'
done
expect "split: the exception still cancels" 0 "$rb" match split --url https://host3.test/ok/x.js --top-url https://news.test/
contains "split: the exception still cancels" 'answer     {"actions":[]}'

# Bad lists: the build fails naming the list (and line), nothing is published.
expect "a list that is absent" 1 build --filter-list absent.txt --out bad1
stderr_has "a list that is absent" "filter-list: absent.txt"
mkdir -p other && cp privacy.txt other/
expect "two lists of one name" 1 build --filter-list privacy.txt --filter-list other/privacy.txt --out bad2
stderr_has "two lists of one name" "a second list named privacy.txt"
expect "--strict and a malformed line" 1 build --filter-list "$url" --strict --out bad3
stderr_has "--strict and a malformed line" 'ads.txt: line 4: ||x.test^$nosuchoption: [malformed]'
for d in bad1 bad2 bad3; do [ ! -e "$d" ] || fail "$d was published"; done

# The nightly job passes --filter-list on to build.
expect "nightly with --filter-list" 0 env RADARBLOCK="$rb" RADARBLOCK_MAX_COMPILE_REGRESSION=off \
  "$root/scripts/nightly.sh" pub "$data/tds.json" "$data/privacy-config.json" "$data/surrogates.txt" \
  -- --filter-list privacy.txt --no-compile-cost
[ "$(json pub/current/manifest.json "[i['name'] for i in m['inputs']['filterLists']]")" = "['privacy.txt']" ] \
  || fail "nightly: the manifest does not record the filter list"
printf '%s\n' '||more.test^' >> privacy.txt
expect "nightly: a changed filter list is a new release" 0 env RADARBLOCK="$rb" RADARBLOCK_MAX_COMPILE_REGRESSION=off \
  "$root/scripts/nightly.sh" pub "$data/tds.json" "$data/privacy-config.json" "$data/surrogates.txt" \
  -- --filter-list privacy.txt --no-compile-cost
expect "nightly: unchanged" 3 env RADARBLOCK="$rb" RADARBLOCK_MAX_COMPILE_REGRESSION=off \
  "$root/scripts/nightly.sh" pub "$data/tds.json" "$data/privacy-config.json" "$data/surrogates.txt" \
  -- --filter-list privacy.txt --no-compile-cost
finish
