"""The command line the bench generators share: positional arguments plus an optional `--seed N` (default 1)."""

import sys


def seed_and_args(doc, count):
    """(seed, the `count` positional arguments) from sys.argv; exits with the usage `doc` otherwise."""
    args = sys.argv[1:]
    seed = 1
    if "--seed" in args:
        i = args.index("--seed")
        if i + 1 >= len(args):
            sys.exit(doc)
        seed = int(args[i + 1])
        del args[i : i + 2]
    if len(args) != count:
        sys.exit(doc)
    return seed, args
