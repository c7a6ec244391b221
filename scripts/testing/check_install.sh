#!/usr/bin/env bash
# radarblock install against real WebKitGTK: the first install compiles, a second compiles nothing (state file
# unchanged, WebKit's file untouched, timings printed), a WebKitWebView with the installed lists blocks what
# `match` says, a release with a list WebKit rejects keeps the previous list and exits 1, --prune removes a
# stale identifier. Releases are built from data/ (split into two lists with --max-rules 40, so the manifest's
# `lists` order matters) and published as PUB/current, as scripts/nightly.sh does.
# usage: scripts/testing/check_install.sh RADARBLOCK
set -uo pipefail
bin=$(readlink -f "${1:?usage: scripts/testing/check_install.sh RADARBLOCK}")
here=$(cd "$(dirname "$0")/../.." && pwd)
data=$here/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pub=$tmp/pub store=$tmp/store
mkdir -p "$pub"
fail() { echo "FAIL: $*"; exit 1; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
checks=$here/scripts/testing/release_checks.py
state_ids() { /usr/bin/python3 "$checks" state-ids "$store/radarblock-install.json"; }
list_ids() { /usr/bin/python3 "$checks" list-ids "$1/manifest.json"; }
file_of() { echo "$store/$("$here/scripts/webkit-check" file-name "$1")"; }
files_state() { local id; for id in $1; do stat -c '%n %i %Y %s' "$(file_of "$id")" || return 1; done; }

"$bin" build --tds "$data/tds.json" --config "$data/privacy-config.json" --surrogates "$data/surrogates.txt" \
  --unprotected "$data/unprotected-sites.txt" --max-rules 40 --out "$pub/current" > /dev/null 2>&1 || fail "build of data/"
first_ids=$(list_ids "$pub/current")
[ "$(wc -w <<< "$first_ids")" -eq 2 ] || fail "expected a release of 2 lists, got: $first_ids"

echo "-- first install compiles"
start=$(date +%s%N)
"$bin" install "$pub/current" --store "$store" > "$tmp/first.out" || fail "first install exited $?"
echo "   $(tail -1 "$tmp/first.out") [wall $(ms "$start") ms]"
grep -q ": 2 compiled, 0 already in the store" "$tmp/first.out" || fail "first install did not compile: $(cat "$tmp/first.out")"
before=$(files_state "$first_ids") || fail "no WebKit file for one of $first_ids"
[ "$(state_ids)" = "$first_ids" ] || fail "state records $(state_ids), not $first_ids"
cp "$store/radarblock-install.json" "$tmp/state-1"

echo "-- second install of the same release compiles nothing"
start=$(date +%s%N)
"$bin" install "$pub/current" --store "$store" > "$tmp/second.out" || fail "second install exited $?"
echo "   $(tail -1 "$tmp/second.out") [wall $(ms "$start") ms]"
grep -q ": 0 compiled, 2 already in the store" "$tmp/second.out" || fail "second install compiled: $(cat "$tmp/second.out")"
cmp -s "$store/radarblock-install.json" "$tmp/state-1" || fail "the state file changed"
[ "$(files_state "$first_ids")" = "$before" ] || fail "WebKit's files were rewritten"
echo "   state: compileSeconds $(/usr/bin/python3 "$checks" state-compile-seconds "$store/radarblock-install.json") from the first install, unchanged"

echo "-- a WebKitWebView with the installed lists blocks what match says"
/usr/bin/python3 "$here/scripts/testing/check_installed_pages.py" "$bin" "$pub/current" "$store" "$data/requests.jsonl" \
  || fail "installed lists and match disagree"

echo "-- a release with a list WebKit rejects keeps the previous list and exits 1"
cp -a "$pub/current" "$tmp/bad"
# A disjunction: valid JSON, a rule WebKit's compiler rejects ("Disjunctions are not supported yet").
/usr/bin/python3 "$here/scripts/testing/suite_inputs.py" rejected-list "$tmp/bad" rules-2.json 1 0badbadbadbadbad \
  || fail "cannot make the bad release"
rm -rf "$pub/current" && mv "$tmp/bad" "$pub/current"
"$bin" install "$pub/current" --store "$store" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
sed 's/^/   /' "$tmp/bad.err"
[ $rc -eq 1 ] || fail "install of a rejected list exited $rc, not 1"
grep -q "rules-2.json (list 2, .*_0badbadbadbadbad): WebKit rejected the rule list" "$tmp/bad.err" || fail "the error does not name the list"
grep -q "in store ${first_ids%% *} (rules.json): not recompiled" "$tmp/bad.out" || fail "the unchanged list 1 was recompiled"
cmp -s "$store/radarblock-install.json" "$tmp/state-1" || fail "a failed install changed the state"
[ "$(files_state "$first_ids")" = "$before" ] || fail "the previous lists were touched"
"$bin" install --status --store "$store" > "$tmp/status.out" || fail "status after the failure exited $?"
grep -q "  ${first_ids##* } (rules-2.json, role main): [0-9]* bytes" "$tmp/status.out" || fail "status does not show the kept list: $(cat "$tmp/status.out")"

echo "-- a new release, then --prune removes the stale identifier"
rm -rf "$pub/current"
"$bin" build --tds "$data/tds.json" --surrogates "$data/surrogates.txt" --out "$pub/current" > /dev/null 2>&1 || fail "build without config"
second_id=$(list_ids "$pub/current")
[[ " $first_ids " != *" $second_id "* ]] || fail "the second release reuses an identifier"
"$bin" install "$pub/current" --store "$store" > "$tmp/third.out" || fail "install of the new release exited $?"
grep -q ": 1 compiled" "$tmp/third.out" || fail "the new release was not compiled"
files_state "$first_ids" > /dev/null || fail "the old lists went away without --prune"
[ "$("$bin" install --status --store "$store" | grep -c "^unused ")" -eq 2 ] || fail "status does not show the 2 stale lists"
"$bin" install --prune --store "$store" > "$tmp/prune.out" || fail "--prune exited $?"
sed 's/^/   /' "$tmp/prune.out"
for id in $first_ids; do
  grep -qx "pruned $id" "$tmp/prune.out" && [ ! -e "$(file_of "$id")" ] || fail "--prune did not remove $id"
done
store_files=("$store"/ContentRuleList-*)
[ -s "$(file_of "$second_id")" ] && [ ${#store_files[@]} -eq 1 ] || fail "store holds the wrong files: $(ls "$store")"
[ "$(state_ids)" = "$second_id" ] || fail "state records $(state_ids)"
"$bin" install --status --store "$store" > /dev/null || fail "status exits non-zero with every list present"
echo "install: all checks passed"
