#!/usr/bin/env bash
# `match` answers with what the page gets (issue 30): "surrogate NAME" on DuckDuckGo's 12 surrogate reference
# cases (blocked, allowed where they expect it), the deciding rule named by its TDS tracker, entity and rule
# pattern, --explain with --url, a bare .rbc said to have no provenance; and `match` and `diff` give the same
# outcome to every request of the derived corpus of the iOS diff (embedded -> v5). The cases on DuckDuckGo's data
# need ../shared (SHARED) and are skipped, saying so, without it.
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

# match and diff agree on every request of the iOS diff's derived corpus.
"$rb" build --tds "$tds/ios-tds_embedded_2025-02-17.json" --config "$config" --surrogates "$surrogates" --out embedded >/dev/null 2>&1 \
  || fail "building embedded"
cases=$((cases + 1))
python3 "$root/scripts/testing/check_match_diff_agreement.py" "$rb" embedded v5 "$tmp" || fail "match and diff disagree"

finish
