#!/usr/bin/env python3
"""A TDS with one entity of N tracker domains, each of them also one of its sites: the shape of an ad network that
rotates domains (Admiral's 888 in DuckDuckGo's TDS of 2024-07-12, 1,569 three weeks later). Each of its trackers
blocks by default and has no rules, like Admiral's. The other trackers come from BASE (a TDS; default: the project's
data/tds.json), so the same-entity exemptions of the big entity are the only thing that grows with N.

usage: gen_entity_tds.py N [--base TDS] [--requests OUT.jsonl [COUNT]] > tds.json

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
WORDS = ["amber", "basin", "cedar", "delta", "ember", "fable", "grove", "harbor", "island", "jade", "kettle", "lunar",
         "meadow", "nectar", "orbit", "pebble", "quarry", "ripple", "summit", "timber", "umber", "valley", "willow",
         "zephyr"]
TLDS = ["com", "net", "org", "io", "xyz"]
TYPES = ["script", "image", "xmlhttprequest", "stylesheet", "sub_frame", "ping", "other"]


def domain(i):
    a, b = WORDS[i % len(WORDS)], WORDS[(i // len(WORDS)) % len(WORDS)]
    return "%s%s%d.%s" % (a, b, i, TLDS[i % len(TLDS)])


def entity_tds(n, base):
    tds = json.loads(json.dumps(base))
    names = [domain(i) for i in range(n)]
    for d in names:
        tds["trackers"][d] = {"domain": d, "owner": {"name": ENTITY, "displayName": "Rotating"}, "prevalence": 0.01,
                              "fingerprinting": 1, "cookies": 0.01, "default": "block"}
        tds.setdefault("domains", {})[d] = ENTITY
    tds["entities"][ENTITY] = {"domains": names, "displayName": "Rotating", "prevalence": 0.01}
    return tds, names


def requests(tds, names, count, seed=1):
    rng = random.Random(seed)
    others = sorted(d for d in tds["trackers"] if d not in set(names))
    other_sites = sorted({s for e, v in tds["entities"].items() if e != ENTITY for s in v.get("domains", [])}) or others
    unrelated = ["news%d.example" % i for i in range(20)]

    def url(host):
        host = rng.choice([host, "cdn." + host, "x%d.%s" % (rng.randrange(5), host)])
        port = rng.choice(["", "", ":8443"])
        return "https://%s%s/%s" % (host, port, rng.choice(["", "ad.js", "p/i.gif?u=1", "lib/x.js"]))

    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:    # an entity site loading its own tracker
            site, target = rng.choice(names), rng.choice(names)
        elif kind == 1:  # an entity site loading another entity's tracker
            site, target = rng.choice(names), rng.choice(others)
        elif kind == 2:  # another entity's site loading the entity's tracker
            site, target = rng.choice(other_sites), rng.choice(names)
        else:            # an unrelated site
            site, target = rng.choice(unrelated), rng.choice(names + others)
        top = "https://%s%s/" % (rng.choice(["", "www.", "shop."]), site)
        yield {"url": url(target), "topURL": top, "resourceType": rng.choice(TYPES)}


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    n = int(args[0])
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
        tds, names = entity_tds(n, json.load(f))
    json.dump(tds, sys.stdout, sort_keys=True)
    if out_requests:
        with open(out_requests + ".tmp", "w", encoding="utf-8") as f:
            for r in requests(tds, names, count):
                f.write(json.dumps(r) + "\n")
        os.replace(out_requests + ".tmp", out_requests)


if __name__ == "__main__":
    main()
