#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/targets/ with `swiftc -sanitize=fuzzer,address -parse-as-library`:
# the library modules they need are compiled once (with coverage and ASan) into OUT, then each target is
# linked against them. Which modules, in which order, and what they link comes from Package.swift
# (Fuzz/modules.py on `swift package describe`). Usage: Fuzz/build.sh [OUT_DIR] (default .build/fuzz). Prints
# the targets built.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/fuzz}
mkdir -p "$out/objects" "$out/modules" "$out/bin"
cd "$here"

# shellcheck disable=SC2054  # one flag whose value is a comma-separated list
sanitize=(-sanitize=fuzzer,address)
swift package describe --type json > "$out/package.json"
modules=$(/usr/bin/python3 Fuzz/modules.py "$out/package.json")
# pkg-config flags are plain -I paths on Debian: one word each.
read -r -a cflags <<< "$(pkg-config --cflags icu-uc libpsl libidn2 libcrypto 2>/dev/null || true)"
includes=(-I "$out/modules")
for f in "${cflags[@]}"; do includes+=(-Xcc "$f"); done
objects=() links=()

# A system library: its module map's directory on the include path, its `link "x"` as -lx.
system_module() {
  local path=$1 lib
  includes+=(-I "$path")
  while read -r lib; do links+=("-l$lib"); done < <(sed -n 's/^ *link "\(.*\)"/\1/p' "$path/module.modulemap")
}

# A C target (NAME/name.c, NAME/include/name.h): a module map as SwiftPM makes one, and an object file.
c_module() {
  local name=$1 path=$2 lower
  lower=$(echo "$name" | tr '[:upper:]' '[:lower:]')
  includes+=(-I "$path/include")
  if [ ! -f "$out/modules/$name/module.modulemap" ]; then
    mkdir -p "$out/modules/$name"
    printf 'module %s {\n  header "%s"\n  export *\n}\n' "$name" "$here/$path/include/$lower.h" > "$out/modules/$name/module.modulemap"
  fi
  objects+=("$out/objects/$lower.o")
  if [ "$path/$lower.c" -nt "$out/objects/$lower.o" ] || [ "$path/include/$lower.h" -nt "$out/objects/$lower.o" ]; then
    clang -O1 -fsanitize=fuzzer-no-link,address "${cflags[@]}" -I "$path/include" -c "$path/$lower.c" -o "$out/objects/$lower.o"
  fi
}

# A Swift module: every .swift file under its directory, recompiled when one is newer than the object, or when a
# module before it in the list (its dependencies come first) was: an object compiled against another module's old
# layout crashes at run time (a struct that gained a field, copied with the old size).
swift_module() {
  local name=$1 path=$2 obj=$out/objects/$1.o sources before
  mapfile -t sources < <(find "$path" -name '*.swift' | sort)
  before=0
  for o in "${objects[@]}"; do [ "$o" -nt "$obj" ] && before=1; done
  objects+=("$obj")
  if [ -f "$obj" ] && [ "$obj" -nt Fuzz/build.sh ] && [ $before -eq 0 ] \
    && [ -z "$(find "$path" -name '*.swift' -newer "$obj")" ]; then
    return 0
  fi
  echo "fuzz: compiling $name" >&2
  swiftc "${sanitize[@]}" -parse-as-library -O -wmo -module-name "$name" -emit-module \
    -emit-module-path "$out/modules/$name.swiftmodule" -c "${sources[@]}" "${includes[@]}" -o "$obj"
}

while read -r kind name path; do
  case $kind in
    system) system_module "$path" ;;
    c) c_module "$name" "$path" ;;
    swift) swift_module "$name" "$path" ;;
  esac
done <<< "$modules"

targets=()
for t in Fuzz/targets/*.swift; do
  name=$(basename "$t" .swift)
  bin="$out/bin/fuzz-$name"
  targets+=("$name")
  if [ -f "$bin" ] && [ "$bin" -nt "$t" ] && [ "$bin" -nt Fuzz/Support.swift ] && [ -z "$(find "$out/objects" -newer "$bin" -name '*.o')" ]; then continue; fi
  echo "fuzz: linking $name" >&2
  swiftc "${sanitize[@]}" -parse-as-library -O -module-name "Fuzz_$name" "$t" Fuzz/Support.swift "${objects[@]}" "${includes[@]}" \
    "${links[@]}" -o "$bin"
done
printf '%s\n' "${targets[@]}"
