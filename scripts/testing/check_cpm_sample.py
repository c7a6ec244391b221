#!/usr/bin/env python3
"""Real selectors of a release's cookie pop-up list, hidden in real WebKit (issue 33).

usage: check_cpm_sample.py RELEASE_DIR WORKDIR [COUNT] [SEED]
Samples COUNT (default 500) hiding filters of the release's cookie pop-up list (input-tds.json `cpm.filterList`,
the generic and site-specific `##` filters that `cpm.json` carries) with random.Random(SEED) (default 33), among
those whose element this script can build: compound selectors of a type (div, span, ...), ids, classes and
attribute tests (one test per attribute), joined by descendant or child combinators. For each page (one per site,
one for the generic filters) it builds every sampled element (the selector's subject, inside ancestors for its
combinators) and a control element that no selector of the list names, loads the page in WebKit with cpm.json once
in standards mode and once in quirks mode (no doctype), and checks that each element matches its selector
(`Element.matches`, WebKit's own verdict on the generator), is hidden (`display: none`), and that the control is
shown. Prints failures and `N/N sampled selectors hidden, control shown on P/P pages` (both modes counted); exit 1
on any failure. check_cosmetic_sample.py (filter lists' cosmetic filters) imports its element builder and page run.
"""

import json
import os
import random
import re
import subprocess
import sys

here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TAGS = {
    "div",
    "span",
    "section",
    "aside",
    "p",
    "a",
    "ul",
    "li",
    "footer",
    "header",
    "nav",
    "form",
    "button",
    "dialog",
    "article",
    "main",
    "label",
    "strong",
    "h1",
    "h2",
    "h3",
    "h4",
}
IDENT = r"-?[_a-zA-Z][_a-zA-Z0-9-]*"
SIMPLE = re.compile(
    r"(?P<tag>%s)|#(?P<id>%s)|\.(?P<cls>%s)|\[(?P<attr>[a-zA-Z][a-zA-Z0-9_-]*)(?:(?P<op>[~|^$*]?=)"
    r"(?:\"(?P<dq>[^\"\\]*)\"|'(?P<sq>[^'\\]*)'|(?P<bare>%s)))?\]" % (IDENT, IDENT, IDENT, IDENT)
)


def compound(text):
    """A compound selector -> (tag, {attr: value}) or None when this script cannot build it."""
    tag, attrs, classes, pos = "div", {}, [], 0
    while pos < len(text):
        m = SIMPLE.match(text, pos)
        if not m or m.end() == pos:
            return None
        if m.group("tag"):
            if pos != 0 or m.group("tag").lower() not in TAGS:
                return None
            tag = m.group("tag").lower()
        elif m.group("id"):
            if "id" in attrs:
                return None
            attrs["id"] = m.group("id")
        elif m.group("cls"):
            classes.append(m.group("cls"))
        else:
            name = m.group("attr").lower()
            if name in attrs or name == "class" and classes or name == "style":
                return None
            op = m.group("op")
            value = next((v for v in (m.group("dq"), m.group("sq"), m.group("bare")) if v is not None), "")
            if op in ("~=", "|=") and (not value or " " in value):
                return None
            attrs[name] = value if op else ""
        pos = m.end()
    if classes:
        if "class" in attrs:
            return None
        attrs["class"] = " ".join(classes)
    return tag, attrs


def buildable(selector):
    """[(combinator, tag, attrs)] outermost first, or None."""
    parts = re.split(r"\s*(>)\s*|\s+", selector.strip())
    chain, comb = [], " "
    for p in parts:
        if p is None or p == "":
            continue
        if p == ">":
            comb = ">"
            continue
        c = compound(p)
        if c is None:
            return None
        chain.append((comb, c[0], c[1]))
        comb = " "
    return chain or None


def esc(s):
    return s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def element_html(chain, eid):
    html, close = "", ""
    for i, (comb, tag, attrs) in enumerate(chain):
        a = dict(attrs)
        if i == len(chain) - 1:
            a["data-rb-sample"] = eid
        if i > 0 and comb == " ":
            html += "<div>"  # a descendant, not a child
            close = "</div>" + close
        html += "<%s%s>" % (tag, "".join(' %s="%s"' % (k, esc(v)) for k, v in a.items()))
        close = "</%s>" % tag + close
    return html + "x" + close


def page_modes(doctype_free_html):
    """The page's HTML in standards mode and in quirks mode (no doctype), where WebKit's content rule style sheets
    treat mixed-case ID and class selectors otherwise (specs/webkit-content-rules.md, fact 12)."""
    return (("", "<!DOCTYPE html>" + doctype_free_html), (" (quirks mode)", doctype_free_html))


def run_pages(scenarios):
    """Loads each scenario of a `webkit-check pages` JSONL file; its results, one dict a page."""
    out = subprocess.run(
        [os.path.join(here, "scripts", "webkit-check"), "pages", scenarios], capture_output=True, text=True
    )
    if out.returncode != 0:
        sys.exit("webkit-check pages failed: %s" % out.stderr[-2000:])
    return [json.loads(line) for line in out.stdout.splitlines()]


def main():
    release, work = sys.argv[1:3]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 33
    tds = json.load(open(os.path.join(release, "input-tds.json"), encoding="utf-8"))
    lines = tds["cpm"]["filterList"].split("\n")
    cpm = json.load(open(os.path.join(release, "cpm.json"), encoding="utf-8"))
    # The lines the list carries, by the provenance of its hiding rules (their selectors may be rewritten: a
    # mixed-case `#Id` is written `[id="Id"]`).
    provenance = json.load(open(os.path.join(release, "cpm.provenance.json"), encoding="utf-8"))
    carried = {n for p in provenance if p.get("role") == "hide" for n in p.get("lines", [])}
    candidates = []
    for n, line in enumerate(lines, 1):
        m = re.match(r"^([^#/*|@\"!]*)##(.+)$", line.strip())
        if not m or n not in carried:
            continue
        sites = [s for s in m.group(1).split(",") if s]
        if any(s.startswith("~") for s in sites):
            continue
        chain = buildable(m.group(2))
        if chain:
            candidates.append((n, sites[0] if sites else None, m.group(2), chain))
    hides = [rule_line for rule_line in lines if re.match(r"^[^#/*|@\"!]*##", rule_line.strip())]
    rng = random.Random(seed)
    sample = rng.sample(candidates, min(count, len(candidates)))
    pages = {}
    for i, (n, site, sel, chain) in enumerate(sample):
        pages.setdefault(site or "cpm-generic-sample.example", []).append((i, n, sel, chain))
    os.makedirs(work, exist_ok=True)
    scen = os.path.join(work, "sample-scenarios.jsonl")
    with open(scen, "w", encoding="utf-8") as f:
        for host, items in pages.items():
            body = "".join(element_html(chain, "s%d" % i) for i, _, _, chain in items)
            body += '<div id="rb-control-element" class="rb-control-element">control</div>'
            checks = {
                "s%d" % i: "(function(){var e=document.querySelector('[data-rb-sample=\"s%d\"]');"
                "return !!e && e.matches(%s) && getComputedStyle(e).display === 'none';})()" % (i, json.dumps(sel))
                for i, _, sel, _ in items
            }
            checks["control"] = "getComputedStyle(document.getElementById('rb-control-element')).display !== 'none'"
            for mode, html in page_modes("<html><head></head><body>%s</body></html>" % body):
                f.write(
                    json.dumps(
                        {
                            "id": host + mode,
                            "rules": [cpm],
                            "topURL": "https://%s/cookie-sample" % host,
                            "html": html,
                            "expressions": checks,
                        }
                    )
                    + "\n"
                )
    hidden = controls = 0
    by_id = {i: (n, sel) for i, (n, _, sel, _) in enumerate(sample)}
    for res in run_pages(scen):
        if res.get("error") or res.get("rejected"):
            print("page %s: %s" % (res["id"], res.get("error") or res.get("rejected")))
            continue
        for k, v in (res.get("expressions") or {}).items():
            if k == "control":
                controls += v is True
                if v is not True:
                    print("control shown? no: page %s" % res["id"])
            elif v is True:
                hidden += 1
            else:
                n, sel = by_id[int(k[1:])]
                print("NOT HIDDEN line %d %r on %s: %r" % (n, sel, res["id"], v))
    print(
        "%d hiding filters in the list, %d buildable and carried, %d sampled (seed %d)"
        % (len(hides), len(candidates), len(sample), seed)
    )
    print(
        "%d/%d sampled selectors hidden, control shown on %d/%d pages (standards and quirks mode)"
        % (hidden, 2 * len(sample), controls, 2 * len(pages))
    )
    return 0 if hidden == 2 * len(sample) and controls == 2 * len(pages) else 1


if __name__ == "__main__":
    sys.exit(main())
