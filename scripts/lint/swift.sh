#!/usr/bin/env bash
# `make lint` (part of make test): the Swift tree as .swift-format formats it, no line over 120 characters (the
# formatter does not wrap comments and string literals), and no function over 70 lines.
# usage: scripts/lint/swift.sh [DIR...]   (default: Sources Tests Fuzz, the directories that exist)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || for d in Sources Tests Fuzz; do [ -d "$d" ] && dirs+=("$d"); done
command -v swift-format >/dev/null || { echo "lint: swift-format not found (it ships with the Swift toolchain, 5.8+)"; exit 1; }
status=0
if ! out=$(swift-format lint --strict --configuration .swift-format -r "${dirs[@]}" 2>&1) || [ -n "$out" ]; then
  echo "$out" | head -40
  echo "lint: swift-format: the files above are not formatted (make format rewrites them)"; status=1
fi
long=$(find "${dirs[@]}" -name '*.swift' -print0 | xargs -0 awk 'length > 120 { printf "%s:%d: %d characters\n", FILENAME, FNR, length }')
if [ -n "$long" ]; then
  echo "$long" | head -40
  echo "lint: $(echo "$long" | wc -l) line(s) over 120 characters"; status=1
fi
python3 scripts/lint/function_lengths.py Sources --top 5 --max 70 || status=1
[ $status -eq 0 ] && echo "lint: ok (swift-format, line length 120, functions <= 70 lines)"
exit $status
