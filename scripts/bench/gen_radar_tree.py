#!/usr/bin/env python3
"""A synthetic Tracker Radar tree for scripts/bench/radar.sh: SAMPLE's US domain files replicated to N files named
syn<i>-<original>.example (the domain and its escaped form rewritten inside each file, so its rules still belong to
it), and SAMPLE's entity files. OUT must not exist.

usage: gen_radar_tree.py SAMPLE OUT N
"""

import os
import shutil
import sys


def escaped(domain):
    """DOMAIN as it appears escaped inside a JSON string (a\\\\.com in the file's text)."""
    return domain.replace(".", "\\\\.")


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.split("\n\n")[-1])
    sample, out, n = argv[1], argv[2], int(argv[3])
    src = os.path.join(sample, "domains", "US")
    files = sorted(f for f in os.listdir(src) if f.endswith(".json"))
    texts = []
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            texts.append((f[:-5], fh.read()))
    dst = os.path.join(out, "domains", "US")
    os.makedirs(dst)
    shutil.copytree(os.path.join(sample, "entities"), os.path.join(out, "entities"))
    for i in range(n):
        orig, text = texts[i % len(texts)]
        new = "syn%d-%s.example" % (i, orig.replace(".", "-"))
        body = text.replace(escaped(orig), escaped(new)).replace('"%s"' % orig, '"%s"' % new)
        with open(os.path.join(dst, new + ".json"), "w", encoding="utf-8") as fh:
            fh.write(body)


if __name__ == "__main__":
    main(sys.argv)
