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
contains() { output | grep -qF -- "$2" || fail "$1: output lacks '$2': $(output | head -c 600)"; }
# stderr_has NAME TEXT: TEXT is on the last command's stderr (not merely on stdout).
stderr_has() { grep -qF -- "$2" "$tmp/err" || fail "$1: stderr lacks '$2': $(head -c 600 "$tmp/err")"; }
# finish: the summary line; the status is 0 only without failures.
finish() {
  echo "Tests/cli/$(basename "$0"): $cases cases, $failures failures"
  [ "$failures" -eq 0 ]
}
