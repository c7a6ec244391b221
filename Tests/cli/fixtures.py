#!/usr/bin/env python3
"""Inputs the Tests/cli scripts derive from data/ and the shared reference tests: each subcommand writes the
variants one group of cases needs, into the current directory or the files named.

usage: Tests/cli/fixtures.py COMMAND ARGS...   (COMMAND --help for each)
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "testing"))
import subcommands  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dump(value, path):
    with open(path, "w") as f:
        json.dump(value, f)


def ad_click_config(args):
    """The privacy config with ad-click attribution enabled for two allowlist entries: adnet.example (a tracker of
    data/tds.json) and none.example (no tracker: the build names it in issues.txt)."""
    config = load(args.config)
    config["features"]["adClickAttribution"] = {
        "state": "enabled",
        "settings": {
            "allowlist": [
                {"blocklistEntry": "adnet.example", "host": "convert.adnet.example"},
                {"blocklistEntry": "none.example", "host": "none.example"},
            ]
        },
    }
    dump(config, args.out)


def top_level_keys(args):
    """TDS variants (tds-unknown, tds-cpm, tds-cpm2, tds-cpm-key .json): an unknown top-level key, two cookie pop-up
    lists (the first with a malformed line), and a cpm object with an unknown key."""
    tds = load(args.tds)
    dump(dict(tds, futureKey={"x": 1}), "tds-unknown.json")
    cpm = "[Adblock Plus 2.0]\n###cpm-a\nsite.example##.cpm-b\nbad site!##.x\n"
    dump(dict(tds, cpm={"filterList": cpm}), "tds-cpm.json")
    dump(dict(tds, cpm={"filterList": "###cpm-a\nsite.example,other.example##.cpm-b\n##.cpm-c\n"}), "tds-cpm2.json")
    dump(dict(tds, cpm={"filterList": "##.x", "future": 1}), "tds-cpm-key.json")


def future_key(args):
    """The TDS with an unknown top-level key holding a rules array."""
    tds = load(args.tds)
    tds["futureKey"] = {"rules": []}
    dump(tds, args.out)


# Bodies that only a real JavaScript parser rejects, and one (html.js) that is valid but holds <!--, </script and
# U+2028.
BAD_BODIES = {
    "bad-assign.js": "var = ;",
    "bad-await.js": "await 1;",
    "bad-const.js": "const a = 1;\nconst a = 2;",
    "html.js": "var s = '<!--<script>'; // </script>\nwindow.ls = 'a\u2028b';",
}


def bad_surrogates(args):
    """b3-tds.json and b3-surrogates.txt: tracker.example gains a surrogate rule for each of BAD_BODIES, and the
    surrogates file their bodies after its own."""
    tds = load(args.tds)
    rules = tds["trackers"]["tracker.example"]["rules"]
    for name in BAD_BODIES:
        rules.insert(0, {"rule": "tracker\\.example\\/" + name.replace(".", "\\."), "surrogate": name})
    dump(tds, "b3-tds.json")
    with open(args.surrogates) as f:
        own = f.read()
    with open("b3-surrogates.txt", "w") as f:
        f.write(own.rstrip("\n") + "\n\n")
        for name, body in BAD_BODIES.items():
            f.write("tracker.example/%s application/javascript\n%s\n\n" % (name, body))


def duplicate_trackers(args):
    """The TDS text with a second, empty "trackers" member before its closing brace."""
    with open(args.tds) as f:
        text = f.read().rstrip()
    with open(args.out, "w") as f:
        f.write(text[:-1] + ', "trackers": {}}')


def long_key(args):
    """The TDS with a tracker whose key is 5,000,000 characters long."""
    tds = load(args.tds)
    tds["trackers"]["x" * 5000000] = {"domain": "x"}
    dump(tds, args.out)


def surrogate_cases(args):
    """The surrogate reference cases of domain_matching_tests.json as TSV on stdout: name, site, request URL, type,
    expected action."""
    for t in load(args.tests)["surrogateTests"]["tests"]:
        print("\t".join([t["name"], t["siteURL"], t["requestURL"], t["requestType"], t["expectAction"]]))


if __name__ == "__main__":
    subcommands.run(
        __doc__,
        [
            ("ad-click-config", ad_click_config, "config", "out"),
            ("top-level-keys", top_level_keys, "tds"),
            ("future-key", future_key, "tds", "out"),
            ("bad-surrogates", bad_surrogates, "tds", "surrogates"),
            ("duplicate-trackers", duplicate_trackers, "tds", "out"),
            ("long-key", long_key, "tds", "out"),
            ("surrogate-cases", surrogate_cases, "tests"),
        ],
    )
