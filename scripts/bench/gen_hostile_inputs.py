#!/usr/bin/env python3
"""The hostile inputs of scripts/bench/hostile.sh (issue 16, data side), from DATA (the repository's data/) into
the current directory: TDS files with one huge tracker rule (tds-100k-random, tds-100k-a, tds-400k-a), configs with
one huge tracker-allowlist rule (config-100k-random, config-100k-a), and unless --skip-huge a 200 MB rule string
and a 200 MB domain (tds-200m-rule, tds-200m-domain). Deterministic (seed 1).

usage: gen_hostile_inputs.py DATA [--skip-huge]
"""

import copy
import json
import random
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def dump(value, path):
    with open(path, "w") as f:
        json.dump(value, f)


def with_rule(tds, body, name):
    """The TDS with tracker.example's rules ending in tracker\\.example\\/BODY."""
    t = copy.deepcopy(tds)
    t["trackers"]["tracker.example"]["rules"].append({"rule": "tracker\\.example\\/" + body})
    dump(t, name)


def with_allow(config, body, name):
    """The config with one more tracker-allowlist rule for tracker.example: tracker.example/BODY on shop.example."""
    c = copy.deepcopy(config)
    c["features"]["trackerAllowlist"]["settings"]["allowlistedTrackers"]["tracker.example"]["rules"].append(
        {"rule": "tracker.example/" + body, "domains": ["shop.example"]}
    )
    dump(c, name)


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--skip-huge"):
        sys.exit(__doc__.split("\n\n")[-1])
    data, skip_huge = argv[1], len(argv) == 3
    tds, config = load(data + "/tds.json"), load(data + "/privacy-config.json")
    random.seed(1)
    rand = "".join(random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(100_000))
    with_rule(tds, rand, "tds-100k-random.json")
    with_rule(tds, "a" * 100_000, "tds-100k-a.json")
    with_rule(tds, "a" * 400_000, "tds-400k-a.json")
    with_allow(config, rand, "config-100k-random.json")
    with_allow(config, "a" * 100_000, "config-100k-a.json")
    if not skip_huge:
        with_rule(tds, "(" + "a" * 200_000_000, "tds-200m-rule.json")
        t = copy.deepcopy(tds)
        t["trackers"]["tracker.example"]["rules"].append(
            {"rule": "tracker\\.example\\/x", "options": {"domains": ["a" * 200_000_000 + ".example"]}}
        )
        dump(t, "tds-200m-domain.json")


if __name__ == "__main__":
    main(sys.argv)
