#!/usr/bin/env python3
"""The shared same-entity exemptions change no decision: on TDSs where entities own many tracker domains (the shared v7
TDS with Admiral's 888, with and without the iOS config, a synthetic entity of 1,000 domains on the shared iOS v5
TDS, and the synthetic TDS of three entities of 300, 1,000 and 3,000 domains on data/tds.json that `make bench`
measures) or many CNAME aliases (the shared iOS v5 TDS: Adobe's 121 cloaked customer hosts), builds the release with
`--per-tracker-exemptions` (one exemption per tracker, the encoding before the shared one) and with the default (a
list per large entity), then has `radarblock diff` run both over (1) the corpus it derives from the datasets, (2)
200,000 random requests made from it by optimizer_corpus.py and (3) requests on each sharing entity's sites loading
its own and other entities' trackers, and on other sites loading its trackers (gen_entity_tds.py; 50,000 in all).
Every list takes part. Fails unless every request is decided the same way, unless the default release really shares
the biggest entity's exemption with a main list per sharing entity (and is smaller), and unless the same diff, as a
control, finds the requests that a list without any same-entity exemption decides otherwise. On the v5 TDS the first
list's entity must lead with CNAME copies of its trackers.

usage: check_same_entity_equivalence.py RADARBLOCK SHARED_DDG_DIR [N]   (N random requests, default 200000)
"""

import json
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import gen_entity_tds  # noqa: E402
from check_optimizer_equivalence import build_pair, corpus_flips, flips, rule_count, run  # noqa: E402
from release_lists import main_lists  # noqa: E402


def shared_exemptions(release):
    with open(os.path.join(release, "provenance.json"), encoding="utf-8") as f:
        return [p for p in json.load(f) if p.get("role") == "same-entity" and "entity" in p]


def leads_with_aliases(release):
    """Whether the first shared exemption of the release's provenance ends a segment holding CNAME copies."""
    with open(os.path.join(release, "provenance.json"), encoding="utf-8") as f:
        provenance = json.load(f)
    for p in provenance:
        if p.get("role") == "same-entity" and "entity" in p:
            return False
        if p.get("cname"):
            return True
    return False


def entity_requests(data, entities, count, path):
    """`count` requests about the entities, an equal share each, in one JSONL file."""
    parts = []
    for k, entity in enumerate(entities):
        part = "%s.%d" % (path, k)
        gen_entity_tds.write_requests(data, entity, count // len(entities), part)
        parts.append(part)
    with open(path, "w", encoding="utf-8") as out:
        for part in parts:
            with open(part, encoding="utf-8") as f:
                out.write(f.read())
            os.remove(part)


def without_exemptions(tds_path, out_path):
    """The control: the same TDS with no entities, so that no same-entity exemption exists."""
    with open(tds_path, encoding="utf-8") as f:
        tds = json.load(f)
    for t in tds["trackers"].values():
        t.pop("owner", None)
    tds["entities"], tds["domains"] = {}, {}
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(tds, f)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rb, ddg = os.path.abspath(sys.argv[1]), sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) == 4 else 200_000
    config = os.path.join(ddg, "privacy-config", "ios-config_v4_embedded_2025-02-17.json")
    v7 = os.path.join(ddg, "tds", "ios-tds_v7_2024-07-12.json")
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        synthetic = os.path.join(work, "entity-1000.json")
        with open(os.path.join(ddg, "tds", "ios-tds_v5_2025-06-17.json"), encoding="utf-8") as f:
            tds, _ = gen_entity_tds.entity_tds(1000, json.load(f))
        with open(synthetic, "w", encoding="utf-8") as f:
            json.dump(tds, f, sort_keys=True)
        three = os.path.join(work, "entities-300-1000-3000.json")
        with open(os.path.join(here, "..", "..", "data", "tds.json"), encoding="utf-8") as f:
            tds, _ = gen_entity_tds.entities_tds([300, 1000, 3000], json.load(f))
        with open(three, "w", encoding="utf-8") as f:
            json.dump(tds, f, sort_keys=True)
        v5 = os.path.join(ddg, "tds", "ios-tds_v5_2025-06-17.json")
        inputs = [
            (v7, config, "ios-tds_v7 + config"),
            (v7, None, "ios-tds_v7"),
            (synthetic, config, "iOS v5 + entity of 1,000 domains + config"),
            (three, None, "data/tds.json + entities of 300, 1,000, 3,000"),
            (v5, None, "ios-tds_v5 (CNAME aliases)"),
        ]
        for i, (tds_path, cfg, name) in enumerate(inputs):
            base = [rb, "build", "--tds", tds_path] + (["--config", cfg] if cfg else [])
            old, new = build_pair(rb, base, work, str(i), ["--per-tracker-exemptions"], [])
            before, _ = rule_count(old)
            after, _ = rule_count(new)
            lists = main_lists(new)
            old_bytes, new_bytes = (
                sum(os.path.getsize(p) for p in main_lists(old)),
                sum(os.path.getsize(p) for p in lists),
            )
            _, checked, derived_flips, checked_random, random_flips = corpus_flips(rb, old, new, work, str(i), n, i + 1)
            with open(tds_path, encoding="utf-8") as f:
                data = json.load(f)
            entity = gen_entity_tds.biggest_entity(data)
            shared = shared_exemptions(new)
            entity_corpus = os.path.join(work, "entity%d.jsonl" % i)
            entity_requests(data, [p["entity"] for p in shared] or [entity], 50_000, entity_corpus)
            checked_entity, entity_flips = flips(rb, old, new, work, ["--requests", entity_corpus])
            problems = []
            if derived_flips or random_flips or entity_flips:
                problems.append(
                    "%d + %d + %d requests decided differently, e.g. %s"
                    % (
                        len(derived_flips),
                        len(random_flips),
                        len(entity_flips),
                        json.dumps((derived_flips or random_flips or entity_flips)[0])[:600],
                    )
                )
            sharing = [p["entity"] for p in shared]
            if entity not in sharing or len(lists) != len(sharing) or new_bytes >= old_bytes:
                problems.append(
                    "the default release does not share %s's exemption (%s), has not a main list per sharing"
                    " entity (%d), or is not smaller (%d -> %d bytes)"
                    % (entity, sharing, len(lists), old_bytes, new_bytes)
                )
            if tds_path == v5 and not leads_with_aliases(new):
                problems.append("the first list's entity does not lead with CNAME copies of its trackers")
            if checked < 1000 or checked_random < n or checked_entity < 50_000 - len(sharing):
                problems.append(
                    "only %d derived, %d random and %d entity requests were checked"
                    % (checked, checked_random, checked_entity)
                )
            if i == 0:
                # The detector sees what the exemption does: without entities, the entity corpus flips.
                bare = os.path.join(work, "bare.json")
                without_exemptions(tds_path, bare)
                control = os.path.join(work, "control")
                run([rb, "build", "--tds", bare, "--out", control] + (["--config", cfg] if cfg else []))
                _, control_flips = flips(rb, new, control, work, ["--requests", entity_corpus])
                if not control_flips:
                    problems.append(
                        "the diff found no request that the same-entity exemption decides (the check cannot fail)"
                    )
            failures += 1 if problems else 0
            status = "FAILED: " + "; ".join(problems) if problems else "ok"
            print(
                "%-45s %s: rules %6d -> %6d, main lists 1 -> %d, %9d -> %8d bytes;"
                " derived %6d, random %6d, entity pages %6d requests: %s"
                % (
                    name,
                    " + ".join(sharing),
                    before,
                    after,
                    len(lists),
                    old_bytes,
                    new_bytes,
                    checked,
                    checked_random,
                    checked_entity,
                    status,
                )
            )
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
