#!/usr/bin/env python3
"""radarblock's compile and match benchmarks, measured side by side with WebKit in one run.

usage: run.py RADARBLOCK RADARBLOCK_BENCH WORKDIR

Called by scripts/bench.sh (which builds the binaries and checks the tools). Environment:
  SHARED             the shared data folder (default ../shared beside the package)
  BENCH_SIZES        synthetic list sizes (default "1000 10000 50000 149999")
  BENCH_REPEAT       compiles per list and engine, best time kept (default 3; 1 for lists over 50,000 rules)
  BENCH_REQUESTS     request lines for the end-to-end match run (default 1000000)
  BENCH_MEMORY_REQUESTS  requests decoded up front for the in-memory run (default 200000)
  BENCH_STRICT=1     exit 1 when a goal of the issue is missed (default: report only)

Every compile is a separate process timed by /usr/bin/time (wall seconds, peak RSS). WebKit compiles
in-process (no helper process) through `radarblock compile --engine webkit`, which also reports WebKit's
own save-to-callback time; its memory baseline is the same command on a one-rule list (library
loaded, store created, next to nothing compiled). Ratios are ours / WebKit's, so below 1 means radarblock wins.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import time

import webkit_measure
from webkit_measure import Failed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def timed(cmd, stdout=subprocess.DEVNULL, stdin=None):
    return webkit_measure.timed(cmd, os.path.join(WORK, ".time"), stdout, stdin)


def ours_compile(rules, name):
    out = os.path.join(WORK, name + ".rbc")
    wall, rss, _ = timed([RB, "compile", rules, "-o", out, "--name", name])
    return {"seconds": wall, "rssKB": rss, "bytes": os.path.getsize(out), "file": out}


def webkit_compile(rules, name):
    return webkit_measure.webkit_compile(RB, rules, name, WORK)


def best(runs, key):
    return min(r[key] for r in runs)


def measure_list(label, rules, name, repeat):
    n = len(json.load(open(rules, encoding="utf-8")))
    size = os.path.getsize(rules)
    ours, wk = [], []
    for i in range(repeat):  # interleaved, so both engines see the same machine load
        log("  %s: radarblock compile (%d/%d)" % (label, i + 1, repeat))
        ours.append(ours_compile(rules, name))
        log("  %s: WebKit compile (%d/%d)" % (label, i + 1, repeat))
        wk.append(webkit_compile(rules, name))
    return {
        "label": label,
        "rules": n,
        "jsonBytes": size,
        "repeat": repeat,
        "ours": {
            "seconds": best(ours, "seconds"),
            "rssKB": best(ours, "rssKB"),
            "bytes": ours[-1]["bytes"],
            "file": ours[-1]["file"],
        },
        "webkit": {
            "seconds": best(wk, "seconds"),
            "processSeconds": best(wk, "processSeconds"),
            "rssKB": best(wk, "rssKB"),
            "bytes": wk[-1]["bytes"],
            "version": wk[-1]["version"],
        },
    }


def mib(kb):
    return kb / 1024.0


def fmt_bytes(b):
    return "%.2f MB" % (b / 1e6) if b >= 1e5 else "%d B" % b


def ios_rules():
    """The shared iOS TDS converted in ddg mode: by radarblock convert, else DuckDuckGo's own output."""
    tds = os.path.join(SHARED, "data/ddg/tds/ios-tds_v5_2025-06-17.json")
    out = os.path.join(WORK, "ios-tds-ddg.json")
    if os.path.exists(tds):
        p = subprocess.run(
            [RB, "convert", "--mode", "ddg", "--tds", tds, "-o", out],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if p.returncode == 0:
            return out, "radarblock convert --mode ddg --tds ios-tds_v5_2025-06-17.json"
        log("bench: radarblock convert failed, using TrackerRadarKit's conversion instead:\n" + p.stderr.strip())
    gz = os.path.join(SHARED, "data/ddg/trackerradarkit-output/ios-tds_v5.noconfig.trk-rules.json.gz")
    if not os.path.exists(gz):
        raise Failed("the shared iOS TDS is not at %s (set SHARED)" % tds)
    import gzip

    with gzip.open(gz, "rb") as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out, "TrackerRadarKit's ddg conversion (ios-tds_v5.noconfig.trk-rules.json.gz)"


def exponent(a, b):
    """Growth exponent of time between two list sizes: 1 = linear."""
    return math.log(b["ours"]["seconds"] / a["ours"]["seconds"]) / math.log(b["rules"] / a["rules"]), math.log(
        b["webkit"]["seconds"] / a["webkit"]["seconds"]
    ) / math.log(b["rules"] / a["rules"])


def main():
    global RB, BENCH, WORK, SHARED
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    RB, BENCH, WORK = (os.path.abspath(a) for a in sys.argv[1:])
    SHARED = os.environ.get("SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
    sizes = [int(s) for s in os.environ.get("BENCH_SIZES", "1000 10000 50000 149999").split()]
    repeat = int(os.environ.get("BENCH_REPEAT", "3"))
    n_requests = int(os.environ.get("BENCH_REQUESTS", "1000000"))
    n_memory = int(os.environ.get("BENCH_MEMORY_REQUESTS", "200000"))
    os.makedirs(WORK, exist_ok=True)
    shutil.rmtree(os.path.join(WORK, "webkit-store"), ignore_errors=True)
    started = time.time()

    # Baseline of each engine's process: everything but a real compile (WebKit refuses an empty list,
    # so the list has one rule that can never match a web URL).
    trivial = webkit_measure.baseline_list(WORK)
    base = min((webkit_compile(trivial, "baseline") for _ in range(3)), key=lambda r: r["rssKB"])
    ours_base = min((ours_compile(trivial, "baseline") for _ in range(3)), key=lambda r: r["rssKB"])

    ios_path, ios_source = ios_rules()
    log("bench: iOS TDS list from %s" % ios_source)
    results = [measure_list("iOS TDS (ddg)", ios_path, "ios-tds-ddg", repeat)]
    for n in sizes:
        path = os.path.join(WORK, "synthetic-%d.json" % n)
        if not os.path.exists(path):
            log("bench: generating %d synthetic rules" % n)
            subprocess.run(
                [sys.executable, os.path.join(HERE, "gen_rules.py"), str(n), path, "--seed", "1"], check=True
            )
        results.append(measure_list("synthetic %d" % n, path, "synthetic-%d" % n, repeat if n <= 50000 else 1))

    # Matching against the compiled iOS list.
    ios_rbc = results[0]["ours"]["file"]
    requests = os.path.join(WORK, "requests-%d.jsonl" % n_requests)
    if not os.path.exists(requests):
        log("bench: generating %d requests" % n_requests)
        subprocess.run(
            [sys.executable, os.path.join(HERE, "gen_requests.py"), ios_path, str(n_requests), requests, "--seed", "1"],
            check=True,
        )
    answers = os.path.join(WORK, "answers.jsonl")
    log("bench: match end to end (%d requests)" % n_requests)
    e2e = []
    for _ in range(min(repeat, 2)):
        with open(answers, "wb") as out:
            wall, rss, _ = timed([RB, "match", ios_rbc, "--requests", requests], stdout=out)
        e2e.append((wall, rss))
    e2e_wall, e2e_rss = min(e2e)
    with open(answers, "rb") as f:
        answered = sum(1 for _ in f)
    if answered != n_requests:
        raise Failed("match answered %d lines for %d requests" % (answered, n_requests))
    with open(answers, "rb") as f:
        answer_lines = f.read().split(b"\n")
    errors = sum(1 for answer in answer_lines if answer.startswith(b'{"error"'))
    blocked = sum(1 for answer in answer_lines if b'"block"' in answer)

    memory_requests = os.path.join(WORK, "requests-memory-%d.jsonl" % n_memory)
    with open(requests, "rb") as src, open(memory_requests, "wb") as dst:
        for i, line in enumerate(src):
            if i >= n_memory:
                break
            dst.write(line)
    log("bench: match in memory (%d requests, one thread)" % n_memory)
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    p = subprocess.run(
        pin + [BENCH, "match", ios_rbc, memory_requests, "--min-seconds", "3"], capture_output=True, text=True
    )
    if p.returncode != 0:
        raise Failed("radarblock-bench match failed:\n" + p.stderr)
    mem = json.loads(p.stdout)

    # ---- report ----
    wkver = results[0]["webkit"]["version"]
    print()
    print("radarblock compile vs WebKitGTK %s (WebKitUserContentFilterStore), same machine, same run" % wkver)
    print("iOS list: %s" % ios_source)
    print(
        "best of %d runs per list (1 for lists over 50,000 rules); machine: %d CPUs, load average %.1f at start"
        % (repeat, os.cpu_count(), os.getloadavg()[0])
    )
    print("WebKit time = its save() call to completion inside the process; process time adds loading WebKitGTK.")
    print("ours s = the whole radarblock compile process (start, read, compile, write). x = ours / WebKit's.")
    print(
        "Peak RSS = whole process (/usr/bin/time). WebKit baseline (library + store, a one-rule list): %.0f MiB;"
        " radarblock baseline: %.0f MiB" % (mib(base["rssKB"]), mib(ours_base["rssKB"]))
    )
    print()
    head = (
        "list",
        "rules",
        "JSON",
        "ours s",
        "WebKit s",
        "time x",
        "WK proc s",
        "ours RSS",
        "WK RSS",
        "WK net",
        "RSS x",
        "ours file",
        "WK file",
        "size x",
    )
    rows = []
    for r in results:
        o, w = r["ours"], r["webkit"]
        net = w["rssKB"] - base["rssKB"]
        rows.append(
            (
                r["label"],
                "%d" % r["rules"],
                fmt_bytes(r["jsonBytes"]),
                "%.3f" % o["seconds"],
                "%.3f" % w["seconds"],
                "%.3f" % (o["seconds"] / w["seconds"]),
                "%.2f" % w["processSeconds"],
                "%.0f MiB" % mib(o["rssKB"]),
                "%.0f MiB" % mib(w["rssKB"]),
                "%.0f MiB" % mib(net),
                "%.2f" % (o["rssKB"] / w["rssKB"]),
                fmt_bytes(o["bytes"]),
                fmt_bytes(w["bytes"]),
                "%.2f" % (o["bytes"] / w["bytes"]),
            )
        )
    widths = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]

    def line(cells):
        return "  ".join(str(c).rjust(widths[i]) if i else str(c).ljust(widths[i]) for i, c in enumerate(cells))

    print(line(head))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))

    synth = results[1:]
    print()
    print("Compile time per rule (µs) and growth exponent from the previous size (1.0 = linear):")
    for i, r in enumerate(synth):
        per_o = r["ours"]["seconds"] / r["rules"] * 1e6
        per_w = r["webkit"]["seconds"] / r["rules"] * 1e6
        ex = "" if i == 0 else "   exponent ours %.2f, WebKit %.2f" % exponent(synth[i - 1], r)
        print("  %-18s ours %7.1f µs/rule   WebKit %7.1f µs/rule%s" % (r["label"], per_o, per_w, ex))

    e2e_rate = n_requests / e2e_wall
    print()
    print(
        "Matching against the compiled iOS list (%s, %d bytes):"
        % (os.path.basename(ios_rbc), results[0]["ours"]["bytes"])
    )
    print(
        "  end to end  radarblock match --requests: %d requests in %.2f s = %s requests/s (peak RSS %.0f MiB;"
        " %d answers with block, %d error lines; includes process start, loading the .rbc, JSONL in and out)"
        % (n_requests, e2e_wall, format(int(e2e_rate), ","), mib(e2e_rss), blocked, errors)
    )
    print(
        "  in memory   one thread%s: match %s loads/s; resolve + match %s requests/s"
        " (%d requests, %d rounds, %.1f%% with actions)"
        % (
            " (taskset -c 0)" if pin else "",
            format(int(mem["matchPerSecond"]), ","),
            format(int(mem["resolveAndMatchPerSecond"]), ","),
            mem["requests"],
            mem["rounds"],
            100 * mem["shareWithActions"],
        )
    )

    ios = results[0]
    goals = [
        (
            "iOS compile time <= 0.5x WebKit (goal 0.1x)",
            ios["ours"]["seconds"] <= 0.5 * ios["webkit"]["seconds"],
            "%.3fx" % (ios["ours"]["seconds"] / ios["webkit"]["seconds"]),
        ),
        (
            "iOS peak memory below WebKit's",
            ios["ours"]["rssKB"] < ios["webkit"]["rssKB"],
            "%.0f vs %.0f MiB (WebKit net of baseline: %.0f MiB)"
            % (mib(ios["ours"]["rssKB"]), mib(ios["webkit"]["rssKB"]), mib(ios["webkit"]["rssKB"] - base["rssKB"])),
        ),
        (
            "iOS file smaller than WebKit's",
            ios["ours"]["bytes"] < ios["webkit"]["bytes"],
            "%d vs %d bytes" % (ios["ours"]["bytes"], ios["webkit"]["bytes"]),
        ),
    ]
    big = [r for r in synth if r["rules"] >= 10000]
    if len(big) >= 2:
        exps = [exponent(big[i - 1], big[i])[0] for i in range(1, len(big))]
        goals.append(
            (
                "compile time linear in rules (10k..%d: exponents <= 1.2)" % big[-1]["rules"],
                all(e <= 1.2 for e in exps),
                ", ".join("%.2f" % e for e in exps),
            )
        )
    goals.append(("match end to end >= 300,000 requests/s", e2e_rate >= 300000, format(int(e2e_rate), ",")))
    goals.append(
        (
            "match in memory >= 1,000,000 loads/s on one core",
            mem["matchPerSecond"] >= 1e6,
            format(int(mem["matchPerSecond"]), ","),
        )
    )
    print()
    print("Goals of the issue:")
    for text, ok, detail in goals:
        print("  %s  %s: %s" % ("PASS" if ok else "FAIL", text, detail))
    print()
    print("bench: %.0f s in all; lists, requests and outputs are in %s" % (time.time() - started, WORK))
    with open(os.path.join(WORK, "results.json"), "w") as f:
        json.dump(
            {
                "webkitBaselineKB": base["rssKB"],
                "oursBaselineKB": ours_base["rssKB"],
                "lists": results,
                "matchEndToEnd": {"requests": n_requests, "seconds": e2e_wall, "perSecond": e2e_rate, "rssKB": e2e_rss},
                "matchInMemory": mem,
            },
            f,
            indent=1,
            sort_keys=True,
        )
    if os.environ.get("BENCH_STRICT") == "1" and not all(ok for _, ok, _ in goals):
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as e:
        log("bench: " + str(e))
        sys.exit(1)
