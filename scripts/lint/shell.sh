#!/usr/bin/env bash
# `make lint`: every shell script of scripts/, Tests/, Fuzz/ and .ci/ under shellcheck (.shellcheckrc). A shell
# script is a *.sh file or a file whose first line names bash or sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v shellcheck >/dev/null || { echo "lint: shellcheck not found (scripts/install-deps.sh lint installs it)"; exit 1; }
files=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if [[ $f == *.sh ]] || head -1 "$f" | grep -Eq '^#!.*[/ ](ba)?sh( |$)'; then files+=("$f"); fi
done < <(git ls-files -co --exclude-standard -- scripts Tests Fuzz .ci)
if shellcheck "${files[@]}"; then
  echo "lint: ok (shellcheck: ${#files[@]} shell scripts)"
else
  echo "lint: shellcheck: the findings above"; exit 1
fi
