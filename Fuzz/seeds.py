#!/usr/bin/python3
"""Seed corpora for the fuzz targets: the project's own data/ and generated cases only (never the
CC BY-NC-SA data of ../shared). Usage: Fuzz/seeds.py CORPUS_DIR RADARBLOCK_BINARY"""

import glob
import json
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus, binary = sys.argv[1], sys.argv[2]


def put(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


def rule(filter, **trigger):
    t = {"url-filter": filter}
    t.update(trigger)
    return {"trigger": t, "action": {"type": "block"}}


patterns = [
    "tracker\\.example",
    "^https?://([^/]*\\.)?ads\\.example/",
    "^[^:]+://+([^/]+\\.)?ads\\.example[:/]",
    "^[^:]+://+([^/]+\\.)?cdn\\.tracker\\.example[:/]",
    "^[^:]+://+([^/]+\\.)?tracker\\.example\\/pixel",
    "^[^:]+://+([^/]+\\.)?ads\\.example[:/].*\\.js$",
    "^[^:]+://+(([^/]+(/<)?)+\\.)?ads\\.example[:/]",
    "[ab]*a[ab][ab][ab]",
    "a" * 40,
    ".*x.*y.*z",
    "^http://a\\.b/c?d+e*$",
    "(ab)+c",
    "[^/]*\\.js$",
    "\\.",
    ".*",
    "^",
    "$",
]
lists = [
    [rule(p) for p in patterns],
    [rule("x", **{"if-domain": ["*news.example"]}), rule("y", **{"unless-top-url": ["^https://a\\."]})],
    [
        rule("z", **{"resource-type": ["script", "image"], "load-type": ["third-party"]}),
        {"trigger": {"url-filter": ".*"}, "action": {"type": "css-display-none", "selector": ".ad"}},
        {"trigger": {"url-filter": "w"}, "action": {"type": "ignore-previous-rules"}},
    ],
    [rule("f", **{"if-frame-url": ["^https://frame\\.example/"]})],
]
for i, rule_list in enumerate(lists):
    put("rulelist", "generated-%d.json" % i, json.dumps(rule_list))
put("rulelist", "golden-rules.json", read(root + "/Tests/RuleCompilerTests/Fixtures/golden-rules.json"))

for i, p in enumerate(patterns):
    put("urlfilter", "pattern-%d" % i, p + "\nhttps://tracker.example/a.js\nhttp://ads.example/x\nabababa\n")

put("tds", "sample-tds.json", read(root + "/data/tds.json"))
put("config", "sample-config.json", read(root + "/data/privacy-config.json"))
put("config", "sample-unprotected.txt", read(root + "/data/unprotected-sites.txt"))
put("surrogates", "sample-surrogates.txt", read(root + "/data/surrogates.txt"))
put(
    "filterlist",
    "filters.txt",
    "! Title: seed\n||ads.example^$third-party,script\n@@||ads.example/ok^$domain=a.b|c.d\n"
    "/track^*x|\n|https://a.b/c|$important,match-case\n/ad[0-9]+/$image\na.com,~b.a.com##.ad\n||x^$redirect=noop.js\n",
)
for i, path in enumerate(
    sorted(glob.glob(root + "/data/radar/domains/*/*.json") + glob.glob(root + "/data/radar/entities/*.json"))
):
    put("radar", "radar-%d.json" % i, read(path))
for i, line in enumerate(read(root + "/data/requests.jsonl").splitlines()):
    put("requests", "request-%d.jsonl" % i, line)
put("requests", "url", b"https://user:pw@EXAMPLE.com:8080/a/../b?c#d")

# .rbc files: the golden fixture and the generated lists compiled by radarblock.
# The golden file of the newest format: an older one is refused at its version, before any section is read.
goldens = glob.glob(root + "/Tests/RuleCompilerTests/Fixtures/golden-v*.rbc")
put("rbc", "golden.rbc", read(max(goldens, key=lambda p: int(p.rsplit("-v", 1)[1].split(".")[0]))))
with tempfile.TemporaryDirectory() as tmp:
    for i, rule_list in enumerate(lists):
        src, dst = os.path.join(tmp, "l%d.json" % i), os.path.join(tmp, "l%d.rbc" % i)
        with open(src, "w") as f:
            json.dump(rule_list, f)
        if subprocess.run([binary, "compile", src, "-o", dst], stderr=subprocess.DEVNULL).returncode == 0:
            put("rbc", "generated-%d.rbc" % i, read(dst))
