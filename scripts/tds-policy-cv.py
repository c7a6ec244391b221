#!/usr/bin/env python3
"""Cross-validation of `radarblock tds` policy candidates on the shared Tracker Radar sample.

Reads the sample and DuckDuckGo's published iOS TDS at run time (CC BY-NC-SA data: nothing is copied into the
repository) and prints, for each candidate policy family, the in-sample agreement of its best setting and the
held-out agreement (leave-one-out, and 10-fold repeated 20 times): every threshold of the family is re-tuned on the
training part and the held-out domains are predicted with that setting. See docs/tds-policy.md for the results.

`classify` mirrors Sources/TdsGenerator/Classifier.swift (breakage-prone categories, minSites, owner tracking share,
evidence, observed tier, blockMinResources); candidate extensions are keyword parameters that default to off.

Usage: scripts/tds-policy-cv.py [SHARED_DDG_DIR]   (default: ../shared/data/ddg relative to the package root)
"""
import glob
import itertools
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DDG = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data", "ddg")
SAMPLE = os.path.join(DDG, "tracker-radar-sample")
TDS = os.path.join(DDG, "tds", "ios-tds_v5_2025-06-17.json")


def load_rows():
    tds = json.load(open(TDS))["trackers"]
    entities = {}
    for f in glob.glob(os.path.join(SAMPLE, "entities", "*.json")):
        e = json.load(open(f))
        entities[e["name"]] = e
    rows = []
    for f in sorted(glob.glob(os.path.join(SAMPLE, "domains", "*", "*.json"))):
        d = json.load(open(f))
        t = tds.get(d["domain"])
        res = d["resources"]
        types = d.get("types", {})
        total = sum(types.values()) or 1
        ent = entities.get((d.get("owner") or {}).get("name", ""))
        ep = ent["prevalence"] if ent else None
        initiators = d.get("topInitiators")
        first = [i["prevalence"] for i in (initiators or []) if i["domain"] == "first party"]
        tracking_res = [r for r in res if r["cookies"] > 0 or r["fingerprinting"] > 0]
        rows.append(dict(
            dom=d["domain"], label="-" if t is None else t.get("default", "?"),
            ip=d["domain"].replace(".", "").isdigit(), sites=d["sites"], prev=d["prevalence"],
            fp=d["fingerprinting"], ck=d["cookies"], ckr=d["cookies"] / max(d["prevalence"], 1e-9),
            ping=types.get("Ping", 0), nres=len(res), nrules=len({r["rule"] for r in res}),
            cdn=any(c in ("CDN", "Content Delivery") for c in d["categories"]),
            owner_share=(ep["tracking"] / ep["total"]) if ep and ep["total"] > 0 else None,
            first_party=first[0] if first else (None if initiators is None else 0.0),
            script=types.get("Script", 0) / total, image=(types.get("Image", 0) + types.get("Ping", 0)) / total,
            apis=len({a for r in res for a in r.get("apis", {})}),
            tracking_share=sum(r["sites"] for r in tracking_res) / max(sum(r["sites"] for r in res), 1),
            ev_res={m: any(r["sites"] >= m and (r["cookies"] > 0 or r["fingerprinting"] >= 1) for r in res)
                    for m in (2, 3, 5, 10, 20)},
        ))
    return rows


def classify(r, p):
    if r["ip"]:
        return "-"
    if r["cdn"] and r["fp"] < 3:
        return "-"
    if r["sites"] < p["minSites"]:
        return "-"
    if p.get("minOwnerTrackingShare") is not None and r["owner_share"] is not None \
            and r["owner_share"] < p["minOwnerTrackingShare"]:
        return "-"
    evidence = r["fp"] >= 1 or (r["ck"] > 0 and r["ck"] >= p["minCookies"]) or r["ping"] >= 10
    if p.get("minCookieShare") is not None and r["ck"] > 0 and r["ckr"] >= p["minCookieShare"]:
        evidence = True
    if evidence and p.get("evidenceMinResourceSites") and not r["ev_res"][p["evidenceMinResourceSites"]]:
        evidence = False
    if not evidence:
        return "ignore" if p["obs"] is not None and r["prev"] >= p["obs"] else "-"
    if r["cdn"]:
        return "ignore"
    if p.get("firstPartyIgnore") is not None and r["first_party"] is not None and r["first_party"] >= p["firstPartyIgnore"]:
        return "ignore"
    if p.get("blockMinCookieShare") is not None and r["ckr"] < p["blockMinCookieShare"] and r["fp"] < 2:
        return "ignore"
    patterns = r["nrules"] if p.get("countDistinctRules") else r["nres"]
    return "block" if patterns >= p["K"] else "ignore"


def grid(space):
    keys = sorted(space)
    return [dict(zip(keys, v)) for v in itertools.product(*[space[k] for k in keys])]


def evaluate(rows, space, folds_seed=None):
    cands = grid(space)
    hit = [[classify(r, p) == r["label"] for r in rows] for p in cands]
    totals = [sum(h) for h in hit]
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    # Leave-one-out: re-tune on the other 118, predict the held-out one.
    loo = sum(hit[max(range(len(cands)), key=lambda i: (totals[i] - hit[i][j], -i))][j] for j in range(len(rows)))
    # 10-fold, repeated 20 times with fixed seeds (deterministic).
    kfold = []
    for rep in range(20):
        idx = list(range(len(rows)))
        random.Random(rep).shuffle(idx)
        folds = [idx[k::10] for k in range(10)]
        got = 0
        for fold in folds:
            fs = set(fold)
            b = max(range(len(cands)), key=lambda i: (totals[i] - sum(hit[i][j] for j in fs), -i))
            got += sum(hit[b][j] for j in fold)
        kfold.append(got)
    return cands[best], totals[best], loo, sum(kfold) / len(kfold)


BASE = dict(minSites=[2, 3, 5, 10], minCookies=[0.0003, 0.0007, 0.001, 0.002, 0.003],
            obs=[None, 0.003, 0.005, 0.0065, 0.01], K=[3, 4, 5, 6, 7])
OWNER = [None, 0.01, 0.03, 0.05, 0.08, 0.1, 0.2, 0.3]
FIXED = dict(minSites=[2], minCookies=[0.0007], obs=[0.005], K=[5])
CANDIDATES = [
    ("previous default (fixed)", dict(FIXED)),
    ("previous family, re-tuned", dict(BASE)),
    ("ADOPTED: previous defaults + minOwnerTrackingShare (only it tuned)", dict(FIXED, minOwnerTrackingShare=OWNER)),
    ("family + minOwnerTrackingShare, all re-tuned", dict(BASE, minOwnerTrackingShare=OWNER)),
    ("  + cookie share of prevalence as evidence", dict(BASE, minOwnerTrackingShare=OWNER, minCookieShare=[None, 0.5, 0.7, 0.9])),
    ("  + evidence must come from a resource on >= m sites", dict(BASE, minOwnerTrackingShare=OWNER, evidenceMinResourceSites=[None, 2, 3, 5, 10, 20])),
    ("  + loaded by the page itself (first-party initiator share) -> ignore", dict(BASE, minOwnerTrackingShare=OWNER, firstPartyIgnore=[None, 0.5, 0.7, 0.8, 0.9, 0.95])),
    ("  + block needs cookie share (or fingerprinting >= 2)", dict(BASE, minOwnerTrackingShare=OWNER, blockMinCookieShare=[None, 0.1, 0.3, 0.5, 0.7])),
    ("  + count distinct regexes instead of resource entries", dict(BASE, minOwnerTrackingShare=OWNER, countDistinctRules=[False, True])),
]


def main():
    if not os.path.isdir(SAMPLE) or not os.path.isfile(TDS):
        sys.exit(f"sample or TDS not found under {DDG}")
    rows = load_rows()
    n = len(rows)
    print(f"{n} domains; in-sample = best setting of the family on all {n}; held-out = re-tuned without the held-out domains")
    print(f"{'candidate':72} {'in-sample':>10} {'LOO':>10} {'10-fold x20':>12}")
    for name, space in CANDIDATES:
        p, ins, loo, kf = evaluate(rows, space)
        print(f"{name:72} {ins:4} {100*ins/n:4.1f}% {loo:4} {100*loo/n:4.1f}% {kf:6.1f} {100*kf/n:4.1f}%")
        print(f"    best setting: {json.dumps(p, sort_keys=True)}")


if __name__ == "__main__":
    main()
