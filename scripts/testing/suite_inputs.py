#!/usr/bin/env python3
"""Inputs the real-WebKit suite (scripts/test-webkit.sh) and the install check derive from a fixture: each
subcommand writes one variant of a dataset, config, rule list or release that a check needs.

usage: scripts/testing/suite_inputs.py COMMAND ARGS...   (COMMAND --help for each)
"""

import hashlib
import json
import re
import sys

import subcommands


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dump(value, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f)


def surrogate_rules(args):
    """tracker.example's rules gain two surrogate rules in front (bad.js, html.js: bodies the bundle must drop or
    neutralise)."""
    tds = load(args.tds)
    rules = tds["trackers"]["tracker.example"]["rules"]
    rules[:0] = [
        {"rule": "tracker\\.example\\/bad\\.js", "surrogate": "bad.js"},
        {"rule": "tracker\\.example\\/html\\.js", "surrogate": "html.js"},
    ]
    dump(tds, args.out)


def disable_feature(args):
    """The privacy config with one feature's state set to disabled."""
    config = load(args.config)
    config["features"][args.feature]["state"] = "disabled"
    dump(config, args.out)


def lines(args):
    """A JSON array of strings as one string a line (a reference test's user allowlist as --unprotected)."""
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(load(args.json)) + "\n")


# faithful's anchored site condition: ^[^:]+://([^/]*\.)?SITE[:/]  (SITE with escaped dots)
ANCHORED_SITE = re.compile(r"\^\[\^:\]\+://(\(\[\^/\]\*\\\.\)\?)?(.*)\[:/\]$")


def as_domains(args):
    """The rule list with its anchored if-top-url / unless-top-url conditions written as WebKit's if-domain /
    unless-domain (`*site` where the condition took subdomains)."""
    rules = load(args.rules)
    for rule in rules:
        trigger = rule["trigger"]
        for key, domains in (("if-top-url", "if-domain"), ("unless-top-url", "unless-domain")):
            if key in trigger:
                matches = [ANCHORED_SITE.match(u) for u in trigger.pop(key)]
                trigger[domains] = [("*" if m.group(1) else "") + m.group(2).replace("\\.", ".") for m in matches]
    dump(rules, args.out)


def cheap_compile_cost(args):
    """A release whose recorded WebKit compile cost took 100 times the CPU and next to no memory (edited in place):
    a newer list's real memory is then over any limit, its CPU time under it."""
    manifest = load(args.manifest)
    for cost in [manifest["webkitCompileCost"]] + manifest["webkitCompileCost"]["lists"]:
        cost["cpuSeconds"], cost["memoryKB"] = cost["cpuSeconds"] * 100, 1
    dump(manifest, args.manifest)


def rejected_list(args):
    """The release's list LIST (its manifest entry INDEX) gains a rule WebKit's compiler rejects (a disjunction,
    valid JSON) and a new identifier; the manifest's sha256 follows (edited in place)."""
    path = "%s/%s" % (args.release, args.list)
    with open(path, encoding="utf-8") as f:
        rules = f.read().rstrip()
    if not rules.endswith("]"):
        sys.exit("%s: not a JSON array" % path)
    rules = rules[:-1].rstrip() + ',\n{"trigger":{"url-filter":"(a|b)\\\\.example"},"action":{"type":"block"}}\n]\n'
    with open(path, "w", encoding="utf-8") as f:
        f.write(rules)
    manifest_path = args.release + "/manifest.json"
    manifest = load(manifest_path)
    entry = manifest["lists"][args.index]
    entry["identifier"] = entry["identifier"].rsplit("_", 1)[0] + "_" + args.suffix
    manifest["outputs"][args.list]["sha256"] = hashlib.sha256(rules.encode()).hexdigest()
    dump(manifest, manifest_path)


if __name__ == "__main__":
    subcommands.run(
        __doc__,
        [
            ("surrogate-rules", surrogate_rules, "tds", "out"),
            ("disable-feature", disable_feature, "config", "feature", "out"),
            ("lines", lines, "json", "out"),
            ("as-domains", as_domains, "rules", "out"),
            ("cheap-compile-cost", cheap_compile_cost, "manifest"),
            ("rejected-list", rejected_list, "release", "list", ("index", {"type": int}), "suffix"),
        ],
    )
