#!/usr/bin/env python3
"""The package modules the fuzz targets need, in build order, as Package.swift declares them (so Fuzz/build.sh
keeps no copy of the module graph).

Reads `swift package describe --type json` (a file, or - for stdin), takes the modules that Fuzz/targets/*.swift
and Fuzz/Support.swift import, adds everything they depend on, and prints one line per module, dependencies
first: `KIND NAME PATH`, KIND being swift, c (a C target SwiftPM compiles) or system (a system-library module
map). PATH is relative to the package root.

usage: Fuzz/modules.py DESCRIBE_JSON
"""

import glob
import json
import os
import re
import sys

KINDS = {"SwiftTarget": "swift", "ClangTarget": "c", "SystemLibraryTarget": "system"}
IMPORT = re.compile(r"^\s*(?:@testable\s+)?import\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def fuzz_imports(root):
    files = glob.glob(os.path.join(root, "Fuzz", "targets", "*.swift")) + [os.path.join(root, "Fuzz", "Support.swift")]
    names = set()
    for path in files:
        with open(path, encoding="utf-8") as f:
            names |= set(IMPORT.findall(f.read()))
    return names


def build_order(targets, roots):
    """Depth-first, dependencies before dependents; ties in the order Package.swift's describe lists them."""
    order, seen = [], set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        for dep in targets[name].get("target_dependencies") or []:
            visit(dep)
        order.append(name)

    for name in sorted(roots):
        visit(name)
    return order


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: Fuzz/modules.py DESCRIBE_JSON")
    with open(0 if argv[1] == "-" else argv[1], encoding="utf-8") as f:
        package = json.load(f)
    targets = {t["name"]: t for t in package["targets"] if t.get("type") in ("library", "system-target")}
    roots = {name for name in fuzz_imports(package["path"]) if name in targets}
    for name in build_order(targets, roots):
        t = targets[name]
        kind = KINDS.get(t["module_type"])
        if kind is None:
            sys.exit("Fuzz/modules.py: %s is a %s, which Fuzz/build.sh cannot build" % (name, t["module_type"]))
        print(kind, name, t["path"])


if __name__ == "__main__":
    main(sys.argv)
