#!/usr/bin/env bash
# Node tests of surrogates.js (Debian's nodejs): builds the bundles with the given radarblock and runs
#   reference.test.js  the page-side matcher against DuckDuckGo's reference suite (full TDS + bundle subset)
#   bundle.test.js     the bundle for the shared iOS TDS: valid script, regexes compile, known URL cases
#   clicktoload.test.js the click-to-load reference tests through the bundle's matcher (unblocked rule actions)
#   attribution.test.js the ad-click attribution decisions of the bundle's matcher (an active vendor or none)
#   hostile.test.js    the bundle built from our hostile fixtures (cases/hostile-*): inert data, exact round trip
#                      (with the tracker report, the default, and without it: the report's fields round-trip too)
#   equivalence.test.js 100,000 requests generated from the iOS TDS + config: the bundle's classifier answers
#                      exactly as the one before the lookup tables (Tests/js/legacy; RB_OLD_BUNDLE=FILE: a bundle
#                      built by a radarblock of that time, `surrogates --report-trackers`)
#   classifier.test.js the tracker report of the real PageScript.js on cases/report-table.jsonl, which the Swift
#                      engine (`radarblock match` on the `convert` of the same inputs) answers too
#                      (`swift test --filter SurrogatesTests` adds hostile domains that the TDS decoder would reject)
# usage: Tests/js/run.sh RADARBLOCK [SHARED_DIR]   (SHARED_DIR default: ../shared next to the package)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rb=${1:?usage: Tests/js/run.sh RADARBLOCK [SHARED_DIR]}
shared=${2:-${SHARED:-$here/../../../shared}}
ddg="$shared/data/ddg"
ref="$ddg/reference-tests/tracker-radar-tests/TR-domain-matching"
command -v node >/dev/null || { echo "Tests/js: node not found (apt-get install -y nodejs)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The classifier table (our fixtures, no shared data): the page's report and the Swift engine on the same rows.
classifier() {
  local c="$here/cases"
  "$rb" convert --tds "$c/report-tds.json" --config "$c/report-config.json" --unprotected "$c/report-unprotected.txt" \
    -o "$tmp/report-rules.json" 2>/dev/null
  "$rb" surrogates --tds "$c/report-tds.json" --config "$c/report-config.json" --unprotected "$c/report-unprotected.txt" \
    --surrogates "$c/report-surrogates.txt" --strict -o "$tmp/report.js" 2>/dev/null
  node "$here/classifier.test.js" requests "$c/report-table.jsonl" > "$tmp/report-requests.jsonl"
  "$rb" match "$tmp/report-rules.json" --requests "$tmp/report-requests.jsonl" > "$tmp/report-answers.jsonl"
  node "$here/classifier.test.js" check "$tmp/report.js" "$c/report-table.jsonl" "$tmp/report-answers.jsonl"
  "$rb" surrogates --tds "$c/hostile-tds.json" --surrogates "$c/hostile-surrogates.txt" \
    --config "$c/hostile-config.json" -o "$tmp/hostile-report.js" 2>/dev/null
  node "$here/hostile.test.js" "$tmp/hostile-report.js" "$c/hostile-expected.json"
}
if [ ! -d "$ref" ]; then
  echo "Tests/js: SKIP the DuckDuckGo-data tests (reference suite, iOS bundle, equivalence of 100,000 iOS requests): shared data not found at $ddg" >&2
  "$rb" surrogates --tds "$here/cases/hostile-tds.json" --surrogates "$here/cases/hostile-surrogates.txt" \
    --config "$here/cases/hostile-config.json" -o "$tmp/hostile.js" 2>/dev/null
  node "$here/hostile.test.js" "$tmp/hostile.js" "$here/cases/hostile-expected.json"
  classifier
  exit 0
fi

"$rb" surrogates --tds "$ref/tracker_radar_reference.json" --surrogates "$ref/surrogates.txt" -o "$tmp/full.js" 2>/dev/null
"$rb" surrogates --tds "$ref/tracker_radar_reference.json" --surrogates "$ref/surrogates.txt" --no-report-trackers \
  -o "$tmp/subset.js" 2>/dev/null
"$rb" surrogates --tds "$ddg/tds/ios-tds_v5_2025-06-17.json" --surrogates "$ddg/surrogates/surrogates.txt" \
  --config "$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json" --strict -o "$tmp/ios.js" 2>/dev/null
"$rb" surrogates --tds "$here/cases/hostile-tds.json" --surrogates "$here/cases/hostile-surrogates.txt" \
  --config "$here/cases/hostile-config.json" -o "$tmp/hostile.js" 2>/dev/null
ctl="$ddg/reference-tests/click-to-load"
# The reference surrogate body "() => ();" is not valid JavaScript (the tests never run it): use a valid no-op.
printf 'facebook.net/sdk.js application/javascript\n(function () {})();\n' > "$tmp/ctl-surrogates.txt"
"$rb" surrogates --tds "$ctl/tds_reference.json" --surrogates "$tmp/ctl-surrogates.txt" --config "$ctl/config_reference.json" \
  --all-trackers -o "$tmp/ctl.js" 2>/dev/null
for f in full subset ios hostile ctl; do node --check "$tmp/$f.js"; done
node "$here/clicktoload.test.js" "$tmp/ctl.js" "$ctl/tests.json"
node -e 'const fs = require("fs"); const c = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  c.features.contentBlocking.state = "disabled"; fs.writeFileSync(process.argv[2], JSON.stringify(c));' \
  "$ctl/config_reference.json" "$tmp/ctl-disabled-config.json"
"$rb" surrogates --tds "$ctl/tds_reference.json" --surrogates "$tmp/ctl-surrogates.txt" --config "$tmp/ctl-disabled-config.json" \
  --all-trackers -o "$tmp/ctl-disabled.js" 2>/dev/null
node "$here/clicktoload.test.js" "$tmp/ctl-disabled.js" "$ctl/tests.json" --disabled
node "$here/reference.test.js" "$tmp/full.js" "$tmp/subset.js" "$ref/domain_matching_tests.json"
"$rb" surrogates --tds "$ref/tracker_radar_reference.json" --surrogates "$ref/surrogates.txt" --report-trackers \
  --config "$here/../webkit/fixtures/attribution-reference-config.json" -o "$tmp/attribution.js" 2>/dev/null
node "$here/attribution.test.js" "$tmp/attribution.js"
node "$here/bundle.test.js" "$tmp/ios.js" "$here/cases/ios-tds-2025-06-17.jsonl"
node "$here/hostile.test.js" "$tmp/hostile.js" "$here/cases/hostile-expected.json"
"$rb" surrogates --tds "$here/cases/hostile-tds.json" --surrogates "$here/cases/hostile-surrogates.txt" \
  --config "$here/cases/hostile-config.json" --no-report-trackers -o "$tmp/hostile-subset.js" 2>/dev/null
node "$here/hostile.test.js" "$tmp/hostile-subset.js" "$here/cases/hostile-expected.json"
node "$here/equivalence.test.js" "$tmp/ios.js" "$ddg/tds/ios-tds_v5_2025-06-17.json" \
  "$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json" 100000 ${RB_OLD_BUNDLE:+"$RB_OLD_BUNDLE"}
classifier
echo "Tests/js: ok (ios bundle $(wc -c < "$tmp/ios.js") bytes)"
