#!/usr/bin/env python3
"""A synthetic TDS large enough to exceed WebKit's 150,000-rule limit once converted (build splitting test).

usage: gen_synthetic_tds.py TRACKERS RULES_PER_TRACKER > tds.json
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
    trackers[domain] = {"domain": domain, "owner": {"name": entity, "displayName": entity},
                        "default": "ignore" if i % 3 == 0 else "block", "rules": rules,
                        "prevalence": 0.01, "fingerprinting": 1, "cookies": 0.01, "categories": []}
    entities.setdefault(entity, {"domains": [], "displayName": entity, "prevalence": 0.01})["domains"].append(domain)
    domains[domain] = entity
json.dump({"trackers": trackers, "entities": entities, "domains": domains, "cnames": {}}, sys.stdout, sort_keys=True)
