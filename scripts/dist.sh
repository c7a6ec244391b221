#!/usr/bin/env bash
# make dist: the release binary (Swift runtime linked statically) as
#   DIST/radarblock-<version>-linux-<arch>.tar.gz   bin/, share/man, share/bash-completion, share/zsh, share/doc
#   DIST/radarblock_<version>_<debian arch>.deb     the same files under /usr, Depends: from ldd (scripts/dist-depends.sh)
# Both are reproducible: file times are the last commit's (SOURCE_DATE_EPOCH), owners root, names sorted.
# usage: scripts/dist.sh RADARBLOCK DIST_DIR
set -euo pipefail
bin=$(readlink -f "${1:?usage: scripts/dist.sh RADARBLOCK DIST_DIR}")
dist=${2:?usage: scripts/dist.sh RADARBLOCK DIST_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift || echo /opt/swift/usr/bin/swift)")")")
if ldd "$bin" | grep -q "$toolchain"; then
  echo "radarblock: error: $bin links libraries from the Swift toolchain ($toolchain): build it with --static-swift-stdlib" >&2
  ldd "$bin" | grep "$toolchain" >&2
  exit 1
fi
version=$("$bin" --version | awk 'NR == 1 { print $2 }')
arch=$(uname -m)
debarch=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$dist"

strip -o "$stage/radarblock" "$bin"  # once for both packages
name=radarblock-$version-linux-$arch
"$here/scripts/install-files.sh" "$stage/radarblock" "$stage/$name"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -cf - "$name" \
  | gzip -6n > "$dist/$name.tar.gz.tmp"
mv "$dist/$name.tar.gz.tmp" "$dist/$name.tar.gz"

root=$stage/deb
"$here/scripts/install-files.sh" "$stage/radarblock" "$root/usr"
mkdir -p "$root/DEBIAN"
depends=$("$here/scripts/dist-depends.sh" "$bin")  # outside the here-document, where a failure would go unnoticed
# Installed-Size as dpkg-gencontrol counts it: each file's size rounded up to KiB, 1 KiB for anything else. `du`
# counts the blocks the file system gave, which vary from one write of the same bytes to the next.
installed_size=$(find "$root/usr" -mindepth 1 -printf '%y %s\n' \
  | awk '{ s += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print s }')
cat > "$root/DEBIAN/control" <<CONTROL
Package: radarblock
Version: $version
Architecture: $debarch
Maintainer: radarblock developers <radarblock@localhost>
Installed-Size: $installed_size
Depends: $depends
Suggests: libwebkitgtk-6.0-4
Section: utils
Priority: optional
Description: tracker datasets to WebKit content rule lists
 radarblock converts DuckDuckGo's Tracker Data Set and privacy configuration into WebKit content
 rule lists, compiles them to versioned bytecode, emits a JavaScript surrogate bundle, builds and
 diffs release directories, and installs releases into a WebKitGTK/WPE filter store
 (radarblock install; needs libwebkitgtk-6.0-4 at run time, loaded only by that command).
CONTROL
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
deb=$dist/radarblock_${version}_$debarch.deb
dpkg-deb --root-owner-group -Zgzip -z6 --build "$root" "$deb.tmp" >/dev/null
mv "$deb.tmp" "$deb"
echo "$dist/$name.tar.gz: $(stat -c %s "$dist/$name.tar.gz") bytes"
echo "$deb: $(stat -c %s "$deb") bytes; binary $(stat -c %s "$stage/radarblock") bytes stripped ($(stat -c %s "$bin") built)"
