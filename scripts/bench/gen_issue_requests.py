#!/usr/bin/env python3
"""Requests shaped as a new user writes them (issue 14): `json.dumps` with its default spacing, half of
them to the TDS's tracker domains in three subdomain forms (bare, www., and a two-label subdomain), the
others to non-tracker hosts, all with query strings, on third-party sites. Deterministic for a seed.

usage: gen_issue_requests.py TDS.json N OUT.jsonl [--seed S]
"""
import json
import random
import sys

TYPES = ["script", "image", "xmlhttprequest", "stylesheet", "sub_frame", "font", "media", "ping", "other"]
WORDS = "news shop blog mail travel food sport music games video photo cook home auto bank".split()


def main():
    args = sys.argv[1:]
    seed = 1
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    tds_path, n, out = args[0], int(args[1]), args[2]
    with open(tds_path, encoding="utf-8") as f:
        trackers = sorted(json.load(f)["trackers"])
    if not trackers:
        sys.exit("gen_issue_requests: %s has no trackers" % tds_path)
    rng = random.Random(seed)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        for i in range(n):
            site = "https://www.%s%d.example/%s/page.html" % (rng.choice(WORDS), rng.randint(1, 5000), rng.choice(WORDS))
            if i % 2 == 0:
                host = rng.choice(["", "www.", "static.cdn."]) + rng.choice(trackers)
            else:
                host = "assets%d.%s-cdn.example" % (rng.randint(1, 500), rng.choice(WORDS))
            url = "https://%s/%s/%d.js?id=%d&v=%d" % (host, rng.choice(WORDS), rng.randint(1, 10 ** 6), rng.randint(1, 10 ** 9), i % 97)
            f.write(json.dumps({"url": url, "topURL": site, "resourceType": rng.choice(TYPES)}) + "\n")
    import os
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
