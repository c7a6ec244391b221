#!/usr/bin/env python3
"""`match` and `diff` give every request the same outcome (issue 30).

usage: check_match_diff_agreement.py RADARBLOCK OLD_RELEASE NEW_RELEASE WORKDIR

Runs `diff OLD NEW --format json --save-corpus` (the derived corpus), then `match --requests --format text` on each
side over that corpus. Every request whose two match outcomes (allowed, blocked, surrogate NAME) differ must be a
flip of the diff, with the same old and new outcomes, and every flip must be such a request: the two commands agree
on all of them. Prints the counts; exits 1 on the first disagreement.
"""

import json
import re
import subprocess
import sys

SURROGATE = re.compile(r"\(surrogate (.*), served by surrogates\.js\)")


def outcomes(rb, release, corpus, out):
    """One outcome per corpus line, from `match --format text`: (outcome, surrogate) or None for an error line."""
    with open(out, "w") as f:
        subprocess.run([rb, "match", release, "--requests", corpus, "--format", "text"], stdout=f, check=True)
    result = []
    for line in open(out, encoding="utf-8"):
        word = line.split(" ", 1)[0]
        if word == "error:":
            result.append(None)
        elif word == "surrogate":
            m = SURROGATE.search(line)
            result.append(("surrogate", m.group(1) if m else "?"))
        elif word == "blocked":
            result.append(("blocked", None))
        else:  # allowed, or actions that do not block (css-display-none, ...): what diff calls allowed
            result.append(("allowed", None))
    return result


def main():
    rb, old, new, work = sys.argv[1:5]
    corpus, report = work + "/corpus.jsonl", work + "/diff.json"
    status = subprocess.run(
        [rb, "diff", old, new, "--format", "json", "--save-corpus", corpus, "-o", report]
    ).returncode
    if status not in (0, 1):
        sys.exit("diff failed (exit %d)" % status)
    diff = json.load(open(report))
    requests = [json.loads(line) for line in open(corpus, encoding="utf-8")]
    a = outcomes(rb, old, corpus, work + "/old.txt")
    b = outcomes(rb, new, corpus, work + "/new.txt")
    if not (len(a) == len(b) == len(requests)):
        sys.exit("match answered %d and %d lines for %d requests" % (len(a), len(b), len(requests)))
    checked = diff["requests"]["checked"]
    if checked != len(requests):
        sys.exit("diff checked %d requests, the saved corpus has %d" % (checked, len(requests)))
    flips = diff["requests"]["changed"]
    errors = sum(1 for x, y in zip(a, b, strict=True) if x is None or y is None)
    differing = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x is not None and y is not None and x != y]
    if len(differing) != len(flips):
        sys.exit("match gives %d requests different outcomes, diff %d flips" % (len(differing), len(flips)))
    for i, flip in zip(differing, flips, strict=True):
        r = requests[i]
        fr = flip["request"]
        if (fr["url"], fr["topURL"], fr.get("resourceType")) != (r["url"], r["topURL"], r.get("resourceType")):
            sys.exit(
                "request %d (%s on %s) differs in match, but diff's flip there is %s on %s"
                % (i + 1, r["url"], r["topURL"], fr["url"], fr["topURL"])
            )
        for side, mine in (("old", a[i]), ("new", b[i])):
            theirs = (flip[side]["outcome"], flip[side].get("surrogate"))
            if theirs != mine:
                sys.exit(
                    "request %d (%s on %s): %s side: match says %s, diff says %s"
                    % (i + 1, r["url"], r["topURL"], side, mine, theirs)
                )
    invalid = diff["requests"].get("invalid", 0)
    if errors != invalid:
        sys.exit("match had %d requests it could not answer, diff skipped %d invalid requests" % (errors, invalid))
    print(
        "match and diff agree on all %d requests: %d flips, %d invalid requests skipped by both"
        % (len(requests), len(flips), invalid)
    )


if __name__ == "__main__":
    main()
