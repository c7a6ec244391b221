"""Scenario -> page plan: which documents exist (top page, iframes), what each one contains, and which
resource type each generated element makes WebKit see.

A scenario (one JSONL line of `webkit-check pages`):
  {"rules": [[...rule list...], ...], "topURL": "https://site.example/page", "html": "<optional>",
   "loads": [{"id": "r1", "url": "...", "type": "script", "frame": null | "<frame URL>"}],
   "elements": [{"id": "e1", "html": "<div class=ad>x</div>", "frame": null | "<frame URL>"}]}

Every load becomes the element that naturally issues it (LOAD_KINDS below: only kinds that were
checked against WebKit's resource-type matching are listed; see README.md). A load with `frame` F is
issued from inside an iframe whose document is F; a `child-document` load with url G *is* the iframe G
(so loads whose frame is G are nested inside it). Frames that no child-document load names are
iframes of the top page.

Each document carries a small inline script (`__rb`) that records load/error events of its elements;
a frame posts its events and its elements' computed display to the top window (postMessage works
cross-origin); the harness reads the top window's state with evaluate_javascript.
"""

import html as htmlmod
import json

from .proxy import normalize_url

# resource type -> (how the page issues it, completion signal). "event" kinds end with a load/error
# event in the page; "fire-and-forget" kinds (pings) only show up in the proxy log, so the harness waits
# a grace period for them before calling them blocked.
LOAD_KINDS = {
    "script": ("<script async src>", "event"),
    "image": ("<img src>", "event"),
    "style-sheet": ("<link rel=stylesheet href>", "event"),
    "font": ("@font-face + document.fonts.load()", "event"),
    "media": ("<audio preload=auto src> (loadedmetadata/error)", "event"),
    "fetch": ("fetch(url, {mode: 'no-cors'})", "event"),
    "xmlhttprequest": ("XMLHttpRequest GET (WebKit type fetch)", "event"),
    "child-document": ("<iframe src> (load event; blocked frames never post their report)", "event"),
    "websocket": ("new WebSocket(url) (open/error)", "event"),
    "svg-document": ("<svg><use href=url#i></svg>", "fire-and-forget"),
    "ping": ("<a href=#x ping=url>.click() (hyperlink auditing)", "fire-and-forget"),
    "beacon": ("navigator.sendBeacon(url) (WebKit type other)", "fire-and-forget"),
}

# Aliases accepted in scenarios (the reference tests use browser-extension names).
TYPE_ALIASES = {
    "stylesheet": "style-sheet",
    "sub_frame": "child-document",
    "subdocument": "child-document",
    "xhr": "xmlhttprequest",
    "other": "beacon",
    "main_frame": None,
    "top-document": None,
}


def canonical_type(t):
    t2 = TYPE_ALIASES.get(t, t)
    if t2 is None:
        raise ValueError("type %r is the page itself: use topURL" % t)
    if t2 not in LOAD_KINDS:
        raise ValueError("unsupported load type %r (supported: %s)" % (t, ", ".join(sorted(LOAD_KINDS))))
    return t2


# What the proxy serves for each kind of load (content.py keys).
BODY_KIND = {
    "script": "script",
    "image": "image",
    "style-sheet": "style-sheet",
    "font": "font",
    "media": "media",
    "fetch": "fetch",
    "xmlhttprequest": "fetch",
    "child-document": "child-document",
    "websocket": "other",
    "svg-document": "svg-document",
    "ping": "ping",
    "beacon": "ping",
}

_LIB = r"""
(function(){
  var rb = window.__rb = {events: {}, frames: {}, surrogates: window.__rbSurrogates || [],
                        trackers: window.__rbTrackers || [], frameURL: %(frame)s};
  rb.ev = function(id, what){ if (!(id in rb.events)) rb.events[id] = what; };
  rb.hidden = function(ids){
    var out = {};
    ids.forEach(function(id){
      var w = document.querySelector('rb-el[data-rb="' + id + '"]');
      var el = w && w.firstElementChild;
      out[id] = el ? getComputedStyle(el).display === 'none' : null;
    });
    return out;
  };
  rb.elementIds = %(elements)s;
  if (window !== window.top) {
    // Frames report to the top window (cross-origin safe) until the page is torn down.
    var send = function(){
      try { window.top.postMessage({rbReport: 1, frame: rb.frameURL, events: rb.events,
                                    hidden: rb.hidden(rb.elementIds), surrogates: rb.surrogates,
                                    trackers: rb.trackers}, '*'); } catch (e) {}
    };
    setInterval(send, 40); send();
  } else {
    window.addEventListener('message', function(e){
      var d = e.data; if (d && d.rbReport === 1) rb.frames[d.frame] = d;
    });
    rb.state = function(){
      return JSON.stringify({events: rb.events, frames: rb.frames, hidden: rb.hidden(rb.elementIds),
                             surrogates: rb.surrogates, trackers: rb.trackers, readyState: document.readyState});
    };
  }
})();
"""


def _attr(s):
    return htmlmod.escape(s, quote=True)


def _js(s):
    # JSON is valid JS; escape "</" so a URL cannot close the surrounding <script>.
    return json.dumps(s).replace("</", "<\\/")


def _ev(lid, what):
    return "__rb.ev(%s,%s)" % (_attr(_js(lid)), _attr(_js(what)))


def load_markup(load, frame_html_ids):
    """HTML that issues one load inside its document."""
    lid, url, t = load["id"], load["url"], load["type"]
    on = ' onload="%s" onerror="%s"' % (_ev(lid, "load"), _ev(lid, "error"))
    if t == "script":
        return '<script async src="%s"%s></script>' % (_attr(url), on)
    if t == "image":
        return '<img alt="" src="%s"%s>' % (_attr(url), on)
    if t == "style-sheet":
        return '<link rel="stylesheet" href="%s"%s>' % (_attr(url), on)
    if t == "child-document":
        # iframes have no error event: a blocked frame is one whose document never reached the proxy.
        return '<iframe src="%s" onload="%s"></iframe>' % (_attr(url), _ev(lid, "load"))
    if t == "media":
        return '<audio preload="auto" src="%s" onloadedmetadata="%s" onerror="%s"></audio>' % (
            _attr(url),
            _ev(lid, "load"),
            _ev(lid, "error"),
        )
    if t == "font":
        fam = "rbfont-" + "".join(c if c.isalnum() else "-" for c in lid)
        return (
            '<style>@font-face{font-family:"%s";src:url(%s)}</style><span style="font-family:\'%s\'">x</span>'
            '<script>document.fonts.load("16px \\"%s\\"").then(function(l){__rb.ev(%s, l.length ? "load" : "error")},'
            'function(){__rb.ev(%s,"error")});</script>' % (fam, _js(url), fam, fam, _js(lid), _js(lid))
        )
    if t == "fetch":
        return (
            '<script>fetch(%s,{mode:"no-cors",cache:"no-store"}).then(function(){__rb.ev(%s,"load")},'
            'function(){__rb.ev(%s,"error")});</script>' % (_js(url), _js(lid), _js(lid))
        )
    if t == "xmlhttprequest":
        return (
            '<script>(function(){var x=new XMLHttpRequest();x.open("GET",%s);'
            'x.onload=function(){__rb.ev(%s,"load")};x.onerror=function(){__rb.ev(%s,"error")};x.send();})();</script>'
            % (_js(url), _js(lid), _js(lid))
        )
    if t == "websocket":
        return (
            '<script>(function(){try{var w=new WebSocket(%s);w.onopen=function(){__rb.ev(%s,"load");w.close()};'
            'w.onerror=function(){__rb.ev(%s,"error")};}catch(e){__rb.ev(%s,"error")}})();</script>'
            % (_js(url), _js(lid), _js(lid), _js(lid))
        )
    if t == "svg-document":
        ref = url if "#" in url else url + "#i"
        return '<svg width="1" height="1"><use href="%s"/></svg>' % _attr(ref)
    if t == "ping":
        aid = "rbping-" + "".join(c if c.isalnum() else "-" for c in lid)
        return (
            '<a id="%s" href="javascript:void 0" ping="%s">ping</a>'
            "<script>document.getElementById(%s).click();</script>" % (_attr(aid), _attr(url), _js(aid))
        )
    if t == "beacon":
        return '<script>navigator.sendBeacon(%s, "");</script>' % _js(url)
    raise ValueError(t)


def document_html(frame_url, loads, elements, user_html=None):
    """One document: the __rb library, the scenario's elements (wrapped in <rb-el>), then the loads.
    Generated documents are in standards mode (<!DOCTYPE html>): quirks mode would change how class
    selectors match."""
    lib = _LIB % {"frame": _js(frame_url), "elements": _js([e["id"] for e in elements])}
    parts = ["<script>%s</script>" % lib]
    for e in elements:
        parts.append('<rb-el data-rb="%s">%s</rb-el>' % (_attr(e["id"]), e["html"]))
    for load in loads:
        parts.append(load_markup(load, None))
    body = "\n".join(parts)
    if user_html is None:
        return (
            '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>rb</title></head><body>\n%s\n</body></html>\n'
            % body
        )
    # User HTML: our script goes first inside <head> (or at the start) so events are recorded from the start.
    low = user_html.lower()
    i = low.find("<head>")
    head_at = i + len("<head>") if i >= 0 else 0
    j = low.rfind("</body>")
    lib_tag = "<script>%s</script>" % lib
    rest = "\n".join(parts[1:])
    if j >= head_at:
        return user_html[:head_at] + lib_tag + user_html[head_at:j] + rest + user_html[j:]
    return user_html[:head_at] + lib_tag + user_html[head_at:] + rest


class ScenarioError(ValueError):
    pass


class InstalledList(tuple):
    """A list already compiled in a filter store: (store directory, identifier), loaded, never compiled."""

    def __new__(cls, store, identifier):
        return super().__new__(cls, (store, identifier))


def installed_lists(scenario):
    """`"installed": {"store": DIR, "identifiers": [ID, ...]}` in place of `rules`."""
    inst = scenario["installed"]
    if "rules" in scenario:
        raise ScenarioError("give rules or installed, not both")
    if (
        not isinstance(inst, dict)
        or not isinstance(inst.get("store"), str)
        or not isinstance(inst.get("identifiers"), list)
        or not inst["identifiers"]
        or not all(isinstance(i, str) for i in inst["identifiers"])
    ):
        raise ScenarioError('installed must be {"store": DIR, "identifiers": [ID, ...]}')
    return [InstalledList(inst["store"], i) for i in inst["identifiers"]]


def validate(scenario):
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario must be a JSON object")
    if not isinstance(scenario.get("topURL"), str):
        raise ScenarioError("topURL (string) is required")
    if "installed" in scenario:
        rules = installed_lists(scenario)
    else:
        rules = scenario.get("rules")
        if not isinstance(rules, list) or not rules:
            raise ScenarioError("rules must be a non-empty array of rule lists")
        # Accept a single rule list too (an array of rule objects).
        if all(isinstance(r, dict) for r in rules):
            rules = [rules]
    loads, seen_ids = [], set()
    for load in scenario.get("loads") or []:
        if not isinstance(load, dict) or not isinstance(load.get("url"), str) or "id" not in load:
            raise ScenarioError("each load needs an id and a url: %r" % (load,))
        if load["id"] in seen_ids:
            raise ScenarioError("duplicate load id %r" % load["id"])
        seen_ids.add(load["id"])
        try:
            t = canonical_type(load.get("type", "script"))
        except ValueError as e:
            raise ScenarioError(str(e)) from e
        loads.append({"id": str(load["id"]), "url": load["url"], "type": t, "frame": load.get("frame")})
    elements = []
    for e in scenario.get("elements") or []:
        if not isinstance(e, dict) or "id" not in e or not isinstance(e.get("html"), str):
            raise ScenarioError("each element needs an id and html: %r" % (e,))
        elements.append({"id": str(e["id"]), "html": e["html"], "frame": e.get("frame")})
    return rules, loads, elements


class Round:
    """One page load: the top document plus iframes, each URL used once (so the proxy log is unambiguous)."""

    def __init__(self, top_url):
        self.top_url = top_url
        self.used = {normalize_url(top_url): ("top", None)}
        self.frames = {}  # frame URL -> {"parent": frame URL|None, "load": load|None}
        self.loads = []  # loads in this round
        self.elements = []

    def _frame_chain(self, frame, parents):
        chain = []
        while frame is not None:
            if frame in chain:
                raise ScenarioError("frame cycle at %s" % frame)
            chain.append(frame)
            frame = parents.get(frame)
        return chain

    def try_add(self, load, parents):
        """Add `load` (and the frames it needs) if no URL of this round collides with it."""
        chain = self._frame_chain(load["frame"], parents)
        new_used = {}
        for f in chain:
            key = normalize_url(f)
            role = self.used.get(key) or new_used.get(key)
            if role is None:
                new_used[key] = ("frame", f)
            elif role != ("frame", f):
                return False
        key = normalize_url(load["url"])
        if load["type"] == "child-document":
            role = self.used.get(key) or new_used.get(key)
            if role is not None and role != ("frame", load["url"]):
                return False
            f = self.frames.get(load["url"])
            if f is not None and f.get("load") is not None:
                return False  # the same frame already is a load of this round
            new_used[key] = ("frame", load["url"])
        else:
            role = self.used.get(key) or new_used.get(key)
            if role == ("top", None):
                # The page loads its own URL as a subresource (e.g. DuckDuckGo's "same party" tests): the
                # proxy then sees that URL twice, the document first. Allowed once per round; sound
                # because a blocked top document means nothing else loads either.
                new_used[key] = ("top+load", load["id"])
            elif role is not None:
                return False
            else:
                new_used[key] = ("load", load["id"])
        self.used.update(new_used)
        for f in chain:
            self.frames.setdefault(f, {"parent": parents.get(f), "load": None})
        if load["type"] == "child-document":
            self.frames.setdefault(load["url"], {"parent": load["frame"], "load": None})
            self.frames[load["url"]]["load"] = load
        self.loads.append(load)
        return True

    def add_elements(self, elements, parents):
        for e in elements:
            for f in self._frame_chain(e["frame"], parents):
                key = normalize_url(f)
                if self.used.get(key, ("frame", f)) != ("frame", f):
                    raise ScenarioError("element frame %s collides with another URL of the page" % f)
                self.used[key] = ("frame", f)
                self.frames.setdefault(f, {"parent": parents.get(f), "load": None})
            self.elements.append(e)

    def documents(self, user_html):
        """{URL: html} for the top page and every frame of this round."""
        # Children of each document: frames (as iframes) and plain loads.
        by_doc = {None: []}
        for f in self.frames:
            by_doc.setdefault(f, [])
        for f, info in self.frames.items():
            if info["load"] is None:
                # A frame only hosting loads/elements: an iframe of its parent that is not itself a reported load.
                by_doc[info["parent"]].append(
                    {"id": "__frame:" + f, "url": f, "type": "child-document", "frame": info["parent"]}
                )
        for load in self.loads:
            by_doc[load["frame"]].append(load)
        els = {}
        for e in self.elements:
            els.setdefault(e["frame"], []).append(e)
        docs = {self.top_url: document_html(None, by_doc[None], els.get(None, []), user_html)}
        for f in self.frames:
            docs[f] = document_html(f, by_doc[f], els.get(f, []))
        return docs


def plan(top_url, loads, elements):
    """Split a scenario into rounds: every URL appears once per round (duplicates go to later rounds)."""
    parents = {}
    for load in loads:
        if load["type"] == "child-document":
            if load["url"] in parents and parents[load["url"]] != load["frame"]:
                raise ScenarioError("frame %s is loaded from two different parents" % load["url"])
            parents[load["url"]] = load["frame"]
    if normalize_url(top_url) in {normalize_url(f) for f in parents}:
        raise ScenarioError("a frame URL equals the top URL (the proxy could not tell the two loads apart)")
    rounds = [Round(top_url)]
    rounds[0].add_elements(elements, parents)
    for load in loads:
        for r in rounds:
            if r.try_add(load, parents):
                break
        else:
            r = Round(top_url)
            if not r.try_add(load, parents):
                raise ScenarioError("load %s collides with the top URL" % load["id"])
            rounds.append(r)
    return rounds
