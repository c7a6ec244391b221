#!/usr/bin/env bash
# The nightly job, as a cron or CI user runs it:
#
#   scripts/nightly.sh PUBLISH_DIR TDS_URL_OR_FILE [CONFIG_URL_OR_FILE [SURROGATES_URL_OR_FILE]] [-- BUILD_OPTION...]
#
# Every argument after `--` goes to `radarblock build` as given (--target, --strict, --unprotected, --filter-list,
# ...: see `radarblock build --help`); the job adds --tds, --config, --surrogates, --cache, --out and, once there is
# a current release, --previous, --if-changed, --fallback and the gates below.
# Layout: PUBLISH_DIR/releases/<identifier>/ holds each release; PUBLISH_DIR/current and PUBLISH_DIR/previous
# are symbolic links into it (current -> releases/<identifier>). Apps read PUBLISH_DIR/current.
# Fetches the inputs (conditional requests through a cache, so unchanged inputs cost one 304 each),
# rebuilds only when an input changed, writes changes.md / changes.json against the current release, and
# publishes: radarblock build writes the new release beside the current one and swaps the `current` link
# in one rename (PUBLISH_DIR/current never disappears, not even for a moment). `previous` then points at the
# release it replaced; older releases are removed. A failed build falls back as DuckDuckGo's apps do (the
# current release's TDS, then without the config) and says so in the manifest; if every fallback fails,
# PUBLISH_DIR/current is left exactly as it was. A current release that is damaged (a file that differs from its
# manifest) is reported as a warning and the new release publishes without changes or gates against it. A
# PUBLISH_DIR/current that is a real directory (the older layout) is moved to releases/legacy first.
# Gates: a new release is not published (current stays) when it costs WebKit more than
# RADARBLOCK_MAX_COMPILE_REGRESSION percent over the current release to compile (CPU time or peak memory), removes
# more than RADARBLOCK_MAX_TRACKER_REMOVAL percent of the current release's trackers, or newly allows more than
# RADARBLOCK_MAX_NEWLY_ALLOWED requests of the derived corpus (changes.md's). A gate's option given after `--`
# replaces the job's default; RADARBLOCK_GATES=off lifts every gate for one night (after a reviewed change).
#
# Exit status: 0 published a new release; 3 unchanged (every input as before, "unchanged: ..." on stdout);
#              4 published from a fallback (the manifest's inputs say what was replaced or dropped);
#              5 refused by a gate (the message on stderr says which; current stays);
#              1 the build failed (the message on stderr names the broken component; current stays); 2 usage error.
# Environment: RADARBLOCK (the binary; default: radarblock on PATH), RADARBLOCK_CACHE (default PUBLISH_DIR/.cache),
#              RADARBLOCK_MAX_COMPILE_REGRESSION (default 25), RADARBLOCK_MAX_TRACKER_REMOVAL (default 25),
#              RADARBLOCK_MAX_NEWLY_ALLOWED (default 20000): "off" turns one gate off; RADARBLOCK_GATES=off: all.
set -euo pipefail
usage() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" >&2
  exit 2
}
positional=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do positional+=("$1"); shift; done
[ $# -gt 0 ] && shift # the `--`: the rest is build's
build_options=("$@")
if [ ${#positional[@]} -lt 2 ] || [ ${#positional[@]} -gt 4 ]; then usage; fi
publish=${positional[0]} tds=${positional[1]} config=${positional[2]:-} surrogates=${positional[3]:-}
bin=${RADARBLOCK:-radarblock}
cache=${RADARBLOCK_CACHE:-$publish/.cache}
gates=${RADARBLOCK_GATES:-on}
if [ "$gates" != on ] && [ "$gates" != off ]; then
  echo "nightly.sh: RADARBLOCK_GATES must be on or off, not $gates" >&2
  exit 2
fi
# Each gate: build's option and its limit; "off" (or RADARBLOCK_GATES=off) leaves the option out.
gate_options=(--max-compile-regression --max-tracker-removal --max-newly-allowed)
gate_limits=("${RADARBLOCK_MAX_COMPILE_REGRESSION:-25}" "${RADARBLOCK_MAX_TRACKER_REMOVAL:-25}"
  "${RADARBLOCK_MAX_NEWLY_ALLOWED:-20000}")
given() { # whether build's options after `--` hold option $1
  local o
  for o in "${build_options[@]}"; do [ "$o" = "$1" ] && return 0; done
  return 1
}
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

args=(build --detailed-exit --tds "$tds" --cache "$cache" --out "$publish/current")
[ -n "$config" ] && args+=(--config "$config")
[ -n "$surrogates" ] && args+=(--surrogates "$surrogates")
old=""
if [ -f "$publish/current/manifest.json" ]; then
  old=$(readlink "$publish/current")
  # The current release stays in place while the new one is built beside it: no copy is needed.
  args+=(--previous "$publish/current" --if-changed --fallback "$publish/current")
  for i in "${!gate_options[@]}"; do
    option=${gate_options[$i]} limit=${gate_limits[$i]}
    given "$option" || [ "$gates" = off ] || [ "$limit" = off ] || args+=("$option" "$limit")
  done
fi
args+=("${build_options[@]}")

set +e
output=$("$bin" "${args[@]}")
status=$?
set -e
echo "$output"
# build --detailed-exit: 0 built, 4 built from a fallback (both published), 3 unchanged, 1 failed, 2 usage,
# 5 refused by a gate: the job's own statuses.
if [ $status -ne 0 ] && [ $status -ne 4 ]; then
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
if [ $status -eq 4 ]; then
  echo "published from a fallback $publish/current -> $new"
else
  echo "published $publish/current -> $new"
fi
exit $status
