#!/usr/bin/env python3
"""Package.swift's dependencies equal the imports: for every Swift target, the package targets its sources
import (`import X`, `@testable import X`) are exactly the ones it declares. A missing edge builds only by
luck (SwiftPM's build order); an unused one is a false line in the module picture.

Usage: scripts/check-deps.py [PACKAGE_DIR]   (exit 1 and one line a difference when they disagree)
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
manifest = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()
manifest = re.sub(r"//[^\n]*", "", manifest)

# .target(name: "X", dependencies: ["A", "B"], path: "...") and its kinds, in any argument order.
call = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*\"([^\"]+)\"")
targets = {}
for m in call.finditer(manifest):
    kind, name = m.group(1), m.group(2)
    depth, i = 1, m.end()
    while depth and i < len(manifest):
        depth += {"(": 1, ")": -1}.get(manifest[i], 0)
        i += 1
    args = manifest[m.end():i - 1]
    deps = re.search(r"dependencies:\s*\[([^\]]*)\]", args)
    path = re.search(r"path:\s*\"([^\"]+)\"", args)
    default = ("Tests/" if kind == "testTarget" else "Sources/") + name
    targets[name] = {
        "kind": kind,
        "deps": set(re.findall(r"\"([^\"]+)\"", deps.group(1))) if deps else set(),
        "path": os.path.join(root, path.group(1) if path else default),
    }

imp = re.compile(r"^\s*(?:@testable\s+|@_implementationOnly\s+)?import\s+(?:(?:struct|enum|class|func|protocol|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)
problems = []
for name, t in sorted(targets.items()):
    if t["kind"] == "systemLibrary":
        continue
    swift = []
    for d, _, files in os.walk(t["path"]):
        swift += [os.path.join(d, f) for f in files if f.endswith(".swift")]
    if not swift:
        continue  # a C target: its edges are #includes of system libraries, not imports
    imported = set()
    for f in swift:
        imported |= {m for m in imp.findall(open(f, encoding="utf-8").read()) if m in targets}
    for m in sorted(imported - t["deps"]):
        problems.append(f"{name}: imports {m}, which Package.swift does not declare")
    for m in sorted(t["deps"] - imported):
        problems.append(f"{name}: declares {m}, which none of its sources imports")

for p in problems:
    print(f"check-deps: {p}")
if problems:
    sys.exit(1)
print(f"check-deps: {sum(1 for t in targets.values() if t['kind'] != 'systemLibrary')} targets, dependencies equal the imports")
