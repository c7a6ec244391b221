#!/usr/bin/env bash
# scripts/nightly.sh over several nights, with two targets: each exit status the job documents (0 published,
# 3 unchanged, 4 published from a fallback, 5 refused by a gate), a damaged current release that does not stop
# the job, multi-target identifiers and manifests, and `install --target` of the two-target release (one main
# list in the store, for the target asked). The data/ inputs always run; DuckDuckGo's iOS TDS files in ../shared
# (embedded -> v5 -> a truncated TDS -> v7) run when they are there.
# usage: Tests/cli/nightly.sh RADARBLOCK
set -uo pipefail
. "$(dirname "$0")/lib.sh"
start_in_scratch "${1:?usage: Tests/cli/nightly.sh RADARBLOCK}"
data=$root/data
nightly=$root/scripts/nightly.sh
targets=(--target safari-17 --target webkitgtk-2.50)
# WebKit's compile cost has a gate of its own (Tests/ReleaseBuildTests/CompileCostGateTests.swift); these nights are
# about the content gates, so the cost is not measured.
export RADARBLOCK=$rb RADARBLOCK_MAX_COMPILE_REGRESSION=off
night() { # night NAME STATUS PUBLISH TDS CONFIG SURROGATES [VAR=VALUE...]
  local name=$1 want=$2 pub=$3 tds=$4 config=$5 surrogates=$6; shift 6
  expect "$name" "$want" env "$@" "$nightly" "$pub" "$tds" "$config" "$surrogates" -- "${targets[@]}" --no-compile-cost
}
json() { python3 -c "import json, sys; m = json.load(open(sys.argv[1])); print($2)" "$1"; }

# -- the data/ inputs: a smaller version of the same nights
cfg=$data/privacy-config.json sur=$data/surrogates.txt
night "first night" 0 pub "$data/tds.json" "$cfg" "$sur"
contains "first night" "list(s) (safari-17) + 1 list(s) (webkitgtk-2.50)"
first=$(readlink pub/current)
[ "$(json pub/current/manifest.json "sorted({l.get('target') for l in m['lists'] if l['role'] == 'main'})")" \
  = "['safari-17', 'webkitgtk-2.50']" ] || fail "the manifest's main lists do not record both targets"
night "unchanged night" 3 pub "$data/tds.json" "$cfg" "$sur"
contains "unchanged night" "unchanged:"
head -c 300 "$data/tds.json" > cut.json
night "truncated TDS" 4 pub cut.json "$cfg" "$sur"
contains "truncated TDS" "published from a fallback"
[ "$(json pub/current/manifest.json "m['inputs']['tds'].get('fallback', '')[:9]")" = "replaced:" ] \
  || fail "truncated TDS: the manifest does not say the TDS was replaced"
python3 - "$data/tds.json" > half.json <<'PY'
import json, sys
tds = json.load(open(sys.argv[1]))
for domain in sorted(tds["trackers"])[: len(tds["trackers"]) // 2]:
    del tds["trackers"][domain]
json.dump(tds, sys.stdout)
PY
before=$(readlink pub/current)
night "half the trackers removed" 5 pub half.json "$cfg" "$sur"
stderr_has "half the trackers removed" "4 of the previous release's 8 trackers removed (50%, over --max-tracker-removal 25%)"
[ "$(readlink pub/current)" = "$before" ] || fail "a refused release was published"
night "half the trackers removed, gates off for one night" 0 pub half.json "$cfg" "$sur" RADARBLOCK_GATES=off
truncate -s 100 "$(readlink -f pub/current/rules.rbc)"
night "damaged current" 0 pub "$data/tds.json" "$cfg" "$sur"
contains "damaged current" "is damaged"
[ -f pub/current/changes.md ] && fail "damaged current: changes.md written against a damaged release"
[ "$(readlink pub/current)" = "$first" ] || fail "damaged current: not back to the first night's release"

# -- identifiers: a second target is another release; one target keeps its list's identifier
"$rb" build --tds "$data/tds.json" --target safari-17 --out one >/dev/null 2>&1 || fail "one-target build"
"$rb" build --tds "$data/tds.json" "${targets[@]}" --out two >/dev/null 2>&1 || fail "two-target build"
one_id=$(json one/manifest.json "m['identifier']")
[ "$one_id" = "$(json one/manifest.json "m['lists'][0]['identifier']")" ] \
  || fail "the one-target release is not named by its list"
[ "$one_id" != "$(json two/manifest.json "m['identifier']")" ] || fail "one and two targets: the same identifier $one_id"

# -- install: one target's lists into the store (WebKitGTK's compiler, as scripts/testing/check_install.sh)
for asked in safari-17 webkitgtk-2.50 ""; do
  store=store-${asked:-default}
  expect "install ${asked:-default}" 0 "$rb" install two --store "$store" ${asked:+--target "$asked"}
  want=${asked:-webkitgtk-2.50}
  got=$(json "$store/radarblock-install.json" \
    "[(r.get('target'), [l['identifier'] for l in r['lists'] if l.get('role', 'main') == 'main']) for r in m['releases']]")
  expected=$(json two/manifest.json \
    "[('$want', [l['identifier'] for l in m['lists'] if l['role'] == 'main' and l['target'] == '$want'])]")
  [ "$got" = "$expected" ] || fail "install ${asked:-default}: the store has $got, expected $expected"
  [ "$(find "$store" -name 'ContentRuleList-*' | wc -l)" = 1 ] || fail "install ${asked:-default}: not one list in the store"
done
expect "install an unknown target" 1 "$rb" install two --store store-x --target safari-18
contains "install an unknown target" "--target safari-18"

# -- DuckDuckGo's iOS TDS files: embedded -> v5 -> truncated -> v7
ddg=${SHARED:-$root/../shared}/data/ddg
if [ ! -f "$ddg/tds/ios-tds_v5_2025-06-17.json" ]; then
  echo "Tests/cli/nightly.sh: the iOS nights SKIPPED: $ddg not found (DuckDuckGo's data is not in the repository)"
  finish
  exit
fi
cfg=$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json sur=$ddg/surrogates/surrogates.txt
night "ios night 1: embedded" 0 ios "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$cfg" "$sur"
night "ios night 2: v5" 0 ios "$ddg/tds/ios-tds_v5_2025-06-17.json" "$cfg" "$sur"
v5=$(readlink ios/current)
head -c 100000 "$ddg/tds/ios-tds_v5_2025-06-17.json" > ios-cut.json
night "ios night 3: truncated" 4 ios ios-cut.json "$cfg" "$sur"
night "ios night 4: v7" 5 ios "$ddg/tds/ios-tds_v7_2024-07-12.json" "$cfg" "$sur"
stderr_has "ios night 4: v7" "1206 of the previous release's"
[ "$(readlink ios/current)" = "$v5" ] || fail "ios night 4: the refused v7 release was published"
night "ios night 4 again, gates off" 0 ios "$ddg/tds/ios-tds_v7_2024-07-12.json" "$cfg" "$sur" RADARBLOCK_GATES=off
truncate -s 100000 "$(readlink -f ios/current/rules.rbc)"
night "ios damaged current" 0 ios "$ddg/tds/ios-tds_v7_2024-07-12.json" "$cfg" "$sur"
contains "ios damaged current" "is damaged"
finish
