#!/usr/bin/env bash
# `convert --filter-list` on hostile lists (issue 40, item 5): each is converted with its bad lines reported, or
# refused with a clear error and no output, within bounded CPU time and memory (measured by /usr/bin/time, CPU
# rather than wall time so that a loaded machine does not fail the test).
#   garbage     20,000 seeded lines of ABP syntax characters, NUL and control bytes, CRLF line ends: converted, the
#               rule list read by validate and match
#   10 MB line  reported as too long; the filters around it convert
#   non-UTF-8   lone continuation bytes, overlong forms, a UTF-16 BOM: each such line reported
#   catastrophic regexes  `/[ab]*a[ab]...[ab]/` (2^22 DFA states) reported alone; nested quantifiers that stay
#               small convert; match compiles the list within its default automaton budget
#   a million filters  refused (more rules than the target's limit) naming the limit, nothing written
# usage: Tests/cli/filter-list-hostile.sh RADARBLOCK
# shellcheck disable=SC2016  # filters in single quotes are Adblock Plus syntax, never shell expansions
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_in_scratch "$1"

# bounded NAME STATUS MAX_CPU_S MAX_RSS_MB CMD...: expect, and the command's CPU time and peak RSS under the bounds.
bounded() {
  local name=$1 want=$2 cpu=$3 mb=$4; shift 4
  expect "$name" "$want" /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@"
  read -r user system rss < <(tail -n 1 "$tmp/time")
  python3 -c "import sys; sys.exit(0 if $user + $system <= $cpu and $rss <= $mb * 1024 else 1)" \
    || fail "$name: $user s user + $system s system CPU, $((rss / 1024)) MB peak: over $cpu s or $mb MB"
}

python3 - <<'EOF'
import random
rng = random.Random(40)
alphabet = b"|@$^*/#~,=.-_:?&[](){}\\!%+ \t\x00\x01\x7fabcxyz019ADR"
lines = [bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 60))) for _ in range(20000)]
lines += [b"$", b"@@", b"||", b"|", b"/", b"//", b"/[/", b"##", b"#@#", b"||^$", b"||a^$domain=", b"||a^$domain=|",
          b"||a^$third-party,~third-party", b"@@$document", b"||a^$" + b",script" * 5000, b"/(?<=a)b/", b"/a{2,}/",
          b"||ok.example^"]
with open("garbage.txt", "wb") as f:
    f.write(b"".join(line + b"\r\n" for line in lines[:100]) + b"".join(line + b"\n" for line in lines[100:]))
with open("utf8.txt", "wb") as f:
    f.write(b"\xff\xfe||bom.example^\n||a\x80b.example^\n||c\xc0\xafd.example^\n||e\xed\xa0\x80f.example^\n"
            b"||ok.example^\n")
with open("regex.txt", "wb") as f:
    f.write(b"||ok.example^\n/[ab]*a" + b"[ab]" * 22 + b"/\n/(a+)+$/\n/(x+x+)+y/\n/track\\/[0-9]+\\.gif/\n")
with open("million.txt", "w") as f:
    f.writelines("||h%d.example^\n" % i for i in range(1000000))
EOF
{ printf '||a.example^\n'; head -c 10485760 /dev/zero | tr '\0' a; printf '\n||b.example^\n'; } > long.txt

bounded "garbage" 0 20 400 "$rb" convert --filter-list garbage.txt -o garbage.json
grep -qF '[malformed]' garbage.json.issues.txt || fail "garbage: no line reported malformed"
grep -qF 'garbage.txt: line 20015: ||a^$,script' garbage.json.issues.txt \
  || fail "garbage: the 5,000-option line is not reported: $(grep -F 'line 20015:' garbage.json.issues.txt | head -c 300)"
expect "garbage: validate" 0 "$rb" validate garbage.json
expect "garbage: match" 0 "$rb" match garbage.json --url https://ok.example/x.js --top-url https://site.test/
contains "garbage: match" "block"

bounded "10 MB line" 0 20 400 "$rb" convert --filter-list long.txt -o long.json
grep -qF 'line 2: ' long.json.issues.txt && grep -qF 'a line of 10485760 bytes' long.json.issues.txt \
  || fail "10 MB line: not reported: $(head -c 300 long.json.issues.txt)"
stderr_has "10 MB line" "-> 4 rules (2 blocks"

bounded "non-UTF-8" 0 10 200 "$rb" convert --filter-list utf8.txt -o utf8.json
for n in 1 2 3 4; do
  grep -qF "utf8.txt: line $n: " utf8.json.issues.txt || fail "non-UTF-8: line $n not reported: $(cat utf8.json.issues.txt)"
done
stderr_has "non-UTF-8" "-> 3 rules (1 blocks"

bounded "catastrophic regexes" 0 20 400 "$rb" convert --filter-list regex.txt -o regex.json
grep -qF 'regex.txt: line 2: /[ab]*a[ab]' regex.json.issues.txt && grep -qF 'DFA states' regex.json.issues.txt \
  || fail "catastrophic regexes: line 2 not reported: $(cat regex.json.issues.txt)"
[ "$(wc -l <regex.json.issues.txt)" -eq 1 ] || fail "catastrophic regexes: more than line 2 reported: $(cat regex.json.issues.txt)"
bounded "catastrophic regexes: match" 0 20 400 "$rb" match regex.json --url https://q.example/track/1.gif \
  --top-url https://site.test/
contains "catastrophic regexes: match" "block"

bounded "a million filters" 1 120 4096 "$rb" convert --filter-list million.txt -o million.json
stderr_has "a million filters" "rules exceed safari-15's limit of 150000 rules per list"
[ ! -e million.json ] && [ ! -e million.json.issues.txt ] || fail "a million filters: an output was written"
finish
