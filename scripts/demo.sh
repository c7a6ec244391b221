#!/usr/bin/env bash
# make demo: the main job on the sample data in data/: a release, a second release against it, and the
# questions a maintainer asks of it (what does WebKit do with these requests, what changed).
set -euo pipefail
bin=${1:?usage: scripts/demo.sh PATH/TO/radarblock OUTDIR}
out=${2:?usage: scripts/demo.sh PATH/TO/radarblock OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
data=$here/data
mkdir -p "$(dirname "$out")"

echo "== build: data/ -> $out/release"
start=$(date +%s%N)
"$bin" build --tds "$data/tds.json" --config "$data/privacy-config.json" --surrogates "$data/surrogates.txt" \
  --unprotected "$data/unprotected-sites.txt" --out "$out/release"
echo "wall time: $(( ($(date +%s%N) - start) / 1000000 )) ms"
ls -l "$out/release"

echo
echo "== match: data/requests.jsonl against the compiled list"
"$bin" match "$out/release/rules.rbc" --requests "$data/requests.jsonl" | paste -d' ' <(cut -c1-90 "$data/requests.jsonl") - | head -20

echo
echo "== the same release rebuilt from the same inputs is byte-identical, and --if-changed skips it"
"$bin" build --tds "$data/tds.json" --config "$data/privacy-config.json" --surrogates "$data/surrogates.txt" \
  --unprotected "$data/unprotected-sites.txt" --out "$out/release" --previous "$out/release" --if-changed

echo
echo "== a TDS generated from the sample Tracker Radar files (data/radar), built into $out/radar-release"
"$bin" build --radar "$data/radar" --policy "$data/policy.json" --config "$data/privacy-config.json" \
  --surrogates "$data/surrogates.txt" --out "$out/radar-release" --previous "$out/release"
echo
echo "== diff: sample TDS release -> radar-generated release (changes.md)"
head -30 "$out/radar-release/changes.md"
