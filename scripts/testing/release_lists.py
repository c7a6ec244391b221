"""The lists of a radarblock release, as its manifest names them (shared by the checkers and benchmarks)."""

import json
import os


def main_entries(release):
    """The manifest entries of the release's main lists (its primary target's), in manifest order."""
    with open(os.path.join(release, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    primary = manifest["targets"][0]
    return [e for e in manifest["lists"] if e["role"] == "main" and e["target"] == primary]


def main_lists(release):
    """The paths of the release's main lists (its primary target's), in manifest order."""
    return [os.path.join(release, e["rules"]) for e in main_entries(release)]


def rule_lists(path):
    """The parsed main lists of a release directory, or the one list of a rules JSON file."""
    paths = main_lists(path) if os.path.isdir(path) else [path]
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            out.append(json.load(f))
    return out
