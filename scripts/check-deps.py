#!/usr/bin/env python3
"""Package.swift's dependencies equal the imports: for every Swift target, the package targets its sources
import (`import X`, `@testable import X`) are exactly the ones it declares. A missing edge builds only by
luck (SwiftPM's build order); an unused one is a false line in the module picture.

docs/architecture.md's module graph must list the same edges.

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
    args = manifest[m.end() : i - 1]
    deps = re.search(r"dependencies:\s*\[([^\]]*)\]", args)
    path = re.search(r"path:\s*\"([^\"]+)\"", args)
    default = ("Tests/" if kind == "testTarget" else "Sources/") + name
    targets[name] = {
        "kind": kind,
        "deps": set(re.findall(r"\"([^\"]+)\"", deps.group(1))) if deps else set(),
        "path": os.path.join(root, path.group(1) if path else default),
    }

imp = re.compile(
    r"^\s*(?:@testable\s+|@_implementationOnly\s+)?import\s+(?:(?:struct|enum|class|func|protocol|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
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

# docs/architecture.md's module graph (after the module-graph marker, one fenced block of "Name ← A, B" lines,
# continued on indented lines) is Package.swift's: every target but the tests and the system libraries.
readme = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
marker = readme.find("<!-- module-graph")
if marker < 0:
    problems.append("docs/architecture.md: no module-graph block")
else:
    block = readme[marker:].split("```")[1].removeprefix("text")
    graph, last = {}, None
    for line in block.strip("\n").split("\n"):
        if "←" in line:
            last, deps = (x.strip() for x in line.split("←", 1))
            graph[last] = set()
        elif last is None or not line.startswith(" "):
            problems.append(f"docs/architecture.md module graph: cannot read {line!r}")
            continue
        else:
            deps = line
        graph[last] |= {d.strip() for d in deps.split(",") if d.strip() not in ("", "—")}
    wanted = {n: t["deps"] for n, t in targets.items() if t["kind"] in ("target", "executableTarget")}
    for n in sorted(set(wanted) - set(graph)):
        problems.append(f"docs/architecture.md module graph: {n} is missing")
    for n in sorted(set(graph) - set(wanted)):
        problems.append(f"docs/architecture.md module graph: {n} is not a target of Package.swift")
    for n in sorted(set(graph) & set(wanted)):
        for d in sorted(wanted[n] - graph[n]):
            problems.append(f"docs/architecture.md module graph: {n} depends on {d} (Package.swift), not shown")
        for d in sorted(graph[n] - wanted[n]):
            problems.append(f"docs/architecture.md module graph: {n} shows {d}, which Package.swift does not declare")

for p in problems:
    print(f"check-deps: {p}")
if problems:
    sys.exit(1)
print(
    f"check-deps: {sum(1 for t in targets.values() if t['kind'] != 'systemLibrary')} targets,"
    " dependencies equal the imports and docs/architecture.md's module graph"
)
