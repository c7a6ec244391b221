#!/usr/bin/env bash
# make fuzz: builds every target of Fuzz/targets/, seeds its corpus (Fuzz/seeds.py) and runs it for
# FUZZ_SECONDS (default 30) under libFuzzer with ASan and leak detection. Prints per target: CPU seconds,
# executions, coverage (edges), corpus size, crashes. Exit 1 on any crash, leak, timeout or OOM (the
# reproducer is saved in $out/crashes/TARGET/). Usage: Fuzz/run.sh RADARBLOCK_BINARY [SECONDS] [TARGET...]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
binary=$1; seconds=${2:-30}; shift 2 || shift $#
out=${FUZZ_OUT:-$here/.build/fuzz}
targets=$("$here/Fuzz/build.sh" "$out") || { echo "fuzz: build failed" >&2; exit 1; }
[ $# -gt 0 ] && targets="$*"
rm -rf "$out/seeds" && /usr/bin/python3 "$here/Fuzz/seeds.py" "$out/seeds" "$binary" || exit 1
export SWIFT_BACKTRACE=enable=no   # or ASan reports Swift's crash handler instead of the bug
status=0
printf '%-11s %8s %10s %6s %7s %s\n' target cpu-s execs cov corpus result
for t in $targets; do
  corpus="$out/corpus/$t"; crashes="$out/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  cp -n "$out/seeds/$t"/* "$corpus"/ 2>/dev/null
  log="$out/$t.log"
  /usr/bin/time -f '%U %S' -o "$out/$t.time" "$out/bin/fuzz-$t" "$corpus" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$crashes/" >"$log" 2>&1
  rc=$?
  cpu=$(tail -1 "$out/$t.time" 2>/dev/null | awk '{printf "%.1f", $1 + $2}')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  files=$(find "$corpus" -mindepth 1 -maxdepth 1 | wc -l)
  if [ $rc -eq 0 ]; then result=ok; else result="FAILED (exit $rc, see $log)"; status=1; fi
  printf '%-11s %8s %10s %6s %7s %s\n' "$t" "${cpu:-?}" "${execs:-?}" "${cov:-?}" "$files" "$result"
done
exit $status
