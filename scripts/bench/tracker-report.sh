#!/usr/bin/env bash
# `make bench`, tracker report overhead (scripts/bench/tracker_overhead.py), in real WebKit, side by side:
#   no bundle; surrogates.js as built by default (with the tracker report); --no-report-trackers; and the tracker
#   report before the lookup tables (issue 32): built by RB_OLD_BIN (a radarblock of that time, `--report-trackers`)
#   when given, else the current bundle rebuilt around the legacy runtime (Tests/js/legacy/legacy-data.js).
# Prints the bundle sizes (the default one field by field: scripts/bench/bundle_sizes.py), then the 500-subresource page (median, quartiles and range of time to load, the
# bundle's start-up per document) and the 20-iframe page (start-up summed over the documents, tracker events).
# usage: scripts/bench/tracker-report.sh RADARBLOCK [REPEAT]   (default TRACKER_BENCH_REPEAT or 21; needs the
#        shared iOS TDS + config in ../shared)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"  # scripts/
bin=${1:?usage: scripts/bench/tracker-report.sh RADARBLOCK [REPEAT]}
repeat=${2:-${TRACKER_BENCH_REPEAT:-21}}
ddg=${SHARED:-$here/../../shared}/data/ddg
tds=$ddg/tds/ios-tds_v5_2025-06-17.json config=$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json
[ -f "$tds" ] || { echo "bench: tracker report overhead skipped: $tds not found"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
surrogates() { "$1" surrogates --tds "$tds" --config "$config" --surrogates "$ddg/surrogates/surrogates.txt" "${@:2}" 2>/dev/null; }
"$bin" convert --tds "$tds" --config "$config" -o "$tmp/rules.json" 2>/dev/null
surrogates "$bin" -o "$tmp/default.js"
surrogates "$bin" --no-report-trackers -o "$tmp/no-report.js"
if [ -n "${RB_OLD_BIN:-}" ]; then
  surrogates "$RB_OLD_BIN" --report-trackers -o "$tmp/old-report.js"
  old="old --report-trackers"
else
  node "$here/../Tests/js/legacy/legacy-data.js" "$tmp/default.js" "$tmp/old-report.js"
  old="legacy report (rebuilt)"
fi
echo "bundles (iOS TDS v5 + iOS config): default (report) $(wc -c < "$tmp/default.js") bytes," \
     "--no-report-trackers $(wc -c < "$tmp/no-report.js") bytes, $old $(wc -c < "$tmp/old-report.js") bytes"
python3 "$here/bench/bundle_sizes.py" "$tmp/default.js"
export WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS=1 WEBKIT_DISABLE_COMPOSITING_MODE=1 LIBGL_ALWAYS_SOFTWARE=1
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp" /usr/bin/python3 "$here/bench/tracker_overhead.py" \
  "$tmp/rules.json" "$tds" "$repeat" "default (report)=$tmp/default.js" "--no-report-trackers=$tmp/no-report.js" \
  "$old=$tmp/old-report.js"
