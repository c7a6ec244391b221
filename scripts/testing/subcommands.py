"""The command line of the step modules (suite_inputs.py, release_checks.py): one subcommand a step, each a function
whose docstring is its help, with its positional and optional parameters."""

import argparse
import sys


def run(doc, commands):
    """Parses sys.argv against COMMANDS, (name, function, parameter...) tuples, a parameter being a name or a
    (name, add_argument options) pair; calls the chosen function and exits 1 when it returns False (a check that
    does not hold), 0 otherwise."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func, *params in commands:
        command = sub.add_parser(name, help=func.__doc__.split("\n")[0], description=func.__doc__)
        for param in params:
            param_name, options = (param, {}) if isinstance(param, str) else param
            command.add_argument(param_name, **options)
        command.set_defaults(func=func)
    args = parser.parse_args()
    sys.exit(1 if args.func(args) is False else 0)
