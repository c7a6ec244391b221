"""Command line of scripts/webkit-check. Subcommands import their module lazily so that `compile`
works without a display."""

import argparse
import json
import os
import signal
import sys


def _print(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=False) + "\n")
    sys.stdout.flush()


def cmd_compile(args):
    from .compile import Compiler

    if args.json_stdin:
        source = sys.stdin.buffer.read()
    else:
        if not args.rules:
            raise SystemExit("webkit-check compile: RULES.json or --json-stdin is required")
        with open(args.rules, "rb") as f:
            source = f.read()
    with Compiler(args.store) as c:
        res, _ = c.compile(source, identifier=args.identifier, timeout=args.timeout)
    if res["ok"]:
        res["kept"] = bool(args.store)  # without --store the file lives in a temporary store, now removed
    _print(res)
    return 0 if res["ok"] else 1


def cmd_file_name(args):
    from .store_files import file_name

    print(file_name(args.identifier))
    return 0


def cmd_compile_batch(args):
    """One JSON value per input line: a rule list (array), or {"id": ..., "rules": [...]} or
    {"id": ..., "source": "<exact text to give WebKit>"}; one result object per line, same order."""
    from .compile import Compiler

    inp = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
    failed = 0
    with Compiler(args.store) as c:
        for n, line in enumerate(inp):
            if not line.strip():
                continue
            ident = "batch-%d" % n
            try:
                item = json.loads(line)
            except ValueError as e:
                _print({"line": n + 1, "ok": False, "harnessError": "line is not JSON: %s" % e})
                failed += 1
                continue
            rid = None
            if isinstance(item, dict) and ("rules" in item or "source" in item):
                rid = item.get("id")
                source = item["source"] if "source" in item else json.dumps(item["rules"])
            else:
                source = line.strip()  # the line itself is the rule list, given to WebKit verbatim
            res, _ = c.compile(source, identifier=ident, timeout=args.timeout, keep=args.keep)
            out = {"line": n + 1}
            if rid is not None:
                out["id"] = rid
            out.update(res)
            _print(out)
            failed += 0 if res["ok"] else 1
    if inp is not sys.stdin:
        inp.close()
    return 0


def cmd_pages(args):
    from .harness import Browser, load_scenarios

    scenarios = load_scenarios(args.scenarios)
    scripts = [open(f, encoding="utf-8").read() for f in args.user_script or []]
    with Browser(timeout=args.timeout, grace=args.grace, user_scripts=scripts) as b:
        for sc in scenarios:
            _print(b.run_scenario(sc))
    return 0


def cmd_reference(args):
    from . import reference_tests

    return reference_tests.main(args)


def cmd_features(args):
    from . import feature_tests

    return feature_tests.main(args)


def cmd_differential(args):
    from . import differential

    return differential.main(args)


def build_parser():
    p = argparse.ArgumentParser(prog="webkit-check", description="radarblock's real-WebKit harness (WebKitGTK).")
    sub = p.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("compile", help="compile one rule list with WebKitUserContentFilterStore")
    c.add_argument("rules", nargs="?", help="rule list JSON file (given to WebKit byte for byte)")
    c.add_argument("--json-stdin", action="store_true", help="read the rule list from stdin")
    c.add_argument("--identifier", default="radarblock")
    c.add_argument("--store", help="store directory (default: a temporary one, removed afterwards)")
    c.add_argument("--timeout", type=float, default=600.0)
    c.set_defaults(func=cmd_compile)

    n = sub.add_parser("file-name", help="the file name WebKit's store gives an identifier (no WebKit needed)")
    n.add_argument("identifier")
    n.set_defaults(func=cmd_file_name)

    b = sub.add_parser("compile-batch", help="compile many rule lists (JSONL) in one process")
    b.add_argument("input", help="JSONL file or - for stdin")
    b.add_argument("--store")
    b.add_argument("--keep", action="store_true", help="keep compiled files in the store")
    b.add_argument("--timeout", type=float, default=600.0)
    b.set_defaults(func=cmd_compile_batch)

    g = sub.add_parser("pages", help="load scenario pages (JSONL) in WebKit and report blocked/hidden")
    g.add_argument("scenarios", help="JSONL file or - for stdin")
    g.add_argument("--timeout", type=float, default=20.0, help="per page load (seconds)")
    g.add_argument("--grace", type=float, default=0.25, help="wait for event-less loads (seconds)")
    g.add_argument(
        "--user-script",
        action="append",
        metavar="FILE.js",
        help="injected in all frames at document start, as an app injects surrogates.js (repeatable)",
    )
    g.set_defaults(func=cmd_pages)

    r = sub.add_parser("reference", help="DuckDuckGo's domain_matching_tests.json in real WebKit")
    r.add_argument("rules", help="rule list JSON (may be .gz)")
    r.add_argument("--tests", help="domain_matching_tests.json (default: ../shared copy)")
    r.add_argument(
        "--extra-rules",
        action="append",
        metavar="RULES.json",
        help="another list installed beside RULES.json (repeatable; e.g. a release's ad-click attribution list)",
    )
    r.add_argument("--surrogates-js", help="surrogate bundle injected as a document-start user script")
    r.add_argument(
        "--tracker-report",
        metavar="TDS.json",
        help="the bundle reports trackers (surrogates "
        "default, reporting bundle of this TDS): each test also checks its radarblock:tracker events",
    )
    r.add_argument("--report", help="write a JSON report here")
    r.add_argument("--one-per-page", action="store_true", help="one page load per test (slower)")
    r.add_argument("--expect-passed", type=int, help="exit 0 iff exactly this many tests pass (known figures)")
    r.add_argument("--timeout", type=float, default=20.0)
    r.set_defaults(func=cmd_reference)

    f = sub.add_parser("features", help="DuckDuckGo's request-blocklist / click-to-load reference tests on a release")
    f.add_argument("release", help="release directory (its manifest's lists are loaded)")
    f.add_argument("--suite", required=True, choices=("request-blocklist", "click-to-load"))
    f.add_argument("--tests", help="the suite's tests.json (default: ../shared copy)")
    f.add_argument(
        "--surrogates-js", help="surrogate bundle run in every page (click-to-load: after the unblocked-actions preset)"
    )
    f.add_argument(
        "--tracker-report",
        metavar="TDS.json",
        help="the bundle reports trackers (surrogates "
        "default, reporting bundle of this TDS): each test also checks its radarblock:tracker events",
    )
    f.add_argument("--report", help="write a JSON report here")
    f.add_argument("--timeout", type=float, default=20.0)
    f.set_defaults(func=cmd_features)

    pg = sub.add_parser("page", help="load a self-contained local page (no network), evaluate steps, screenshot")
    pg.add_argument("page")
    pg.add_argument("--steps", help='JSON file: [{"eval": "JS expression"}, ...] run in order after the load')
    pg.add_argument("--screenshot", help="save a PNG of the visible page")
    pg.add_argument("--timeout", type=float, default=60.0)
    pg.set_defaults(func=lambda args: __import__("webkit.report_page", fromlist=["cmd_page"]).cmd_page(args))

    d = sub.add_parser("differential", help="random rule lists: WebKit vs `radarblock match`")
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--cases", type=int, default=1000)
    d.add_argument("--radarblock", required=True, help="path of the radarblock executable")
    d.add_argument(
        "--target",
        help="radarblock's engine profile for the installed WebKit, passed to match --target (e.g. webkitgtk-2.50)",
    )
    d.add_argument("--keep", help="write every case (lists, scenarios, requests, answers) to this directory")
    d.add_argument("--max-show", type=int, default=20, help="disagreements to print in full")
    d.add_argument("--timeout", type=float, default=20.0)
    d.set_defaults(func=cmd_differential)
    return p


def _terminate(signum, frame):
    # Turn SIGTERM (timeout(1), CI cancellation) into SystemExit so that every `finally`/`with` runs:
    # the WebView, the proxy and the temporary stores are shut down, fd 2 is restored.
    raise SystemExit(128 + signum)


def main(argv=None):
    signal.signal(signal.SIGTERM, _terminate)
    args = build_parser().parse_args(argv)
    from .gtkenv import HarnessError

    try:
        return args.func(args)
    except HarnessError as e:
        print("webkit-check: error: %s" % e, file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print("webkit-check: error: %s" % e, file=sys.stderr)
        return 2
    except BrokenPipeError:
        os._exit(1)
