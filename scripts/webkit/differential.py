"""Differential test: random rule lists and pages, real WebKit vs `radarblock match`.

For each case (deterministic from --seed):
1. generate one or two rule lists inside WebKit's grammar over a small universe of hosts and paths
   (so that rules match often) and a page: a top URL, loads (some inside an iframe, sometimes a nested
   one), elements (some inside frames);
2. run the page in WebKit (harness.Browser) -> blocked per load, hidden per element, topBlocked;
3. write the same loads as `radarblock match --requests` JSONL (DESIGN.md), exactly as WebKit sees
   them (what was measured on WebKitGTK 2.50.6, README.md):
     top document          resourceType top-document, frameURL = topURL (see Browser._reset),
                           loadContext top-frame
     subresource in top    frameURL = topURL, loadContext top-frame
     subresource in frame  frameURL = that frame's URL, loadContext child-frame
     iframe (child-document) frameURL = "about:blank" (the new frame's initial document), child-frame
4. predict from radarblock's answer: a load is blocked iff its answer has a `block` action (or its
   document was blocked, then it never happens); an element of document D is hidden iff one of its
   selectors appears in a css-display-none action of D's own document load or of a subresource
   load issued by D, or in the `stylesheet` of D's document load (see the spec's last section);
5. compare; every disagreement is shrunk (rules, loads and elements are removed while it persists,
   re-running both sides) and printed as a minimal reproduction.
"""

import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

from .gtkenv import HarnessError
from .harness import Browser

# ---------------------------------------------------------------------------------------------------
# Universe. Registrable domains: site.co.uk (co.uk is a public suffix), other.co.uk, tracker.example.
TOPS = [
    "https://www.site.co.uk/",
    "https://site.co.uk/home.html",
    "https://other.co.uk/page?x=1",
    "https://tracker.example/",
]
HOSTS = [
    "site.co.uk",
    "www.site.co.uk",
    "cdn.site.co.uk",
    "other.co.uk",
    "ads.other.co.uk",
    "tracker.example",
    "x.tracker.example",
    "cdn.example",
]
PATHS = [
    "/ads/a.js",
    "/b/c.js",
    "/img/ad.png",
    "/x.png",
    "/s/site.css",
    "/track?id=1",
    "/api/ad",
    "/f/font.ttf",
    "/m/a.wav",
    "/collect",
    "/ADS/b.js",
]
FRAME_PATHS = ["/frame.html", "/ads/frame.html", "/f/inner.html"]

# harness load type -> (weight, WebKit resource type name given to radarblock)
LOAD_TYPES = {
    "script": (4, "script"),
    "image": (4, "image"),
    "style-sheet": (2, "style-sheet"),
    "fetch": (2, "fetch"),
    "xmlhttprequest": (1, "fetch"),
    "font": (1, "font"),
    "media": (1, "media"),
    "websocket": (1, "websocket"),
    "ping": (1, "ping"),
    "beacon": (1, "other"),
    "svg-document": (1, "svg-document"),
}

LITERALS = [
    "ads",
    "ad",
    "site",
    "other",
    "tracker",
    "cdn",
    r"co\.uk",
    r"\.js",
    r"\.png",
    r"\.css",
    "/",
    "img",
    "track",
    "api",
    "x",
    "a",
    "b",
    "c",
    "https",
    "wss",
    "www",
    "example",
    r"\?",
    "id=1",
    "font",
    r"\.wav",
    "frame",
    "ADS",
    "Ads",
    "collect",
    r"\.html",
]
ATOMS = [".", ".*", "[a-c]", "[^/]+", "[a-z]+", r"([^/]+\.)?", "[0-9]?", "s?", "t+", "x*", "/+"]
ANCHORED = ["^https?://", "^wss://", r"^[^:]+://+([^:/]+\.)?", "^https://www", "^https://cdn"]
END_ANCHORED = [r"\.js$", r"\.png$", "=1$", "ad$", "/$", r"\.html$", "c$"]
DOMAINS = [
    "site.co.uk",
    "*site.co.uk",
    "www.site.co.uk",
    "other.co.uk",
    "*other.co.uk",
    "tracker.example",
    "*example",
    "*tracker.example",
    "cdn.site.co.uk",
]
TOP_URL_PATTERNS = ["site", "^https://www", "home", r"other\.co\.uk/", "tracker", "x=1$", "SITE"]
FRAME_URL_PATTERNS = ["frame", "site", "about:blank", "^https://cdn", "inner", "^about", "ads", "www"]
RESOURCE_TYPES = [
    "script",
    "image",
    "style-sheet",
    "font",
    "media",
    "fetch",
    "websocket",
    "ping",
    "other",
    "raw",
    "document",
    "child-document",
    "top-document",
    "svg-document",
    "popup",
    "csp-report",
]
SELECTORS = [
    ".ad",
    "#banner",
    "div.ad",
    "[data-x]",
    ".b",
    "span",
    "p",
    ".ad, #banner",
    "span.b",
    "div",
    "p[data-x]",
    "#nothing",
]
# Elements: (html, tag, id, classes, attributes)
ELEMENTS = [
    ('<div class="ad">ad</div>', "div", None, {"ad"}, {"class"}),
    ('<div id="banner">b</div>', "div", "banner", set(), {"id"}),
    ('<span class="ad b">s</span>', "span", None, {"ad", "b"}, {"class"}),
    ('<p data-x="1">p</p>', "p", None, set(), {"data-x"}),
    ('<div class="b">d</div>', "div", None, {"b"}, {"class"}),
    ("<em>e</em>", "em", None, set(), set()),
]


_SPECIAL = set("\\.+*?()[]{}^$|")


class Gen:
    def __init__(self, rng):
        self.r = rng
        # Every URL a page of the universe can load: url-filters are mostly derived from these so that
        # they match often (a random string of literals almost never would).
        self.universe = list(TOPS)
        for h in HOSTS:
            for p in PATHS + FRAME_PATHS:
                self.universe.append("https://%s%s" % (h, p))
            self.universe.append("wss://%s/collect" % h)

    def derived_filter(self, urls):
        """A substring of one of `urls` turned into a pattern, with wildcards and quantifiers."""
        r = self.r
        u = r.choice(urls)
        # short substrings ("ad", ".js", "co.uk/") match several loads; long ones pin one URL
        n = min(len(u), r.randint(2, 7) if r.random() < 0.6 else r.randint(6, 18))
        i = r.randint(0, len(u) - n)
        sub = u[i : i + n]
        if r.random() < 0.1:
            sub = sub.upper()
        out = []
        for ch in sub:
            x = r.random()
            if x < 0.07:
                atom = "."
            elif x < 0.11 and ch.isalpha():
                atom = "[a-z]" if ch.islower() else "[A-Z]"
            elif x < 0.13:
                atom = "[^/]"
            else:
                atom = "\\" + ch if ch in _SPECIAL else ch
            out.append(atom)
            q = r.random()
            if q < 0.04:
                out.append("+")
            elif q < 0.07:
                out.append("?")
            elif q < 0.09:
                out.append("*")
            elif q < 0.13:
                out.append(".*")
        f = "".join(out)
        if i == 0 and r.random() < 0.5:
            f = "^" + f
        if i + n == len(u) and r.random() < 0.5:
            f = f + "$"
        return f

    def url_filter(self, page_urls):
        r = self.r
        x = r.random()
        if x < 0.7:
            return self.derived_filter(page_urls)  # from this page: matches often
        if x < 0.85:
            return self.derived_filter(self.universe)
        parts = []
        if r.random() < 0.2:
            parts.append(r.choice(ANCHORED))
            if r.random() < 0.7:
                parts.append(r.choice(["site", "cdn", "other", "tracker", "ads", "www", "x"]))
        for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
            parts.append(r.choice(ATOMS) if r.random() < 0.25 else r.choice(LITERALS))
        if r.random() < 0.12:
            parts.append(r.choice(END_ANCHORED))
        f = "".join(parts)
        if f in ("", "^"):
            f = "ads"
        if r.random() < 0.03:
            f = r.choice([".*", "^https?://", ".", "a*"])  # universal filters (match everything)
        return f

    def trigger(self, action_type, page_urls, page_types):
        r = self.r
        t = {"url-filter": self.url_filter(page_urls)}
        if r.random() < 0.15:
            t["url-filter-is-case-sensitive"] = r.random() < 0.6
        if r.random() < 0.3:
            if action_type == "block" and r.random() < 0.5:
                t["load-type"] = ["third-party"]
            return t  # a plain rule: only the url-filter (keeps blocked/allowed outcomes balanced)
        rt_p = 0.4 if action_type != "block" else 0.55  # block rules: keep top documents mostly loading
        if r.random() < rt_p:
            if r.random() < 0.8:
                # mostly types that this page loads, so that the restriction lets something through
                k = r.choice([1, 1, 2])
                t["resource-type"] = sorted({r.choice(page_types) for _ in range(k)})
            else:
                t["resource-type"] = r.sample(RESOURCE_TYPES, r.choice([1, 1, 2, 3]))
        if r.random() < 0.3:
            t["load-type"] = [r.choice(["first-party", "third-party"])]
        elif action_type == "block" and "resource-type" not in t and r.random() < 0.4:
            t["load-type"] = ["third-party"]  # never matches the top document: fewer blank pages
        if r.random() < 0.2:
            t["load-context"] = [r.choice(["top-frame", "child-frame"])]
        c = r.random()
        if c < 0.2:
            key = r.choice(["if-domain", "unless-domain"])
            t[key] = r.sample(DOMAINS, r.choice([1, 1, 2]))
        elif c < 0.3:
            key = r.choice(["if-top-url", "unless-top-url"])
            t[key] = r.sample(TOP_URL_PATTERNS, r.choice([1, 2]))
            if r.random() < 0.2:
                t["top-url-filter-is-case-sensitive"] = True
        elif c < 0.4:
            key = r.choice(["if-frame-url", "unless-frame-url"])
            t[key] = r.sample(FRAME_URL_PATTERNS, r.choice([1, 2]))
            if r.random() < 0.2:
                t["frame-url-filter-is-case-sensitive"] = True
        return t

    def rule(self, page_urls, page_types, top=None, page_elements=()):
        r = self.r
        a = r.choices(
            ["block", "ignore-previous-rules", "css-display-none", "ignore-following-rules", "block-cookies", "notify"],
            weights=[60, 10, 20, 3, 3, 4],
        )[0]
        action = {"type": a}
        if a == "css-display-none":
            matching = [x for x in SELECTORS if any(selector_matches_list(x, e) for e in page_elements)]
            action["selector"] = r.choice(matching if matching and r.random() < 0.7 else SELECTORS)
        elif a == "notify":
            action["notification"] = r.choice(["n1", "n2"])
        trigger = self.trigger(a, page_urls, page_types)
        if (
            a == "block"
            and top
            and "resource-type" not in trigger
            and "load-type" not in trigger
            and r.random() < 0.8
            and _py_search(trigger, top)
        ):
            trigger["load-type"] = ["third-party"]  # would blank the page: usually keep the page loading
        return {"trigger": trigger, "action": action}

    def rule_list(self, page_urls, page_types, top=None, page_elements=()):
        return [
            self.rule(page_urls, page_types, top, page_elements) for _ in range(self.r.choice([1, 2, 3, 4, 5, 6, 7, 8]))
        ]

    def case(self, n):
        r = self.r
        top = r.choice(TOPS)
        top_host = top.split("/")[2]
        frames = []  # (url, parent)
        used = {top}
        if r.random() < 0.45:
            f = "https://%s%s" % (r.choice(HOSTS), r.choice(FRAME_PATHS))
            if f not in used:
                frames.append((f, None))
                used.add(f)
                if r.random() < 0.25:
                    g = "https://%s%s" % (r.choice(HOSTS), r.choice(FRAME_PATHS))
                    if g not in used:
                        frames.append((g, f))
                        used.add(g)
        loads = []
        for i, (f, parent) in enumerate(frames):
            loads.append({"id": "f%d" % i, "url": f, "type": "child-document", "frame": parent})
        docs = [None] + [f for f, _ in frames]
        names, weights = zip(*[(k, v[0]) for k, v in LOAD_TYPES.items()], strict=True)
        for i in range(r.choice([3, 4, 5, 6])):
            t = r.choices(names, weights=weights)[0]
            doc = r.choice(docs) if r.random() < 0.5 else None
            if t == "svg-document":
                # <use href> only loads same-origin documents: use the host of its document.
                doc_url = top if doc is None else doc
                host = doc_url.split("/")[2]
            else:
                host = r.choice(HOSTS)
            scheme = "wss" if t == "websocket" else "https"
            path = r.choice(PATHS)
            if t in ("ping", "beacon"):
                # keep-alive loads may outlive their page: a per-case unique URL keeps the proxy log exact
                path = path.split("?")[0] + "/_%d_%d" % (n, i)
            url = "%s://%s%s" % (scheme, host, path)
            # The proxy sees wss://h/p and https://h/p as the same GET /p on h; a page that loads both
            # would be split into two page loads (pages.py), so keep every URL of a case distinct without
            # its scheme.
            while url in used or any(_without_scheme(url) == _without_scheme(u) for u in used):
                url += "x" if "?" in url else "/x"
            used.add(url)
            loads.append({"id": "r%d" % i, "url": url, "type": t, "frame": doc})
        elements = []
        for i in range(r.choice([1, 2, 3])):
            e = r.randrange(len(ELEMENTS))
            elements.append(
                {
                    "id": "e%d" % i,
                    "el": e,
                    "html": ELEMENTS[e][0],
                    "frame": r.choice(docs) if r.random() < 0.4 else None,
                }
            )
        # Rules last: most url-filters are derived from this page's own URLs (the top document's less
        # often, so that most pages load).
        page_urls = [load["url"] for load in loads] * 3 + [top]
        page_types = [LOAD_TYPES[load["type"]][1] if load["type"] in LOAD_TYPES else load["type"] for load in loads]
        els = [e["el"] for e in elements]
        lists = [self.rule_list(page_urls, page_types, top, els)]
        if r.random() < 0.15:
            lists.append(self.rule_list(page_urls, page_types, top, els))
        return {"n": n, "lists": lists, "topURL": top, "topHost": top_host, "loads": loads, "elements": elements}


def _without_scheme(url):
    return url.split("://", 1)[-1]


# ---------------------------------------------------------------------------------------------------
def scenario_of(case):
    return {
        "id": "case-%d" % case["n"],
        "rules": case["lists"],
        "topURL": case["topURL"],
        "loads": [{k: load[k] for k in ("id", "url", "type", "frame")} for load in case["loads"]],
        "elements": [{k: e[k] for k in ("id", "html", "frame")} for e in case["elements"]],
    }


def request_slots(case):
    """For each load, the indices of its requests in requests_of(case) (a ping has two)."""
    slots, i = [], 1
    for load in case["loads"]:
        n = 2 if load["type"] == "ping" else 1
        slots.append(list(range(i, i + n)))
        i += n
    return slots


def requests_of(case):
    """The radarblock requests: index 0 is the top document, then the loads' requests in order
    (request_slots). An `<a ping>` is checked twice by WebKit, as `ping` (PingLoader's own check) and
    as `other` (the ping-typed resource load); it is blocked if either check blocks (measured)."""
    top = case["topURL"]
    # Top document: frameURL = topURL, because the harness makes every page navigation cross-site
    # (harness.Browser._reset), so WebKit matches it in a fresh web process whose frame has no
    # document yet and falls back to the request URL. An iframe's document load is matched with the
    # new frame's initial about:blank (measured).
    reqs = [{"url": top, "topURL": top, "frameURL": top, "resourceType": "top-document", "loadContext": "top-frame"}]
    for load in case["loads"]:
        if load["type"] == "child-document":
            reqs.append(
                {
                    "url": load["url"],
                    "topURL": top,
                    "frameURL": "about:blank",
                    "resourceType": "child-document",
                    "loadContext": "child-frame",
                }
            )
        else:
            frame = load["frame"]
            types = ["ping", "other"] if load["type"] == "ping" else [LOAD_TYPES[load["type"]][1]]
            for t in types:
                reqs.append(
                    {
                        "url": load["url"],
                        "topURL": top,
                        "frameURL": top if frame is None else frame,
                        "resourceType": t,
                        "loadContext": "top-frame" if frame is None else "child-frame",
                    }
                )
    return reqs


_SIMPLE = re.compile(r"^([a-zA-Z][a-zA-Z0-9-]*)?((?:[.#][A-Za-z0-9_-]+|\[[A-Za-z0-9_-]+\])*)$")


def _py_search(trigger, url):
    """Generation heuristic only (Python's re on our subset): does the url-filter match `url`?"""
    try:
        flags = 0 if trigger.get("url-filter-is-case-sensitive") is True else re.I
        return re.search(trigger["url-filter"], url, flags) is not None
    except re.error:
        return False


def selector_matches_list(selector_list, el):
    return any(selector_matches(s, el) for s in selector_list.split(","))


def selector_matches(selector, el):
    """Does a simple compound selector (tag, .class, #id, [attr]) from SELECTORS match element `el`?"""
    _, tag, eid, classes, attrs = ELEMENTS[el]
    m = _SIMPLE.match(selector.strip())
    if not m:
        raise ValueError("selector outside the generator's grammar: %r" % selector)
    if m.group(1) and m.group(1).lower() != tag:
        return False
    for part in re.findall(r"[.#][A-Za-z0-9_-]+|\[[A-Za-z0-9_-]+\]", m.group(2) or ""):
        if part[0] == "." and part[1:] not in classes:
            return False
        if part[0] == "#" and part[1:] != eid:
            return False
        if part[0] == "[" and part[1:-1] not in attrs:
            return False
    return True


def _selectors_of(answer, with_stylesheet):
    out = []
    for a in answer.get("actions") or []:
        if a.get("type") == "css-display-none":
            out.extend(s.strip() for s in a.get("selector", "").split(","))
    sheet = answer.get("stylesheet")
    if with_stylesheet and sheet:
        out.extend(s.strip() for s in sheet.split("{", 1)[0].split(","))
    return [s for s in out if s]


def _blocks(answer):
    return any(a.get("type") == "block" for a in answer.get("actions") or [])


def predict(case, answers):
    """Expected harness result from radarblock's answers (same shape as harness output)."""
    loads = case["loads"]
    top_ans = answers[0]
    slots = request_slots(case)
    # one merged answer per load (a ping's two checks: actions concatenated)
    merged = [
        {
            "actions": [a for j in sl for a in (answers[j].get("actions") or [])],
            "stylesheet": answers[sl[0]].get("stylesheet"),
        }
        for sl in slots
    ]
    by_frame_load = {load["url"]: (load, merged[i]) for i, load in enumerate(loads) if load["type"] == "child-document"}
    parent = {load["url"]: load["frame"] for load in loads if load["type"] == "child-document"}

    def doc_blocked(doc):
        while doc is not None:
            if _blocks(by_frame_load[doc][1]):
                return True
            doc = parent[doc]
        return False

    pred = {"topBlocked": _blocks(top_ans), "loads": {}, "hidden": {}}
    if pred["topBlocked"]:
        return pred
    selectors = {None: _selectors_of(top_ans, True)}
    for url, (_, ans) in by_frame_load.items():
        selectors[url] = _selectors_of(ans, True)
    for i, load in enumerate(loads):
        ans = merged[i]
        gone = doc_blocked(load["frame"])
        pred["loads"][load["id"]] = True if gone else _blocks(ans)
        if load["type"] != "child-document" and not gone:
            selectors[load["frame"]].extend(_selectors_of(ans, False))
    for e in case["elements"]:
        if doc_blocked(e["frame"]):
            pred["hidden"][e["id"]] = None
        else:
            pred["hidden"][e["id"]] = any(selector_matches(s, e["el"]) for s in selectors[e["frame"]])
    return pred


def compare(case, actual, pred):
    """List of disagreements: (item, webkit, radarblock)."""
    if actual.get("error"):
        return [("harness", actual["error"], None)]
    out = []
    if actual["topBlocked"] != pred["topBlocked"]:
        return [("topBlocked", actual["topBlocked"], pred["topBlocked"])]
    if actual["topBlocked"]:
        return []
    for load in case["loads"]:
        a = actual["loads"][load["id"]]["blocked"]
        if a != pred["loads"][load["id"]]:
            out.append(("load " + load["id"], a, pred["loads"][load["id"]]))
    for e in case["elements"]:
        a = actual["hidden"].get(e["id"])
        if a != pred["hidden"][e["id"]]:
            out.append(("hidden " + e["id"], a, pred["hidden"][e["id"]]))
    return out


# ---------------------------------------------------------------------------------------------------
class Radarblock:
    def __init__(self, path, workdir, timeout=120.0, target=None):
        self.path = path
        self.workdir = workdir
        self.timeout = timeout
        self.target = target  # radarblock's engine profile for the installed WebKit (match --target)

    def match(self, case, tag):
        d = os.path.join(self.workdir, tag)
        os.makedirs(d, exist_ok=True)
        files = []
        for i, lst in enumerate(case["lists"]):
            p = os.path.join(d, "list%d.json" % i)
            with open(p, "w") as f:
                json.dump(lst, f, indent=1)
            files.append(p)
        reqs = requests_of(case)
        rp = os.path.join(d, "requests.jsonl")
        with open(rp, "w") as f:
            for q in reqs:
                f.write(json.dumps(q) + "\n")
        cmd = [self.path, "match"] + files + ["--requests", rp] + (["--target", self.target] if self.target else [])
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=self.timeout, text=True)
        except subprocess.TimeoutExpired:
            return {"error": "radarblock match timed out after %.0fs" % self.timeout, "cmd": cmd}
        except OSError as e:
            return {"error": "cannot run radarblock: %s" % e, "cmd": cmd}
        if p.returncode != 0:
            return {
                "error": "radarblock match exited %d: %s" % (p.returncode, p.stderr.strip()[-500:]),
                "cmd": cmd,
                "exit": p.returncode,
            }
        lines = [x for x in p.stdout.splitlines() if x.strip()]
        if len(lines) != len(reqs):
            return {"error": "radarblock answered %d lines for %d requests" % (len(lines), len(reqs)), "cmd": cmd}
        try:
            answers = [json.loads(x) for x in lines]
        except ValueError as e:
            return {"error": "radarblock answer is not JSON: %s" % e, "cmd": cmd}
        bad = [a for a in answers if "error" in a]
        if bad:
            return {"error": "radarblock rejected a request: %s" % bad[0]["error"], "cmd": cmd}
        return {"answers": answers, "cmd": cmd}


def _evaluate(browser, rb, case, tag):
    actual = browser.run_scenario(scenario_of(case))
    m = rb.match(case, tag)
    return actual, m


def _verdict(case, actual, m):
    """(disagreements, pred)"""
    rejected = actual.get("rejected")
    if rejected is not None:
        if "error" in m and m.get("exit") == 1:
            return [], None  # both reject the list
        return [("compile", "WebKit rejects: %s" % rejected["error"], m.get("error", "radarblock accepts"))], None
    if "error" in m:
        return [("radarblock", m["error"], None)], None
    pred = predict(case, m["answers"])
    return compare(case, actual, pred), pred


def shrink(browser, rb, case, item, tag, budget=80):
    """Remove rules, loads and elements while the disagreement on `item` persists (both sides re-run)."""
    steps = 0

    def still_fails(c):
        nonlocal steps
        steps += 1
        actual, m = _evaluate(browser, rb, c, "%s-shrink%d" % (tag, steps))
        dis, _ = _verdict(c, actual, m)
        return any(d[0] == item for d in dis)

    changed = True
    while changed and steps < budget:
        changed = False
        # rules (a list that becomes empty is dropped; the last rule of the last list stays)
        li = 0
        while li < len(case["lists"]) and steps < budget:
            ri = 0
            dropped = False
            while ri < len(case["lists"][li]) and steps < budget:
                if len(case["lists"][li]) == 1 and len(case["lists"]) == 1:
                    break
                c = json.loads(json.dumps(case))
                del c["lists"][li][ri]
                if not c["lists"][li]:
                    del c["lists"][li]
                if still_fails(c):
                    dropped = len(c["lists"]) < len(case["lists"])
                    case, changed = c, True
                    if dropped:
                        break
                else:
                    ri += 1
            if not dropped:
                li += 1
        # loads and elements not involved in the item (frames only if nothing needs them)
        for kind in ("loads", "elements"):
            i = 0
            while i < len(case[kind]) and steps < budget:
                x = case[kind][i]
                if item.endswith(" " + x["id"]):
                    i += 1
                    continue
                c = json.loads(json.dumps(case))
                del c[kind][i]
                if kind == "loads" and x["type"] == "child-document":
                    needed = any(y.get("frame") == x["url"] for y in c["loads"] + c["elements"])
                    if needed:
                        i += 1
                        continue
                if still_fails(c):
                    case, changed = c, True
                else:
                    i += 1
    return case


def _describe(case, actual, m, dis, pred):
    lines = ["  rules: %s" % json.dumps(case["lists"] if len(case["lists"]) > 1 else case["lists"][0])]
    lines.append("  page: %s" % case["topURL"])
    reqs = requests_of(case)
    slots = request_slots(case)
    answers = (m or {}).get("answers") or [None] * len(reqs)
    lines.append("    top-document -> radarblock %s" % json.dumps(answers[0]))
    for i, load in enumerate(case["loads"]):
        where = "" if load["frame"] is None else " in frame %s" % load["frame"]
        got = (actual.get("loads") or {}).get(load["id"])
        lines.append(
            "    %s %s %s%s: webkit %s; %s"
            % (
                load["id"],
                load["type"],
                load["url"],
                where,
                json.dumps(got),
                "; ".join(
                    "request %s -> radarblock %s" % (json.dumps(reqs[j]), json.dumps(answers[j])) for j in slots[i]
                ),
            )
        )
    for e in case["elements"]:
        where = "" if e["frame"] is None else " in frame %s" % e["frame"]
        lines.append(
            "    %s %s%s: webkit hidden=%s" % (e["id"], e["html"], where, (actual.get("hidden") or {}).get(e["id"]))
        )
    for item, wk, rbv in dis:
        lines.append("  DISAGREE %s: webkit=%s radarblock=%s" % (item, json.dumps(wk), json.dumps(rbv)))
    return "\n".join(lines)


def main(args):
    rng = random.Random(args.seed)
    gen = Gen(rng)
    cases = [gen.case(n) for n in range(args.cases)]
    rb_path = os.path.abspath(args.radarblock) if os.sep in args.radarblock else shutil.which(args.radarblock)
    if not rb_path or not os.access(rb_path, os.X_OK):
        raise HarnessError("radarblock executable not found: %s" % args.radarblock)
    tmp = tempfile.TemporaryDirectory(prefix="radarblock-diff-") if not args.keep else None
    workdir = args.keep or tmp.name
    rb = Radarblock(rb_path, workdir, target=args.target)
    passed = failed = retried = 0
    stats = {"blocked": 0, "allowed": 0, "hidden": 0, "shown": 0, "topBlocked": 0, "rejected": 0}
    shown = 0
    t0 = time.monotonic()
    try:
        # radarblock runs in a worker thread while WebKit (main thread, GLib main loop) loads pages.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool, Browser(timeout=args.timeout) as browser:
            futures = [pool.submit(rb.match, c, "case-%d" % c["n"]) for c in cases]
            for case, fut in zip(cases, futures, strict=True):
                actual = browser.run_scenario(scenario_of(case))
                m = fut.result()
                if args.keep:
                    with open(os.path.join(workdir, "case-%d" % case["n"], "case.json"), "w") as f:
                        json.dump(
                            {"case": case, "scenario": scenario_of(case), "webkit": actual, "radarblock": m},
                            f,
                            indent=1,
                        )
                if actual.get("rejected"):
                    stats["rejected"] += 1
                elif actual.get("topBlocked"):
                    stats["topBlocked"] += 1
                else:
                    for v in (actual.get("loads") or {}).values():
                        stats["blocked" if v and v["blocked"] else "allowed"] += 1
                    for v in (actual.get("hidden") or {}).values():
                        if v is not None:
                            stats["hidden" if v else "shown"] += 1
                dis, pred = _verdict(case, actual, m)
                if dis and all(d[0] == "harness" for d in dis):
                    # WebKit did not finish the page in time (a loaded machine): no answer was compared. The case
                    # is run again in full, and it counts only if every load and element then agrees.
                    a2, m2 = _evaluate(browser, rb, case, "case-%d-retry" % case["n"])
                    d2, _ = _verdict(case, a2, m2)
                    print(
                        "case %d (seed %d): %s; run again: %s"
                        % (
                            case["n"],
                            args.seed,
                            "; ".join("%s webkit=%s" % (d[0], d[1]) for d in dis),
                            "every load and element agrees" if not d2 else "fails",
                        )
                    )
                    retried += 1
                    if not d2:
                        passed += 1
                        continue
                    dis = d2
                    actual, m = a2, m2
                if not dis:
                    passed += 1
                    continue
                failed += 1
                if shown < args.max_show:
                    shown += 1
                    print(
                        "FAIL case %d (seed %d): %s"
                        % (case["n"], args.seed, "; ".join("%s webkit=%s radarblock=%s" % d for d in dis))
                    )
                    small = case
                    if dis[0][0] not in ("harness", "radarblock"):
                        small = shrink(browser, rb, case, dis[0][0], "case-%d" % case["n"])
                    a2, m2 = _evaluate(browser, rb, small, "case-%d-min" % case["n"])
                    d2, p2 = _verdict(small, a2, m2)
                    print(" minimal reproduction:" if d2 else " (did not reproduce when re-run:)")
                    print(_describe(small, a2, m2, d2 or dis, p2), flush=True)
    finally:
        if tmp is not None:
            tmp.cleanup()
    secs = time.monotonic() - t0
    print(
        "stats: %d cases in %.1fs; loads blocked %d / allowed %d; elements hidden %d / shown %d; "
        "top blocked %d; lists rejected %d"
        % (
            len(cases),
            secs,
            stats["blocked"],
            stats["allowed"],
            stats["hidden"],
            stats["shown"],
            stats["topBlocked"],
            stats["rejected"],
        ),
        file=sys.stderr,
    )
    print(
        "%d passed, %d failed%s"
        % (passed, failed, " (%d run again after WebKit timed out)" % retried if retried else "")
    )
    return 0 if failed == 0 else 1
