"""How the benchmarks measure one WebKit compile (shared by run.py and webkit_compile_cost.py).

Each compile is its own process, `radarblock compile --engine webkit --format json`, under /usr/bin/time; the
figures are the keys of the JSON object it prints (COMPILE_KEYS). WebKit compiles inside that process (no helper
process), so:
  * time   = WebKit's own figure: the WebKitUserContentFilterStore save() call to its completion callback,
             measured inside the process (process start-up and loading WebKitGTK are left out), as wall time
             and as the CPU time the process spent meanwhile (WebKit's compile thread: the steadier figure
             on a loaded machine);
  * memory = the process's peak RSS; the compile's own share is that minus the peak RSS of the same command
             on a one-rule list (library loaded, store created, next to nothing compiled);
  * size   = the file WebKit wrote into its store (the report's `file`).
"""

import json
import os
import struct
import subprocess


class Failed(Exception):
    pass


def timed(cmd, time_file, stdout=subprocess.DEVNULL, stdin=None):
    """Runs cmd under /usr/bin/time. Returns (wall seconds, peak RSS KiB, the finished process: stdout and stderr
    as text where they were piped)."""
    (wall, rss, _, _), p = timed_fully(cmd, time_file, stdout, stdin)
    return wall, rss, p


def timed_fully(cmd, time_file, stdout=subprocess.DEVNULL, stdin=None):
    """Runs cmd under /usr/bin/time. Returns ((wall seconds, peak RSS KiB, user seconds, system seconds), the
    finished process); Failed on a non-zero exit."""
    p = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M %U %S", "-o", time_file] + cmd,
        stdout=stdout,
        stdin=stdin,
        stderr=subprocess.PIPE,
        text=True,
    )
    if p.returncode != 0:
        raise Failed("%s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    with open(time_file) as f:
        wall, rss, user, system = f.read().split()[-4:]
    return (float(wall), int(rss), float(user), float(system)), p


# What `radarblock compile --engine webkit --format json` prints: one object with exactly these keys.
COMPILE_KEYS = ("file", "webkitVersion", "bytes", "seconds", "peakRSSKB", "rssBeforeKB", "cpuSeconds")


def compile_report(stdout):
    """The JSON object of `compile --engine webkit --format json` (its whole stdout); Failed naming what is wrong."""
    try:
        report = json.loads(stdout)
    except ValueError as e:
        raise Failed(
            "radarblock compile --engine webkit --format json printed no JSON object (%s):\n%s" % (e, stdout)
        ) from e
    if not isinstance(report, dict) or set(report) != set(COMPILE_KEYS):
        raise Failed(
            "radarblock compile --engine webkit --format json: expected the keys %s, got:\n%s"
            % (", ".join(COMPILE_KEYS), stdout)
        )
    return report


def webkit_compile(rb, rules, name, work):
    """One WebKit compile of the rules file `rules` into WORK/webkit-store under `name`."""
    store = os.path.join(work, "webkit-store")
    cmd = [rb, "compile", rules, "--engine", "webkit", "-o", store, "--name", name, "--format", "json"]
    wall, rss, process = timed(cmd, os.path.join(work, ".time"), stdout=subprocess.PIPE)
    report = compile_report(process.stdout)
    return {
        "processSeconds": wall,
        "seconds": float(report["seconds"]),
        "rssKB": rss,
        "bytes": int(report["bytes"]),
        "version": report["webkitVersion"],
        "rssBeforeKB": int(report["rssBeforeKB"]),
        "sections": file_sections(report["file"]),
        # CPU of the compile: steadier than wall time under load.
        "cpuSeconds": float(report["cpuSeconds"]),
    }


SECTIONS = ("source", "actions", "urlFilters", "topURLFilters", "frameURLFilters")


def file_sections(path):
    """Where the bytes of WebKit's store file go: its 64-byte header (u32 version, then u64 sizes of the stored JSON
    source, the actions and the three bytecode families; versions 20 of WebKitGTK 2.50 and 21), little-endian, as
    WebKit writes it. None when the sizes do not add up to the file (another layout)."""
    with open(path, "rb") as f:
        head = f.read(44)
    (version,) = struct.unpack_from("<I", head, 0)
    sizes = struct.unpack_from("<5Q", head, 4)
    if 64 + sum(sizes) != os.path.getsize(path):
        return None
    return dict(zip(SECTIONS, sizes, strict=True), version=version)


# WebKit refuses an empty list, so the baseline has one rule that can never match a web URL.
BASELINE_RULES = '[{"trigger":{"url-filter":"^x-baseline:"},"action":{"type":"block"}}]'


def baseline_list(work):
    path = os.path.join(work, "baseline.json")
    with open(path, "w") as f:
        f.write(BASELINE_RULES)
    return path


def webkit_baseline(rb, work, runs=3):
    """The one-rule compile with the lowest peak RSS of `runs` (what a compile costs on top of is that)."""
    path = baseline_list(work)
    return min((webkit_compile(rb, path, "baseline", work) for _ in range(runs)), key=lambda r: r["rssKB"])
