#!/usr/bin/env python3
"""Requests that probe what the optimization stage rewrites (issue 13), from a corpus of requests to tracker URLs
(`radarblock diff --save-corpus`): each output request is one of the input's URLs, deterministically, either
as it is, with a port after its host, embedded in the path or query of another tracker URL or of a non-tracker
URL (the in-URL form), or with its host given a subdomain, on a first- or third-party site. Deterministic for a
seed; N requests in all.

usage: optimizer_corpus.py CORPUS.jsonl N OUT.jsonl [--seed S]
"""

import json
import os
import random
import sys
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import genargs  # noqa: E402

TYPES = ["script", "image", "xmlhttprequest", "stylesheet", "sub_frame", "font", "media", "ping", "other"]


def variants(rng, url, other):
    parts = urlsplit(url)
    host = parts.hostname or "example.com"
    rest = url.split(host, 1)[1] if host in url else "/"
    if rest.startswith(":"):
        rest = rest[rest.find("/") :] if "/" in rest else "/"
    choice = rng.randrange(7)
    if choice == 0:
        return url
    if choice == 1:
        return "%s://%s:%d%s" % (parts.scheme or "https", host, rng.choice([80, 443, 8080, 3000]), rest)
    if choice == 2:  # embedded in another tracker URL's path
        return other.rstrip("/") + "/" + url.split("://", 1)[-1]
    if choice == 3:  # embedded in a query
        return other + ("&" if "?" in other else "?") + "u=" + url.split("://", 1)[-1]
    if choice == 4:  # in a non-tracker URL
        return "https://cdn%d.unrelated.example/r?to=%s" % (rng.randrange(50), url.split("://", 1)[-1])
    if choice == 5:
        return "%s://x%d.%s%s" % (parts.scheme or "https", rng.randrange(9), host, rest)
    return "%s://%s:%d/%s" % (parts.scheme or "https", host, rng.randrange(1, 65536), url.split("://", 1)[-1])


def main():
    seed, args = genargs.seed_and_args(__doc__, 3)
    corpus, n, out = args[0], int(args[1]), args[2]
    requests = []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                requests.append(json.loads(line))
    if not requests:
        sys.exit("optimizer_corpus: %s has no requests" % corpus)
    rng = random.Random(seed)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        for _ in range(n):
            r = requests[rng.randrange(len(requests))]
            other = requests[rng.randrange(len(requests))]["url"]
            url = variants(rng, r["url"], other)
            site = r.get("topURL") if rng.random() < 0.7 and r.get("topURL") else other
            f.write(json.dumps({"url": url, "topURL": site, "resourceType": rng.choice(TYPES)}) + "\n")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
