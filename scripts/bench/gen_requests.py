#!/usr/bin/env python3
"""Synthetic page loads for `radarblock match --requests` (deterministic for a seed).

usage: gen_requests.py RULES.json N OUT.jsonl [--seed S]

Requests come page by page, as a browser issues them: the top document, then 20-120 subresources,
about a third of them to tracker hosts taken from the rule list's host filters
(`^[^:]+://+([^:/]+\\.)?DOMAIN[:/]` or `.../path`), with paths of either kind, the rest first-party
(the site and its static host) and third-party non-trackers (CDNs, fonts, APIs). Some loads come from
child frames (frameURL), a few are popups. Exactly N lines are written.
"""

import json
import random
import re
import sys

import genargs

HOST_FILTER = re.compile(r"^\^\[\^:\]\+://\+\(\[\^:/\]\+\\\.\)\?((?:[a-z0-9-]+\\\.)+[a-z0-9-]+)(\[:/\]|/(.*))$")
WORDS = (
    "news shop blog mail travel food sport music games video photo cook home auto bank health "
    "tech city local daily world market style kids pets books film radio garden"
).split()
TLDS = ["com"] * 6 + ["net", "org", "de", "fr", "co.uk", "io", "com.br", "jp"]
CDNS = [
    "cdn.jsdelivr-like.net",
    "static.cloudcdn-like.com",
    "fonts.typekit-like.net",
    "img.imagecdn-like.com",
    "api.mapservice-like.com",
    "ajax.libhost-like.org",
    "video.streamhost-like.tv",
]
SUB_TYPES = ["script", "image", "image", "image", "stylesheet", "xmlhttprequest", "font", "media", "ping", "fetch"]
PATHS = [
    "js/app.js",
    "img/logo.png",
    "css/site.css",
    "api/data",
    "fonts/a.woff2",
    "pixel.gif",
    "collect",
    "i.js",
    "v2/track",
]


def trackers_from(rules):
    hosts, paths = set(), set()
    for rule in rules:
        m = HOST_FILTER.match(rule.get("trigger", {}).get("url-filter", ""))
        if not m:
            continue
        domain = m.group(1).replace("\\.", ".")
        hosts.add(domain)
        if m.group(3):
            p = m.group(3).replace("\\", "")
            if re.fullmatch(r"[A-Za-z0-9._~/-]+", p):
                paths.add((domain, p))
    return sorted(hosts), sorted(paths)


def main():
    seed, args = genargs.seed_and_args(__doc__, 3)
    rules_path, n, out = args[0], int(args[1]), args[2]
    with open(rules_path, encoding="utf-8") as f:
        hosts, paths = trackers_from(json.load(f))
    if not hosts:
        sys.exit("gen_requests: no host filters found in %s" % rules_path)
    rng = random.Random(seed)
    written = 0
    with open(out + ".tmp", "w", encoding="utf-8") as f:

        def emit(obj):
            nonlocal written
            if written < n:
                f.write(json.dumps(obj, separators=(",", ":")) + "\n")
                written += 1

        while written < n:
            site = "%s%d.%s" % (rng.choice(WORDS), rng.randint(1, 50000), rng.choice(TLDS))
            top = "https://www.%s/%s/%d.html" % (site, rng.choice(WORDS), rng.randint(1, 10**6))
            emit({"url": top, "topURL": top, "resourceType": "main_frame"})
            frame = None
            for _ in range(rng.randint(20, 120)):
                r = rng.random()
                if r < 0.33:
                    if paths and rng.random() < 0.25:
                        host, path = rng.choice(paths)
                        url = "https://%s/%s?v=%d" % (host, path, rng.randint(1, 999))
                    else:
                        host = rng.choice(hosts)
                        sub = rng.choice(["", "www.", "cdn.", "pixel.", "s1."])
                        url = "https://%s%s/%s?id=%d" % (sub, host, rng.choice(PATHS), rng.randint(1, 10**6))
                elif r < 0.70:
                    host = rng.choice(["www.", "static.", "img."]) + site
                    url = "https://%s/%s?%d" % (host, rng.choice(PATHS), rng.randint(1, 10**6))
                else:
                    url = "https://%s/%s" % (rng.choice(CDNS), rng.choice(PATHS))
                kind = rng.random()
                if kind < 0.03:
                    frame = "https://%s/frame/%d.html" % (rng.choice(hosts), rng.randint(1, 999))
                    emit({"url": frame, "topURL": top, "resourceType": "sub_frame"})
                    continue
                if kind < 0.035:
                    emit({"url": url, "topURL": top, "resourceType": "popup"})
                    continue
                req = {"url": url, "topURL": top, "resourceType": rng.choice(SUB_TYPES)}
                if frame and rng.random() < 0.1:
                    req["frameURL"] = frame
                emit(req)
    import os

    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
