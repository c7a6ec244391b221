#!/usr/bin/env bash
# `make bench`: radarblock's compile and match benchmarks beside WebKitGTK's compiler, in one run.
#   - compile time, peak RSS and file size for the shared iOS TDS converted in ddg mode and for
#     synthetic lists of 1k, 10k, 50k and 149,999 rules, each compiled by radarblock and by WebKit
#     (`radarblock compile --engine webkit`), with ratios;
#   - match throughput against the compiled iOS list: end to end (JSONL in, JSONL out) and in memory
#     on one core (radarblock-bench);
#   - the tracker report's overhead in real WebKit (scripts/bench/tracker-report.sh): time to `load` of a page
#     with 500 subresources and of a page with 20 iframes x 10 trackers, and the bundle's start-up, without a
#     bundle, with surrogates.js (reporting), --no-report-trackers and the report before the lookup tables
#     (RB_OLD_BIN, or rebuilt around Tests/js/legacy) (SKIP_TRACKER_BENCH=1);
#   - WebKit's compile cost of the default (faithful) list, faithful --no-optimize (when the binary has it) and
#     ddg on both shared iOS TDS, with and without the iOS config: in-process compile time (wall and CPU), peak
#     memory over a one-rule list, WebKit's file size, 3 alternating runs, ratios to ddg
#     (scripts/bench/webkit_compile_cost.py, runnable alone; SKIP_COMPILE_COST_BENCH=1 skips it);
#   - EasyPrivacy and EasyList (issue 40): convert wall, WebKit's compile CPU and size beside SafariConverterLib's
#     lists (alternately, one ratio line per list), match --requests on both lists together
#     (scripts/bench/filterlist_cost.py; SKIP_FILTERLIST_BENCH=1 skips it);
#   - diff and match at scale (scripts/bench/diff_scale.py): the iOS release diff beside two plain match
#     runs of its corpus, match on 1M issue-shaped requests with the .rbc load cost, and release diffs
#     over 1M and 10M requests (wall, peak RSS, cost per request); SKIP_DIFF_SCALE_BENCH=1 skips it;
#   - `radarblock attribution` on the iOS release, faithful and ddg (scripts/bench/attribution.py;
#     SKIP_ATTRIBUTION_BENCH=1 skips it);
#   - the radar-ingest benchmark (scripts/bench/radar.sh) when it exists.
# The table and the goals of the issue are printed at the end; details are in $BENCH_DIR/results.json.
#
# usage: scripts/bench.sh [PATH/TO/release/radarblock]
# environment: BENCH_DIR (default /tmp/radarblock-bench), SHARED, and the knobs of scripts/bench/run.py
# (BENCH_SIZES, BENCH_REPEAT, BENCH_REQUESTS, BENCH_MEMORY_REQUESTS, BENCH_STRICT), SKIP_RADAR_BENCH=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
BIN="${1:-$root/.build/release/radarblock}"
BENCH_DIR="${BENCH_DIR:-/tmp/radarblock-bench}"
export SHARED="${SHARED:-$root/../shared}"

[ -x "$BIN" ] || { echo "bench: $BIN is not an executable (build first: make build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not found (scripts/install-deps.sh bench)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench: python3 not found" >&2; exit 2; }

# radarblock-bench (in-memory matching) is built beside the given binary, in the same scratch path.
bin_dir="$(cd "$(dirname "$BIN")" && pwd)"
BENCH_BIN="$bin_dir/radarblock-bench"
config="$(basename "$bin_dir")"
case "$config" in release|debug) ;; *) config=release ;; esac
echo "bench: building radarblock-bench ($config)" >&2
(cd "$root" && swift build -c "$config" --scratch-path "$(dirname "$bin_dir")" --product radarblock-bench >&2)
[ -x "$BENCH_BIN" ] || { echo "bench: $BENCH_BIN was not built" >&2; exit 1; }

"$BIN" compile --help | grep -q -- "--engine radarblock|webkit" \
  || { echo "bench: $BIN has no --engine webkit (rebuild it)" >&2; exit 2; }

mkdir -p "$BENCH_DIR"
status=0
python3 "$here/bench/run.py" "$BIN" "$BENCH_BIN" "$BENCH_DIR" || status=$?

# What WebKit pays for each list kind (faithful, faithful --no-optimize, ddg) on the shared iOS TDS (issue 13).
if [ "${SKIP_COMPILE_COST_BENCH:-0}" != 1 ]; then
  python3 "$here/bench/webkit_compile_cost.py" "$BIN" "$BENCH_DIR/webkit-compile-cost" || status=$?
fi

# The cookie pop-up list of the v7 TDS beside its tracker list (issue 33).
if [ "${SKIP_CPM_COST_BENCH:-0}" != 1 ]; then
  echo
  python3 "$here/bench/cpm_cost.py" "$BIN" "$BENCH_DIR/cpm-cost" || status=$?
fi

# EasyList's cosmetic list: 500 sampled ## filters hidden in WebKit where adblock-rust says, both modes (issue 40).
if [ "${SKIP_COSMETIC_SAMPLE_BENCH:-0}" != 1 ]; then
  echo
  easylist="/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/thirdparties/easylist/easylist.txt"
  "$("$here/filterlists/setup-venv.sh")" "$here/testing/check_cosmetic_sample.py" "$BIN" "$easylist" \
    "$BENCH_DIR/cosmetic-sample" 500 40 || status=$?
fi

# EasyPrivacy and EasyList: convert, WebKit's compile beside SafariConverterLib's lists, match (issue 40).
if [ "${SKIP_FILTERLIST_BENCH:-0}" != 1 ]; then
  echo
  python3 "$here/bench/filterlist_cost.py" "$BIN" "$BENCH_DIR/filterlist-cost" || status=$?
fi

# Diff and match at scale: the iOS release diff, 1M issue-shaped match requests, 1M and 10M-request diffs.
if [ "${SKIP_DIFF_SCALE_BENCH:-0}" != 1 ]; then
  python3 "$here/bench/diff_scale.py" "$BIN" "$BENCH_DIR/diff-scale" || status=$?
fi

# The attributed ad-click attribution list, made on demand from the iOS release (issue 34: <= 100 ms).
if [ "${SKIP_ATTRIBUTION_BENCH:-0}" != 1 ]; then
  echo
  python3 "$here/bench/attribution.py" "$BIN" "$BENCH_DIR/attribution" || status=$?
fi

if [ "${SKIP_HOSTILE_BENCH:-0}" != 1 ]; then
  echo
  "$here/bench/hostile.sh" "$BIN"
fi
if [ "${SKIP_TRACKER_BENCH:-0}" != 1 ]; then
  echo
  "$here/bench/tracker-report.sh" "$BIN" || status=$?
fi
if [ -x "$here/bench/radar.sh" ] && [ "${SKIP_RADAR_BENCH:-0}" != 1 ]; then
  echo
  "$here/bench/radar.sh" "$BIN"
fi
exit $status
