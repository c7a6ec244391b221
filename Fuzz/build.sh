#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/targets/ with `swiftc -sanitize=fuzzer,address -parse-as-library`:
# the library modules they need are compiled once (with coverage and ASan) into OUT, then each target is
# linked against them. Usage: Fuzz/build.sh [OUT_DIR] (default .build/fuzz). Prints the targets built.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/.build/fuzz}
mkdir -p "$out/objects" "$out/modules" "$out/bin"
cd "$here"

sanitize=(-sanitize=fuzzer,address)
# The system-library module maps of Sources/C* (pkg-config flags are plain -I paths on Debian).
cflags=$(pkg-config --cflags icu-uc libpsl libidn2 libcrypto 2>/dev/null || true)
includes=(-I "$out/modules" -I Sources/CCrypto -I Sources/CPSL -I Sources/CIDN2 -I Sources/CICU -I Sources/CWebKitIDNA/include)
for f in $cflags; do includes+=(-Xcc "$f"); done

# C targets: CWebKitIDNA and CSystem (each include/ has the header; give it a module map like SwiftPM does).
objects=()
for c in CWebKitIDNA CSystem; do
  lower=$(echo "$c" | tr '[:upper:]' '[:lower:]')
  if [ ! -f "$out/modules/$c/module.modulemap" ]; then
    mkdir -p "$out/modules/$c"
    printf 'module %s {\n  header "%s"\n  export *\n}\n' "$c" "$here/Sources/$c/include/$lower.h" > "$out/modules/$c/module.modulemap"
  fi
  objects+=("$out/objects/$lower.o")
  if [ Sources/$c/$lower.c -nt "$out/objects/$lower.o" ] || [ Sources/$c/include/$lower.h -nt "$out/objects/$lower.o" ]; then
    clang -O1 -fsanitize=fuzzer-no-link,address $cflags -I Sources/$c/include -c Sources/$c/$lower.c -o "$out/objects/$lower.o"
  fi
done

# Swift modules in dependency order.
modules=(StrictJSON FileIO Parallel Digest Domains ContentRules TrackerData RuleBuilder FilterLists RuleCompiler RuleEngine Surrogates)
for m in "${modules[@]}"; do
  obj="$out/objects/$m.o"
  objects+=("$obj")
  newest=$(ls -t Sources/$m/*.swift | head -1)
  if [ -f "$obj" ] && [ "$obj" -nt "$newest" ] && [ "$obj" -nt Fuzz/build.sh ]; then continue; fi
  echo "fuzz: compiling $m" >&2
  swiftc "${sanitize[@]}" -parse-as-library -O -wmo -module-name "$m" -emit-module -emit-module-path "$out/modules/$m.swiftmodule" \
    -c Sources/$m/*.swift "${includes[@]}" -o "$obj"
done

targets=()
for t in Fuzz/targets/*.swift; do
  name=$(basename "$t" .swift)
  bin="$out/bin/fuzz-$name"
  targets+=("$name")
  if [ -f "$bin" ] && [ "$bin" -nt "$t" ] && [ "$bin" -nt Fuzz/Support.swift ] && [ -z "$(find "$out/objects" -newer "$bin" -name '*.o')" ]; then continue; fi
  echo "fuzz: linking $name" >&2
  swiftc "${sanitize[@]}" -parse-as-library -O -module-name "Fuzz_$name" "$t" Fuzz/Support.swift "${objects[@]}" "${includes[@]}" \
    -lcrypto -lpsl -lidn2 -licuuc -o "$bin"
done
printf '%s\n' "${targets[@]}"
