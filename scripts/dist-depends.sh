#!/usr/bin/env bash
# The Debian packages a binary needs at run time: the owners of every shared library ldd resolves
# (ld.so and the vDSO aside), sorted, comma-separated, for a .deb's Depends: field.
# usage: scripts/dist-depends.sh BINARY
set -euo pipefail
bin=${1:?usage: scripts/dist-depends.sh BINARY}
owner() {  # the package owning a library path (dpkg knows it under /lib or /usr/lib after usrmerge)
  local path=$1 real
  real=$(readlink -f "$path")
  for p in "$path" "$real" "${path/#\/lib\//\/usr\/lib\/}" "${real/#\/usr\/lib\//\/lib\/}" "${real/#\/lib\//\/usr\/lib\/}"; do
    local pkg
    if pkg=$(dpkg-query -S "$p" 2>/dev/null | head -1); then echo "${pkg%%:*}"; return 0; fi
  done
  echo "radarblock: error: no Debian package owns $path (needed by $bin)" >&2
  return 1
}
libs=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | grep -v '/ld-linux' | sort -u)
for lib in $libs; do owner "$lib"; done | sort -u | paste -sd, | sed 's/,/, /g'
