#!/usr/bin/env bash
# The default build is one every current engine accepts (issue 41, docs/targets.md "The default output"): a
# `build` without --target of the sample data and of every shared TDS with the shared iOS config writes lists
# that `validate --strict` accepts for every Safari profile from 15 and every WebKitGTK profile, and its manifest
# names the profile its lists are for (the writing default `radarblock --version` prints). The shared part is
# skipped, saying so, without ../shared.
# usage: Tests/cli/default-target.sh RADARBLOCK
set -uo pipefail
. "$(dirname "$0")/lib.sh"
start_in_scratch "${1:?usage: Tests/cli/default-target.sh RADARBLOCK}"
ddg=${SHARED:-$root/../shared}/data/ddg

default=$("$rb" --version | sed -n 's/^default target \([^ ]*\) (writing).*/\1/p')
[ -n "$default" ] || fail "radarblock --version names no writing default: $("$rb" --version)"
# The profiles of the help table that must read the default: every WebKitGTK, every Safari from 15.
mapfile -t readers < <("$rb" validate --help | sed -n 's/^ *\(safari-[0-9.]*\|webkitgtk-[0-9.]*\) .* rules.*/\1/p' \
  | awk -F- '$1 == "webkitgtk" || $2 + 0 >= 15')
[ "${#readers[@]}" -ge 8 ] || fail "expected the Safari 15+ and WebKitGTK profiles, got: ${readers[*]}"

# check_release NAME DIR: every list of the manifest validates for every reader; the manifest names the default.
check_release() {
  local name=$1 dir=$2 list p
  cases=$((cases + 1))
  local targets
  targets=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["targets"]))' \
    "$dir/manifest.json")
  [ "$targets" = "$default" ] || fail "$name: manifest targets '$targets', expected '$default'"
  for list in $(/usr/bin/python3 -c 'import json,sys; [print(l["rules"]) for l in json.load(open(sys.argv[1]))["lists"]]' \
    "$dir/manifest.json"); do
    for p in "${readers[@]}"; do
      expect "$name $list on $p" 0 "$rb" validate "$dir/$list" --target "$p" --strict
    done
  done
  echo "   $name: $(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["lists"]))' \
    "$dir/manifest.json") list(s) x ${#readers[@]} profiles"
}

expect "build of data/" 0 "$rb" build --tds "$root/data/tds.json" --config "$root/data/privacy-config.json" \
  --surrogates "$root/data/surrogates.txt" --unprotected "$root/data/unprotected-sites.txt" --out "$tmp/data"
check_release data "$tmp/data"

if [ -d "$ddg/tds" ]; then
  for tds in "$ddg"/tds/*.json; do
    name=$(basename "$tds" .json)
    expect "build of $name" 0 "$rb" build --tds "$tds" --config "$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json" \
      --surrogates "$ddg/surrogates/surrogates.txt" --out "$tmp/$name"
    check_release "$name" "$tmp/$name"
  done
else
  echo "SKIP: the shared TDS files (not found at $ddg/tds): only the sample data was checked"
fi
finish
