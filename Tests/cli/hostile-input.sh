#!/usr/bin/env bash
# Command-line contract under hostile input and operator slips (issue 16, data side). Each case runs the
# given radarblock and checks the exit status, the message and what is (not) left on disk.
#   B1 build --out refuses a directory that is not a release (--force overrides); `--out .` too
#   B6 a symlinked --out stays a symlink; the old release is kept; scripts/nightly.sh's current/previous links
#   lock a second build of the same --out fails at once while the first holds the lock
#   B2 build and surrogates agree: invalid UTF-8 in surrogates.txt is an error for both
#   B3 a surrogate body with a syntax error is dropped with an error naming it; the bundle passes node --check
#   B4 tds --strict that fails writes no output
#   B5 duplicate JSON keys are reported, and fail convert --strict without output
#   B7 a TDS in which nothing blocks: ddg's empty list is refused by convert and build, and nothing is written
#   C3 an endless download stops at --max-download-size; a gzip bomb too
#   minor: diff errors name the file; build --out FILE/sub; FIFO and <(...) inputs; match --type bogus exits 2;
#          a requests file that shrinks while match reads it is an error naming it (exit 1);
#          diff --requests reads CRLF JSONL; a long value is cut in messages
# usage: Tests/cli/hostile-input.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
rb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data="$root/data"
tmp=$(mktemp -d); server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
source "$here/lib.sh"
cd "$tmp" || exit 1

# B1: a directory of documents is refused and kept; --force replaces it; `cd docs && --out .` is refused.
mkdir docs && echo "keep me" > docs/thesis.txt
expect "B1 docs refused" 1 "$rb" build --tds "$data/tds.json" --out docs
contains "B1 docs refused" "is not empty and not a radarblock release"
[ "$(cat docs/thesis.txt 2>/dev/null)" = "keep me" ] || fail "B1: docs/thesis.txt was touched"
expect "B1 --out ." 1 sh -c "cd docs && '$rb' build --tds '$data/tds.json' --out ."
[ -f docs/thesis.txt ] || fail "B1: --out . replaced the working directory"
expect "B1 --force" 0 "$rb" build --tds "$data/tds.json" --out docs --force
[ -f docs/manifest.json ] && [ ! -e docs/thesis.txt ] || fail "B1: --force did not replace docs"
expect "B1 release replaced" 0 "$rb" build --tds "$data/tds.json" --out docs
mkdir empty && expect "B1 empty dir" 0 "$rb" build --tds "$data/tds.json" --out empty

# B6: current -> releases/<id> stays a link, to the new release; the old one stays.
mkdir releases && "$rb" build --tds "$data/tds.json" --out releases/first >/dev/null 2>&1
ln -s releases/first current
expect "B6 symlink" 0 "$rb" build --tds "$data/tds.json" --config "$data/privacy-config.json" --out current
[ -L current ] || fail "B6: current is no longer a symlink"
target=$(readlink current)
case "$target" in releases/tds_v*) ;; *) fail "B6: current -> $target, expected releases/<identifier>" ;; esac
[ -f releases/first/manifest.json ] || fail "B6: the previous release was not kept"
grep -q "\"identifier\":\"$(basename "$target")\"" current/manifest.json || fail "B6: the link's name is not the identifier"

# The nightly job uses that layout: current and previous are links into releases/.
expect "nightly first" 0 env RADARBLOCK="$rb" "$root/scripts/nightly.sh" pub "$data/tds.json"
first=$(readlink pub/current)
expect "nightly second" 0 env RADARBLOCK="$rb" "$root/scripts/nightly.sh" pub "$data/tds.json" "$data/privacy-config.json"
[ "$(readlink pub/previous)" = "$first" ] || fail "nightly: previous -> $(readlink pub/previous), expected $first"
[ "$(readlink pub/current)" != "$first" ] && [ -f pub/current/changes.md ] || fail "nightly: current was not swapped to a new release with changes.md"
expect "nightly unchanged" 3 env RADARBLOCK="$rb" "$root/scripts/nightly.sh" pub "$data/tds.json" "$data/privacy-config.json"
contains "nightly unchanged" "unchanged:"
# The layout nightly.sh prunes by is the one radarblock publishes: each link names releases/<the manifest's identifier>.
for link in current previous; do
  id=$(python3 "$root/scripts/testing/release_checks.py" release-id "pub/$link/manifest.json")
  [ "$(readlink "pub/$link")" = "releases/$id" ] || fail "nightly: $link -> $(readlink "pub/$link"), not releases/$id"
done
[ "$(find pub/releases -mindepth 1 -maxdepth 1 | wc -l)" = 2 ] || fail "nightly: releases/ holds $(find pub/releases -mindepth 1 -maxdepth 1 -printf '%f ')"

# lock: while another process holds the lock of `locked`, a build of it fails at once.
( flock -x 9; sleep 5 ) 9>".radarblock-lock-locked" &
holder=$!; sleep 0.5
expect "lock" 1 timeout 4 "$rb" build --tds "$data/tds.json" --out locked
contains "lock" "another radarblock build is writing this release"
[ -e locked ] && fail "lock: the second build wrote its output"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

# B2: invalid UTF-8 in surrogates.txt: the same error from surrogates and from build.
printf 'tracker.example/widget.js application/javascript\nwindow.x = "\xff";\n' > bad-utf8.txt
expect "B2 surrogates" 1 "$rb" surrogates --tds "$data/tds.json" --surrogates bad-utf8.txt -o s.js
contains "B2 surrogates" "bad-utf8.txt: line 2: not valid UTF-8 text"
expect "B2 build" 1 "$rb" build --tds "$data/tds.json" --surrogates bad-utf8.txt --out b2
contains "B2 build" "bad-utf8.txt: line 2: not valid UTF-8 text"

# B3: bodies that only a real parser rejects; the bundle still parses.
python3 "$here/fixtures.py" bad-surrogates "$data/tds.json" "$data/surrogates.txt"
expect "B3 surrogates" 1 "$rb" surrogates --tds b3-tds.json --surrogates b3-surrogates.txt -o b3.js
for n in bad-assign.js bad-await.js bad-const.js; do contains "B3 $n" "surrogate \"$n\""; done
if command -v node >/dev/null; then
  node --check b3.js 2>"$tmp/node.err" || fail "B3: node --check rejects the bundle: $(cat "$tmp/node.err")"
else
  fail "B3: node is not installed (scripts/install-deps.sh test)"
fi
grep -q '<!--' b3.js && fail "B3: <!-- reached the bundle"
grep -qi '</script' b3.js && fail "B3: </script reached the bundle"
python3 -c "import sys; t=open('b3.js', encoding='utf-8').read(); sys.exit(1 if '\u2028' in t or '\u2029' in t else 0)" || fail "B3: U+2028 reached the bundle"
expect "B3 build" 0 "$rb" build --tds b3-tds.json --surrogates b3-surrogates.txt --out b3
grep -q 'surrogate "bad-await.js"' b3/issues.txt || fail "B3: build did not report the dropped surrogate in issues.txt"
expect "B3 build --strict" 1 "$rb" build --tds b3-tds.json --surrogates b3-surrogates.txt --out b3s --strict
[ -e b3s ] && fail "B3: a failed strict build left b3s"

# B4: a failed strict tds run writes nothing (and leaves an existing output as it was).
cp -r "$data/radar" radar && echo '{' > radar/domains/US/broken.example.json
echo "old" > tds-out.json
expect "B4 tds --strict" 1 "$rb" tds --radar radar --strict -o tds-out.json
[ "$(cat tds-out.json)" = "old" ] || fail "B4: tds --strict replaced -o OUT"
expect "B4 tds --strict new" 1 "$rb" tds --radar radar --strict -o tds-new.json
[ -e tds-new.json ] && fail "B4: tds --strict wrote -o OUT"

# B5: a TDS ending in a second "trackers": {} is reported; --strict fails without output.
python3 "$here/fixtures.py" duplicate-trackers "$data/tds.json" dup.json
expect "B5 lenient" 0 "$rb" convert --tds dup.json -o dup-rules.json
contains "B5 lenient" "\$.trackers: duplicate key at line"
expect "B5 strict" 1 "$rb" convert --tds dup.json --strict -o dup-strict.json
contains "B5 strict" "duplicate key"
[ -e dup-strict.json ] && fail "B5: convert --strict wrote its output"

# B7: a TDS in which no tracker blocks gives an empty ddg list (TrackerRadarKit emits nothing), which WebKit
# rejects: convert and build say so and write nothing; faithful mode still has its top-document rule.
printf '{"trackers":{"quiet.example":{"domain":"quiet.example","default":"ignore","rules":[]}},"entities":{},"domains":{}}' > quiet.json
expect "B7 convert ddg" 1 "$rb" convert --tds quiet.json --mode ddg -o quiet-rules.json
contains "B7 convert ddg" "WebKit rejects an empty list"
[ -e quiet-rules.json ] && fail "B7: convert wrote an empty list"
expect "B7 build ddg" 1 "$rb" build --tds quiet.json --mode ddg --out quiet-release
contains "B7 build ddg" "produced no rules"
[ -e quiet-release ] && fail "B7: build left a release"
expect "B7 convert faithful" 0 "$rb" convert --tds quiet.json -o quiet-faithful.json

# C3: bounded downloads against a loopback server.
python3 "$root/scripts/testing/http_fixture_server.py" "$tmp" > port.txt &
server_pid=$!
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(head -1 port.txt)
start=$(date +%s)
expect "C3 endless" 1 "$rb" build --tds "http://127.0.0.1:$port/endless" --timeout 10 --retries 0 --max-download-size 4M --out c3
contains "C3 endless" "exceeds the download size cap of 4194304 bytes"
expect "C3 gzip bomb" 1 "$rb" build --tds "http://127.0.0.1:$port/gzipbomb/64" --retries 0 --max-download-size 1M --out c3
contains "C3 gzip bomb" "download size cap"
expect "C3 trickle" 1 "$rb" build --tds "http://127.0.0.1:$port/trickle/20" --timeout 2 --retries 0 --out c3
contains "C3 trickle" "timed out"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "C3: the bounded downloads took $(( $(date +%s) - start )) s"
expect "C3 bad size" 2 "$rb" build --tds "$data/tds.json" --max-download-size 12X --out c3
for pct in -5 nan inf 12%; do
  expect "bad --max-compile-regression $pct" 2 "$rb" build --tds "$data/tds.json" --previous docs --max-compile-regression "$pct" --out c3
  contains "bad --max-compile-regression $pct" "--max-compile-regression must be a percentage"
done
expect "--max-compile-regression without --previous" 2 "$rb" build --tds "$data/tds.json" --max-compile-regression 20 --out c3
contains "--max-compile-regression without --previous" "needs --previous DIR"

# Minor items.
expect "diff names the file" 2 "$rb" diff docs nonexistent.json
contains "diff names the file" "nonexistent.json"
echo '[{"trigger":{}}]' > bad-list.json
expect "diff names the list" 2 "$rb" diff docs bad-list.json
contains "diff names the list" "bad-list.json:"
echo x > plainfile
expect "build --out FILE/sub" 1 "$rb" build --tds "$data/tds.json" --out plainfile/sub
contains "build --out FILE/sub" "plainfile is not a directory"
output | grep -q "NSCocoaErrorDomain" && fail "build --out FILE/sub: raw Foundation error"
expect "process substitution" 0 bash -c "'$rb' convert --tds <(cat '$data/tds.json') -o psub.json"
mkfifo tds.fifo; (cat "$data/tds.json" > tds.fifo &)
expect "FIFO" 0 timeout 20 "$rb" convert --tds tds.fifo -o fifo.json
cmp -s psub.json fifo.json || fail "FIFO and <(...) outputs differ"
expect "match --type bogus" 2 "$rb" match docs/rules.json --url https://tracker.example/x --top-url https://news.example/ --type bogus
contains "match --type bogus" "unknown resource type"
sed 's/$/\r/' "$data/requests.jsonl" > crlf.jsonl
expect "diff --requests CRLF" 1 "$rb" diff docs current --requests crlf.jsonl
"$rb" diff docs current --requests "$data/requests.jsonl" > lf.txt 2>&1
"$rb" diff docs current --requests crlf.jsonl > crlf.txt 2>&1
cmp -s lf.txt crlf.txt || fail "diff --requests: CRLF and LF requests give different reports"
python3 "$here/fixtures.py" long-key "$data/tds.json" long-key.json
expect "long value" 0 "$rb" convert --tds long-key.json -o long.json
[ "$(output | wc -c)" -lt 20000 ] || fail "long value: $(output | wc -c) bytes of messages for one 5 MB key"

# A requests file that shrinks while match reads it (match maps a regular file): an error naming the file and
# exit 1 (invalid input), not a crash. The file is cut once the first answers are out, with most of it still to read.
yes '{"url":"https://a.example/x.js","topURL":"https://b.example/","resourceType":"script"}' | head -n 3000000 > shrinking.jsonl
(for _ in $(seq 200); do [ -s "$tmp/out" ] && break; sleep 0.05; done; : > shrinking.jsonl) & cutter=$!
expect "match: the requests file shrinks" 1 "$rb" match docs/rules.rbc --requests shrinking.jsonl
wait "$cutter"
stderr_has "match: the requests file shrinks" "shrinking.jsonl: the file shrank while it was being read"
rm -f shrinking.jsonl "$tmp/out"

finish
