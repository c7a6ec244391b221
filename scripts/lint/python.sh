#!/usr/bin/env bash
# `make lint`: the Python of scripts/, Tests/ and Fuzz/ under ruff, lint and format (ruff.toml: the rule set, line
# length 120), with the ruff that scripts/install-deps.sh lint pins.
# usage: scripts/lint/python.sh [--fix]   (--fix rewrites what ruff can: formatting, import order, safe fixes)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ruff=.build/lint-venv/bin/ruff
[ -x "$ruff" ] || { echo "lint: $ruff not found (scripts/install-deps.sh lint installs it)"; exit 1; }
if [ "${1:-}" = --fix ]; then
  "$ruff" check --fix --quiet . || true
  "$ruff" format --quiet .
fi
status=0
"$ruff" check --quiet . || { echo "lint: ruff check: the findings above"; status=1; }
"$ruff" format --check --quiet . || { echo "lint: ruff format: the files above are not formatted (scripts/lint/python.sh --fix)"; status=1; }
[ $status -eq 0 ] && echo "lint: ok (ruff $("$ruff" --version | cut -d' ' -f2): check and format, $(git ls-files -co --exclude-standard -- '*.py' | wc -l) Python files)"
exit $status
