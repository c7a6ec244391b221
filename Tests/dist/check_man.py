"""The man page says what --help says: a section per command listed by `radarblock --help`, each exactly
that command's `--help` text once the roff escapes are undone, and the SYNOPSIS is `radarblock --help`.
usage: check_man.py RADARBLOCK MANPAGE.1[.gz]"""
import gzip
import re
import subprocess
import sys


def sections(roff):
    """{title: preformatted text} for every .SH section holding a .nf/.fi block."""
    out = {}
    for m in re.finditer(r'^\.SH (?:"([^"\n]+)"|([^\n]+))\n\.nf\n(.*?)^\.fi$', roff, re.M | re.S):
        text = "".join(line[2:] if line.startswith("\\&") else line for line in m.group(3).splitlines(True))
        out[m.group(1) or m.group(2)] = text.replace("\\e", "\\")
    return out


def main():
    binary, page = sys.argv[1], sys.argv[2]
    raw = open(page, "rb").read()
    roff = (gzip.decompress(raw) if page.endswith(".gz") else raw).decode("utf-8")
    found = sections(roff)
    run = lambda *a: subprocess.run([binary, *a], capture_output=True, text=True, check=True).stdout
    usage = run("--help")
    commands = re.findall(r"^  (\S+) ", usage.split("commands:\n", 1)[1], re.M)
    bad = 0
    if found.get("SYNOPSIS") != usage:
        print("SYNOPSIS differs from radarblock --help"); bad += 1
    if found.get("VERSION") != run("--version"):
        print("VERSION differs from radarblock --version"); bad += 1
    for c in commands:
        help_text = run(c, "--help")
        got = found.get("radarblock " + c)
        if got is None:
            print("no section for", c); bad += 1
        elif got != help_text:
            print("section 'radarblock %s' differs from its --help" % c); bad += 1
    extra = sorted(t for t in found if t.startswith("radarblock ") and t.split(" ", 1)[1] not in commands)
    if extra:
        print("sections for unknown commands:", extra); bad += 1
    print("man page: %d command sections checked against --help, %d differences" % (len(commands), bad))
    sys.exit(1 if bad or not commands else 0)


main()
