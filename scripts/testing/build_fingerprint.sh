#!/usr/bin/env bash
# Prints the sha256 of every file `build` writes for data/ and the four shared iOS input combinations, one line per
# file ("INPUT/FILE SHA256"), so a refactoring can show its output is byte-identical: run it before and after, diff.
# usage: scripts/testing/build_fingerprint.sh RADARBLOCK   (SHARED: the shared data, default ../shared)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin=${1:?usage: scripts/testing/build_fingerprint.sh RADARBLOCK}
ddg=${SHARED:-$here/../shared}/data/ddg
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build() { # NAME ARGS...
  "$bin" build "${@:2}" --out "$tmp/$1" >/dev/null 2>"$tmp/$1.stderr" || { cat "$tmp/$1.stderr" >&2; exit 1; }
  (cd "$tmp/$1" && find . -type f | LC_ALL=C sort | while read -r f; do echo "$1/${f#./} $(sha256sum < "$f" | cut -d' ' -f1)"; done)
}
d=$here/data
build data --tds "$d/tds.json" --config "$d/privacy-config.json" --surrogates "$d/surrogates.txt" \
  --unprotected "$d/unprotected-sites.txt"
if [ -d "$ddg/tds" ]; then
  config=$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json surrogates=$ddg/surrogates/surrogates.txt
  build ios-embedded+config --tds "$ddg/tds/ios-tds_embedded_2025-02-17.json" --config "$config" --surrogates "$surrogates"
  build ios-v5+config --tds "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config" --surrogates "$surrogates"
  build ios-v7+config --tds "$ddg/tds/ios-tds_v7_2024-07-12.json" --config "$config" --surrogates "$surrogates"
  build ios-v5 --tds "$ddg/tds/ios-tds_v5_2025-06-17.json"
else
  echo "build_fingerprint: the shared iOS inputs are not in $ddg: data/ only" >&2
fi
