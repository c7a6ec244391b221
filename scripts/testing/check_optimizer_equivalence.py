#!/usr/bin/env python3
"""The optimization stage changes no decision (issue 13): for both shared iOS TDS, with and without the iOS
config, builds the release with `--no-optimize` and with the optimizer (the default), then has `radarblock
diff` run both releases over (1) the corpus it derives from the datasets and (2) a random corpus of N requests
made from it by optimizer_corpus.py (ports, the URL embedded in another URL's path or query, subdomains). Every
list takes part (main parts and click-to-load lists). Fails unless every request is decided the same way, and
unless the optimizer actually rewrote rules (a stage that does nothing would pass trivially) and unless the same
diff, as a control, finds the differences between faithful and ddg mode.

usage: check_optimizer_equivalence.py RADARBLOCK SHARED_DDG_DIR [N]   (N default 1000000 for the first input,
       200000 for the others)
"""

import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("check_optimizer_equivalence: %s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return p


def rule_count(release):
    with open(os.path.join(release, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    return int(m["counts"]["rules"]), m["counts"]


def flips(rb, old, new, work, extra):
    out = os.path.join(work, "diff.json")
    run([rb, "diff", old, new, "--format", "json", "-o", out] + extra, ok=(0, 1))
    with open(out, encoding="utf-8") as f:
        report = json.load(f)
    requests = report["requests"]
    return int(requests["checked"]), requests["changed"]


def build_pair(rb, base, work, tag, old_extra, new_extra):
    """Two releases of the same inputs (`base`: the build command without --out), built with different options."""
    old, new = os.path.join(work, "old-" + tag), os.path.join(work, "new-" + tag)
    run(base + ["--out", old] + old_extra)
    run(base + ["--out", new] + new_extra)
    return old, new


def corpus_flips(rb, old, new, work, tag, n, seed):
    """The two releases' differences over the corpus the diff derives and over n random requests made from it:
    (derived corpus path, derived requests checked, their flips, random requests checked, their flips)."""
    corpus = os.path.join(work, "corpus-%s.jsonl" % tag)
    checked, derived_flips = flips(rb, old, new, work, ["--save-corpus", corpus])
    random_corpus = os.path.join(work, "random-%s.jsonl" % tag)
    run([sys.executable, os.path.join(here, "optimizer_corpus.py"), corpus, str(n), random_corpus, "--seed", str(seed)])
    checked_random, random_flips = flips(rb, old, new, work, ["--requests", random_corpus])
    return corpus, checked, derived_flips, checked_random, random_flips


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rb, ddg = os.path.abspath(sys.argv[1]), sys.argv[2]
    big = int(sys.argv[3]) if len(sys.argv) == 4 else 1_000_000
    config = os.path.join(ddg, "privacy-config", "ios-config_v4_embedded_2025-02-17.json")
    inputs = []
    for tds in ("ios-tds_v5_2025-06-17.json", "ios-tds_embedded_2025-02-17.json"):
        for cfg in (config, None):
            inputs.append((os.path.join(ddg, "tds", tds), cfg))
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for i, (tds, cfg) in enumerate(inputs):
            name = os.path.basename(tds).replace(".json", "") + (" + config" if cfg else "")
            base = [rb, "build", "--tds", tds] + (["--config", cfg] if cfg else [])
            plain, optimized = build_pair(rb, base, work, str(i), ["--no-optimize"], [])
            before, _ = rule_count(plain)
            after, counts = rule_count(optimized)
            n = big if i == 0 else min(big, 200_000)
            corpus, checked, derived_flips, checked_random, random_flips = corpus_flips(
                rb, plain, optimized, work, str(i), n, i + 1
            )
            status = "ok"
            if derived_flips or random_flips:
                status = "FAILED: %d + %d requests decided differently, e.g. %s" % (
                    len(derived_flips),
                    len(random_flips),
                    json.dumps((derived_flips or random_flips)[0])[:600],
                )
                failures += 1
            elif after >= before or counts.get("optimized") != 1:
                status = "FAILED: the optimizer rewrote nothing (%d -> %d rules)" % (before, after)
                failures += 1
            elif checked < 1000 or checked_random < n:
                status = "FAILED: only %d derived and %d random requests were checked" % (checked, checked_random)
                failures += 1
            if i == 0:
                # The detector sees differences: ddg mode against the same data decides many requests otherwise.
                control = os.path.join(work, "ddg%d" % i)
                run(base + ["--out", control, "--mode", "ddg"])
                _, control_flips = flips(rb, plain, control, work, ["--requests", corpus])
                if not control_flips:
                    status = (
                        "FAILED: the diff found no difference between faithful and ddg mode (the check cannot fail)"
                    )
                    failures += 1
            print(
                "%-40s rules %6d -> %6d; derived corpus %7d requests, random %8d: %s"
                % (name, before, after, checked, checked_random, status)
            )
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
