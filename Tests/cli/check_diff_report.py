#!/usr/bin/env python3
"""Tests/cli/diff-report.sh: the Markdown report of a diff agrees with its JSON report (NAME.md, NAME.json, NAME.txt,
NAME.html of the same diff, a derived corpus): bounded, labelled synthetic in the summary, and its top 10 entities by
flips, with their distinct URLs and pages, recounted from the JSON report's own flips; the JSON summary's per-entity
counts agree too. Issue 41: the flip count is said to count corpus requests, beside the distinct URLs and pages; the
examples of the tracker with most flips of both kinds show both kinds and several URLs, each example names both
sides' deciding rules; the HTML report has both sides' deciding rules and the trackers added, removed and changed.

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


def kind(c):
    """0 newly blocked, 1 newly allowed, 2 otherwise changed."""
    old, new = c["old"]["outcome"], c["new"]["outcome"]
    return 0 if old == "allowed" else 1 if new == "allowed" else 2


def flips_per(report, key):
    """Per entity or tracker [newly blocked, newly allowed, otherwise changed], ranked by total flips, then by name
    (bytes); and its distinct URLs and pages."""
    counts = collections.defaultdict(lambda: [0, 0, 0])
    urls, pages = collections.defaultdict(set), collections.defaultdict(set)
    for c in report["requests"]["changed"]:
        counts[c[key]][kind(c)] += 1
        urls[c[key]].add(c["request"]["url"])
        pages[c[key]].add(c["request"]["topURL"])
    ranked = sorted(counts.items(), key=lambda e: (-sum(e[1]), e[0].encode()))
    return ranked, {k: (len(urls[k]), len(pages[k])) for k in counts}


def check_why(name, md, report):
    """The report says why: what a flip counts, both directions and several URLs in the examples, deciding rules."""
    flips = report["requests"]["changed"]
    urls = len({c["request"]["url"] for c in flips})
    pages = len({c["request"]["topURL"] for c in flips})
    if "the %d flips are %d distinct URLs on %d pages" % (len(flips), urls, pages) not in md[:5000]:
        return "the summary does not say the %d flips are %d URLs on %d pages" % (len(flips), urls, pages)
    ranked, _ = flips_per(report, "tracker")
    both = [t for t, c in ranked[:20] if c[0] and c[1]]
    for tracker in both[:1]:
        section = md.split("**%s**" % tracker, 1)
        if len(section) < 2:
            return "no examples for %s" % tracker
        lines = [line for line in section[1].split("\n\n", 1)[0].splitlines() if line.startswith("- ")]
        if not any("allowed -> blocked" in line for line in lines) or not any(
            "blocked -> allowed" in line for line in lines
        ):
            return "%s: the examples do not show both directions: %s" % (tracker, lines)
        shown = {line.split(" ")[2] for line in lines}
        if len(shown) != len(lines):
            return "%s: two examples of one URL: %s" % (tracker, lines)
        print("%s: the examples of %s show both directions, %d URLs" % (name, tracker, len(shown)))
    examples = md.split("### Examples", 1)[1].split("\n### ", 1)[0]
    for line in examples.splitlines():
        if line.startswith("- ") and ("; old by " not in line or "; new by " not in line):
            return "an example without both sides' deciding rules: " + line
    return None


def check_html(name, report):
    html = read(name + ".html")
    if "<th>old deciding rule</th><th>new deciding rule</th>" not in html:
        return "the HTML flip table has no deciding-rule columns"
    for key, title in (("added", "Trackers added"), ("removed", "Trackers removed")):
        want = len(report["trackers"][key])
        if want and "<h2>%s, with their rules (%d)</h2>" % (title, want) not in html:
            return "the HTML report does not list the %d trackers %s" % (want, key)
    if report["requests"]["changed"] and 'id="examples"' not in html:
        return "the HTML report has no examples"
    return None


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
    ranked, reach = flips_per(report, "entity")
    section = md.split("### Flips per entity", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| (.+?) \|" + r" (\d+) \|" * 6 + "$", section, re.M)
    if len(rows) < min(10, len(ranked)):
        return "%d entity rows" % len(rows)
    for (entity, (b, a, s)), row in zip(ranked[:10], rows[:10], strict=False):
        shown = (unescape(row[0]), *map(int, row[1:]))
        if shown != (entity, b, a, s, b + a + s, *reach[entity]):
            return "markdown %s, JSON %s" % (shown, (entity, b, a, s, reach[entity]))
    summary = {e["entity"]: e["flips"] for e in report["summary"]["entities"]}
    for entity, c in ranked:
        if summary.get(entity) != sum(c):
            return entity
    problem = check_why(name, md, report) or check_html(name, report)
    if problem is not None:
        return problem
    print("%s: top 10 entities by flips: %s" % (name, ", ".join("%s %d" % (e, sum(c)) for e, c in ranked[:10])))
    return None


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    problem = check(sys.argv[1])
    if problem is not None:
        sys.exit("%s: %s" % (sys.argv[1], problem))
