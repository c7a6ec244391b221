#!/usr/bin/env bash
# Hostile inputs of issue 16 (data side), each with its result, exit status, wall time and peak memory
# (/usr/bin/time -v). Inputs are generated from data/ into a temporary directory.
#   one 100 KB TDS rule (random letters, and 100,000 x "a"), one 100 KB tracker-allowlist rule, a 400 KB rule
#   (the growth), a 200 MB rule string, a 200 MB domain, an endless download, a 1 GB gzip bomb (1 MB on the
#   wire), a body that trickles past --timeout.
# usage: scripts/bench/hostile.sh RADARBLOCK   (SKIP_HUGE=1 leaves out the 200 MB cases)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"  # scripts/
rb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data="$here/../data"
tmp=$(mktemp -d); server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
skip=()
[ "${SKIP_HUGE:-0}" = 1 ] && skip=(--skip-huge)
python3 "$here/bench/gen_hostile_inputs.py" "$data" "${skip[@]}"
python3 "$here/testing/http_fixture_server.py" "$tmp" > port.txt 2>/dev/null &
server_pid=$!
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 port.txt)"
curl -s -o /dev/null "$url/gzipbomb/1024" 2>/dev/null || true  # the server makes the bomb once

printf '%-44s %5s %9s %9s %12s  %s\n' case exit wall peak stderr message
run() {
  local name=$1; shift
  /usr/bin/time -v -o time.txt "$@" > out.txt 2> err.txt
  local status=$?
  local wall peak
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' time.txt)
  peak=$(awk -F': ' '/Maximum resident set size/ {printf "%d MB", $2 / 1024}' time.txt)
  printf '%-44s %5s %9s %9s %10s B  %s\n' "$name" "$status" "$wall" "$peak" "$(wc -c < err.txt)" "$(grep -m1 -E 'error|warning' err.txt | cut -c1-110)"
}
run "convert: one 100 KB TDS rule (random)" "$rb" convert --tds tds-100k-random.json -o out.json
run "convert: one 100 KB TDS rule (a x 100000)" "$rb" convert --tds tds-100k-a.json -o out.json
run "convert: one 400 KB TDS rule (growth)" "$rb" convert --tds tds-400k-a.json -o out.json
run "convert: one 100 KB allowlist rule (random)" "$rb" convert --tds "$data/tds.json" --config config-100k-random.json -o out.json
run "convert: one 100 KB allowlist rule (a x)" "$rb" convert --tds "$data/tds.json" --config config-100k-a.json -o out.json
if [ "${SKIP_HUGE:-0}" != 1 ]; then
  run "convert: a 200 MB rule string" "$rb" convert --tds tds-200m-rule.json -o out.json
  run "build: a 200 MB rule string" "$rb" build --tds tds-200m-rule.json --out rel-200m
  echo "  issues.txt: $(wc -c < rel-200m/issues.txt 2>/dev/null || echo 0) bytes, longest line $(wc -L < rel-200m/issues.txt 2>/dev/null || echo 0)"
  run "convert: a 200 MB domain" "$rb" convert --tds tds-200m-domain.json -o out.json
fi
run "build: endless body, --timeout 10" "$rb" build --tds "$url/endless" --timeout 10 --out rel-c3
run "build: 1 GB gzip bomb, --timeout 10" "$rb" build --tds "$url/gzipbomb/1024" --timeout 10 --out rel-c3
run "build: trickling body, --timeout 10" "$rb" build --tds "$url/trickle/60" --timeout 10 --retries 0 --out rel-c3
