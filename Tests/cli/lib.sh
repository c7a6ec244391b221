# shellcheck shell=bash
# Sourced by the Tests/cli scripts: they count cases and check a command's exit status and messages the same
# way. The sourcing script sets $tmp (its scratch directory) first.
failures=0 cases=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# What the last `expect` printed, stderr first (where the messages are).
output() { cat "$tmp/err" "$tmp/out"; }
# expect NAME STATUS CMD...: runs CMD (stdout in $tmp/out, stderr in $tmp/err) and checks its exit status;
# each call is one case.
expect() {
  local name=$1 want=$2; shift 2
  cases=$((cases + 1))
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" = "$want" ] || fail "$name: exit $got, expected $want: $(output | head -c 600)"
}
# contains NAME TEXT: the last command printed TEXT (stdout or stderr).
# grep reads the whole output (no -q): with pipefail, a grep that stops at the first match would let `output`
# die of SIGPIPE on a long output and fail the check it passed.
contains() { output | grep -F -- "$2" >/dev/null || fail "$1: output lacks '$2': $(output | head -c 600)"; }
# stderr_has NAME TEXT: TEXT is on the last command's stderr (not merely on stdout).
stderr_has() { grep -qF -- "$2" "$tmp/err" || fail "$1: stderr lacks '$2': $(head -c 600 "$tmp/err")"; }
# finish: the summary line; the status is 0 only without failures.
finish() {
  echo "Tests/$(basename "$(dirname "$0")")/$(basename "$0"): $cases cases, $failures failures"
  [ "$failures" -eq 0 ]
}
# start_in_scratch RADARBLOCK: $rb (an absolute path), $tmp (a scratch directory removed at exit) and $root (the
# repository); the script goes on in $tmp. For scripts that source this file before setting $tmp.
start_in_scratch() {
  # shellcheck disable=SC2034  # rb and root are for the sourcing script
  rb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cd "$tmp" || exit 2
}
# need_ddg_data WHAT: $ddg is DuckDuckGo's data in ../shared (SHARED); without it the script stops, saying it skipped.
need_ddg_data() {
  ddg=${SHARED:-$root/../shared}/data/ddg
  if [ ! -d "$ddg/tds" ] || [ ! -d "$ddg/reference-tests" ]; then
    echo "Tests/$(basename "$(dirname "$0")")/$(basename "$0"): SKIPPED: $ddg not found ($1 needs DuckDuckGo's data, which is not in the repository)"
    exit 0
  fi
}
