#!/usr/bin/env python3
"""A TDS with one entity of N tracker domains, each of them also one of its sites: the shape of an ad network that
rotates domains (Admiral's 888 in DuckDuckGo's TDS of 2024-07-12, 1,569 three weeks later). Each of its trackers
blocks by default and has no rules, like Admiral's. The other trackers come from BASE (a TDS; default: the project's
data/tds.json), so the same-entity exemptions of the big entity are the only thing that grows with N.

usage: gen_entity_tds.py N[,N2,...] [--base TDS] [--requests OUT.jsonl [COUNT]] > tds.json

Several sizes (300,1000,3000: the synthetic input of `make bench` and docs/compile-cost.md) give one such entity per
size, each with domains of its own ("Rotating Domains Network", then "... 2", "... 3"); the requests are about the
first.

With --requests, also writes COUNT requests (default 20,000; JSONL for `radarblock match` / `diff --requests`),
deterministically: pages on the entity's sites loading its own trackers and BASE's trackers, and pages on BASE's
entities' sites and on unrelated sites loading the entity's trackers, with subdomains, ports and paths.
Fictional domains; deterministic.
"""

import json
import os
import random
import sys

ENTITY = "Rotating Domains Network"
WORDS = [
    "amber",
    "basin",
    "cedar",
    "delta",
    "ember",
    "fable",
    "grove",
    "harbor",
    "island",
    "jade",
    "kettle",
    "lunar",
    "meadow",
    "nectar",
    "orbit",
    "pebble",
    "quarry",
    "ripple",
    "summit",
    "timber",
    "umber",
    "valley",
    "willow",
    "zephyr",
]
TLDS = ["com", "net", "org", "io", "xyz"]
TYPES = ["script", "image", "xmlhttprequest", "stylesheet", "sub_frame", "ping", "other"]


def domain(i):
    a, b = WORDS[i % len(WORDS)], WORDS[(i // len(WORDS)) % len(WORDS)]
    return "%s%s%d.%s" % (a, b, i, TLDS[i % len(TLDS)])


def entity_name(k):
    return ENTITY if k == 0 else "%s %d" % (ENTITY, k + 1)


def entity_tds(n, base):
    return entities_tds([n], base)


def entities_tds(sizes, base):
    """BASE with one rotating-domain entity per size; returns the TDS and the first entity's domains."""
    tds = json.loads(json.dumps(base))
    first, start = None, 0
    for k, n in enumerate(sizes):
        name = entity_name(k)
        names = [domain(i) for i in range(start, start + n)]
        start += n
        for d in names:
            tds["trackers"][d] = {
                "domain": d,
                "owner": {"name": name, "displayName": "Rotating"},
                "prevalence": 0.01,
                "fingerprinting": 1,
                "cookies": 0.01,
                "default": "block",
            }
            tds.setdefault("domains", {})[d] = name
        tds["entities"][name] = {"domains": names, "displayName": "Rotating", "prevalence": 0.01}
        first = names if first is None else first
    return tds, first


def biggest_entity(tds):
    """The entity with the most tracker domains (ties: the first name)."""
    counts = {}
    for t in tds["trackers"].values():
        name = (t.get("owner") or {}).get("name")
        if name:
            counts[name] = counts.get(name, 0) + 1
    return min(counts, key=lambda n: (-counts[n], n))


def aliases(tds, trackers):
    """The TDS's CNAME aliases, split into those cloaking one of `trackers` (the longest tracker domain their target
    falls under) and the others."""
    own, foreign = [], []
    for alias, target in sorted(tds.get("cnames", {}).items()):
        labels = target.split(".")
        cloaked = next((s for s in (".".join(labels[i:]) for i in range(len(labels))) if s in tds["trackers"]), None)
        (own if cloaked in trackers else foreign).append(alias)
    return own, foreign


def requests(tds, entity, count, seed=1):
    """Requests that put the entity's exemption to work: its sites loading its own and other entities' trackers,
    other entities' sites and unrelated sites loading its trackers."""
    rng = random.Random(seed)
    names = sorted(d for d, t in tds["trackers"].items() if (t.get("owner") or {}).get("name") == entity)
    sites = sorted(set(tds["entities"].get(entity, {}).get("domains", [])) | set(names))
    others = sorted(d for d, t in tds["trackers"].items() if (t.get("owner") or {}).get("name") != entity)
    # CNAME aliases count as the tracker they cloak: its own or another entity's.
    own, foreign = aliases(tds, set(names))
    names, others = names + own, others + foreign
    other_sites = sorted({s for e, v in tds["entities"].items() if e != entity for s in v.get("domains", [])}) or others
    unrelated = ["news%d.example" % i for i in range(20)]

    def url(host):
        host = rng.choice([host, "cdn." + host, "x%d.%s" % (rng.randrange(5), host)])
        port = rng.choice(["", "", ":8443"])
        return "https://%s%s/%s" % (host, port, rng.choice(["", "ad.js", "p/i.gif?u=1", "lib/x.js"]))

    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:  # an entity site loading its own tracker
            site, target = rng.choice(sites), rng.choice(names)
        elif kind == 1:  # an entity site loading another entity's tracker
            site, target = rng.choice(sites), rng.choice(others)
        elif kind == 2:  # another entity's site loading the entity's tracker
            site, target = rng.choice(other_sites), rng.choice(names)
        else:  # an unrelated site
            site, target = rng.choice(unrelated), rng.choice(names + others)
        top = "https://%s%s/" % (rng.choice(["", "www.", "shop."]), site)
        yield {"url": url(target), "topURL": top, "resourceType": rng.choice(TYPES)}


def write_requests(tds, entity, count, path):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for r in requests(tds, entity, count):
            f.write(json.dumps(r) + "\n")
    os.replace(path + ".tmp", path)


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    sizes = [int(x) for x in args[0].split(",")]
    base_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "tds.json")
    out_requests, count = None, 20000
    i = 1
    while i < len(args):
        if args[i] == "--base":
            base_path = args[i + 1]
            i += 2
        elif args[i] == "--requests":
            out_requests = args[i + 1]
            i += 2
            if i < len(args) and args[i].isdigit():
                count = int(args[i])
                i += 1
        else:
            sys.exit("gen_entity_tds: unknown argument %s\n%s" % (args[i], __doc__))
    with open(base_path, encoding="utf-8") as f:
        tds, _ = entities_tds(sizes, json.load(f))
    json.dump(tds, sys.stdout, sort_keys=True)
    if out_requests:
        write_requests(tds, ENTITY, count, out_requests)


if __name__ == "__main__":
    main()
