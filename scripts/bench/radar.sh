#!/usr/bin/env bash
# Benchmark of `radarblock tds` on a synthetic Tracker Radar tree: the shared 119-file sample replicated to
# N domain files (default 100,000) with synthetic domain names (syn<i>-<original>.example, with the domain
# and its escaped form rewritten inside each file so rules still belong to their domain), plus the sample's
# entity files. The tree is generated once in $BENCH_DIR (default /tmp/radarblock-bench-radar) and reused.
# Prints wall time, CPU time and peak RSS measured by /usr/bin/time -v.
#
# usage: scripts/bench/radar.sh [RADARBLOCK_BINARY] [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"  # scripts/
root="$(cd "$here/.." && pwd)"
BIN="${1:-$root/.build/release/radarblock}"
N="${2:-100000}"
SHARED="${SHARED:-$root/../shared}"
SAMPLE="$SHARED/data/ddg/tracker-radar-sample"
BENCH_DIR="${BENCH_DIR:-/tmp/radarblock-bench-radar}"

[ -x "$BIN" ] || { echo "bench-radar: $BIN is not an executable (build first: make build)" >&2; exit 2; }
[ -d "$SAMPLE/domains" ] || { echo "bench-radar: sample not found at $SAMPLE (set SHARED)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-radar: /usr/bin/time not found (apt-get install -y time)" >&2; exit 2; }

if [ "$(cat "$BENCH_DIR/.complete" 2>/dev/null || true)" != "$N" ]; then
  echo "bench-radar: generating $N synthetic domain files in $BENCH_DIR ..." >&2
  rm -rf "$BENCH_DIR"
  python3 "$here/bench/gen_radar_tree.py" "$SAMPLE" "$BENCH_DIR" "$N"
  echo "$N" > "$BENCH_DIR/.complete"
fi

files=$(find "$BENCH_DIR/domains" -name '*.json' | wc -l)
bytes=$(du -sb "$BENCH_DIR/domains" | cut -f1)
out="$BENCH_DIR/tds.json"
log="$BENCH_DIR/time.log"
/usr/bin/time -v "$BIN" tds --radar "$BENCH_DIR" -o "$out" 2> "$log" || { cat "$log" >&2; exit 1; }
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log")
user=$(sed -n 's/.*User time (seconds): //p' "$log")
sys=$(sed -n 's/.*System time (seconds): //p' "$log")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
summary=$(grep -v '^\s' "$log" | grep -v '^Command' | tail -1 || true)
echo "radarblock tds on $files synthetic radar domain files ($((bytes / 1048576)) MiB):"
echo "  wall $wall, user ${user}s, sys ${sys}s, peak RSS $((rss / 1024)) MiB"
echo "  $summary"
