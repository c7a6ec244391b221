#!/usr/bin/env bash
# The nightly job, as a cron or CI user runs it:
#
#   scripts/nightly.sh PUBLISH_DIR TDS_URL_OR_FILE [CONFIG_URL_OR_FILE] [SURROGATES_URL_OR_FILE]
#
# Layout: PUBLISH_DIR/releases/<identifier>/ holds each release; PUBLISH_DIR/current and PUBLISH_DIR/previous
# are symbolic links into it (current -> releases/<identifier>). Apps read PUBLISH_DIR/current.
# Fetches the inputs (conditional requests through a cache, so unchanged inputs cost one 304 each),
# rebuilds only when an input changed, writes changes.md / changes.json against the current release, and
# publishes: radarblock build writes the new release beside the current one and swaps the `current` link
# in one rename (PUBLISH_DIR/current never disappears, not even for a moment). `previous` then points at the
# release it replaced; older releases are removed. A failed build falls back as DuckDuckGo's apps do (the
# current release's TDS, then without the config) and says so in the manifest; if every fallback fails,
# PUBLISH_DIR/current is left exactly as it was. A PUBLISH_DIR/current that is a real directory (the older
# layout) is moved to releases/legacy first. Each new release records WebKit's compile cost of its lists
# (manifest webkitCompileCost, changes.md), and one that costs WebKit more than
# RADARBLOCK_MAX_COMPILE_REGRESSION percent over the current release (CPU time or peak memory) is not
# published: the job fails and current stays (apps compile the list on the device; TrackerRadarKit's CI
# gates the same way at 20%).
#
# Exit status: 0 published a new release, or nothing changed ("unchanged: ..." on stdout);
#              1 the build failed (the message on stderr names the broken component); 2 usage error.
# Environment: RADARBLOCK (the binary; default: radarblock on PATH), RADARBLOCK_CACHE (default PUBLISH_DIR/.cache),
#              RADARBLOCK_MAX_COMPILE_REGRESSION (default 25; "off": record the cost, gate nothing).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,28p' "$0" >&2
  exit 2
fi
publish=$1 tds=$2 config=${3:-} surrogates=${4:-}
bin=${RADARBLOCK:-radarblock}
cache=${RADARBLOCK_CACHE:-$publish/.cache}
max_regression=${RADARBLOCK_MAX_COMPILE_REGRESSION:-25}
# The layout's one spelling here. radarblock build publishes a new release beside the current link's target, in a
# directory named after its identifier (Sources/Release/ReleaseDirectory.swift): releases/<identifier>, checked
# against the manifests by Tests/cli/hostile-input.sh.
releases=releases
mkdir -p "$publish/$releases" "$cache"

if [ -d "$publish/current" ] && [ ! -L "$publish/current" ]; then
  mv "$publish/current" "$publish/$releases/legacy"
  ln -s "$releases/legacy" "$publish/current"
fi
# Before the first release, `current` points at a release not yet built; the build publishes beside it.
[ -L "$publish/current" ] || ln -s "$releases/initial" "$publish/current"

args=(build --tds "$tds" --cache "$cache" --out "$publish/current")
[ -n "$config" ] && args+=(--config "$config")
[ -n "$surrogates" ] && args+=(--surrogates "$surrogates")
old=""
if [ -f "$publish/current/manifest.json" ]; then
  old=$(readlink "$publish/current")
  # The current release stays in place while the new one is built beside it: no copy is needed.
  args+=(--previous "$publish/current" --if-changed --fallback "$publish/current")
  if [ "$max_regression" != off ]; then args+=(--max-compile-regression "$max_regression"); fi
fi

set +e
output=$("$bin" "${args[@]}")
status=$?
set -e
echo "$output"
if [ $status -ne 0 ] || [[ "$output" == unchanged:* ]]; then
  exit $status
fi
new=$(readlink "$publish/current")
if [ -n "$old" ] && [ "$old" != "$new" ]; then
  ln -sfn "$old" "$publish/.previous-link"
  mv -T "$publish/.previous-link" "$publish/previous"
fi
keep_previous=$(readlink "$publish/previous" 2>/dev/null || true)
for dir in "$publish/$releases"/*; do
  name="$releases/$(basename "$dir")"
  [ "$name" = "$new" ] || [ "$name" = "$keep_previous" ] && continue
  [ -f "$dir/manifest.json" ] && rm -rf "$dir"
done
echo "published $publish/current -> $new"
