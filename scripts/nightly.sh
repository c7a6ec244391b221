#!/usr/bin/env bash
# The nightly job, as a cron or CI user runs it:
#
#   scripts/nightly.sh PUBLISH_DIR TDS_URL_OR_FILE [CONFIG_URL_OR_FILE] [SURROGATES_URL_OR_FILE]
#
# Fetches the inputs (conditional requests through a cache, so unchanged inputs cost one 304 each),
# rebuilds only when an input changed, writes changes.md / changes.json against the current release, and
# replaces PUBLISH_DIR/current in one atomic swap (radarblock build does the swap; PUBLISH_DIR/current never
# disappears, not even for a moment). The release it replaced is kept as PUBLISH_DIR/previous. A failed build
# falls back as DuckDuckGo's apps do (the current release's TDS, then without the config) and says so in the
# manifest; if every fallback fails, PUBLISH_DIR/current is left exactly as it was.
#
# Exit status: 0 published a new release, or nothing changed ("unchanged: ..." on stdout);
#              1 the build failed (the message on stderr names the broken component); 2 usage error.
# Environment: RADARBLOCK (the binary; default: radarblock on PATH), RADARBLOCK_CACHE (default PUBLISH_DIR/.cache).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,17p' "$0" >&2
  exit 2
fi
publish=$1 tds=$2 config=${3:-} surrogates=${4:-}
bin=${RADARBLOCK:-radarblock}
cache=${RADARBLOCK_CACHE:-$publish/.cache}
mkdir -p "$publish" "$cache"

args=(build --tds "$tds" --cache "$cache" --out "$publish/current")
[ -n "$config" ] && args+=(--config "$config")
[ -n "$surrogates" ] && args+=(--surrogates "$surrogates")
have_current=0
if [ -f "$publish/current/manifest.json" ]; then
  have_current=1
  rm -rf "$publish/.previous-candidate"
  cp -a "$publish/current" "$publish/.previous-candidate"
  args+=(--previous "$publish/.previous-candidate" --if-changed --fallback "$publish/.previous-candidate")
fi

set +e
output=$("$bin" "${args[@]}")
status=$?
set -e
echo "$output"
if [ $status -ne 0 ] || [[ "$output" == unchanged:* ]]; then
  rm -rf "$publish/.previous-candidate"
  exit $status
fi
if [ $have_current -eq 1 ]; then
  rm -rf "$publish/previous"
  mv "$publish/.previous-candidate" "$publish/previous"
fi
echo "published $publish/current"
