#!/usr/bin/env bash
# Makes the Python virtual environment of the filter-list exactness check (.build/filterlists-venv, git-ignored)
# with the reference engine, Brave's adblock-rust (PyPI "adblock"), at the version the docs' figures name.
# Usage: scripts/filterlists/setup-venv.sh; prints the venv's python.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
venv=$here/.build/filterlists-venv
if ! "$venv/bin/python" -c 'import adblock' 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet adblock==0.6.0 >&2
fi
echo "$venv/bin/python"
