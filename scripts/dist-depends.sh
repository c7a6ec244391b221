#!/usr/bin/env bash
# The Debian packages a binary needs at run time, for a .deb's Depends: field (sorted, comma-separated): the
# owners of the libraries it links directly (its ELF NEEDED entries, as dpkg-shlibdeps reads them), each resolved
# to a path by ldd, plus the libraries it must dlopen. What those libraries need in turn is their own packages' Depends.
# usage: scripts/dist-depends.sh BINARY
set -euo pipefail
bin=${1:?usage: scripts/dist-depends.sh BINARY}
owner() {  # the package owning a library path (dpkg knows it under /lib or /usr/lib after usrmerge)
  local path=$1 real p pkg
  real=$(readlink -f "$path")
  for p in "$path" "$real" "${path/#\/lib\//\/usr\/lib\/}" "${real/#\/usr\/lib\//\/lib\/}" "${real/#\/lib\//\/usr\/lib\/}"; do
    # The readers below take all of their input: one that stopped early (head -1, awk's exit) would leave the
    # writer a SIGPIPE, which pipefail turns into a failure whenever the output outgrew the pipe's buffer first.
    if pkg=$(dpkg-query -S "$p" 2>/dev/null | sed -n 1p) && [ -n "$pkg" ]; then echo "${pkg%%:*}"; return 0; fi
  done
  echo "radarblock: error: no Debian package owns $path (needed by $bin)" >&2
  return 1
}
resolved=$(ldd "$bin")
# Libraries radarblock dlopens and cannot do without: JavaScriptCore parses every surrogate body
# (Surrogates/JavaScriptSyntax.swift, libraryName). They are not NEEDED entries, so ldd cannot see them.
dlopened=(libjavascriptcoregtk-6.0.so.1)
# ldconfig lives in /sbin, which a user's PATH (CI's among them) need not hold.
ldconfig=$(PATH=$PATH:/usr/sbin:/sbin command -v ldconfig) || { echo "radarblock: error: ldconfig not found (to resolve ${dlopened[*]})" >&2; exit 1; }
for soname in "${dlopened[@]}"; do
  path=$("$ldconfig" -p | awk -v so="$soname" '$1 == so && !found { found = $NF } END { print found }')
  [ -n "$path" ] || { echo "radarblock: error: $soname (loaded at run time) is not installed" >&2; exit 1; }
  resolved+=$'\n'"  $soname => $path (dlopen)"
done
for soname in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') "${dlopened[@]}"; do
  path=$(awk -v so="$soname" '$1 == so && $2 == "=>" { print $3 }' <<< "$resolved")
  [ -n "$path" ] || path=$(awk -v so="$soname" 'index($1, so) && $1 ~ /^\// { print $1 }' <<< "$resolved")
  [ -n "$path" ] && [ "$path" != "not" ] || { echo "radarblock: error: $bin needs $soname, which ldd cannot resolve" >&2; exit 1; }
  owner "$path"
done | sort -u | paste -sd, | sed 's/,/, /g'
