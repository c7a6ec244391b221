#!/usr/bin/env python3
"""Inputs and expectations of Tests/webkit/diff-html.sh (`diff --format html` in real WebKit): each subcommand writes
one file the test needs.

usage: Tests/webkit/diff_html_inputs.py COMMAND ARGS...   (COMMAND --help for each)
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "testing"))
import subcommands  # noqa: E402


def steps(args):
    """The page steps every report gets (`webkit-check page --steps`): the charts' bars, the unfiltered count, a
    filter on TRACKER (count, rows, every row that tracker's), whether markup ran, the entity filter's options."""
    tracker = json.dumps(args.tracker)
    filter_tracker = (
        "(function(){var s=document.getElementById('f-tracker'); s.value=%s; s.dispatchEvent(new Event('change'));"
        "var cells=[].map.call(document.querySelectorAll('#flips tbody tr td:first-child'),"
        " function(td){return td.textContent;});"
        "return JSON.stringify([Number(document.body.getAttribute('data-matching')), cells.length,"
        " cells.every(function(c){return c===%s;})]);})()" % (tracker, tracker)
    )
    page_steps = [
        {
            "eval": "document.querySelectorAll('#chart-entities rect.bar').length + ',' + "
            "document.querySelectorAll('#chart-rules rect.bar').length"
        },
        {"eval": "Number(document.body.getAttribute('data-matching'))"},
        {"eval": filter_tracker},
        {"eval": "typeof window.__pwned"},
        {
            "eval": "JSON.stringify([].map.call(document.querySelectorAll('#f-entity option'),"
            " function(o){return o.textContent;}))"
        },
    ]
    with open(args.out, "w") as f:
        json.dump(page_steps, f)


def want(args):
    """The counts the page must show, from the JSON report of the same diff: flips, TRACKER's flips, the entities."""
    with open(args.diff) as f:
        flips = json.load(f)["requests"]["changed"]
    expected = {
        "flips": len(flips),
        "tracker": sum(1 for c in flips if c["tracker"] == args.tracker),
        "entities": sorted({c["entity"] for c in flips}),
    }
    with open(args.out, "w") as f:
        f.write(json.dumps(expected) + "\n")


def flips_corpus(args):
    """N requests (JSONL) to 1,000 hosts on 7 sites, four resource types in turn."""
    types = ["script", "image", "xmlhttprequest", "stylesheet"]
    with open(args.out, "w") as f:
        for i in range(args.n):
            request = {
                "url": "https://t%d.example/p/%d.js" % (i % 1000, i),
                "topURL": "https://site%d.example/" % (i % 7),
                "resourceType": types[i % 4],
            }
            f.write(json.dumps(request) + "\n")


EVIL = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><!--'


def hostile_tds(args):
    """Two TDS from TDS: tracker.example's entity named with markup that tries to close the data block (OLD), and
    then its default ignore with a rule spelling </script> (NEW)."""
    with open(args.tds) as f:
        tds = json.load(f)
    tracker = tds["trackers"]["tracker.example"]
    tracker["owner"]["name"] = EVIL
    tds["entities"][EVIL] = tds["entities"].pop("Tracker Co")
    with open(args.old, "w") as f:
        json.dump(tds, f)
    tracker["default"] = "ignore"
    tracker["rules"] = [r for r in tracker["rules"] if r.get("action") != "ignore"] + [
        {"rule": "tracker\\.example\\/</script>", "action": "ignore"}
    ]
    with open(args.new, "w") as f:
        json.dump(tds, f)


if __name__ == "__main__":
    subcommands.run(
        __doc__,
        [
            ("steps", steps, "out", "tracker"),
            ("want", want, "diff", "tracker", "out"),
            ("flips-corpus", flips_corpus, ("n", {"type": int}), "out"),
            ("hostile-tds", hostile_tds, "tds", "old", "new"),
        ],
    )
