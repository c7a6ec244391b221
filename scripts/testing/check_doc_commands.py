#!/usr/bin/env python3
"""Runs every fenced ```sh block of README.md and docs/*.md, so no documented command line goes stale.

usage: scripts/testing/check_doc_commands.py RADARBLOCK

Each file's blocks run in order, each with `bash -e -o pipefail`, in a scratch directory of that file where the
repository's data/ and scripts/ are reachable as `data/` and `scripts/` (the paths the docs use) and RADARBLOCK is
first on PATH as `radarblock`. The line before a block may hold a marker (docs/testing.md):
  <!-- sh: needs REASON -->   the block is skipped, saying why (network, a WebKit store, the shared data)
  <!-- sh: exit N -->         the block's expected exit status (diff exits 1 when the sides differ)
  <!-- text: radarblock usage -->
                              a text block that must equal the usage lines of every command's --help
Every fence names its language (sh for commands, text for output or synopses), so a command cannot hide in an
unlabelled block. A failing block fails the test with its file, line and commands.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^```(\S*)\s*$")
MARKER = re.compile(r"^<!--\s*(sh|text):\s*(.*?)\s*-->$")
TIMEOUT_SECONDS = 120


class Block:
    def __init__(self, path, line, language, marker, text):
        self.path, self.line, self.language, self.marker, self.text = path, line, language, marker, text

    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"


def doc_files():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md")
    )


def blocks_of(path, problems):
    """The fenced blocks of a Markdown file, each with the marker on the line before it (if any)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        start, language = i, opening.group(1)
        end = start + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(previous.strip())
        block = Block(path, start + 1, language, marker.groups() if marker else None, "\n".join(lines[start + 1 : end]))
        if not language:
            problems.append(f"{block.where()}: a fenced block without a language (sh for commands, text for output)")
        blocks.append(block)
        i = end + 1
    return blocks


def scratch_for(binary):
    scratch = tempfile.mkdtemp(prefix="radarblock-docs-")
    os.mkdir(os.path.join(scratch, "bin"))
    os.symlink(binary, os.path.join(scratch, "bin", "radarblock"))
    for name in ("data", "scripts"):
        os.symlink(os.path.join(ROOT, name), os.path.join(scratch, name))
    return scratch


def run_sh(block, scratch, env):
    """None when the block did what it should, else the failure's description."""
    expected = 0
    if block.marker and block.marker[0] == "sh":
        reason = block.marker[1]
        if reason.startswith("needs "):
            print(f"  SKIPPED {block.where()}: {reason}", flush=True)
            return None
        status = re.fullmatch(r"exit (\d+)", reason)
        if not status:
            return f"unknown marker <!-- sh: {reason} -->"
        expected = int(status.group(1))
    try:
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.text],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish within {TIMEOUT_SECONDS} s"
    if result.returncode != expected:
        tail = (result.stdout[-1500:] + result.stderr[-1500:]).rstrip()
        return f"exit status {result.returncode}, expected {expected}\n{tail}"
    print(f"  ok {block.where()}", flush=True)
    return None


def usage_lines(binary):
    """The usage lines of every command's --help, in the order `radarblock --help` lists the commands."""
    top = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    commands = re.findall(r"^  (\w+) ", top.split("commands:")[1], re.M)
    lines = []
    for command in commands:
        text = subprocess.run([binary, command, "--help"], capture_output=True, text=True, check=True).stdout
        for line in text.split("\n"):
            if not line.strip():
                break
            lines.append(re.sub(r"^(usage: |       )", "", line))
    return lines


def check_usage(block, binary):
    if block.marker[1] != "radarblock usage":
        return f"unknown marker <!-- text: {block.marker[1]} -->"
    expected = usage_lines(binary)
    if block.text.split("\n") != expected:
        return "the synopsis differs from the commands' --help; it should read:\n" + "\n".join(expected)
    print(f"  ok {block.where()} (usage lines of every --help)", flush=True)
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/testing/check_doc_commands.py RADARBLOCK")
    binary = os.path.abspath(sys.argv[1])
    problems, ran = [], 0
    for path in doc_files():
        blocks = blocks_of(path, problems)
        scratch = scratch_for(binary)
        env = dict(os.environ, PATH=os.path.join(scratch, "bin") + os.pathsep + os.environ["PATH"])
        try:
            for block in blocks:
                failure = None
                if block.language == "sh":
                    ran += 1
                    failure = run_sh(block, scratch, env)
                elif block.marker and block.marker[0] == "text" and block.language == "text":
                    failure = check_usage(block, binary)
                if failure:
                    problems.append(
                        f"{block.where()}: {failure}\n  the block:\n"
                        + "\n".join("    " + line for line in block.text.split("\n"))
                    )
        finally:
            shutil.rmtree(scratch)
    for problem in problems:
        print(f"check-doc-commands: FAIL {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"check-doc-commands: {ran} sh blocks of README.md and docs/ (skipped ones named above), all pass")


if __name__ == "__main__":
    main()
