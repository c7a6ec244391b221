#!/usr/bin/env python3
"""Renames every host label of DuckDuckGo's tracker-radar reference suite, consistently, in the TDS and in
the tests: a converter that passes the renamed suite cannot be keyed to the suite's host names.

usage: rename_hosts.py TDS.json TESTS.json OUT_DIR     writes OUT_DIR/tds.json and OUT_DIR/tests.json

Every letter of every host-bearing field is substituted by a fixed shift (a -> h): the TDS's domain keys
and lists, CNAMEs, rule regexes (but for escapes), exception and option domains, and the tests' URLs, paths
included since rules match them too. A letter-for-letter substitution keeps every substring relation the
suite's regexes test (`sub1.sub2` against `sub1asub2`, prefixes like `tracker` in `trackerNOT`), while no
host name of the suite survives. Suffixes become names outside the public suffix list, which it treats as
public suffixes, as it does the suite's `.test`.
"""

import json
import os
import sys
from urllib.parse import urlsplit, urlunsplit

SHIFT = 7  # a -> h, b -> i, ...: a letter-for-letter substitution, so every substring relation survives


def shifted(c):
    if "a" <= c <= "z":
        return chr((ord(c) - 97 + SHIFT) % 26 + 97)
    if "A" <= c <= "Z":
        return chr((ord(c) - 65 + SHIFT) % 26 + 65)
    return c


def rename(text):
    """Host names and paths: every letter substituted (digits, dots, dashes and slashes kept)."""
    return "".join(shifted(c) for c in text)


def rename_regex(rule):
    """A rule regex: letters substituted except the one after a backslash (\\d stays a class). The suite's
    regexes use no letter ranges, so classes like [abc] keep their meaning on renamed text."""
    out, escaped = [], False
    for c in rule:
        out.append(c if escaped else shifted(c))
        escaped = (c == "\\") and not escaped
    return "".join(out)


def rename_url(url):
    """The scheme stays; host, path and query are renamed like the rules that match them."""
    p = urlsplit(url)
    return urlunsplit((p.scheme, rename(p.netloc), rename(p.path), rename(p.query), rename(p.fragment)))


def rename_tds(tds):
    out = dict(tds)
    trackers = {}
    for domain, tracker in tds.get("trackers", {}).items():
        tracker = dict(tracker)
        tracker["domain"] = rename(tracker.get("domain", domain))
        rules = []
        for rule in tracker.get("rules", []):
            rule = dict(rule)
            rule["rule"] = rename_regex(rule["rule"])
            for key in ("exceptions", "options"):
                if isinstance(rule.get(key), dict) and "domains" in rule[key]:
                    rule[key] = dict(rule[key], domains=[rename(d) for d in rule[key]["domains"]])
            rules.append(rule)
        if "rules" in tracker:
            tracker["rules"] = rules
        trackers[rename(domain)] = tracker
    out["trackers"] = trackers
    out["entities"] = {
        name: dict(e, domains=[rename(d) for d in e.get("domains", [])]) for name, e in tds.get("entities", {}).items()
    }
    out["domains"] = {rename(d): owner for d, owner in tds.get("domains", {}).items()}
    if "cnames" in tds:
        out["cnames"] = {rename(a): rename(t) for a, t in tds["cnames"].items()}
    return out


def rename_tests(tests):
    out = {}
    for name, suite in tests.items():
        suite = dict(suite)
        suite["tests"] = [
            dict(t, **{k: rename_url(t[k]) for k in ("siteURL", "requestURL") if k in t})
            for t in suite.get("tests", [])
        ]
        out[name] = suite
    return out


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    tds, tests = json.load(open(argv[1])), json.load(open(argv[2]))
    os.makedirs(argv[3], exist_ok=True)
    with open(os.path.join(argv[3], "tds.json"), "w") as f:
        json.dump(rename_tds(tds), f, indent=1, sort_keys=True)
    with open(os.path.join(argv[3], "tests.json"), "w") as f:
        json.dump(rename_tests(tests), f, indent=1, sort_keys=True)
    print(
        "renamed %d trackers and %d tests"
        % (len(tds.get("trackers", {})), sum(len(s.get("tests", [])) for s in tests.values()))
    )


if __name__ == "__main__":
    main(sys.argv)
