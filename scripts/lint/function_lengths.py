#!/usr/bin/env python3
"""The longest Swift functions of a tree: a declaration (func, init, deinit, subscript) from its first line to its
closing brace. Prints the N longest ("LINES FILE:LINE NAME"); with --max L, exits 1 when one is longer than L lines.
String literals and // comments are skipped when braces are counted; multi-line string literals hold no braces in
this tree's sources, which the check would otherwise miscount (it then reports a long function, never hides one).

usage: scripts/lint/function_lengths.py DIR... [--top N] [--max L]
"""

import os
import re
import sys

DECL = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|override|"
    r"mutating|nonmutating|nonisolated|final|class|convenience|required|@inlinable|@usableFromInline)"
    r"(?:\([^)]*\))?\s+)*(func\s+[^\s(<]+|init[?!]?|deinit|subscript)"
)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def lengths(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            code = STRING.sub('""', lines[j]).split("//")[0]
            for c in code:
                if c == "{":
                    depth, started = depth + 1, True
                elif c == "}":
                    depth -= 1
            if started and depth <= 0:
                yield j - i + 1, i + 1, m.group(1)
                break
            if not started and j > i + 20:  # a protocol requirement: no body
                break


def main(argv):
    top, limit, dirs = 5, None, []
    it = iter(argv)
    for a in it:
        if a == "--top":
            top = int(next(it))
        elif a == "--max":
            limit = int(next(it))
        else:
            dirs.append(a)
    if not dirs:
        sys.exit(__doc__)
    found = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".swift"):
                    p = os.path.join(root, f)
                    found += [(n, p, line, name) for n, line, name in lengths(p)]
    found.sort(key=lambda x: (-x[0], x[1], x[2]))
    for n, p, line, name in found[:top]:
        print("%4d %s:%d %s" % (n, p, line, name))
    over = [x for x in found if limit is not None and x[0] > limit]
    if over:
        print("function_lengths: %d function(s) over %d lines" % (len(over), limit), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
