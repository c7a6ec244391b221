#!/usr/bin/env bash
# make test-dist: what CI users install. The tarball runs on a PATH without the Swift toolchain, the binary links
# no toolchain library, the .deb has the documented fields and files and installs, and the man page and
# completions say what --help says. Ends with "dist: N passed, N failed"; exit 1 if any failed.
# usage: Tests/dist/check.sh RADARBLOCK DIST_DIR DATA_DIR
set -uo pipefail
bin=$(readlink -f "${1:?usage: Tests/dist/check.sh RADARBLOCK DIST_DIR DATA_DIR}")
dist=$(readlink -f "${2:?usage: Tests/dist/check.sh RADARBLOCK DIST_DIR DATA_DIR}")
data=$(readlink -f "${3:?usage: Tests/dist/check.sh RADARBLOCK DIST_DIR DATA_DIR}")
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
# dpkg -i below installs on the machine itself: the marker says the package there is this test's, so a run killed
# between install and purge (CI's time limit, a stop) is purged by the next run instead of failing it for good.
marker=/var/tmp/radarblock-dist-test.installed
sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
trap 'purge_ours; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
version=$("$bin" --version | awk 'NR == 1 { print $2 }')
tarball=$dist/radarblock-$version-linux-$(uname -m).tar.gz
deb=$dist/radarblock_${version}_$(dpkg --print-architecture).deb
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift || echo /opt/swift/usr/bin/swift)")")")
passed=0 failed=0

run() {  # run NAME COMMAND...
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); echo "-- ok: $name"; else failed=$((failed + 1)); echo "-- FAILED: $name"; fi
}

tarball_without_swift() {  # --version and a build of data/ from the extracted tarball, environment emptied
  tar -C "$tmp" -xzf "$tarball" || return 1
  local x
  x=$tmp/radarblock-$version-linux-$(uname -m)
  env -i PATH=/usr/bin:/bin "$x/bin/radarblock" --version || return 1
  env -i PATH=/usr/bin:/bin "$x/bin/radarblock" --version | grep -qx "radarblock $version" || return 1
  env -i PATH=/usr/bin:/bin "$x/bin/radarblock" build --tds "$data/tds.json" --config "$data/privacy-config.json" \
    --surrogates "$data/surrogates.txt" --unprotected "$data/unprotected-sites.txt" --out "$tmp/release" || return 1
  env -i PATH=/usr/bin:/bin "$x/bin/radarblock" match "$tmp/release/rules.rbc" --requests "$data/requests.jsonl" > "$tmp/answers.jsonl" || return 1
  [ "$(wc -l < "$tmp/answers.jsonl")" -eq "$(wc -l < "$data/requests.jsonl")" ] || { echo "match answered $(wc -l < "$tmp/answers.jsonl") lines"; return 1; }
  for f in share/man/man1/radarblock.1.gz share/bash-completion/completions/radarblock share/zsh/site-functions/_radarblock; do
    [ -s "$x/$f" ] || { echo "tarball lacks $f"; return 1; }
  done
}

no_toolchain_libraries() {  # ldd names only system libraries, none under the Swift toolchain directory
  echo "  NEEDED: $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')"
  echo "  ldd: $(ldd "$bin" | wc -l) libraries in all, none under $toolchain"
  ! ldd "$bin" | grep -q "$toolchain" || { echo "links libraries from $toolchain"; return 1; }
  ! ldd "$bin" | grep -q "not found" || return 1
  echo "binary: $(stat -c %s "$bin") bytes"
}

deb_fields_and_contents() {  # Depends = the owners of what ldd resolves; the documented files under /usr
  dpkg-deb --info "$deb" | sed 's/^/  /'
  [ "$(dpkg-deb --field "$deb" Package)" = radarblock ] || { echo "Package is not radarblock"; return 1; }
  [ "$(dpkg-deb --field "$deb" Version)" = "$version" ] || { echo "Version is not $version"; return 1; }
  local depends expected
  depends=$(dpkg-deb --field "$deb" Depends)
  expected=$("$here/scripts/dist-depends.sh" "$bin" 2>&1) || { echo "scripts/dist-depends.sh failed: $expected"; return 1; }
  [ "$depends" = "$expected" ] || { echo "Depends: $depends, but ldd needs: $expected"; return 1; }
  for pkg in libpsl5 libidn2-0 libxml2; do  # the libraries the README lists (libssl and ICU carry versions in their names)
    [[ ", $depends," == *", $pkg,"* ]] || { echo "Depends lacks $pkg"; return 1; }
  done
  [[ "$depends" == *libssl3* && "$depends" == *libicu* ]] || { echo "Depends lacks libssl or libicu"; return 1; }
  dpkg-deb --contents "$deb" | awk '{ print $6 }' > "$tmp/contents"
  sed 's/^/  /' "$tmp/contents"
  for f in ./usr/bin/radarblock ./usr/share/man/man1/radarblock.1.gz ./usr/share/bash-completion/completions/radarblock \
           ./usr/share/zsh/site-functions/_radarblock ./usr/share/doc/radarblock/README.md; do
    grep -qx "$f" "$tmp/contents" || { echo ".deb lacks $f"; return 1; }
  done
  ! dpkg-deb --contents "$deb" | awk '{ print $2 }' | grep -qv '^root/root$' || { echo "files not owned by root"; return 1; }
}

deb_is_installed() { dpkg-query -W -f='${Status}' radarblock 2>/dev/null | grep -q "install ok installed"; }

dpkg_retrying() {  # dpkg ARGS...: another apt/dpkg run (e.g. install-deps.sh elsewhere) may hold the lock
  for _ in $(seq 1 60); do
    $sudo env PATH="$PATH:/usr/sbin:/sbin" dpkg "$@" > "$tmp/dpkg.log" 2>&1 && return 0
    grep -q "lock" "$tmp/dpkg.log" || { cat "$tmp/dpkg.log"; return 1; }
    sleep 2
  done
  cat "$tmp/dpkg.log"; return 1
}

purge_ours() {  # the package this test installed, if it is still there
  [ -e "$marker" ] || return 0
  if deb_is_installed; then dpkg_retrying --purge radarblock || return 1; fi
  $sudo rm -f "$marker"
}

deb_installs() {  # dpkg -i, radarblock --version from /usr/bin on a Swift-free PATH, then purge
  if [ -e "$marker" ]; then
    echo "  purging the package an interrupted run of this test left installed"
    purge_ours || return 1
  fi
  if deb_is_installed; then
    echo "a radarblock package is already installed on this machine: not replacing it"; return 1
  fi
  $sudo touch "$marker" || return 1
  dpkg_retrying -i "$deb" || return 1
  local ok=0
  env -i PATH=/usr/bin:/bin radarblock --version && [ "$(env -i PATH=/usr/bin:/bin sh -c 'command -v radarblock')" = /usr/bin/radarblock ] || ok=1
  purge_ours || return 1
  [ ! -e /usr/bin/radarblock ] || { echo "/usr/bin/radarblock still there after purge"; return 1; }
  return $ok
}

man_page_is_the_help() {  # one section per command whose text is that command's --help, byte for byte
  /usr/bin/python3 "$here/Tests/dist/check_man.py" "$bin" "$tmp/radarblock-$version-linux-$(uname -m)/share/man/man1/radarblock.1.gz"
}

completions_offer_the_options() {  # bash: commands and each command's options from its --help
  local x
  x=$tmp/radarblock-$version-linux-$(uname -m)
  bash -c '
    source "$1"
    complete() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _radarblock; echo "${COMPREPLY[*]}"; }
    [ "$(complete radarblock inst)" = install ] || { echo "inst -> $(complete radarblock inst)"; exit 1; }
    [ "$(complete radarblock ins)" = "inspect install" ] || { echo "ins -> $(complete radarblock ins)"; exit 1; }
    [ "$(complete radarblock install --st)" = "--store --status" ] || { echo "install --st -> $(complete radarblock install --st)"; exit 1; }
    [ "$(complete radarblock build --verify)" = "--verify-webkit" ] || exit 1
  ' _ "$x/share/bash-completion/completions/radarblock" || return 1
  if command -v zsh >/dev/null; then zsh -n "$x/share/zsh/site-functions/_radarblock" || return 1; fi
  local cmd documented offered missing
  while read -r cmd; do
    # Every option --help documents (an indented line starting with it) is offered for that command.
    documented=$("$bin" "$cmd" --help | grep -oE '^  +(-[a-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort -u)
    offered=$(sed -n "s/^    $cmd) opts=(\(.*\)) ;;/\1/p" "$x/share/zsh/site-functions/_radarblock" | tr ' ' '\n' | sort -u)
    [ -n "$documented" ] || { echo "$cmd --help documents no option"; return 1; }
    missing=$(comm -23 <(echo "$documented") <(echo "$offered") | paste -sd' ')
    [ -z "$missing" ] || { echo "zsh completion of $cmd lacks $missing"; return 1; }
  done < <(sed -n 's/^    \([a-z]*\)) opts=.*/\1/p' "$x/share/zsh/site-functions/_radarblock")
  grep -q "install) opts=(--store --target --prune --status --json --help)" "$x/share/zsh/site-functions/_radarblock"
}

make_install_prefix() {  # make install PREFIX=DIR (the release build is up to date: nothing is rebuilt)
  make -C "$here" --no-print-directory install PREFIX="$tmp/prefix" BUILD_DIR="${BUILD_DIR:-.build}" > "$tmp/install.log" 2>&1 \
    || { tail -20 "$tmp/install.log"; return 1; }
  local f
  for f in bin/radarblock share/man/man1/radarblock.1.gz share/bash-completion/completions/radarblock \
           share/zsh/site-functions/_radarblock share/doc/radarblock/README.md; do
    [ -s "$tmp/prefix/$f" ] || { echo "make install did not write PREFIX/$f"; return 1; }
  done
  env -i PATH=/usr/bin:/bin "$tmp/prefix/bin/radarblock" --version | grep -qx "radarblock $version"
}

dist_is_reproducible() {  # the same binary and commit give the same tarball and .deb bytes
  "$here/scripts/dist.sh" "$bin" "$tmp/dist2" >/dev/null || return 1
  cmp "$tarball" "$tmp/dist2/$(basename "$tarball")" && cmp "$deb" "$tmp/dist2/$(basename "$deb")"
}

run "tarball: --version and a build of data/ with env -i PATH=/usr/bin:/bin" tarball_without_swift
run "ldd: no library from the Swift toolchain ($toolchain)" no_toolchain_libraries
run ".deb: dpkg-deb --info and --contents as documented" deb_fields_and_contents
run ".deb: dpkg -i, radarblock --version, purge" deb_installs
run "man page: one section per command, each the command's --help" man_page_is_the_help
run "completions: bash and zsh offer the commands and options of --help" completions_offer_the_options
run "make install PREFIX=DIR" make_install_prefix
run "make dist is reproducible" dist_is_reproducible
echo "dist: $passed passed, $failed failed"
[ $failed -eq 0 ]
