#!/usr/bin/env python3
"""A synthetic TDS large enough to exceed WebKit's 150,000-rule limit once converted (build splitting test).

usage: gen_synthetic_tds.py TRACKERS RULES_PER_TRACKER [REQUESTS.jsonl] > tds.json
With REQUESTS.jsonl, also writes a request corpus (JSONL for `radarblock match` / `diff --requests`) that
probes every 20th tracker: its rule paths and near misses, on third-party, option and same-entity sites.
Fictional domains; deterministic. Trackers carry plain, option, exception and ignore rules, every tenth
tracker is a subdomain of the previous one, and entities own three trackers each.
"""

import json
import sys

n, per = int(sys.argv[1]), int(sys.argv[2])
trackers, entities, domains = {}, {}, {}
for i in range(n):
    domain = "sub.tracker%d.example" % (i - 1) if i % 10 == 9 else "tracker%d.example" % i
    entity = "Entity %d" % (i // 3)
    rules = []
    for r in range(per):
        pattern = domain.replace(".", "\\.") + "/path%d/" % r
        kind = r % 4
        rule = {"rule": pattern}
        if kind == 1:
            rule["options"] = {"domains": ["site%d.example" % r], "types": ["script"]}
        elif kind == 2:
            rule["exceptions"] = {"domains": ["site%d.example" % r]}
        elif kind == 3:
            rule["action"] = "ignore"
        rules.append(rule)
    trackers[domain] = {
        "domain": domain,
        "owner": {"name": entity, "displayName": entity},
        "default": "ignore" if i % 3 == 0 else "block",
        "rules": rules,
        "prevalence": 0.01,
        "fingerprinting": 1,
        "cookies": 0.01,
        "categories": [],
    }
    entities.setdefault(entity, {"domains": [], "displayName": entity, "prevalence": 0.01})["domains"].append(domain)
    domains[domain] = entity
json.dump({"trackers": trackers, "entities": entities, "domains": domains, "cnames": {}}, sys.stdout, sort_keys=True)

if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as out:
        for i, domain in enumerate(sorted(trackers)):
            if i % 20:
                continue
            owner = trackers[domain]["owner"]["name"]
            sibling = next(d for d in entities[owner]["domains"])
            sites = ["https://news.example/", "https://site1.example/", "https://www.%s/" % sibling]
            urls = [
                "https://%s/" % domain,
                "https://%s/path0/x.js" % domain,
                "https://%s/path1/x.js" % domain,
                "https://%s:8080/path2/y.js" % domain,
                "https://%s/path3/z.gif" % domain,
                "https://%s/other" % domain,
            ]
            for site in sites:
                for url in urls:
                    for kind in ("script", "image"):
                        out.write(json.dumps({"url": url, "topURL": site, "resourceType": kind}) + "\n")
