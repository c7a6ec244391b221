#!/usr/bin/env python3
"""Checks of what radarblock wrote (a release's manifest, a diff report, a rule list, an install store's state) for
the real-WebKit suite (scripts/test-webkit.sh) and the install check: each subcommand prints what it found and
exits 1 when it is not what the check expects.

usage: scripts/testing/release_checks.py COMMAND ARGS...   (COMMAND --help for each)
"""

import json
import sys

import subcommands


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def rule_count(args):
    """The number of rules of a rule list."""
    print(len(load(args.rules)))


def total_rules(args):
    """The release's rule count (its manifest's counts.rules)."""
    print(int(load(args.manifest)["counts"]["rules"]))


def webkit_compile(args):
    """WebKit's time and compiled size from `webkit-check compile`'s JSON line (stdin)."""
    result = json.load(sys.stdin)
    print("%.2f s, %d bytes compiled" % (result["seconds"], result["bytes"]))


def release_id(args):
    """The release's identifier (its manifest's)."""
    print(load(args.manifest)["identifier"])


def list_ids(args):
    """The identifiers of a release's lists, in the manifest's order."""
    print(" ".join(entry["identifier"] for entry in load(args.manifest)["lists"]))


def state_ids(args):
    """The identifiers an install store's state (radarblock-install.json) records, release by release."""
    state = load(args.state)
    print(" ".join(entry["identifier"] for release in state["releases"] for entry in release["lists"]))


def state_compile_seconds(args):
    """The compile seconds an install store's state records for the lists of its first release."""
    print([entry["compileSeconds"] for entry in load(args.state)["releases"][0]["lists"]])


def ctl_lists(args):
    """The manifest's click-to-load lists (their ruleAction) are exactly EXPECTED (comma-separated)."""
    ctl = sorted(entry["ruleAction"] for entry in load(args.manifest)["lists"] if "ruleAction" in entry)
    print("click-to-load lists in the manifest: %s" % ", ".join(ctl))
    return bool(ctl == args.expected.split(","))


def same_decisions(args):
    """A diff (--format json) of two splits of the same rules: more than MIN requests checked, none decided
    differently."""
    requests = load(args.diff)["requests"]
    checked, changed = requests["checked"], len(requests["changed"])
    print("split into 150k and 100k lists: %d requests checked, %d decided differently" % (checked, changed))
    return bool(checked > args.min and changed == 0)


def tracker_changes(args):
    """A diff (--format json): trackers added/removed/changed are EXPECTED (a/r/c), some requests flipped, and
    every flip names its deciding rule."""
    diff = load(args.diff)
    trackers, requests = diff["trackers"], diff["requests"]
    counts = (len(trackers["added"]), len(trackers["removed"]), len(trackers["changed"]))
    flips = requests["changed"]
    print(
        "trackers added/removed/changed: %d/%d/%d; requests checked %d, flipped %d"
        % (counts + (requests["checked"], len(flips)))
    )
    named = sum(1 for flip in flips if flip["rule"])
    print("flips naming the deciding rule: %d of %d" % (named, len(flips)))
    return bool(counts == tuple(int(n) for n in args.expected.split("/")) and flips and named == len(flips))


def webkit_verification(args):
    """build --verify-webkit: the manifest names a WebKitGTK version and WebKit accepted each of its LISTS lists."""
    manifest = load(args.manifest)
    verification = manifest.get("webkitVerification") or {}
    names = [entry["rules"] for entry in manifest["lists"]]
    accepted = [a["list"] for a in verification.get("accepted", [])]
    print(
        "webkitVerification: WebKitGTK %s accepted %s of lists %s"
        % (verification.get("webkitVersion"), accepted, names)
    )
    return bool(len(names) == args.lists and accepted == names and verification.get("webkitVersion"))


def compile_cost(args):
    """build --previous: the manifest records WebKit's compile cost of the one list rules.json (version, CPU time,
    memory, bytes) and changes.md has its section."""
    manifest = load(args.release + "/manifest.json")
    cost = manifest.get("webkitCompileCost") or {}
    with open(args.release + "/changes.md", encoding="utf-8") as f:
        changes = f.read()
    print(
        "webkitCompileCost: WebKitGTK %s, %s s (%s s CPU), %s KiB, %s bytes"
        % (
            cost.get("webkitVersion"),
            cost.get("seconds"),
            cost.get("cpuSeconds"),
            cost.get("memoryKB"),
            cost.get("bytes"),
        )
    )
    ok = (
        cost.get("webkitVersion")
        and cost.get("cpuSeconds", 0) > 0
        and cost.get("memoryKB", 0) > 0
        and cost.get("bytes", 0) > 0
        and [entry["list"] for entry in cost["lists"]] == ["rules.json"]
    )
    return bool(ok and "## WebKit compile cost" in changes)


def failed_cases(args):
    """A `webkit-check reference --report` report failed exactly the cases named (--name, repeatable)."""
    failed = sorted(r["name"] for r in load(args.report)["results"] if not r["passed"])
    print("if-domain fails:", failed)
    return bool(failed == sorted(args.name))


if __name__ == "__main__":
    subcommands.run(
        __doc__,
        [
            ("rule-count", rule_count, "rules"),
            ("total-rules", total_rules, "manifest"),
            ("webkit-compile", webkit_compile),
            ("release-id", release_id, "manifest"),
            ("list-ids", list_ids, "manifest"),
            ("state-ids", state_ids, "state"),
            ("state-compile-seconds", state_compile_seconds, "state"),
            ("ctl-lists", ctl_lists, "manifest", "expected"),
            ("same-decisions", same_decisions, "diff", ("--min", {"type": int, "required": True})),
            ("tracker-changes", tracker_changes, "diff", "expected"),
            ("webkit-verification", webkit_verification, "manifest", ("--lists", {"type": int, "required": True})),
            ("compile-cost", compile_cost, "release"),
            ("failed-cases", failed_cases, "report", ("--name", {"action": "append", "default": []})),
        ],
    )
