#!/usr/bin/env python3
"""Requests shaped as a new user writes them (issue 14): `json.dumps` with its default spacing, half of
them to the TDS's tracker domains in three subdomain forms (bare, www., and a two-label subdomain), the
others to non-tracker hosts, all with query strings, on third-party sites. Deterministic for a seed.

usage: gen_issue_requests.py TDS.json N OUT.jsonl [--seed S]
"""

import json
import random
import sys

import genargs

TYPES = ["script", "image", "xmlhttprequest", "stylesheet", "sub_frame", "font", "media", "ping", "other"]
WORDS = "news shop blog mail travel food sport music games video photo cook home auto bank".split()


def main():
    seed, args = genargs.seed_and_args(__doc__, 3)
    tds_path, n, out = args[0], int(args[1]), args[2]
    with open(tds_path, encoding="utf-8") as f:
        trackers = sorted(json.load(f)["trackers"])
    if not trackers:
        sys.exit("gen_issue_requests: %s has no trackers" % tds_path)
    write_requests(trackers, n, out, seed)


def write_requests(trackers, n, out, seed):
    """n requests, half of them to `trackers` (host names) in three subdomain forms, into `out`."""
    rng = random.Random(seed)
    # The same bytes json.dumps writes for these plain ASCII strings, without its per-line cost.
    line = '{"url": "%s", "topURL": "%s", "resourceType": "%s"}\n'
    sub_forms = ["", "www.", "static.cdn."]
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        batch = []
        for i in range(n):
            r = rng.getrandbits(64)
            site = "https://www.%s%d.example/%s/page.html" % (WORDS[r % 15], 1 + (r >> 4) % 5000, WORDS[(r >> 17) % 15])
            if i % 2 == 0:
                host = sub_forms[(r >> 21) % 3] + trackers[(r >> 23) % len(trackers)]
            else:
                host = "assets%d.%s-cdn.example" % (1 + (r >> 23) % 500, WORDS[(r >> 33) % 15])
            url = "https://%s/%s/%d.js?id=%d&v=%d" % (
                host,
                WORDS[(r >> 37) % 15],
                (r >> 41) % 1000000,
                rng.getrandbits(30),
                i % 97,
            )
            batch.append(line % (url, site, TYPES[(r >> 55) % len(TYPES)]))
            if len(batch) >= 100000:
                f.write("".join(batch))
                batch.clear()
        f.write("".join(batch))
    import os

    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
