#!/usr/bin/env python3
"""Tests/cli/diff-report.sh: the Markdown report of a diff agrees with its JSON report (NAME.md, NAME.json, NAME.txt
of the same diff, a derived corpus): bounded, labelled synthetic in the summary, and its top 10 entities by flips
recounted from the JSON report's own flips; the JSON summary's per-entity counts agree too.

usage: Tests/cli/check_diff_report.py NAME   (exit 1 with the first disagreement)
"""

import collections
import json
import re
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def unescape(s):
    return re.sub(r"\\(.)", r"\1", s).replace("&lt;", "<").replace("&amp;", "&")


def flips_per_entity(report):
    """Per entity [newly blocked, newly allowed, otherwise changed], ranked by total flips, then by name (bytes)."""
    counts = collections.defaultdict(lambda: [0, 0, 0])
    for c in report["requests"]["changed"]:
        old, new = c["old"]["outcome"], c["new"]["outcome"]
        k = 0 if old == "allowed" else 1 if new == "allowed" else 2
        counts[c["entity"]][k] += 1
    return sorted(counts.items(), key=lambda e: (-sum(e[1]), e[0].encode()))


def check(name):
    md, text = read(name + ".md"), read(name + ".txt")
    report = json.loads(read(name + ".json"))
    print(
        "%s: markdown %d characters, text %d characters, %d flips of %d requests"
        % (name, len(md), len(text), len(report["requests"]["changed"]), report["requests"]["checked"])
    )
    if len(md) > 60000:
        return "%d characters" % len(md)
    if not md.startswith("## Rule-set changes\n\n**"):
        return md[:200]
    for form, t in (("markdown", md), ("text", text)):
        if "SYNTHETIC" not in t[:3000]:
            return form + ": the derived corpus is not labelled synthetic in the summary"
    if report["requests"]["corpus"] != {"kind": "derived", "synthetic": True}:
        return str(report["requests"]["corpus"])
    ranked = flips_per_entity(report)
    section = md.split("### Flips per entity", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.M)
    if len(rows) < min(10, len(ranked)):
        return "%d entity rows" % len(rows)
    for (entity, (b, a, s)), row in zip(ranked[:10], rows[:10], strict=False):
        shown = (unescape(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))
        if shown != (entity, b, a, s, b + a + s):
            return "markdown %s, JSON %s" % (shown, (entity, b, a, s))
    summary = {e["entity"]: e["flips"] for e in report["summary"]["entities"]}
    for entity, c in ranked:
        if summary.get(entity) != sum(c):
            return entity
    print("%s: top 10 entities by flips: %s" % (name, ", ".join("%s %d" % (e, sum(c)) for e, c in ranked[:10])))
    return None


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    problem = check(sys.argv[1])
    if problem is not None:
        sys.exit("%s: %s" % (sys.argv[1], problem))
