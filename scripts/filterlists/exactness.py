#!/usr/bin/env python3
"""Exactness of `radarblock convert --filter-list` against adblock-rust, the reference engine.

The corpus is the one `radarblock diff` derives from a list's network filters (RuleDiff's FilterCorpus, a fixed
seed: a matching URL and a near miss per filter, first- and third-party, on a `$domain` site and elsewhere, of the
filter's types or others), saved with `diff LIST LIST --save-corpus`; `--count` of its requests are sampled with
`--seed`;
adblock-rust (PyPI `adblock`, FilterSet(debug=True)) and radarblock's model of WebKit (`radarblock match
--explain` on the converted list) decide each one. A disagreement is explained when the filter that decided is
one `convert` reported (its line in OUT.issues.txt), or when it falls under a documented deviation of
adblock-rust from Adblock Plus (docs/filter-lists.md, "The reference"); the rest are unexplained (goal 0).

With `--together`, the lists are also checked loaded together, as adblock-rust loads several lists (an exception
in one cancels the blocks of the others): their concatenation is converted as one list and checked on a corpus
derived from all of them; and the same corpus is decided by the lists converted one by one and loaded side by side,
as WebKit loads separate content rule lists (each independent: an exception cancels the blocks of its own list
only), counting the requests where that differs from the one list ("separately": what a release that keeps the
lists apart would change).

Run with the venv's python: `$(scripts/filterlists/setup-venv.sh) scripts/filterlists/exactness.py
--radarblock .build/release/radarblock [--together] LIST...`. Prints one JSON object per list.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import adblock

# ABP request type -> (adblock-rust type, radarblock request type).
TYPES = {
    "script": ("script", "script"),
    "image": ("image", "image"),
    "stylesheet": ("stylesheet", "stylesheet"),
    "font": ("font", "font"),
    "media": ("media", "media"),
    "subdocument": ("sub_frame", "sub_frame"),
    "xmlhttprequest": ("xmlhttprequest", "xmlhttprequest"),
    "websocket": ("websocket", "websocket"),
    "ping": ("ping", "ping"),
    "other": ("other", "other"),
    "document": ("main_frame", "main_frame"),
}
ISSUE_LINE = re.compile(r"^[^:]+: line (\d+): ")
# radarblock request type -> ABP request type (the keys of TYPES).
ABP_TYPE = {rb: abp for abp, (_rust, rb) in TYPES.items()}
# (URL, the document it comes from: adblock-rust's source, type, the top page's URL, WebKit's frame URL and load
# context when the corpus names them: a frame's own document loads in the child frame, about:blank then, and the
# document it comes from is the page holding the frame)
Request = tuple[str, str, str, str, str | None, str | None]
BLANK_FRAME = "about:blank"


def derived_corpus(binary: str, lst: Path, work: Path) -> list[Request]:
    """The corpus radarblock derives from the list's network filters (RuleDiff's FilterCorpus, seed fixed there):
    the one `diff` checks, saved by a diff of the list with itself."""
    saved = work / "corpus.jsonl"
    subprocess.run(
        [binary, "diff", str(lst), str(lst), "--save-corpus", str(saved), "--format", "json", "-o", "/dev/null"],
        check=True,
        capture_output=True,
    )
    out = []
    for line in saved.read_text().splitlines():
        r = json.loads(line)
        kind = ABP_TYPE[r["resourceType"]]
        frame = r.get("frameURL")
        src = r["topURL"] if frame in (None, BLANK_FRAME) else frame
        out.append((r["url"], src, kind, r["topURL"], frame, r.get("loadContext")))
    return out


def corpus(binary: str, lst: Path, count: int, seed: int, work: Path) -> list[Request]:
    """`count` requests of the derived corpus, sampled with `seed`, in corpus order."""
    requests = derived_corpus(binary, lst, work)
    picked = sorted(random.Random(seed).sample(range(len(requests)), min(count, len(requests))))
    return [requests[i] for i in picked]


@dataclass
class Outcome:
    blocked: bool
    deciding: str | None


def reference(filters_text: str, requests: list[Request]) -> list[Outcome]:
    fs = adblock.FilterSet(debug=True)
    fs.add_filters(filters_text.split("\n"))
    engine = adblock.Engine(fs)
    out = []
    for url, src, kind, _top, _frame, _context in requests:
        r = engine.check_network_urls(url, src, TYPES[kind][0])
        out.append(Outcome(r.matched and not r.exception, r.exception or r.filter))
    return out


def write_requests(requests: list[Request], work: Path) -> Path:
    lines = []
    for url, _src, kind, top, frame, context in requests:
        req = {"url": url, "topURL": top, "resourceType": TYPES[kind][1]}
        if frame:
            req["frameURL"] = frame
        if context:
            req["loadContext"] = context
        lines.append(json.dumps(req))
    path = work / "requests.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def compiled(binary: str, rules: Path) -> Path:
    """The list compiled to an .rbc beside it."""
    out = rules.with_suffix(".rbc")
    subprocess.run([binary, "compile", str(rules), "-o", str(out)], check=True, capture_output=True)
    return out


def radarblock(binary: str, rules: Path, requests: list[Request], work: Path) -> list[Outcome]:
    path = write_requests(requests, work)
    prov = work / "provenance.json"
    rbc = compiled(binary, rules)
    answers = subprocess.run(
        [binary, "match", str(rbc), "--requests", str(path), "--explain", "--provenance", str(prov)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    out = []
    for a in answers:
        o = json.loads(a)
        blocked = any(x.get("type") == "block" for x in o.get("actions", []))
        decided = (o.get("decidedBy") or {}).get("provenance") or {}
        out.append(Outcome(blocked, decided.get("filter")))
    return out


def explain(ref: Outcome, wk: Outcome, req: Request, reported: dict[str, str]) -> str | None:
    """The reason a disagreement is explained, None when it is not."""
    _url, src, kind, top, _frame, _context = req
    for deciding in (ref.deciding, wk.deciding):
        # adblock-rust's FilterSet(debug=True) names filters it merged (same options) joined with " <+> ".
        for part in (deciding or "").split(" <+> "):
            if part in reported:
                return "reported: " + reported[part]
    if kind == "document" and ref.blocked and not wk.blocked:
        return "deviation: adblock-rust blocks navigations"
    d = ref.deciding or ""
    if ref.blocked and not wk.blocked and d.startswith("||www."):
        return "deviation: adblock-rust drops the www. of ||www. filters"
    w = wk.deciding or ""
    if wk.blocked and not ref.blocked and re.search(r"\$(.*,)?(1p|_|all)(,|$)", w):
        return "deviation: adblock-rust 0.6.0 drops filters with $1p, $_ or $all"
    if wk.blocked and not ref.blocked and re.match(r"^\|\|[a-z0-9.-]+$", w.split("$")[0]):
        return "deviation: adblock-rust ends a ||host pattern at the host's end"
    party = re.compile(r"\$(.*,)?~?(third-party|3p|first-party|1p)(,|$)")
    if top != src and (party.search(d) or party.search(w)):
        return "webkit limit: third party is judged against the top page, not the frame"
    if wk.blocked and not ref.blocked and "%" in w:
        return "deviation: adblock-rust's token index misses matches next to a %"
    if wk.blocked and not ref.blocked and abp_plain_match(w, _url) and token_inside_longer(w, _url):
        return "deviation: adblock-rust's token index misses matches inside a longer token"
    return None


def abp_plain_match(filter_text: str, url: str) -> bool:
    """Whether an unanchored plain filter's pattern matches the URL as ABP reads it: a case-insensitive substring,
    `*` any run, `^` a separator or the end."""
    pattern = filter_text.split("$")[0]
    is_regex = len(pattern) > 1 and pattern.startswith("/") and pattern.endswith("/")
    if not pattern or is_regex or pattern.startswith(("|", "@@")) or pattern.endswith("|"):
        return False
    rx = "".join(".*" if c == "*" else r"(?:[^a-zA-Z0-9_.%-]|$)" if c == "^" else re.escape(c) for c in pattern)
    return re.search(rx, url, re.IGNORECASE) is not None


def token_inside_longer(filter_text: str, url: str) -> bool:
    """Whether a word of the filter's pattern is in the URL only inside a longer word: adblock-rust finds a filter
    by the words it shares with the URL, where ABP searches for the text (`testpages.eyeo.com*js/x` in
    `/ptestpages.eyeo.comxjs/x`)."""
    words = set(re.findall(r"[a-z0-9]+", url.lower()))
    return any(t not in words for t in re.findall(r"[a-z0-9]+", filter_text.split("$")[0].lower()))


def reason_class(reason: str) -> str:
    m = re.match(r"(\$[a-z~-]+|the regex|cosmetic|\$domain)", reason)
    return m.group(1) if m else reason[:40]


def reported_filters(issues: Path, text: str) -> dict[str, str]:
    """The filters `convert` reported (their text, as written in the list), each with its reason's class."""
    lines = text.split("\n")
    reported = {}
    for issue in issues.read_text().splitlines():
        m = ISSUE_LINE.match(issue)
        if m:
            reported[lines[int(m.group(1)) - 1].strip()] = reason_class(issue.rsplit("] ", 1)[-1])
    return reported


def check(binary: str, lst: Path, count: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rules = work / "rules.json"
        convert(binary, lst, rules, work / "provenance.json")
        text = lst.read_text(encoding="utf-8", errors="replace")
        reported = reported_filters(work / "rules.json.issues.txt", text)
        requests = corpus(binary, lst, count, seed, work)
        ref = reference(text, requests)
        wk = radarblock(binary, rules, requests, work)
    result = {
        "list": lst.name,
        "requests": len(requests),
        "blockedByAdblockRust": sum(o.blocked for o in ref),
        "blockedByWebKitModel": sum(o.blocked for o in wk),
        "agreements": 0,
        "explained": {},
        "unexplained": 0,
    }
    examples = []
    for req, a, b in zip(requests, ref, wk, strict=True):
        if a.blocked == b.blocked:
            result["agreements"] += 1
            continue
        why = explain(a, b, req, reported)
        if why:
            result["explained"][why] = result["explained"].get(why, 0) + 1
        else:
            result["unexplained"] += 1
            examples.append({"request": req, "adblock": a.__dict__, "webkit": b.__dict__})
    result["unexplainedExamples"] = examples[:20]
    return result


def convert(binary: str, lst: Path, rules: Path, provenance: Path) -> None:
    """`radarblock convert --filter-list` of `lst` into `rules` (its issues file beside it) and `provenance`."""
    subprocess.run(
        [binary, "convert", "--filter-list", str(lst), "-o", str(rules), "--provenance", str(provenance)],
        check=True,
        capture_output=True,
    )


def separately(binary: str, lists: list[Path], count: int, seed: int) -> dict:
    """How often the lists converted one by one and loaded side by side decide otherwise than their concatenation
    converted as one list (on the together corpus)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        text = "\n".join(lst.read_text(encoding="utf-8", errors="replace") for lst in lists)
        both = work / "together.txt"
        both.write_text(text)
        requests = corpus(binary, both, count, seed, work)
        path = write_requests(requests, work)
        decisions = []
        for name, sources in (("one", [text]), ("apart", [lst.read_text(errors="replace") for lst in lists])):
            rbcs = []
            for i, source in enumerate(sources):
                lst = work / f"{name}{i}.txt"
                lst.write_text(source)
                convert(binary, lst, work / f"{name}{i}.json", work / f"{name}{i}.prov.json")
                rbcs.append(str(compiled(binary, work / f"{name}{i}.json")))
            answers = subprocess.run(
                [binary, "match", *rbcs, "--requests", str(path)], check=True, capture_output=True, text=True
            ).stdout.splitlines()
            decisions.append([any(x.get("type") == "block" for x in json.loads(a).get("actions", [])) for a in answers])
    differ = [r for r, a, b in zip(requests, *decisions, strict=True) if a != b]
    return {"requests": len(requests), "differ": len(differ), "examples": differ[:10]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--radarblock", default=".build/release/radarblock")
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--together", action="store_true", help="also check the lists loaded together")
    parser.add_argument("lists", nargs="+", type=Path)
    args = parser.parse_args()
    unexplained = 0
    for lst in args.lists:
        result = check(args.radarblock, lst, args.count, args.seed)
        unexplained += result["unexplained"]
        print(json.dumps(result, indent=1))
    if args.together:
        with tempfile.TemporaryDirectory() as tmp:
            both = Path(tmp) / "+".join(lst.name for lst in args.lists)
            both.write_text("\n".join(lst.read_text(encoding="utf-8", errors="replace") for lst in args.lists))
            result = check(args.radarblock, both, args.count, args.seed)
        unexplained += result["unexplained"]
        print(json.dumps(result, indent=1))
        print(json.dumps({"separately": separately(args.radarblock, args.lists, args.count, args.seed)}, indent=1))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
