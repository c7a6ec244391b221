#!/usr/bin/env bash
# The diff report for people (issue 30): on the iOS diffs (embedded -> v5, v5 -> v7; derived corpus), the
# Markdown report fits one pull-request comment (<= 60,000 characters), leads with the verdict, says the corpus
# is synthetic, and names the top 10 entities by flips with counts that agree with the JSON report (recounted
# here from its flips); text says the same; --full lists every flip. Needs ../shared (SHARED); skipped without.
# usage: Tests/cli/diff-report.sh RADARBLOCK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
start_in_scratch "$1"
need_ddg_data "the iOS diff"

config="$ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json"

check_pair() {
  local name=$1 old=$2 new=$3
  expect "$name markdown" 1 "$rb" diff "$old" "$new" --config "$config" --format markdown -o "$name.md"
  expect "$name json" 1 "$rb" diff "$old" "$new" --config "$config" --format json -o "$name.json"
  expect "$name text" 1 "$rb" diff "$old" "$new" --config "$config" -o "$name.txt"
  cases=$((cases + 1))
  python3 - "$name" <<'PY' || fail "$name: the Markdown report does not agree with the JSON report"
import collections, json, re, sys
name = sys.argv[1]
md = open(name + ".md", encoding="utf-8").read()
report = json.load(open(name + ".json"))
text = open(name + ".txt", encoding="utf-8").read()
print("%s: markdown %d characters, text %d characters, %d flips of %d requests" % (
    name, len(md), len(text), len(report["requests"]["changed"]), report["requests"]["checked"]))
assert len(md) <= 60000, "%d characters" % len(md)
assert md.startswith("## Rule-set changes\n\n**"), md[:200]
for form, t in (("markdown", md), ("text", text)):
    assert "SYNTHETIC" in t[:3000], form + ": the derived corpus is not labelled synthetic in the summary"
assert report["requests"]["corpus"] == {"kind": "derived", "synthetic": True}, report["requests"]["corpus"]
# The flips recounted per entity from the JSON report's own flips.
counts = collections.defaultdict(lambda: [0, 0, 0])
for c in report["requests"]["changed"]:
    old, new = c["old"]["outcome"], c["new"]["outcome"]
    k = 0 if old == "allowed" else 1 if new == "allowed" else 2
    counts[c["entity"]][k] += 1
ranked = sorted(counts.items(), key=lambda e: (-sum(e[1]), e[0].encode()))
section = md.split("### Flips per entity", 1)[1].split("\n### ", 1)[0]
rows = re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.M)
assert len(rows) >= min(10, len(ranked)), "%d entity rows" % len(rows)
def unescape(s):
    return re.sub(r"\\(.)", r"\1", s).replace("&lt;", "<").replace("&amp;", "&")
for (entity, (b, a, s)), row in zip(ranked[:10], rows[:10]):
    shown = (unescape(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))
    assert shown == (entity, b, a, s, b + a + s), "markdown %s, JSON %s" % (shown, (entity, b, a, s))
summary = {e["entity"]: e["flips"] for e in report["summary"]["entities"]}
for entity, c in ranked:
    assert summary.get(entity) == sum(c), entity
print("%s: top 10 entities by flips: %s" % (name, ", ".join("%s %d" % (e, sum(c)) for e, c in ranked[:10])))
PY
}

check_pair "embedded-v5" "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json"
check_pair "v5-v7" "$ddg/tds/ios-tds_v5_2025-06-17.json" "$ddg/tds/ios-tds_v7_2024-07-12.json"

# --full and --max-flips list the flips; the bounded default does not.
expect "--full" 1 "$rb" diff "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config" --format markdown --full -o full.md
flips=$(python3 -c "import json; print(len(json.load(open('embedded-v5.json'))['requests']['changed']))")
grep -qF "Requests that changed outcome ($flips of $flips)" full.md || fail "--full does not list the $flips flips"
expect "--max-flips" 1 "$rb" diff "$ddg/tds/ios-tds_embedded_2025-02-17.json" "$ddg/tds/ios-tds_v5_2025-06-17.json" --config "$config" --max-flips 7 -o seven.txt
grep -qF "requests that changed outcome (7 of $flips)" seven.txt || fail "--max-flips 7 does not list 7 flips"
expect "--full with --max-flips" 2 "$rb" diff a b --full --max-flips 3

finish
