#!/usr/bin/env python3
"""What WebKit pays to compile radarblock's lists beside DuckDuckGo's (docs/compile-cost.md).

usage: webkit_compile_cost.py RADARBLOCK [WORKDIR]

For each shared iOS TDS (ios-tds_v5_2025-06-17, ios-tds_embedded_2025-02-17, ios-tds_v7_2024-07-12: Admiral's 888
tracker domains), without and with the iOS privacy config, and for the synthetic TDS of three rotating-domain
entities (gen_entity_tds.py 300,1000,3000 on the project's data/tds.json), makes the lists
  release              the default release's main lists, all together (`build`: a list per large entity),
  single-list          `convert` (the one-list form, `build --single-list`),
  faithful-unopt       `convert --no-optimize` (only when `convert --help` offers the flag; shared TDSs only),
  faithful-per-tracker `convert --per-tracker-exemptions` (v7 only: the same-entity encoding before the shared one),
  block-rules          the floor: the block rules of `convert` alone, what the list would cost with free exemptions,
  ddg                  `convert --mode ddg` (DuckDuckGo's TrackerRadarKit algorithm),
then compiles each with WebKitGTK RUNS times (default 3), the lists of one input alternating so that all see
the same machine load, and prints, per list, the median of: WebKit's in-process compile time (wall and CPU), its peak
memory (RSS rise over a one-rule list compiled the same way) and the size of the file in WebKit's store,
with ratios to ddg. A release of several lists is its lists' sums (time, CPU, size) and their highest peak memory.
How one compile is measured: webkit_measure.py.

Then the entity table: a TDS with one entity of N tracker domains, each also one of its sites (gen_entity_tds.py on
the project's data/tds.json), N = 0, 100, 300, 1000, 3000: default and ddg lists, RUNS compiles each, with WebKit's
compiled bytes per entity domain ((bytes(N) - bytes(0)) / N). ddg's list grows as N x N (N = 3000: 9 million
unless-domain entries, 200 MB of JSON), so it is compiled only up to DDG_MAX_N (default 1000).

Environment: SHARED (default ../shared beside the package), RUNS (default 3), SKIP_ENTITY_TABLE=1 leaves out the
entity table. Writes WORKDIR/webkit-compile-cost.json (default WORKDIR /tmp/radarblock-bench/webkit-compile-cost).
Without the shared data it prints SKIP and exits 0; a failed convert, build or compile exits 1.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys

import webkit_measure
from webkit_measure import Failed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "testing"))
import release_lists  # noqa: E402

TDS = [
    ("ios-tds_v5", "data/ddg/tds/ios-tds_v5_2025-06-17.json"),
    ("embedded TDS", "data/ddg/tds/ios-tds_embedded_2025-02-17.json"),
    ("ios-tds_v7", "data/ddg/tds/ios-tds_v7_2024-07-12.json"),
]
V7 = "ios-tds_v7"
ENTITY_SIZES = [0, 100, 300, 1000, 3000]
SYNTHETIC_SIZES = "300,1000,3000"
CONFIG = "data/ddg/privacy-config/ios-config_v4_embedded_2025-02-17.json"
GEN_ENTITY = os.path.join(ROOT, "scripts", "testing", "gen_entity_tds.py")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def has_no_optimize(rb):
    p = subprocess.run([rb, "convert", "--help"], capture_output=True, text=True)
    return "--no-optimize" in p.stdout


def list_kinds(rb):
    """(kind, how it is made): "convert" arguments, "build" (the default release's main lists) or "block-rules"."""
    kinds = [("release", ("build", [])), ("single-list", ("convert", []))]
    if has_no_optimize(rb):
        kinds.append(("faithful-unopt", ("convert", ["--no-optimize"])))
    kinds.append(("block-rules", ("block-rules", [])))
    kinds.append(("ddg", ("convert", ["--mode", "ddg"])))
    return kinds


def inputs(shared, work):
    """(label, input arguments, extra list kinds) of every shared TDS without and with the config, and the synthetic
    TDS of three rotating-domain entities."""
    out = []
    for label, tds in TDS:
        args = ["--tds", os.path.join(shared, tds)]
        extra = [("faithful-per-tracker", ("convert", ["--per-tracker-exemptions"]))] if label == V7 else []
        out.append((label, args, extra))
        out.append((label + " + iOS config", args + ["--config", os.path.join(shared, CONFIG)], extra))
    synthetic = os.path.join(work, "synthetic-entities.json")
    with open(synthetic, "w") as f:
        subprocess.run([sys.executable, GEN_ENTITY, SYNTHETIC_SIZES], stdout=f, check=True)
    out.append(("synthetic " + SYNTHETIC_SIZES, ["--tds", synthetic], []))
    return out


def run_checked(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Failed("radarblock %s failed (exit %d):\n%s" % (what, p.returncode, p.stderr.strip()))


def make_lists(rb, how, args, path):
    """The lists of one kind, written under `path`: their paths and counts (rules, distinct url-filters, bytes)."""
    tool, extra = how
    if tool == "build":
        shutil.rmtree(path, ignore_errors=True)
        run_checked([rb, "build"] + args + extra + ["--out", path, "--no-compile-cost"], "build " + " ".join(args))
        paths = release_lists.main_lists(path)
    else:
        run_checked([rb, "convert"] + args + extra + ["-o", path], "convert " + " ".join(args + extra))
        paths = [path]
        if tool == "block-rules":
            with open(path, encoding="utf-8") as f:
                blocks = [r for r in json.load(f) if r["action"]["type"] == "block"]
            with open(path, "w", encoding="utf-8") as f:
                json.dump(blocks, f)
    counts = {"rules": 0, "urlFilters": 0, "jsonBytes": 0, "paths": paths}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            rules = json.load(f)
        counts["rules"] += len(rules)
        counts["urlFilters"] += len({r["trigger"]["url-filter"] for r in rules})
        counts["jsonBytes"] += os.path.getsize(p)
    return counts


def compile_all(rb, paths, name, work):
    """One WebKit compile of each list: the sums of time, CPU, size and file sections, the highest peak RSS."""
    runs = [webkit_measure.webkit_compile(rb, p, "%s.%d" % (name, i), work) for i, p in enumerate(paths)]
    total = dict(runs[0])
    for key in ("processSeconds", "seconds", "cpuSeconds", "bytes"):
        total[key] = sum(r[key] for r in runs)
    total["rssKB"] = max(r["rssKB"] for r in runs)
    if all(r["sections"] for r in runs):
        total["sections"] = {k: sum(r["sections"][k] for r in runs) for k in webkit_measure.SECTIONS}
    return total


def summarize(runs, base_kb):
    cpu = [r["cpuSeconds"] for r in runs if r["cpuSeconds"] is not None]
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpuSeconds": statistics.median(cpu) if cpu else None,
        "secondsRange": [min(r["seconds"] for r in runs), max(r["seconds"] for r in runs)],
        "netRssKB": statistics.median(r["rssKB"] for r in runs) - base_kb,
        "peakRssKB": statistics.median(r["rssKB"] for r in runs),
        "bytes": runs[-1]["bytes"],
        "runs": runs,
    }


def measure_input(rb, work, label, args, kinds, runs, base_kb):
    slug = label.replace(" + iOS config", "-config").replace(" ", "-").replace(",", "").lower()
    lists = {}
    for kind, how in kinds:
        path = os.path.join(work, "%s.%s%s" % (slug, kind, "" if how[0] == "build" else ".json"))
        lists[kind] = make_lists(rb, how, args, path)
    for i in range(runs):  # alternating: every list sees the same machine load
        for kind, _ in kinds:
            log("  %s, %s: WebKit compile %d/%d" % (label, kind, i + 1, runs))
            lists[kind].setdefault("compiles", []).append(
                compile_all(rb, lists[kind]["paths"], "%s.%s" % (slug, kind), work)
            )
    for kind, _ in kinds:
        lists[kind]["webkit"] = summarize(lists[kind].pop("compiles"), base_kb)
    return {"input": label, "lists": lists}


def table(results):
    head = (
        "input",
        "list",
        "lists",
        "rules",
        "url-filters",
        "WebKit s (min-max)",
        "time x",
        "CPU s",
        "CPU x",
        "net MiB",
        "mem x",
        "file MB",
        "size x",
    )
    rows = []
    for res in results:
        ddg = res["lists"]["ddg"]["webkit"]
        for kind, entry in res["lists"].items():
            w = entry["webkit"]
            rows.append(
                (
                    res["input"],
                    kind,
                    len(entry["paths"]),
                    "{:,}".format(entry["rules"]),
                    "{:,}".format(entry["urlFilters"]),
                    "%.2f (%.2f-%.2f)" % (w["seconds"], w["secondsRange"][0], w["secondsRange"][1]),
                    "%.2f" % (w["seconds"] / ddg["seconds"]),
                    "%.2f" % w["cpuSeconds"] if w["cpuSeconds"] else "-",
                    "%.2f" % (w["cpuSeconds"] / ddg["cpuSeconds"]) if w["cpuSeconds"] and ddg["cpuSeconds"] else "-",
                    "%.0f" % (w["netRssKB"] / 1024.0),
                    "%.2f" % (w["netRssKB"] / ddg["netRssKB"]),
                    "%.2f" % (w["bytes"] / 1e6),
                    "%.2f" % (w["bytes"] / ddg["bytes"]),
                )
            )
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]

    def line(cells):
        return "  ".join(str(c).ljust(widths[i]) if i < 2 else str(c).rjust(widths[i]) for i, c in enumerate(cells))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def bytes_table(rows):
    """Where WebKit's file spends its bytes, from its header: rows of (input label, list kind, figures)."""
    head = (
        "input",
        "list",
        "file MB",
        "JSON source MB",
        "actions KB",
        "url-filter DFA MB",
        "top-URL DFA MB",
        "frame-URL KB",
    )
    out = []
    for label, kind, w in rows:
        sec = w["runs"][-1].get("sections")
        if not sec:
            continue
        out.append(
            (
                label,
                kind,
                "%.2f" % (w["bytes"] / 1e6),
                "%.2f" % (sec["source"] / 1e6),
                "%.1f" % (sec["actions"] / 1e3),
                "%.2f" % (sec["urlFilters"] / 1e6),
                "%.2f" % (sec["topURLFilters"] / 1e6),
                "%.1f" % (sec["frameURLFilters"] / 1e3),
            )
        )
    widths = [max(len(str(r[i])) for r in out + [head]) for i in range(len(head))]

    def line(cells):
        return "  ".join(str(c).ljust(widths[i]) if i < 2 else str(c).rjust(widths[i]) for i, c in enumerate(cells))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in out])


def entity_table(rb, work, kinds, runs, base_kb):
    """The entity of N domains: rows of (N, list kind, figures); ddg only up to DDG_MAX_N."""
    ddg_max = int(os.environ.get("DDG_MAX_N", "1000"))
    gen = GEN_ENTITY
    results = []
    for n in ENTITY_SIZES:
        tds = os.path.join(work, "entity-%d.json" % n)
        with open(tds, "w") as f:
            subprocess.run([sys.executable, gen, str(n)], stdout=f, check=True)
        chosen = [k for k in kinds if k[0] == "release" or (k[0] == "ddg" and n <= ddg_max)]
        results.append((n, measure_input(rb, work, "entity %d" % n, ["--tds", tds], chosen, runs, base_kb)))
    head = (
        "N",
        "list",
        "rules",
        "JSON MB",
        "CPU s",
        "WebKit s",
        "net MiB",
        "file MB",
        "file bytes / domain",
        "size x ddg",
        "CPU x ddg",
    )
    rows = []
    zero = {k: e["webkit"]["bytes"] for k, e in results[0][1]["lists"].items()}
    for n, res in results:
        ddg = res["lists"].get("ddg")
        for kind, e in res["lists"].items():
            w = e["webkit"]
            rows.append(
                (
                    f"{n:,}",
                    kind,
                    "{:,}".format(e["rules"]),
                    "%.2f" % (e["jsonBytes"] / 1e6),
                    "%.2f" % w["cpuSeconds"],
                    "%.2f" % w["seconds"],
                    "%.0f" % (w["netRssKB"] / 1024.0),
                    "%.2f" % (w["bytes"] / 1e6),
                    "{:,.0f}".format((w["bytes"] - zero[kind]) / n) if n else "-",
                    "%.2f" % (w["bytes"] / ddg["webkit"]["bytes"]) if ddg else "-",
                    "%.2f" % (w["cpuSeconds"] / ddg["webkit"]["cpuSeconds"]) if ddg else "-",
                )
            )
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]

    def line(cells):
        return "  ".join(str(c).ljust(widths[i]) if i == 1 else str(c).rjust(widths[i]) for i, c in enumerate(cells))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows]), results


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    rb = os.path.abspath(sys.argv[1])
    work = os.path.abspath(sys.argv[2] if len(sys.argv) == 3 else "/tmp/radarblock-bench/webkit-compile-cost")
    shared = os.environ.get("SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
    runs = int(os.environ.get("RUNS", "3"))
    missing = [p for _, p in TDS + [("", CONFIG)] if not os.path.exists(os.path.join(shared, p))]
    if missing:
        print("SKIP webkit compile cost: the shared data is not there (%s; set SHARED)" % ", ".join(missing))
        return 0
    os.makedirs(work, exist_ok=True)
    shutil.rmtree(os.path.join(work, "webkit-store"), ignore_errors=True)
    kinds = list_kinds(rb)
    base = webkit_measure.webkit_baseline(rb, work)
    results = []
    for label, args, extra in inputs(shared, work):
        chosen = [k for k in kinds if k[0] != "faithful-unopt" or not label.startswith("synthetic")]
        results.append(measure_input(rb, work, label, args, chosen[:-1] + extra + chosen[-1:], runs, base["rssKB"]))
    entities, entity_results = "(left out: SKIP_ENTITY_TABLE)", []
    if not os.environ.get("SKIP_ENTITY_TABLE"):
        entities, entity_results = entity_table(
            rb, work, [k for k in kinds if k[0] in ("release", "ddg")], runs, base["rssKB"]
        )
    print()
    print(
        "WebKit compile cost, WebKitGTK %s, %d alternating runs per list, medians; x = list / ddg of the same input"
        % (base["version"], runs)
    )
    print(
        "time: save() to its callback inside the process, wall (WebKit s) and CPU (CPU s);"
        " net MiB: peak RSS minus a one-rule list's (%.0f MiB);"
        " file: WebKit's store file" % (base["rssKB"] / 1024.0)
    )
    if not any(k == "faithful-unopt" for k, _ in kinds):
        print("(this radarblock has no convert --no-optimize: faithful only)")
    print("machine: %d CPUs, load average %.1f at the end" % (os.cpu_count(), os.getloadavg()[0]))
    print()
    print(table(results))
    print()
    print(
        "One entity of N tracker domains, each also its site (gen_entity_tds.py on data/tds.json);"
        " file bytes / domain ="
        " (file(N) - file(0)) / N"
    )
    print()
    print(entities)
    print()
    print("Where WebKit's file spends its bytes (its header's section sizes)")
    print()
    print(
        bytes_table(
            [
                (res["input"], kind, e["webkit"])
                for res in results + [r for _, r in entity_results]
                for kind, e in res["lists"].items()
            ]
        )
    )
    with open(os.path.join(work, "webkit-compile-cost.json"), "w") as f:
        json.dump(
            {
                "webkitVersion": base["version"],
                "baselineRssKB": base["rssKB"],
                "runs": runs,
                "results": results,
                "entity": [{"n": n, "result": r} for n, r in entity_results],
            },
            f,
            indent=1,
            sort_keys=True,
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as e:
        log("webkit compile cost: " + str(e))
        sys.exit(1)
