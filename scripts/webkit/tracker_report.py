"""Checks of a reporting bundle (the default)'s `radarblock:tracker` events against what WebKit did.

A request is a tracker request when its host or a parent domain is a TDS tracker, or (not under a tracker
itself) its host or a parent is a CNAME alias whose target is under one; such a request must get exactly one
event, any other none (unless a request-blocklist rule blocked it: then one event with that reason). The
event's `blocked` must equal WebKit's verdict (the proxy saw the load or not), and its `reason` must agree
with the test's expectation: blocked ones name a blocking reason, allowed ones a non-blocking one.
"""

import json
import random
import re
import urllib.parse

BLOCKING = {"rule", "default", "request-blocklist", "click-to-load", "surrogate", "ad-click-attribution"}
NON_BLOCKING = {
    "default",
    "ignore-rule",
    "first-party",
    "tracker-allowlist",
    "unprotected-site",
    "click-to-load",
    "ad-click-attribution",
}
FIELDS = ("url", "pageUrl", "tracker", "entity", "displayName", "category", "blocked", "reason", "surrogate")


class TrackerSet:
    """The TDS's tracker hosts and CNAME aliases, for "is this a tracker request?"."""

    def __init__(self, tds_path):
        with open(tds_path, encoding="utf-8") as f:
            tds = json.load(f)
        self.trackers = set(tds.get("trackers") or {})
        self.cnames = dict(tds.get("cnames") or {})

    def _under(self, host, keys):
        h = host
        while h:
            if h in keys:
                return h
            h = h.partition(".")[2]
        return None

    def is_tracker(self, url):
        host = (urllib.parse.urlsplit(url).hostname or "").lower()
        if self._under(host, self.trackers):
            return True
        alias = self._under(host, self.cnames)
        return bool(alias and self._under(self.cnames[alias].lower(), self.trackers))


def problems(load, url, tracker_request, expect_blocked, expect_surrogate=None):
    """What is wrong with the events of one load (empty list: nothing). `load` is the harness's result."""
    if load is None:
        return ["no load result"]
    events = load.get("trackerEvents") or []
    blocked = load.get("blocked")
    out = []
    if not tracker_request and not (blocked and events):
        if events:
            out.append("%d event(s) for a request that is no tracker: %s" % (len(events), json.dumps(events)))
        return out
    if len(events) != 1:
        return ["%d events for a tracker request, expected 1: %s" % (len(events), json.dumps(events))]
    e = events[0]
    missing = [k for k in FIELDS if k not in e]
    if missing:
        out.append("detail lacks %s" % ", ".join(missing))
    if e.get("blocked") is not blocked:
        out.append("event blocked=%r but WebKit %s the load" % (e.get("blocked"), "blocked" if blocked else "allowed"))
    if e.get("blocked") is not expect_blocked:
        out.append("event blocked=%r, the test expects %r" % (e.get("blocked"), expect_blocked))
    reasons = BLOCKING if e.get("blocked") else NON_BLOCKING
    if e.get("reason") not in reasons:
        out.append(
            "reason %r is not a %s reason" % (e.get("reason"), "blocking" if e.get("blocked") else "non-blocking")
        )
    if expect_surrogate is not None and (e.get("reason") == "surrogate") is not expect_surrogate:
        out.append(
            "reason %r, the test %s a surrogate" % (e.get("reason"), "expects" if expect_surrogate else "expects no")
        )
    return out


# A rule regex that spells a URL: escaped dots/slashes and plain characters only.
_PLAIN_RULE = re.compile(r"^(?:[A-Za-z0-9_\-]|\\[./]|/)+$")


def sampled_loads(tds_path, seed, trackers=200, benign=50, aliases=20):
    """Harness loads for a generated page: `trackers` requests to TDS trackers sampled with `seed` (half to a
    tracker host, half to a URL spelled by one of its plain rules, `aliases` of them through CNAME aliases) and
    `benign` ones; distinct URLs, images and scripts alternating."""
    tds = json.load(open(tds_path, encoding="utf-8"))
    rng = random.Random(seed)
    domains = sorted(tds["trackers"])
    alias_hosts = sorted(tds.get("cnames", {}))
    urls = []
    for i, d in enumerate(rng.sample(domains, trackers - aliases)):
        plain = [r["rule"] for r in tds["trackers"][d].get("rules", []) if _PLAIN_RULE.match(r["rule"])]
        if i % 2 and plain:
            urls.append("https://" + rng.choice(plain).replace("\\", "") + "?rb=%d" % i)
        else:
            urls.append("https://%s/rb-sample/%d" % (d, i))
    for i, a in enumerate(rng.sample(alias_hosts, aliases)):
        urls.append("https://%s/rb-cname/%d" % (a, i))
    urls += ["https://benign%d.rb-sample.example/x/%d" % (i % 7, i) for i in range(benign)]
    loads = [{"id": "r%d" % i, "url": u, "type": "script" if i % 2 else "image"} for i, u in enumerate(urls)]
    return loads
