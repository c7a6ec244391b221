#!/usr/bin/env bash
# Shows that a compiler or matcher change changes no answer: two radarblock binaries (OLD, e.g. main's, and NEW)
# each compile the same rule lists and answer the same corpora with `match --requests`, and the outputs must be
# byte-identical (cmp). The lists and corpora:
#   * EasyPrivacy, and EasyPrivacy + EasyList together (converted once, by OLD): the bench corpus of
#     scripts/bench/filterlist_cost.py (gen_issue_requests' shape over the lists' `||host^` hosts, seed 40) and
#     the derived corpus of `diff LIST LIST --save-corpus`;
#   * the shared iOS TDS lists (converted with `convert --tds`): gen_issue_requests' and gen_requests' corpora.
# usage: scripts/testing/check_match_same.sh OLD NEW [WORKDIR]
#   REQUESTS: requests per generated corpus (default 200000); SHARED: the shared data (default ../shared);
#   LISTS: the folder of easyprivacy.txt and easylist.txt (default Debian's uBlock Origin copy).
# Lists or data that are not there are skipped (said on stderr). Exit 1 on the first difference.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
old=${1:?usage: check_match_same.sh OLD NEW [WORKDIR]}
new=${2:?usage: check_match_same.sh OLD NEW [WORKDIR]}
work=${3:-/tmp/radarblock-check-match-same}
n=${REQUESTS:-200000}
ddg=${SHARED:-$here/../shared}/data/ddg
lists=${LISTS:-"/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/thirdparties/easylist"}
bench=$here/scripts/bench
# The old compiler may need more automaton states than the default budget for the filter lists.
budget=(--max-total-dfa-states 40000000)
rm -rf "$work"
mkdir -p "$work"
compared=0

same() { # RULES.json CORPUS.jsonl: both binaries compile RULES and answer CORPUS identically
  local rules=$1 corpus=$2 base
  base="$work/$(basename "$rules" .json)"
  [ -f "$base.old.rbc" ] || "$old" compile "$rules" -o "$base.old.rbc" "${budget[@]}" >/dev/null
  [ -f "$base.new.rbc" ] || "$new" compile "$rules" -o "$base.new.rbc" "${budget[@]}" >/dev/null
  "$old" match "$base.old.rbc" --requests "$corpus" >"$work/old.out"
  "$new" match "$base.new.rbc" --requests "$corpus" >"$work/new.out"
  if ! cmp "$work/old.out" "$work/new.out"; then
    echo "check_match_same: $(basename "$rules") on $(basename "$corpus"): the answers differ" >&2
    exit 1
  fi
  compared=$((compared + 1))
  echo "same: $(basename "$rules") on $(basename "$corpus") ($(wc -l <"$corpus") requests)"
}

if [ -f "$lists/easyprivacy.txt" ] && [ -f "$lists/easylist.txt" ]; then
  cp "$lists/easyprivacy.txt" "$work/easyprivacy.txt"
  cat "$lists/easyprivacy.txt" "$lists/easylist.txt" >"$work/both.txt"
  for name in easyprivacy both; do
    "$old" convert --filter-list "$work/$name.txt" -o "$work/$name.json" 2>/dev/null
    python3 - "$bench" "$work/$name.json" "$n" "$work/$name.bench.jsonl" <<'EOF'
import sys

sys.path.insert(0, sys.argv[1])
import filterlist_cost

filterlist_cost.requests(sys.argv[2], int(sys.argv[3]), sys.argv[4])
EOF
    same "$work/$name.json" "$work/$name.bench.jsonl"
    "$old" diff "$work/$name.txt" "$work/$name.txt" --save-corpus "$work/$name.derived.jsonl" >/dev/null
    same "$work/$name.json" "$work/$name.derived.jsonl"
  done
else
  echo "check_match_same: no filter lists in $lists: skipped" >&2
fi

for tds in "$ddg"/tds/ios-tds_*.json; do
  [ -f "$tds" ] || { echo "check_match_same: no iOS TDS in $ddg/tds: skipped" >&2; break; }
  name=$(basename "$tds" .json)
  "$old" convert --tds "$tds" -o "$work/$name.json" 2>/dev/null
  python3 "$bench/gen_issue_requests.py" "$tds" "$n" "$work/$name.issue.jsonl"
  same "$work/$name.json" "$work/$name.issue.jsonl"
  python3 "$bench/gen_requests.py" "$work/$name.json" "$n" "$work/$name.pages.jsonl"
  same "$work/$name.json" "$work/$name.pages.jsonl"
done
echo "check_match_same: $compared comparisons, all identical"
