#!/usr/bin/env python3
"""A sample of the exactness corpus (exactness.py) loaded in real WebKit, against adblock-rust and radarblock's model.

The list converted by `radarblock convert --filter-list` is compiled into a WebKit filter store (`radarblock compile
--engine webkit`) and each sampled request is one page load of the project's harness (`scripts/webkit-check pages`,
an "installed" list): the request is blocked when it never reached the harness's proxy. The sample is drawn from the
corpus `diff` derives (the one exactness.py checks), of the types the harness issues: loads of the page itself,
loads from inside a frame of the top page (the harness's `frame`), and frames' own document loads (an iframe of the
top page, about:blank and child-frame in WebKit). Prints one JSON object per list (and, with --together, for the
lists' concatenation): requests, WebKit agreeing with radarblock's model, with adblock-rust, and each disagreement
with adblock-rust explained as exactness.py does.

Run with the venv's python (scripts/filterlists/setup-venv.sh); the machine is shared: keep --count small.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import exactness

HARNESS_TYPES = {"script", "image", "stylesheet", "xmlhttprequest", "subdocument"}
WEBKIT_TYPE = {"stylesheet": "style-sheet", "xmlhttprequest": "fetch", "subdocument": "child-document"}


def harness_sample(corpus: list[exactness.Request], count: int, seed: int) -> list[exactness.Request]:
    """`count` requests the harness can load as the corpus means them: a URL used once per page (not the top page's
    or the frame's own), no empty query (a URL ending in "?" does not reach the harness's proxy as written)."""
    usable = [
        r
        for r in corpus
        if r[2] in HARNESS_TYPES and r[0] not in (r[1], r[3]) and r[1].startswith("http") and not r[0].endswith("?")
    ]
    return random.Random(seed).sample(usable, min(count, len(usable)))


def check(binary: str, lst: Path, count: int, seed: int) -> dict:
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rules = work / "rules.json"
        exactness.convert(binary, lst, rules, work / "provenance.json")
        store = work / "store"
        subprocess.run(
            [binary, "compile", str(rules), "--engine", "webkit", "-o", str(store), "--name", "list"],
            check=True,
            capture_output=True,
        )
        text = lst.read_text(encoding="utf-8", errors="replace")
        reported = exactness.reported_filters(work / "rules.json.issues.txt", text)
        sample = harness_sample(exactness.derived_corpus(binary, lst, work), count, seed)
        ref = exactness.reference(text, sample)
        model = exactness.radarblock(binary, rules, sample, work)
        scenarios = work / "scenarios.jsonl"
        with scenarios.open("w") as out:
            for i, (url, src, kind, top, _frame, _context) in enumerate(sample):
                load = {
                    "id": "r",
                    "url": url,
                    "type": WEBKIT_TYPE.get(kind, kind),
                    "frame": None if src == top else src,
                }
                scenario = {"id": i, "installed": {"store": str(store), "identifiers": ["list"]}, "topURL": top}
                out.write(json.dumps({**scenario, "loads": [load]}) + "\n")
        lines = subprocess.run(
            [str(root / "scripts/webkit-check"), "pages", str(scenarios)], check=True, capture_output=True, text=True
        ).stdout.splitlines()
    answers = {o["id"]: o for o in map(json.loads, lines)}
    result = {"list": lst.name, "requests": len(sample), "harnessErrors": 0, "webkitAgreesWithModel": 0}
    result |= {"webkitAgreesWithAdblockRust": 0, "explained": {}, "unexplained": []}
    for i, (req, a, m) in enumerate(zip(sample, ref, model, strict=True)):
        answer = answers.get(i) or {}
        if answer.get("error") or "r" not in answer.get("loads", {}):
            result["harnessErrors"] += 1
            result.setdefault("harnessErrorExamples", []).append({"request": req, "answer": answer})
            continue
        blocked = answer["loads"]["r"]["blocked"]
        result["webkitAgreesWithModel"] += blocked == m.blocked
        if blocked == a.blocked:
            result["webkitAgreesWithAdblockRust"] += 1
            continue
        why = exactness.explain(a, exactness.Outcome(blocked, m.deciding), req, reported)
        if why:
            result["explained"][why] = result["explained"].get(why, 0) + 1
        else:
            result["unexplained"].append({"request": req, "webkit": blocked, "adblock": a.__dict__})
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--radarblock", default=".build/release/radarblock")
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--together", action="store_true", help="also check the lists' concatenation")
    parser.add_argument("lists", nargs="+", type=Path)
    args = parser.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        lists = list(args.lists)
        if args.together:
            both = Path(tmp) / "+".join(lst.name for lst in args.lists)
            both.write_text("\n".join(lst.read_text(encoding="utf-8", errors="replace") for lst in args.lists))
            lists.append(both)
        for lst in lists:
            result = check(args.radarblock, lst, args.count, args.seed)
            bad += len(result["unexplained"]) + result["harnessErrors"] + (result["requests"] == 0)
            print(json.dumps(result, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
