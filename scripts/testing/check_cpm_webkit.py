#!/usr/bin/env python3
"""The cookie pop-up list (issue 33) in real WebKit: one fixture page per case of Adblock Plus's documented
element-hiding semantics, each element hidden or shown as ABP says, and `radarblock match --selector` agreeing.

usage: check_cpm_webkit.py RADARBLOCK WORKDIR [TARGET]
Builds releases from the project's sample TDS (data/tds.json) with a cookie pop-up list written here
(`cpm.filterList`) and data/surrogates.txt, for TARGET (default webkitgtk-2.50, the WebKitGTK under test): the
feature on (with autoconsent exceptions, filter-list exceptions, a temp-list site and a user-unprotected site),
autoconsent disabled, and the `filterlist` sub-feature absent; and the feature on for the default target
(safari-15), which lacks `:has()`: there the `:-abp-has()` filter is left out, shown, and named in issues.txt. Each
case is a page whose top URL decides; `rules.json` and `cpm.json` are loaded as an app loads them and
`surrogates.js` is injected at document start. Prints one line per failure and `N/N cases in WebKit, match agrees
on N/N`; exit 1 on any failure.
"""

import json
import os
import subprocess
import sys

radarblock, work = sys.argv[1:3]
target = sys.argv[3] if len(sys.argv) > 3 else "webkitgtk-2.50"
HAS_LINE = 15  # the line of FILTERS holding the :-abp-has() filter
here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.makedirs(work, exist_ok=True)

FILTERS = r"""[Adblock Plus 2.0]
! radarblock fixture list: one filter per ABP case
###cpm-generic-id
##.cpm-generic-class
##div[data-cpm="banner"]
site-a.example###cpm-site-only
site-a.example,site-b.example##.cpm-two-sites
~excluded.example##.cpm-not-excluded
site-c.example,~sub.site-c.example##.cpm-mixed
site-c.example,~sub.site-c.example,deep.sub.site-c.example##.cpm-mixed-deep
##.cpm-excepted
exc.example#@#.cpm-excepted
site-d.example##.cpm-site-excepted
sub.site-d.example#@#.cpm-site-excepted
has.example#?#.cpm-banner:-abp-has(.cpm-cookie-text)
contains.example#?#.cpm-notice:-abp-contains(We use cookies)
##.cpm-Mixed-Case
bad site!##.cpm-malformed
@@||cdn.example^$script
contains.example#$#log hello
##.cpm-invalid{}
"""


def tds():
    t = json.load(open(os.path.join(here, "data", "tds.json"), encoding="utf-8"))
    t["cpm"] = {"filterList": FILTERS}
    return t


def config(autoconsent_state="enabled", filterlist=True):
    c = json.load(open(os.path.join(here, "data", "privacy-config.json"), encoding="utf-8"))
    c.setdefault("features", {})
    c["unprotectedTemporary"] = [{"domain": "temp.example", "reason": "fixture"}]
    ac = {
        "state": autoconsent_state,
        "exceptions": [{"domain": "ac-exc.example", "reason": "fixture"}],
        "settings": {"filterlistExceptions": ["fl-exc.example"]},
    }
    if filterlist:
        ac["features"] = {"filterlist": {"state": "enabled"}}
    c["features"]["autoconsent"] = ac
    return c


def build(name, cfg, target_args):
    d = os.path.join(work, name)
    json.dump(tds(), open(os.path.join(work, "tds.json"), "w"))
    json.dump(cfg, open(os.path.join(work, name + "-config.json"), "w"))
    open(os.path.join(work, "unprotected.txt"), "w").write("unprot.example\n")
    subprocess.run(
        [
            radarblock,
            "build",
            "--force",
            "--tds",
            os.path.join(work, "tds.json"),
            "--config",
            os.path.join(work, name + "-config.json"),
            "--unprotected",
            os.path.join(work, "unprotected.txt"),
            "--surrogates",
            os.path.join(here, "data", "surrogates.txt"),
            "--out",
            d,
        ]
        + target_args,
        check=True,
        capture_output=True,
    )
    return d


# (release, page host, element HTML, element id, selector as the list writes it, hidden?)
LATE = (
    "<script>setTimeout(function () { var d = document.createElement('div'); d.className = 'cpm-notice';"
    " d.id = 'e'; d.textContent = 'Hello. We use cookies here.'; document.body.appendChild(d); }, 150);</script>"
)
CASES = [
    ("on", "random.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", True),
    ("on", "random.example", '<div id="e" class="cpm-generic-class">x</div>', "e", ".cpm-generic-class", True),
    ("on", "random.example", '<div id="e" data-cpm="banner">x</div>', "e", 'div[data-cpm="banner"]', True),
    ("on", "site-a.example", '<div id="cpm-site-only">x</div>', "cpm-site-only", "#cpm-site-only", True),
    ("on", "www.site-a.example", '<div id="cpm-site-only">x</div>', "cpm-site-only", "#cpm-site-only", True),
    ("on", "other.example", '<div id="cpm-site-only">x</div>', "cpm-site-only", "#cpm-site-only", False),
    ("on", "notsite-a.example", '<div id="cpm-site-only">x</div>', "cpm-site-only", "#cpm-site-only", False),
    ("on", "site-b.example", '<div id="e" class="cpm-two-sites">x</div>', "e", ".cpm-two-sites", True),
    ("on", "x.site-a.example", '<div id="e" class="cpm-two-sites">x</div>', "e", ".cpm-two-sites", True),
    ("on", "other.example", '<div id="e" class="cpm-two-sites">x</div>', "e", ".cpm-two-sites", False),
    ("on", "excluded.example", '<div id="e" class="cpm-not-excluded">x</div>', "e", ".cpm-not-excluded", False),
    ("on", "a.excluded.example", '<div id="e" class="cpm-not-excluded">x</div>', "e", ".cpm-not-excluded", False),
    ("on", "other.example", '<div id="e" class="cpm-not-excluded">x</div>', "e", ".cpm-not-excluded", True),
    ("on", "site-c.example", '<div id="e" class="cpm-mixed">x</div>', "e", ".cpm-mixed", True),
    ("on", "www.site-c.example", '<div id="e" class="cpm-mixed">x</div>', "e", ".cpm-mixed", True),
    ("on", "su.site-c.example", '<div id="e" class="cpm-mixed">x</div>', "e", ".cpm-mixed", True),
    ("on", "sub.site-c.example", '<div id="e" class="cpm-mixed">x</div>', "e", ".cpm-mixed", False),
    ("on", "x.sub.site-c.example", '<div id="e" class="cpm-mixed">x</div>', "e", ".cpm-mixed", False),
    ("on", "deep.sub.site-c.example", '<div id="e" class="cpm-mixed-deep">x</div>', "e", ".cpm-mixed-deep", True),
    ("on", "sub.site-c.example", '<div id="e" class="cpm-mixed-deep">x</div>', "e", ".cpm-mixed-deep", False),
    ("on", "exc.example", '<div id="e" class="cpm-excepted">x</div>', "e", ".cpm-excepted", False),
    ("on", "www.exc.example", '<div id="e" class="cpm-excepted">x</div>', "e", ".cpm-excepted", False),
    ("on", "other.example", '<div id="e" class="cpm-excepted">x</div>', "e", ".cpm-excepted", True),
    ("on", "site-d.example", '<div id="e" class="cpm-site-excepted">x</div>', "e", ".cpm-site-excepted", True),
    ("on", "sub.site-d.example", '<div id="e" class="cpm-site-excepted">x</div>', "e", ".cpm-site-excepted", False),
    (
        "on",
        "has.example",
        '<div id="e" class="cpm-banner"><p class="cpm-cookie-text">c</p></div>',
        "e",
        ".cpm-banner:-abp-has(.cpm-cookie-text)",
        True,
    ),
    ("on", "has.example", '<div id="e" class="cpm-banner"><p>no</p></div>', "e", None, False),
    (
        "on",
        "other.example",
        '<div id="e" class="cpm-banner"><p class="cpm-cookie-text">c</p></div>',
        "e",
        ".cpm-banner:-abp-has(.cpm-cookie-text)",
        False,
    ),
    (
        "on",
        "contains.example",
        '<div id="e" class="cpm-notice">Hello. We use cookies here.</div>',
        "e",
        ".cpm-notice:-abp-contains(We use cookies)",
        True,
    ),
    ("on", "contains.example", '<div id="e" class="cpm-notice">Hello.</div>', "e", None, False),
    ("on", "contains.example", LATE, "e", ".cpm-notice:-abp-contains(We use cookies)", True),
    (
        "on",
        "other.example",
        '<div id="e" class="cpm-notice">We use cookies</div>',
        "e",
        ".cpm-notice:-abp-contains(We use cookies)",
        False,
    ),
    ("on", "random.example", '<div id="e" class="cpm-Mixed-Case">x</div>', "e", ".cpm-Mixed-Case", True),
    (
        "default",
        "has.example",
        '<div id="e" class="cpm-banner"><p class="cpm-cookie-text">c</p></div>',
        "e",
        ".cpm-banner:-abp-has(.cpm-cookie-text)",
        False,
    ),
    ("on", "random.example", '<div id="e" class="cpm-invalid">x</div>', "e", ".cpm-invalid{}", False),
    ("on", "unprot.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", False),
    ("on", "www.unprot.example", '<div id="e" class="cpm-generic-class">x</div>', "e", ".cpm-generic-class", False),
    ("on", "temp.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", False),
    ("on", "ac-exc.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", False),
    ("on", "fl-exc.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", False),
    (
        "on",
        "unprot.example",
        '<div id="e" class="cpm-notice">We use cookies</div>',
        "e",
        ".cpm-notice:-abp-contains(We use cookies)",
        False,
    ),
    ("off", "random.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", False),
    (
        "off",
        "contains.example",
        '<div id="e" class="cpm-notice">We use cookies</div>',
        "e",
        ".cpm-notice:-abp-contains(We use cookies)",
        False,
    ),
    ("nofilterlist", "random.example", '<div id="cpm-generic-id">x</div>', "cpm-generic-id", "#cpm-generic-id", False),
]


def expression(eid):
    return (
        "(function () { var e = document.getElementById(%s); if (!e) throw new Error('no element yet');"
        " return getComputedStyle(e).display === 'none'; })()" % json.dumps(eid)
    )


def page(body):
    return "<!DOCTYPE html><html><head><title>cpm</title></head><body><p>page</p>%s</body></html>" % body


def main():
    releases = {
        "on": build("on", config(), ["--target", target]),
        "off": build("off", config(autoconsent_state="disabled"), ["--target", target]),
        "nofilterlist": build("nofilterlist", config(filterlist=False), ["--target", target]),
        "default": build("default", config(), []),
    }
    for name in ("off", "nofilterlist"):
        if os.path.exists(os.path.join(releases[name], "cpm.json")):
            sys.exit("%s: the feature is off, yet the release has cpm.json" % name)
    issues = open(os.path.join(releases["on"], "issues.txt"), encoding="utf-8").read()
    for line, why in ((18, "dropped"), (19, "network filter"), (20, "snippet"), (21, "rejects")):
        if not any(("line %d:" % line) in issue_line and why in issue_line for issue_line in issues.splitlines()):
            sys.exit("issues.txt does not report line %d (%s)" % (line, why))
    default_issues = open(os.path.join(releases["default"], "issues.txt"), encoding="utf-8").read().splitlines()
    if not any(("line %d:" % HAS_LINE) in issue_line for issue_line in default_issues):
        sys.exit("the default target's issues.txt does not report line %d (:-abp-has, no :has())" % HAS_LINE)
    failures = 0
    agree = 0
    for rel in releases:
        manifest = json.load(open(os.path.join(releases[rel], "manifest.json"), encoding="utf-8"))
        lists = [
            json.load(open(os.path.join(releases[rel], entry["rules"]), encoding="utf-8"))
            for entry in manifest["lists"]
        ]
        cases = [(i, c) for i, c in enumerate(CASES) if c[0] == rel]
        scen = os.path.join(work, rel + "-scenarios.jsonl")
        with open(scen, "w", encoding="utf-8") as f:
            for i, (_, host, html, eid, _, _) in cases:
                f.write(
                    json.dumps(
                        {
                            "id": str(i),
                            "rules": lists,
                            "topURL": "https://%s/cpm-%d" % (host, i),
                            "html": page(html),
                            "expressions": {"hidden": expression(eid)},
                        }
                    )
                    + "\n"
                )
        out = subprocess.run(
            [
                os.path.join(here, "scripts", "webkit-check"),
                "pages",
                scen,
                "--user-script",
                os.path.join(releases[rel], "surrogates.js"),
            ],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            sys.exit("webkit-check pages failed: %s" % out.stderr[-2000:])
        results = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}
        for i, (_, host, _, eid, selector, want) in cases:
            r = results.get(str(i), {})
            got = (r.get("expressions") or {}).get("hidden")
            if r.get("error") or got is not want:
                failures += 1
                print(
                    "FAIL case %d (%s, %s, #%s): WebKit %r, expected %s%s"
                    % (
                        i,
                        rel,
                        host,
                        eid,
                        got,
                        "hidden" if want else "shown",
                        "; " + r["error"] if r.get("error") else "",
                    )
                )
            if selector is None:
                agree += 1  # no selector of the list matches the element: nothing to ask
                continue
            m = subprocess.run(
                [
                    radarblock,
                    "match",
                    releases[rel],
                    "--selector",
                    selector,
                    "--top-url",
                    "https://%s/cpm-%d" % (host, i),
                ],
                capture_output=True,
                text=True,
            )
            answer = json.loads(m.stdout) if m.returncode == 0 else {}
            if answer.get("hidden") is want:
                agree += 1
            else:
                print(
                    "MATCH DISAGREES case %d (%s, %s, %s): match %s, expected %s"
                    % (i, rel, host, selector, m.stdout.strip() or m.stderr.strip(), want)
                )
    print("%d/%d cases in WebKit, match agrees on %d/%d" % (len(CASES) - failures, len(CASES), agree, len(CASES)))
    return 1 if failures or agree != len(CASES) else 0


sys.exit(main())
