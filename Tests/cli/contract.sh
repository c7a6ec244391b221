#!/usr/bin/env bash
# The command contract of ../shared/DESIGN.md: every command's exit status (0 success, 1 invalid input or a
# failed check, 2 usage; diff as diff(1): 0 same, 1 different, 2 trouble), `--help` on every command, and
# the shape of `validate --json`. Each case states the one status it accepts.
# usage: Tests/cli/contract.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$here/../../data"
rb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$here/lib.sh"
# json_shape NAME PYTHON-EXPR: stdout is one JSON object v for which the expression holds.
json_shape() {
  python3 -c "import json,sys; v=json.loads(open('$tmp/out').read()); sys.exit(0 if ($2) else 1)" \
    || fail "$1: stdout is not the expected JSON: $(head -c 600 "$tmp/out")"
}
cd "$tmp" || exit 1

# The top level: no command and an unknown command are usage errors; --help and --version succeed.
expect "no command" 2 "$rb"
expect "unknown command" 2 "$rb" frobnicate
stderr_has "unknown command" "unknown command 'frobnicate'"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "unknown command: $(wc -l < "$tmp/err") lines on stderr, expected 1"
expect "misspelt command" 2 "$rb" biuld --out x
stderr_has "misspelt command" "unknown command 'biuld'; did you mean 'build'?"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "misspelt command: $(wc -l < "$tmp/err") lines on stderr, expected 1"
expect "--help" 0 "$rb" --help
contains "--help lists --version" "radarblock --version"
contains "--help lists help --man" "help --man"
expect "--version" 0 "$rb" --version

# Every command the top-level usage lists has --help (exit 0, its usage on stdout) and refuses an
# unknown option as a usage error that points to --help.
commands=$("$rb" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "top-level usage lists only: $commands"
for c in $commands; do
  expect "$c --help" 0 "$rb" "$c" --help
  grep -q "^usage: radarblock $c" "$tmp/out" || fail "$c --help: no 'usage: radarblock $c' line"
  cp "$tmp/out" "$tmp/help-$c"
  expect "help $c" 0 "$rb" help "$c"
  cmp -s "$tmp/out" "$tmp/help-$c" || fail "help $c: differs from $c --help"
  expect "$c --no-such-option" 2 "$rb" "$c" --no-such-option
  stderr_has "$c --no-such-option" "unknown option --no-such-option"
  stderr_has "$c --no-such-option" "(run 'radarblock $c --help' for usage)"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$c --no-such-option: $(wc -l < "$tmp/err") lines on stderr, expected 1"
done
expect "help of an unknown command" 2 "$rb" help frobnicate
# A misspelt flag is answered with its nearest valid spelling, on one line.
expect "misspelt flag" 2 "$rb" convert --tds x.json --ouptut y.json
stderr_has "misspelt flag" "unknown option --ouptut (did you mean --output?)"
expect "misspelt flag (build)" 2 "$rb" build --tds x.json --previuos p --out o
stderr_has "misspelt flag (build)" "unknown option --previuos (did you mean --previous?)"

# Inputs: a valid list, a list WebKit rejects (rule 1 has an invalid regex), and a file that is not JSON.
printf '%s\n' '[{"trigger":{"url-filter":"tracker\\.example"},"action":{"type":"block"}},
{"trigger":{"url-filter":"(a"},"action":{"type":"block"}}]' > invalid.json
printf '%s\n' '[{"trigger":{"url-filter":"tracker\\.example"},"action":{"type":"block"}}]' > valid.json
echo 'not json' > garbage.json

# validate: 0 valid, 1 invalid, 2 usage; --json prints exactly the documented keys.
expect "validate valid" 0 "$rb" validate valid.json
expect "validate invalid" 1 "$rb" validate invalid.json
expect "validate no file" 2 "$rb" validate
expect "validate --json valid" 0 "$rb" validate valid.json --json
json_shape "validate --json valid" 'v == {"valid": True, "rules": 1}'
expect "validate --json invalid" 1 "$rb" validate invalid.json --json
json_shape "validate --json invalid" \
  'set(v) == {"valid", "error", "message", "rule"} and v["valid"] is False and v["error"] == "JSONInvalidRegex" and isinstance(v["message"], str) and v["message"] and v["rule"] == 1'
expect "validate --json not JSON" 1 "$rb" validate garbage.json --json
json_shape "validate --json not JSON" \
  'set(v) == {"valid", "error", "message", "rule"} and v["valid"] is False and v["error"] == "JSONInvalid" and v["rule"] is None'

# compile and inspect.
expect "compile" 0 "$rb" compile valid.json -o valid.rbc
expect "compile invalid" 1 "$rb" compile invalid.json -o invalid.rbc
[ -e invalid.rbc ] && fail "compile invalid: wrote invalid.rbc"
expect "compile without -o" 2 "$rb" compile valid.json
expect "inspect" 0 "$rb" inspect valid.rbc --json
json_shape "inspect --json" 'v["compiledRules"] == 1 and v["sourceRules"] == 1'
expect "inspect not an .rbc" 1 "$rb" inspect valid.json

# match: an answer is 0, a list that cannot be loaded 1, a missing --top-url 2.
expect "match --url" 0 "$rb" match valid.rbc --url https://tracker.example/x.js --top-url https://news.example/ --type script --json
json_shape "match --url" 'v["actions"] == [{"type": "block"}]'
expect "match a missing list" 1 "$rb" match missing.json --url https://tracker.example/ --top-url https://news.example/
expect "match --url without --top-url" 2 "$rb" match valid.rbc --url https://tracker.example/

# convert, surrogates, tds, build on the repository's small data.
expect "convert" 0 "$rb" convert --tds "$data/tds.json" --config "$data/privacy-config.json" -o rules.json
expect "convert not JSON" 1 "$rb" convert --tds garbage.json -o out.json
expect "convert without --tds" 2 "$rb" convert -o out.json
expect "surrogates" 0 "$rb" surrogates --tds "$data/tds.json" --surrogates "$data/surrogates.txt" -o s.js
expect "surrogates missing file" 1 "$rb" surrogates --tds "$data/tds.json" --surrogates missing.txt -o s.js
# The tracker report is on by default; --report-trackers (the old opt-in) changes nothing, --no-report-trackers
# leaves it out, and both at once are a usage error.
grep -q '"report":true' s.js || fail "surrogates: the default bundle does not report trackers"
expect "surrogates --report-trackers" 0 "$rb" surrogates --tds "$data/tds.json" --surrogates "$data/surrogates.txt" --report-trackers -o s-old-flag.js
cmp -s s.js s-old-flag.js || fail "surrogates --report-trackers: not the default bundle"
expect "surrogates --no-report-trackers" 0 "$rb" surrogates --tds "$data/tds.json" --surrogates "$data/surrogates.txt" --no-report-trackers -o s-off.js
grep -q '"report":true' s-off.js && fail "surrogates --no-report-trackers: the bundle reports trackers"
expect "surrogates both report flags" 2 "$rb" surrogates --tds "$data/tds.json" --surrogates "$data/surrogates.txt" --report-trackers --no-report-trackers -o s-both.js
stderr_has "surrogates both report flags" "--report-trackers and --no-report-trackers"
expect "tds" 0 "$rb" tds --radar "$data/radar" -o tds.json
expect "tds missing radar" 1 "$rb" tds --radar missing-dir -o tds.json
expect "build" 0 "$rb" build --tds "$data/tds.json" --config "$data/privacy-config.json" --out release
expect "build not JSON" 1 "$rb" build --tds garbage.json --out release-bad
expect "build without --out" 2 "$rb" build --tds "$data/tds.json"

# -o and --out (and --output) wherever a command writes an output: each spelling writes the same bytes.
for o in -o --out --output; do
  expect "convert $o" 0 "$rb" convert --tds "$data/tds.json" "$o" "convert$o.json"
  expect "compile $o" 0 "$rb" compile valid.json "$o" "compile$o.rbc"
  expect "surrogates $o" 0 "$rb" surrogates --tds "$data/tds.json" --surrogates "$data/surrogates.txt" "$o" "s$o.js"
  expect "tds $o" 0 "$rb" tds --radar "$data/radar" "$o" "tds$o.json"
  expect "diff $o" 1 "$rb" diff valid.json rules.json "$o" "diff$o.txt"
  expect "build $o" 0 "$rb" build --tds "$data/tds.json" "$o" "release$o"
  [ -f "release$o/manifest.json" ] || fail "build $o: no release written"
done
for f in convert.json compile.rbc s.js tds.json diff.txt; do
  cmp -s "${f%.*}-o.${f##*.}" "${f%.*}--out.${f##*.}" && cmp -s "${f%.*}-o.${f##*.}" "${f%.*}--output.${f##*.}" \
    || fail "-o, --out and --output wrote different $f"
done

# Messages that used to mislead.
expect "inspect rule-list JSON" 1 "$rb" inspect valid.json
stderr_has "inspect rule-list JSON" "radarblock compile valid.json -o valid.rbc"
expect "match a TDS" 1 "$rb" match "$data/tds.json" --url https://tracker.example/x.js --top-url https://news.example/
stderr_has "match a TDS" "is a tracker data set, not a rule list: run 'radarblock convert --tds"
expect "diff one side names it" 2 "$rb" diff valid.json
stderr_has "diff one side names it" "missing argument NEW"
printf '%s\n' '{"url":"https://tracker.example/x.js","topURL":"https://news.example/","resourceType":"script"}' 'not json' > two.jsonl
expect "match --format text errors" 0 "$rb" match valid.json --requests two.jsonl --format text
grep -q '^error: line 2: ' "$tmp/out" || fail "match --format text: the error line is not text: $(cat "$tmp/out")"
grep -q '^{' "$tmp/out" && fail "match --format text: JSON in the text output: $(cat "$tmp/out")"
expect "convert --help" 0 "$rb" convert --help
grep -F '{"source":"feature-state"' "$tmp/out" | sed 's/^ *//' | python3 -c "import json,sys; json.loads(sys.stdin.read())" \
  || fail "convert --help: the feature-state provenance example is not JSON"

# attribution: the attributed list of a release with an ad-click attribution list (same bytes for the same vendor,
# with or without www.), 1 for a release without one, 2 for a missing or malformed --vendor.
python3 "$here/fixtures.py" ad-click-config "$data/privacy-config.json" aca-config.json
expect "build with ad-click attribution" 0 "$rb" build --tds "$data/tds.json" --config aca-config.json --out aca-release
grep -q "none.example is not a tracker of the TDS; entry skipped" aca-release/issues.txt || fail "issues.txt lacks the entry naming no tracker"
expect "attribution" 0 "$rb" attribution aca-release --vendor www.Shop.example -o attributed.json
json_shape "attribution" 'v["vendor"] == "shop.example" and v["rbc"] == "attributed.rbc" and v["identifier"].startswith("tds-attributed_")'
[ -s attributed.rbc ] || fail "attribution: no attributed.rbc"
expect "attribution to stdout" 0 "$rb" attribution aca-release --vendor shop.example
cmp -s "$tmp/out" attributed.json || fail "attribution: stdout differs from -o for the same vendor"
for o in --out --output; do
  expect "attribution $o" 0 "$rb" attribution aca-release --vendor www.Shop.example "$o" "attributed$o.json"
  cmp -s "attributed$o.json" attributed.json || fail "attribution $o: differs from -o"
done
expect "attribution without a list" 1 "$rb" attribution release --vendor shop.example
expect "attribution without --vendor" 2 "$rb" attribution aca-release
expect "attribution bad --vendor" 2 "$rb" attribution aca-release --vendor "not a host"
expect "match --attributed-vendor" 0 "$rb" match aca-release --attributed-vendor shop.example \
  --url https://convert.adnet.example/c --top-url https://shop.example/ --type image --json
json_shape "match --attributed-vendor" 'v["actions"] == []'
expect "match without attribution" 0 "$rb" match aca-release --url https://convert.adnet.example/c --top-url https://shop.example/ --type image --json
json_shape "match without attribution" 'v["actions"] == [{"type": "block"}]'

# diff follows diff(1): 0 no differences, 1 different, 2 trouble (also for usage).
expect "diff same" 0 "$rb" diff valid.json valid.json
expect "diff different" 1 "$rb" diff valid.json rules.json
expect "diff missing side" 2 "$rb" diff valid.json missing.json
stderr_has "diff missing side" "missing.json"
expect "diff one side" 2 "$rb" diff valid.json

# TDS top-level keys and the cookie pop-up list (issue 33): an unknown key is named (an error with --strict);
# `cpm.filterList` becomes cpm.json (convert --cpm, build), match --selector answers, diff compares by selector.
python3 "$here/fixtures.py" top-level-keys "$data/tds.json"
expect "convert --strict, unknown top-level key" 1 "$rb" convert --strict --tds tds-unknown.json -o out.json
stderr_has "convert --strict, unknown top-level key" '$.futureKey: unknown top-level key'
expect "convert, unknown top-level key" 0 "$rb" convert --tds tds-unknown.json -o out.json
stderr_has "convert, unknown top-level key" '$.futureKey: unknown top-level key'
expect "convert --strict, unknown key of cpm" 1 "$rb" convert --strict --tds tds-cpm-key.json -o out.json
stderr_has "convert --strict, unknown key of cpm" '$.cpm.future'
expect "convert --cpm" 0 "$rb" convert --tds tds-cpm.json --cpm cpm.json -o out.json
stderr_has "convert --cpm" "cpm.filterList line 4:"
expect "convert --cpm --strict, malformed line" 1 "$rb" convert --strict --tds tds-cpm.json --cpm cpm.json -o out.json
expect "convert, a TDS with a cookie pop-up list" 0 "$rb" convert --tds tds-cpm.json -o out.json
stderr_has "convert, a TDS with a cookie pop-up list" "give --cpm FILE"
expect "build with a cookie pop-up list" 0 "$rb" build --tds tds-cpm.json --out release-cpm
expect "build with another cookie pop-up list" 0 "$rb" build --tds tds-cpm2.json --out release-cpm2
expect "match --selector, hidden" 0 "$rb" match release-cpm --selector .cpm-b --top-url https://www.site.example/
json_shape "match --selector, hidden" 'v["hidden"] is True and v["by"] == ["cpm.json"]'
expect "match --selector, shown" 0 "$rb" match release-cpm --selector .cpm-b --top-url https://other.example/
json_shape "match --selector, shown" 'v["hidden"] is False'
expect "match --selector without --top-url" 2 "$rb" match release-cpm --selector .cpm-b
expect "diff by selector" 1 "$rb" diff release-cpm release-cpm2 --format json
json_shape "diff by selector" '[([x["selector"] for x in c["selectorsAdded"]], [x["selector"] for x in c["selectorsRemoved"]], len(c["selectorsAdded"][1]["trigger"]["if-top-url"]), len(c["selectorsRemoved"][0]["trigger"]["if-top-url"])) for c in v["lists"] if c["list"] == "cpm.json"] == [([".cpm-c", ".cpm-b"], [".cpm-b"], 2, 1)]'

# install: a store's status needs no WebKit; a missing release is 1, a missing --store 2.
expect "install --status" 0 "$rb" install --status --store store
expect "install a missing release" 1 "$rb" install missing-release --store store
expect "install without --store" 2 "$rb" install release

finish
