#!/usr/bin/env python3
"""Synthetic content rule lists shaped like DuckDuckGo's converted TDS (deterministic for a seed).

usage: gen_rules.py N OUT.json [--seed S]

The shape follows the iOS TDS in ddg mode (10,847 rules): per tracker domain a third-party `block` rule
with the tracker's host filter and `unless-domain` = the domains of its owning entity, and a top-frame
popup `ignore-previous-rules` twin; for some trackers path rules (block or ignore-previous-rules, with
resource types and if-domain lists of first-party sites), the way TDS rules and exceptions come out.
Entity sizes are drawn from a heavy-tailed distribution capped at 150 domains, so the JSON is about as
large per rule as the real list (~400 bytes) and grows linearly with N. Exactly N rules are written.
"""

import json
import random

import genargs

WORDS = (
    "ad analytic beacon click count data metric pixel stat tag track view audience banner cdn cloud "
    "collect connect insight lead media native signal smart social target trend value web zone "
    "push pop serve sync bid cast flow grid hub link loop mark net node pulse rank reach spot"
).split()
TLDS = ["com"] * 8 + ["net", "io", "co", "org", "de", "fr", "co.uk", "com.br"]
PATHS = [
    "pixel",
    "collect",
    "track",
    "impression",
    "event",
    "beacon",
    "sync",
    "js/tag.js",
    "ads/show",
    "api/v1/log",
    "m2/labcorp/mbox/json",
    "b/ss",
    "ajax/libs/widget.js",
    "p.gif",
    "gtm.js",
    "id",
]
TYPES = ["script", "image", "style-sheet", "raw", "font", "media", "document", "svg-document", "popup", "ping", "fetch"]


def escape(domain):
    return domain.replace(".", "\\.")


def host_filter(domain, path=None):
    base = "^[^:]+://+([^:/]+\\.)?" + escape(domain)
    return base + ("[:/]" if path is None else "/" + path.replace(".", "\\."))


def entity_size(rng):
    r = rng.random()
    if r < 0.70:
        return 1
    if r < 0.85:
        return rng.randint(2, 5)
    if r < 0.95:
        return rng.randint(6, 20)
    if r < 0.99:
        return rng.randint(21, 60)
    return rng.randint(61, 150)


def generate(n, seed):
    rng = random.Random(seed)
    rules = []
    counter = 0

    def new_domain():
        nonlocal counter
        counter += 1
        return "%s%s%d.%s" % (rng.choice(WORDS), rng.choice(WORDS), counter, rng.choice(TLDS))

    def site():
        return "%s%d.%s" % (rng.choice(WORDS), rng.randint(1, 10**6), rng.choice(TLDS))

    while len(rules) < n:
        domains = [new_domain() for _ in range(entity_size(rng))]
        entity = ["*" + d for d in domains]
        for d in domains:
            load_type = ["third-party"] if rng.random() < 0.9 else ["first-party", "third-party"]
            if rng.random() < 0.15:
                # Path rules first (TDS rule order), each with its popup twin.
                for _ in range(rng.randint(1, 3)):
                    path = rng.choice(PATHS)
                    trig = {"url-filter": host_filter(d, path), "load-type": load_type}
                    if rng.random() < 0.5:
                        trig["unless-domain"] = entity
                        rules.append({"trigger": trig, "action": {"type": "block"}})
                    else:
                        trig["resource-type"] = sorted(rng.sample(TYPES, rng.randint(1, 3)))
                        rules.append({"trigger": trig, "action": {"type": "ignore-previous-rules"}})
                    rules.append(
                        {
                            "trigger": {
                                "url-filter": host_filter(d, path),
                                "load-type": load_type,
                                "resource-type": ["popup"],
                                "load-context": ["top-frame"],
                            },
                            "action": {"type": "ignore-previous-rules"},
                        }
                    )
            rules.append(
                {
                    "trigger": {"url-filter": host_filter(d), "load-type": load_type, "unless-domain": entity},
                    "action": {"type": "block"},
                }
            )
            rules.append(
                {
                    "trigger": {
                        "url-filter": host_filter(d),
                        "load-type": load_type,
                        "resource-type": ["popup"],
                        "load-context": ["top-frame"],
                    },
                    "action": {"type": "ignore-previous-rules"},
                }
            )
            if rng.random() < 0.02:
                # A tracker exception on a few first-party sites (if-domain list).
                sites = sorted({"*" + site() for _ in range(rng.randint(1, 30))})
                rules.append(
                    {
                        "trigger": {"url-filter": host_filter(d), "load-type": load_type, "if-domain": sites},
                        "action": {"type": "ignore-previous-rules"},
                    }
                )
    return rules[:n]


def main():
    seed, args = genargs.seed_and_args(__doc__, 2)
    n, out = int(args[0]), args[1]
    rules = generate(n, seed)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(rules, f, separators=(",", ":"), sort_keys=True)
    import os

    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
