#!/usr/bin/env bash
# Inputs are what they claim to be (issue 30): a file given as the wrong input (a TDS as --config, a config as
# --tds, a TDS or an HTML page as --unprotected), a config without "features", TDS data radarblock does not
# convert, and URL options that are not absolute URLs. Each mistake exits non-zero with one error line
# naming the file or the flag, and writes nothing.
# usage: Tests/cli/wrong-inputs.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$here/../../data"
source "$here/lib.sh"
start_in_scratch "$1"

# one_error NAME TEXT...: the last command printed exactly one error line, and it holds every TEXT.
one_error() {
  local name=$1; shift
  local lines; lines=$(grep -c '^radarblock: error: ' "$tmp/err")
  [ "$lines" = 1 ] || fail "$name: $lines error lines, expected 1: $(head -c 600 "$tmp/err")"
  for text in "$@"; do grep '^radarblock: error: ' "$tmp/err" | grep -qF -- "$text" || fail "$name: the error lacks '$text': $(head -c 600 "$tmp/err")"; done
}
# nothing_written NAME PATH...: none of the paths exists.
nothing_written() {
  local name=$1; shift
  for p in "$@"; do [ -e "$p" ] && fail "$name: $p was written"; done
}

cp "$data/tds.json" a-tds.json
cp "$data/privacy-config.json" a-config.json
printf '{"version": 4, "unprotectedTemporary": []}\n' > no-features.json
printf '<!doctype html>\n<html><body>example.com</body></html>\n' > page.html
python3 "$here/fixtures.py" future-key a-tds.json future-tds.json

# A TDS given as the config: convert, surrogates and build refuse it, naming the file.
expect "convert: a TDS as --config" 1 "$rb" convert --tds "$data/tds.json" --config a-tds.json -o out.json
one_error "convert: a TDS as --config" "a-tds.json" "not a privacy configuration"
nothing_written "convert: a TDS as --config" out.json
expect "surrogates: a TDS as --config" 1 "$rb" surrogates --tds "$data/tds.json" --surrogates "$data/surrogates.txt" --config a-tds.json -o s.js
one_error "surrogates: a TDS as --config" "a-tds.json" "not a privacy configuration"
nothing_written "surrogates: a TDS as --config" s.js
expect "build: a TDS as --config" 1 "$rb" build --tds "$data/tds.json" --config a-tds.json --out release
one_error "build: a TDS as --config" "a-tds.json" "not a privacy configuration"
nothing_written "build: a TDS as --config" release

# A config without "features".
expect "convert: no features" 1 "$rb" convert --tds "$data/tds.json" --config no-features.json -o out.json
one_error "convert: no features" "no-features.json" 'missing "features"'
nothing_written "convert: no features" out.json
expect "build: no features" 1 "$rb" build --tds "$data/tds.json" --config no-features.json --out release
one_error "build: no features" "no-features.json" 'missing "features"'
nothing_written "build: no features" release

# A config given as the TDS.
expect "convert: a config as --tds" 1 "$rb" convert --tds a-config.json -o out.json
one_error "convert: a config as --tds" "a-config.json" "give it as --config"
nothing_written "convert: a config as --tds" out.json
expect "build: a config as --tds" 1 "$rb" build --tds a-config.json --out release
one_error "build: a config as --tds" "a-config.json" "give it as --config"
nothing_written "build: a config as --tds" release

# --unprotected that is not a list of sites: a TDS, an HTML page.
for f in a-tds.json page.html; do
  expect "convert: $f as --unprotected" 1 "$rb" convert --tds "$data/tds.json" --unprotected "$f" -o out.json
  one_error "convert: $f as --unprotected" "$f" "not a list of sites"
  nothing_written "convert: $f as --unprotected" out.json
  expect "build: $f as --unprotected" 1 "$rb" build --tds "$data/tds.json" --unprotected "$f" --out release
  one_error "build: $f as --unprotected" "$f" "not a list of sites"
  nothing_written "build: $f as --unprotected" release
done
expect "a real sites list" 0 "$rb" convert --tds "$data/tds.json" --unprotected "$data/unprotected-sites.txt" -o ok.json

# A TDS key radarblock does not convert: a warning naming it; an error under --strict.
msg='future-tds.json: $.futureKey: unknown top-level key, not converted'
expect "convert: unknown key" 0 "$rb" convert --tds future-tds.json -o future.json
stderr_has "convert: unknown key" "$msg"
expect "convert --strict: unknown key" 1 "$rb" convert --tds future-tds.json --strict -o future-strict.json
one_error "convert --strict: unknown key" "$msg"
nothing_written "convert --strict: unknown key" future-strict.json
expect "build --strict: unknown key" 1 "$rb" build --tds future-tds.json --strict --out future-release
one_error "build --strict: unknown key" 'future-tds.json: $.futureKey'
nothing_written "build --strict: unknown key" future-release
expect "build: unknown key" 0 "$rb" build --tds future-tds.json --out future-release
grep -qF '$.futureKey: unknown top-level key, not converted' future-release/issues.txt || fail "build: futureKey is not in issues.txt"

# URL options must be absolute URLs: a usage error (exit 2) naming the flag.
"$rb" convert --tds "$data/tds.json" -o list.json 2>/dev/null
url_case() {
  local flag=$1; shift
  expect "match $flag not absolute" 2 "$rb" match list.json "$@"
  one_error "match $flag not absolute" "$flag" "is not an absolute URL"
}
url_case --url --url not-a-url --top-url https://example.com/
url_case --top-url --url https://a.example/x.js --top-url example.com
url_case --frame-url --url https://a.example/x.js --top-url https://example.com/ --frame-url /frame.html
expect "match absolute URLs" 0 "$rb" match list.json --url https://tracker.example/x.js --top-url https://news.example/ --json

finish
