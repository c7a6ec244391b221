#!/usr/bin/env bash
# `match` answers with what the page gets (issue 30): "surrogate NAME" on DuckDuckGo's 12 surrogate reference
# cases (blocked, allowed where they expect it), the deciding rule named by its TDS tracker, entity and rule
# pattern, --explain with --url, a bare .rbc said to have no provenance; and `match` and `diff` give the same
# outcome to every request of the derived corpus of the iOS diff (embedded -> v5). Issue 41: a release whose
# rules.json no longer has the manifest's sha256 is refused, naming the file; a --requests file that is not JSONL
# (a TDS) stops with an error naming it, while a few bad lines among good ones get an error line each; on a
# temporarily unprotected site (welt.de) the main list's exemption decides, not the attribution list's copy of it.
# The cases on DuckDuckGo's data need ../shared (SHARED) and are skipped, saying so, without it.
# usage: Tests/cli/match-answers.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
start_in_scratch "$1"
need_ddg_data "the reference cases and the iOS corpus"

# The 12 surrogate reference cases: redirect -> "surrogate <the TDS rule's surrogate>", block -> blocked, ignore -> allowed.
ref="$ddg/reference-tests/tracker-radar-tests/TR-domain-matching"
"$rb" build --tds "$ref/tracker_radar_reference.json" --surrogates "$ref/surrogates.txt" --out ref >/dev/null 2>&1 || fail "building the reference release"
python3 "$here/fixtures.py" surrogate-cases "$ref/domain_matching_tests.json" > cases.tsv
[ "$(wc -l < cases.tsv)" = 12 ] || fail "expected 12 surrogate reference cases, found $(wc -l < cases.tsv)"
while IFS=$'\t' read -r name site url type action; do
  expect "reference: $name" 0 "$rb" match ref --url "$url" --top-url "$site" --type "$type"
  case $action in
    redirect) want="page gets  surrogate tracker:" ;;
    block) want="page gets  blocked" ;;
    *) want="page gets  allowed" ;;
  esac
  head -1 "$tmp/out" | grep -qF -- "$want" || fail "reference: $name: expected '$want', got: $(head -1 "$tmp/out")"
done < cases.tsv

# The iOS release: the surrogate, the deciding TDS rule with tracker, entity and pattern; --explain is accepted.
tds="$ddg/tds" config="$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json" surrogates="$ddg/surrogates/surrogates.txt"
"$rb" build --tds "$tds/ios-tds_v5_2025-06-17.json" --config "$config" --surrogates "$surrogates" --out v5 >/dev/null 2>&1 || fail "building v5"
expect "analytics.js" 0 "$rb" match v5 --url https://www.google-analytics.com/analytics.js --top-url https://example.com/ --type script --explain
contains "analytics.js" "page gets  surrogate analytics.js"
# shellcheck disable=SC2016  # the backquotes are the answer's own
contains "analytics.js" 'TDS tracker google-analytics.com (entity Google Analytics), TDS rule 1 `google-analytics\.com/analytics\.js`'
expect "bare .rbc" 0 "$rb" match v5/rules.rbc --url https://www.google-analytics.com/analytics.js --top-url https://example.com/ --type script
contains "bare .rbc" "no provenance"
output | grep -q "action of rule(s)" && fail "bare .rbc: still lists the rules sharing an action as if each matched"

# A release whose rules.json was cut to 10 rules: refused, naming the file (its rules.rbc would answer for the
# rules it no longer has); the same for the .rbc.
cp -r v5 cut && python3 -c "import json, sys; json.dump(json.load(open(sys.argv[1]))[:10], open(sys.argv[1], 'w'))" cut/rules.json
expect "cut rules.json" 1 "$rb" match cut --url https://www.google-analytics.com/analytics.js --top-url https://example.com/ --type script
contains "cut rules.json" "cut/rules.json: sha256"
contains "cut rules.json" "differs from the manifest's"
cp -r v5 cut-rbc && printf 'x' >> cut-rbc/rules.rbc
expect "changed rules.rbc" 1 "$rb" match cut-rbc --requests /dev/null
contains "changed rules.rbc" "cut-rbc/rules.rbc: sha256"
# The release's dataset (read for its surrogates while the lists load): a damaged one is refused, naming it; with a
# damaged list too, the list's error is the one given.
cp -r v5 bad-tds && printf '{"trackers":' > bad-tds/input-tds.json
expect "damaged input TDS" 1 "$rb" match bad-tds --requests /dev/null
contains "damaged input TDS" "bad-tds/input-tds.json"
cp -r bad-tds bad-both && printf 'x' >> bad-both/rules.rbc
expect "damaged TDS and list" 1 "$rb" match bad-both --requests /dev/null
contains "damaged TDS and list" "bad-both/rules.rbc: sha256"
output | grep -q "input-tds.json" && fail "damaged TDS and list: the dataset's error was given, not the list's"

# A TDS given as --requests: one error naming the file and its first bad lines, nothing answered, exit 1.
expect "TDS as requests" 1 "$rb" match v5 --requests "$tds/ios-tds_v5_2025-06-17.json"
contains "TDS as requests" "ios-tds_v5_2025-06-17.json: not JSONL requests"
contains "TDS as requests" "line 1: invalid JSON"
[ -s "$tmp/out" ] && fail "TDS as requests: answered $(wc -l < "$tmp/out") line(s) before stopping"
# A few bad lines among good ones: an error line each, the good ones answered, exit 0.
good='{"url":"https://www.google-analytics.com/ga.js","topURL":"https://example.com/","resourceType":"script"}'
printf '%s\nnot json\n{"url":1}\n%s\n' "$good" "$good" > few.jsonl
expect "a few bad lines" 0 "$rb" match v5 --requests few.jsonl
[ "$(grep -c '"error":"line' "$tmp/out")" = 2 ] || fail "a few bad lines: expected 2 error lines: $(cat "$tmp/out")"
[ "$(grep -c '"actions"' "$tmp/out")" = 2 ] || fail "a few bad lines: expected 2 answers: $(cat "$tmp/out")"

# welt.de is temporarily unprotected: the main list's exemption decides (the attribution list has a copy of it,
# later in the release, which decides nothing the main list's does not).
expect "welt.de" 0 "$rb" match v5 --url https://www.google-analytics.com/analytics.js --top-url https://www.welt.de/ --type script
contains "welt.de" "page gets  allowed"
output | sed -n 2p | grep -q '^decided by rules.json rule [0-9]*: config: the temporarily unprotected sites' \
  || fail "welt.de: expected the main list's exemption to decide, got: $(output | sed -n 2p)"
printf '{"url":"https://www.google-analytics.com/analytics.js","topURL":"https://www.welt.de/","resourceType":"script"}\n' > welt.jsonl
for with in automaton rules; do
  expect "welt.de --explain-with $with" 0 "$rb" match v5 --requests welt.jsonl --explain --explain-with "$with"
  contains "welt.de --explain-with $with" '"decidedBy":{"list":"rules.json"'
done

# match and diff agree on every request of the iOS diff's derived corpus.
"$rb" build --tds "$tds/ios-tds_embedded_2025-02-17.json" --config "$config" --surrogates "$surrogates" --out embedded >/dev/null 2>&1 \
  || fail "building embedded"
cases=$((cases + 1))
python3 "$root/scripts/testing/check_match_diff_agreement.py" "$rb" embedded v5 "$tmp" || fail "match and diff disagree"

finish
