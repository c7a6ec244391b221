#!/usr/bin/env python3
"""Where WebKit's content-rule compiler spends its time on one list (docs/compile-cost.md, "Method").

usage: webkit_profile.py RADARBLOCK RULES.json [WORKDIR] [--depth N] [--hz N]

Runs `RADARBLOCK compile RULES.json --engine webkit` under `perf record --call-graph dwarf` and prints the call
tree of WebKit's compile thread: each node with its share of that thread's samples and the time span (seconds
from the thread's first sample) in which it was seen. Debian's libwebkitgtk is stripped, so functions of it are
named by their start address (wk+<hex>, from the library's .eh_frame ranges); the compiler's phases run one after
the other (ContentExtensionCompiler.cpp), so the spans tell them apart: rule parsing first, then the url-filter
automata, then the top-URL (domain-condition) automata. Needs perf and readelf (binutils).
"""

import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile


def fail(message):
    sys.exit("webkit_profile: " + message)


def function_ranges(library):
    """Sorted (start, end) of every function of the library, from its unwind table."""
    out = subprocess.run(["readelf", "--debug-dump=frames", library], capture_output=True, text=True).stdout
    ranges = sorted({(int(a, 16), int(b, 16)) for a, b in re.findall(r"pc=([0-9a-f]+)\.\.([0-9a-f]+)", out)})
    if not ranges:
        fail("no unwind ranges in %s" % library)
    return ranges


WEBKIT = "wk+"  # a function of libwebkitgtk, by its start address


def frame_name(ranges, starts, address, symbol, dso):
    if "libwebkitgtk" in dso:
        i = bisect.bisect_right(starts, address) - 1
        return WEBKIT + ("%x" % ranges[i][0] if i >= 0 and address < ranges[i][1] else "?%x" % address)
    return (symbol if symbol != "[unknown]" else "%x" % address) + "@" + os.path.basename(dso.strip("()"))


def samples_by_thread(script_text, ranges):
    """{tid: [(time, [frames root first])]} from `perf script -F tid,time,ip,sym,dso`."""
    starts = [a for a, _ in ranges]
    threads = collections.defaultdict(list)
    current = None
    for line in script_text.splitlines():
        if not line.strip():
            continue
        if not line.startswith("\t"):
            tid, t = line.split()[:2]
            current = (float(t.rstrip(":")), [])
            threads[tid].append(current)
            continue
        parts = line.split(None, 2)
        if len(parts) == 3:
            current[1].append(frame_name(ranges, starts, int(parts[0], 16), parts[1], parts[2]))
    return {tid: [(t, frames[::-1]) for t, frames in s] for tid, s in threads.items()}


def compile_thread(threads):
    """The thread with the most samples in WebKit: its compile thread (the main thread only waits)."""

    def webkit_samples(s):
        return sum(1 for _, frames in s if any(f.startswith(WEBKIT) for f in frames))

    return max(threads.values(), key=webkit_samples)


def tree(samples, depth):
    """{path: [count, first, last]} over paths from the first WebKit frame, `depth` frames deep."""
    t0 = min(t for t, _ in samples)
    nodes = collections.defaultdict(lambda: [0, float("inf"), 0.0])
    for t, frames in samples:
        k = next((i for i, f in enumerate(frames) if f.startswith(WEBKIT)), len(frames))
        path = tuple(frames[k : k + depth])
        for d in range(1, len(path) + 1):
            node = nodes[path[:d]]
            node[0] += 1
            node[1] = min(node[1], t - t0)
            node[2] = max(node[2], t - t0)
    return nodes


def print_tree(nodes, total, prefix=(), min_share=0.01):
    kids = sorted(
        (p for p in nodes if len(p) == len(prefix) + 1 and p[: len(prefix)] == prefix), key=lambda p: nodes[p][1]
    )
    for p in kids:
        count, first, last = nodes[p]
        if count / total < min_share:
            continue
        print("%s%s %5.1f%%  t=%.2f..%.2f s" % ("  " * len(prefix), p[-1], 100.0 * count / total, first, last))
        print_tree(nodes, total, p, min_share)


def main():
    args = sys.argv[1:]
    opts = {"--depth": 6, "--hz": 499}
    for flag in list(opts):
        if flag in args:
            i = args.index(flag)
            opts[flag] = int(args[i + 1])
            del args[i : i + 2]
    if len(args) not in (2, 3) or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    rb, rules = os.path.abspath(args[0]), os.path.abspath(args[1])
    work = args[2] if len(args) == 3 else tempfile.mkdtemp(prefix="radarblock-wkprofile-")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "perf.data")
    p = subprocess.run(
        [
            "perf",
            "record",
            "-F",
            str(opts["--hz"]),
            "--call-graph",
            "dwarf,32768",
            "-o",
            data,
            "--",
            rb,
            "compile",
            rules,
            "--engine",
            "webkit",
            "-o",
            os.path.join(work, "store"),
            "--name",
            "profile",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        fail("perf record failed:\n" + p.stderr.strip())
    print(p.stdout.strip())  # radarblock's report of the compile (compile --format json)
    maps = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events"], capture_output=True, text=True).stdout
    library = next((m for m in re.findall(r"(/\S*libwebkitgtk[^\s]*\.so[^\s]*)", maps)), None)
    if not library:
        fail("WebKitGTK does not appear in the profile")
    script = subprocess.run(
        ["perf", "script", "-i", data, "-F", "tid,time,ip,sym,dso"], capture_output=True, text=True
    ).stdout
    samples = compile_thread(samples_by_thread(script, function_ranges(library)))
    print("%s: %d samples of the compile thread" % (os.path.basename(library), len(samples)))
    print_tree(tree(samples, opts["--depth"]), len(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
