#!/usr/bin/env python3
"""A frame's own document load in real WebKit, and `radarblock match` deciding it alike (issue 40).

usage: check_frames_webkit.py RADARBLOCK WORKDIR
Facts (rule lists given to the harness): an `<iframe src>` of the top page loads with load context child-frame (a
`document` rule for top-frame lets it through, one for child-frame blocks it) and its frame URL is about:blank (an
if-frame-url on about:blank blocks it, one on the top page's site does not). The filter
`||tracker-frame.example^$subdocument,domain=site.example`, converted for webkitgtk-2.50 and compiled into a filter
store, blocks the iframe on site.example and not on another site, and a script loaded from inside a frame whose
document is on site.example is judged on that frame (`$script,domain=`). `match` answers each load given as WebKit
makes it (frameURL about:blank, loadContext child-frame for the frame's document). Exit 1 on any disagreement.
"""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
FRAME = "https://tracker-frame.example/frame.html"
SCRIPT = "https://tracker-frame.example/t.js"
SITE, OTHER = "https://site.example/page", "https://other.example/page"
FILTERS = (
    "||tracker-frame.example^$subdocument,domain=site.example\n"
    "||tracker-frame.example/t.js$script,domain=site.example\n"
)


def raw_rule(**trigger):
    return {"trigger": {"url-filter": "tracker-frame\\.example", **trigger}, "action": {"type": "block"}}


# (name, rules, expected: the iframe of SITE blocked)
FACTS = [
    ("document + top-frame", [raw_rule(**{"resource-type": ["document"], "load-context": ["top-frame"]})], False),
    ("document + child-frame", [raw_rule(**{"resource-type": ["document"], "load-context": ["child-frame"]})], True),
    ("if-frame-url about:blank", [raw_rule(**{"if-frame-url": ["^about:blank"]})], True),
    ("if-frame-url the top page", [raw_rule(**{"if-frame-url": ["^https?://site\\.example/"]})], False),
]
# (name, top URL, load, expected blocked) for the converted filters; a load's "frame" is the document it comes from.
CONVERTED = [
    ("iframe on the $domain site", SITE, {"url": FRAME, "type": "child-document", "frame": None}, True),
    ("iframe on another site", OTHER, {"url": FRAME, "type": "child-document", "frame": None}, False),
    ("script in a frame on the $domain site", OTHER, {"url": SCRIPT, "type": "script", "frame": SITE}, True),
    ("script in a frame on another site", SITE, {"url": SCRIPT, "type": "script", "frame": OTHER}, False),
]


def request(top, load):
    """The load as WebKit makes it, as a `match --requests` line."""
    r = {"url": load["url"], "topURL": top, "resourceType": load["type"]}
    if load["type"] == "child-document":
        r |= {"frameURL": "about:blank", "loadContext": "child-frame"}
    elif load["frame"]:
        r["frameURL"] = load["frame"]
    return r


def pages(scenarios, work):
    path = work / "scenarios.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in scenarios))
    out = subprocess.run(
        [str(HERE / "scripts/webkit-check"), "pages", str(path)], check=True, capture_output=True, text=True
    ).stdout
    return {o["id"]: o for o in map(json.loads, out.splitlines())}


def matched(radarblock, rules, requests, work, name):
    (work / f"{name}.json").write_text(json.dumps(rules))
    (work / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    args = [radarblock, "match", str(work / f"{name}.json"), "--requests", str(work / f"{name}.jsonl")]
    lines = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    return [any(a.get("type") == "block" for a in json.loads(line).get("actions", [])) for line in lines]


def main():
    radarblock, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    iframe = {"id": "r", "url": FRAME, "type": "child-document"}
    scenarios = [
        {"id": f"fact{i}", "rules": [rules], "topURL": SITE, "loads": [iframe]} for i, (_, rules, _) in enumerate(FACTS)
    ]
    (work / "filters.txt").write_text(FILTERS)
    rules = work / "converted.json"
    subprocess.run(
        [
            radarblock,
            "convert",
            "--target",
            "webkitgtk-2.50",
            "--filter-list",
            str(work / "filters.txt"),
            "-o",
            str(rules),
        ],
        check=True,
        capture_output=True,
    )
    store = work / "store"
    subprocess.run(
        [radarblock, "compile", str(rules), "--engine", "webkit", "-o", str(store), "--name", "list"],
        check=True,
        capture_output=True,
    )
    installed = {"store": str(store), "identifiers": ["list"]}
    scenarios += [
        {"id": f"conv{i}", "installed": installed, "topURL": top, "loads": [{"id": "r", **load}]}
        for i, (_, top, load, _) in enumerate(CONVERTED)
    ]
    answers = pages(scenarios, work)
    bad = 0
    for prefix, cases, models in (
        (
            "fact",
            FACTS,
            [
                matched(radarblock, r, [request(SITE, iframe | {"frame": None})], work, f"fact{i}")[0]
                for i, (_, r, _) in enumerate(FACTS)
            ],
        ),
        (
            "conv",
            CONVERTED,
            matched(
                radarblock,
                json.loads(rules.read_text()),
                [request(top, load) for _, top, load, _ in CONVERTED],
                work,
                "conv",
            ),
        ),
    ):
        for i, (case, model) in enumerate(zip(cases, models, strict=True)):
            answer = answers.get(f"{prefix}{i}", {})
            webkit = answer.get("loads", {}).get("r", {}).get("blocked")
            ok = webkit == case[-1] == model
            bad += not ok
            print(f"{'ok' if ok else 'DISAGREE'}: {case[0]}: WebKit {webkit}, match {model}, expected {case[-1]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
