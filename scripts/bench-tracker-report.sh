#!/usr/bin/env bash
# `make bench`, tracker report overhead (scripts/bench/tracker_overhead.py): time to `load` of a page with 500
# subresources in real WebKit, without a bundle, with surrogates.js and with the --report-trackers bundle.
# usage: scripts/bench-tracker-report.sh RADARBLOCK [REPEAT]   (default TRACKER_BENCH_REPEAT or 9; needs the shared iOS TDS + config in ../shared)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin=${1:?usage: scripts/bench-tracker-report.sh RADARBLOCK [REPEAT]}
repeat=${2:-${TRACKER_BENCH_REPEAT:-9}}
ddg=${SHARED:-$here/../../shared}/data/ddg
tds=$ddg/tds/ios-tds_v5_2025-06-17.json config=$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json
[ -f "$tds" ] || { echo "bench: tracker report overhead skipped: $tds not found"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" convert --tds "$tds" --config "$config" -o "$tmp/rules.json" 2>/dev/null
"$bin" surrogates --tds "$tds" --config "$config" --surrogates "$ddg/surrogates/surrogates.txt" -o "$tmp/surrogates.js" 2>/dev/null
"$bin" surrogates --tds "$tds" --config "$config" --surrogates "$ddg/surrogates/surrogates.txt" --report-trackers \
  -o "$tmp/report.js" 2>/dev/null
echo "bundles: surrogates.js $(wc -c < "$tmp/surrogates.js") bytes, --report-trackers $(wc -c < "$tmp/report.js") bytes"
export WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS=1 WEBKIT_DISABLE_COMPOSITING_MODE=1 LIBGL_ALWAYS_SOFTWARE=1
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp" /usr/bin/python3 "$here/bench/tracker_overhead.py" \
  "$tmp/rules.json" "$tmp/surrogates.js" "$tmp/report.js" "$tds" "$repeat"
