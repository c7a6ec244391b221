#!/usr/bin/env python3
"""A filter list's cosmetic filters in real WebKit against adblock-rust (issue 40).

usage: check_cosmetic_sample.py RADARBLOCK LIST WORKDIR [COUNT] [SEED]   (run with scripts/filterlists/setup-venv.sh's
python: it imports adblock-rust)

Converts LIST with `radarblock convert --filter-list` (the cosmetic list: OUT.cosmetic.json), samples COUNT (default
500) of its `##` filters with random.Random(SEED) (default 40) among those whose element check_cpm_sample.py can
build, and puts each element on a page of its filter's first site (a generic page for filters without one) and, for
a site's filter, also on a page of another site. What adblock-rust says of each element: hidden when a selector it
gives for the page (`url_cosmetic_resources(url).hide_selectors`, and `hidden_class_id_selectors` for the page's
classes and ids unless `generichide`) matches it in WebKit (`Element.matches`). Each page is loaded with the
cosmetic list in standards and in quirks mode, and the element must be hidden (`display: none`) exactly when
adblock-rust says. A disagreement is explained when convert reported the sampled filter (its line in
OUT.issues.txt). Prints the figures and every disagreement; exit 1 on an unexplained one.
"""

import json
import os
import random
import re
import subprocess
import sys

import adblock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_cpm_sample import buildable, element_html, page_modes, run_pages  # noqa: E402

GENERIC_HOST = "rb-cosmetic-generic.example"
OTHER_HOST = "rb-cosmetic-other.example"
SITES = re.compile(r"^([^#/|@\"!$]*)##(.+)$")
# adblock-rust's own tokens for a class or an id in a selector, for `hidden_class_id_selectors`.
NAMES = re.compile(r"([.#])(-?[_a-zA-Z][_a-zA-Z0-9-]*)")


def convert(radarblock, path, work):
    out = os.path.join(work, "list.json")
    subprocess.run([radarblock, "convert", "--filter-list", path, "-o", out], check=True, capture_output=True)
    reported = set()
    with open(out + ".issues.txt", encoding="utf-8") as f:
        for line in f:
            m = re.search(r": line (\d+): ", line)
            if m:
                reported.add(int(m.group(1)))
    with open(os.path.join(work, "list.cosmetic.json"), encoding="utf-8") as f:
        return json.load(f), reported


def candidates(lines):
    out = []
    for n, line in enumerate(lines, 1):
        m = SITES.match(line.strip())
        if not m:
            continue
        sites = [s for s in m.group(1).split(",") if s]
        positive = [s for s in sites if not s.startswith("~") and "*" not in s]
        if sites and not positive and any(not s.startswith("~") for s in sites):
            continue
        chain = buildable(m.group(2))
        if chain:
            out.append((n, positive[0] if positive else None, m.group(2), chain))
    return out


def reference_selectors(engine, host, chains):
    """What adblock-rust hides on https://HOST/ among elements built from `chains`."""
    resources = engine.url_cosmetic_resources("https://%s/" % host)
    selectors = set(resources.hide_selectors)
    if not resources.generichide:
        classes, ids = set(), set()
        for chain in chains:
            for _, _, attrs in chain:
                classes.update(attrs.get("class", "").split())
                if "id" in attrs:
                    ids.add(attrs["id"])
        selectors.update(engine.hidden_class_id_selectors(sorted(classes), sorted(ids), resources.exceptions))
    return sorted(selectors)


def scenarios(engine, cosmetic, pages, path):
    with open(path, "w", encoding="utf-8") as f:
        for host, items in pages.items():
            body = "".join(element_html(chain, "s%d" % i) for i, _, _, chain in items)
            body += '<div id="rb-control-element" class="rb-control-element">control</div>'
            reference = json.dumps(reference_selectors(engine, host, [c for _, _, _, c in items]))
            body += '<script type="application/json" id="rb-reference">%s</script>' % reference.replace("</", "<\\/")
            element = "document.querySelector('[data-rb-sample=\"s%d\"]')"
            checks = {}
            for i, _, _, _ in items:
                checks["s%d.reference" % i] = (
                    "JSON.parse(document.getElementById('rb-reference').textContent).some(function(s){"
                    "try{return %s.matches(s);}catch(_){return false;}})" % (element % i)
                )
                checks["s%d.webkit" % i] = "getComputedStyle(%s).display === 'none'" % (element % i)
            checks["control"] = "getComputedStyle(document.getElementById('rb-control-element')).display !== 'none'"
            for mode, html in page_modes("<html><head></head><body>%s</body></html>" % body):
                page = {"id": host + mode, "rules": [cosmetic], "topURL": "https://%s/cosmetic-sample" % host}
                page.update({"html": html, "expressions": checks})
                f.write(json.dumps(page) + "\n")


def main():
    radarblock, path, work = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    os.makedirs(work, exist_ok=True)
    cosmetic, reported = convert(radarblock, path, work)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    rules = adblock.FilterSet(debug=True)
    rules.add_filter_list(text)
    engine = adblock.Engine(rules, optimize=False)
    found = candidates(text.split("\n"))
    sample = random.Random(seed).sample(found, min(count, len(found)))
    pages = {}
    for i, (n, site, sel, chain) in enumerate(sample):
        pages.setdefault(site or GENERIC_HOST, []).append((i, n, sel, chain))
        if site:
            pages.setdefault(OTHER_HOST, []).append((len(sample) + i, n, sel, chain))
    scen = os.path.join(work, "cosmetic-scenarios.jsonl")
    scenarios(engine, cosmetic, pages, scen)
    line_of = {i: n for items in pages.values() for i, n, _, _ in items}
    agree = explained = controls = 0
    unexplained, verdicts = [], {}
    for res in run_pages(scen):
        if res.get("error") or res.get("rejected"):
            sys.exit("page %s: %s" % (res["id"], res.get("error") or res.get("rejected")))
        values = res.get("expressions") or {}
        controls += values.get("control") is True
        for k in values:
            if not k.endswith(".reference"):
                continue
            i = k[1 : -len(".reference")]
            v = "%s/%s" % (
                "hide" if values[k] is True else "show",
                "hidden" if values["s%s.webkit" % i] is True else "shown",
            )
            verdicts[v] = verdicts.get(v, 0) + 1
            if v in ("hide/hidden", "show/shown"):
                agree += 1
            elif line_of[int(i)] in reported:
                explained += 1
            else:
                unexplained.append((line_of[int(i)], res["id"], v))
    for n, page, v in unexplained:
        print("UNEXPLAINED line %d on %s: adblock-rust/WebKit %s: %s" % (n, page, v, text.split("\n")[n - 1]))
    print(
        "%s: %d ## filters buildable, %d sampled (seed %d); %d checks on %d pages (standards and quirks mode)"
        % (os.path.basename(path), len(found), len(sample), seed, sum(verdicts.values()), 2 * len(pages))
    )
    print("verdicts (adblock-rust/WebKit): %s" % json.dumps(verdicts, sort_keys=True))
    print(
        "%d agree, %d explained (filter reported), %d unexplained; control shown on %d/%d pages"
        % (agree, explained, len(unexplained), controls, 2 * len(pages))
    )
    return 0 if not unexplained and controls == 2 * len(pages) else 1


if __name__ == "__main__":
    sys.exit(main())
