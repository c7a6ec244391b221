"""What a surrogates.js costs, field by field: bytes in the file (the DATA literal is JSON, so a field's share is
its JSON text, escapes included). The tables (PageTable.swift) are split into their fields: host keys, each
tracker field, rules by kind, entity names, display names and domains, allowlist regexes and sites, as decoded (the
tables are compressed in blocks, PageBlocks.swift: each table's bytes in the bundle and its decoded size come first).

usage: bundle_sizes.py BUNDLE.js
"""

import json
import sys


def jlen(s):
    """Bytes of a string's content in the bundle's JSON (scriptSafe adds a few escapes; close enough to 0.1%)."""
    return len(json.dumps(s, ensure_ascii=False).encode("utf-8")) - 2


def data_of(source):
    start = source.index("\n})(") + 4
    end = source.index("\n", start)
    line = source[start:end]
    return json.loads(line[: line.rindex(", [")]), start, end


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"


def inflate(text):
    """PageScript.js's inflate: "#" + 3 digits copies 5-68 characters from 1-4,095 back."""
    out, i = [], 0
    while i < len(text):
        if text[i] != "#":
            out.append(text[i])
            i += 1
            continue
        distance = DIGITS.index(text[i + 1]) * 64 + DIGITS.index(text[i + 2])
        for _ in range(DIGITS.index(text[i + 3]) + 5):
            out.append(out[-distance])
        i += 4
    return "".join(out)


def table_text(value):
    """A table's decoded text (PageBlocks: {blocks, ...} or one compressed string) and its bytes in the bundle."""
    blocks = value["blocks"] if isinstance(value, dict) else [value]
    return "".join(inflate(b) for b in blocks), len(
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    )


def table_fields(text, names):
    sizes = dict.fromkeys(names, 0)
    sizes["separators"] = 0
    lines = [part for part in text.split("|") if part]
    for line in lines:
        fields = line.split(";")
        sizes["separators"] += len(fields)  # the ";"s and the "|"
        for i, f in enumerate(fields):
            name = names[min(i, len(names) - 1)]
            if name == "rules":
                name = {"~": "rules (host prefix elided)", "=": "rules (text only)"}.get(
                    f[:1], "rules (JSON: options...)"
                )
                sizes.setdefault(name, 0)
            sizes[name] += jlen(f)
    return len(lines), {k: v for k, v in sizes.items() if k != "rules"}


def main(argv):
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    source = open(argv[0], encoding="utf-8").read()
    data, start, end = data_of(source)
    total = len(source.encode("utf-8"))
    rows = [
        ("runtime (PageScript.js, comments and indentation left out)", len(source[:start].encode("utf-8"))),
        ("surrogate functions", len(source[end:].encode("utf-8"))),
    ]
    for key in sorted(data):
        value = data[key]
        if key in ("hosts", "entities", "allowlist"):
            text, size = table_text(value)
            rows.append(("%s: in the bundle (compressed %d -> %d)" % (key, jlen(text), size), size))
            value = text
        if key == "hosts":
            n, fields = table_fields(value, ["key", "flags", "owner", "category", "site", "cname", "rules"])
            for f, size in fields.items():
                rows.append(("hosts (%d lines): %s" % (n, f), size))
        elif key == "entities":
            n, fields = table_fields(value, ["name", "display name", "domains"])
            for f, size in fields.items():
                rows.append(("entities (%d lines): %s" % (n, f), size))
        elif key == "allowlist" and isinstance(value, str):
            n, fields = table_fields(value, ["regex", "sites marker", "sites"])
            for f, size in fields.items():
                rows.append(("allowlist (%d entries): %s" % (n, f), size))
        else:
            rows.append((key, len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))))
    print("%s: %d bytes" % (argv[0], total))
    in_bundle = [(n, s) for n, s in rows if ":" not in n or "in the bundle" in n]
    for name, size in in_bundle:
        print("  %-62s %8d  %5.1f%%" % (name, size, 100.0 * size / total))
    print("  %-62s %8d" % ("(DATA keys and punctuation)", total - sum(s for _, s in in_bundle)))
    print("  the tables decoded, field by field (JSON bytes as if uncompressed):")
    for name, size in rows:
        if (name, size) not in in_bundle:
            print("    %-60s %8d" % (name, size))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
