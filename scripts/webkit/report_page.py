"""`webkit-check page FILE.html`: load a local, self-contained page (a `radarblock diff --format html` report) in
WebKit with no network at all, record what its scripts throw or log as errors, evaluate expressions in it, and
save a screenshot. Used by Tests/webkit/diff-html.sh."""

import json
import os
import time

from .gtkenv import GLib, HarnessError, wait_until
from .harness import Browser

# Runs before the page's own scripts: every uncaught error, rejected promise and console.error is kept.
_ERRORS = """
(function () {
  window.__radarblockErrors = [];
  window.addEventListener("error", function (e) { window.__radarblockErrors.push("error: " + e.message); });
  window.addEventListener("unhandledrejection", function (e) {
    window.__radarblockErrors.push("rejection: " + e.reason);
  });
  var original = console.error;
  console.error = function () {
    window.__radarblockErrors.push("console.error: " + Array.prototype.join.call(arguments, " "));
    return original.apply(console, arguments);
  };
  document.addEventListener("securitypolicyviolation", function (e) {
    window.__radarblockErrors.push("csp: " + e.blockedURI);
  });
})();
"""


def run(path, steps, screenshot=None, timeout=60.0):
    """Loads file://PATH, then runs `steps` in order: {"eval": JS} evaluates and records the value. Returns
    {"loaded", "seconds", "errors", "results", "proxyRequests"}; proxyRequests counts what reached the network."""
    with Browser(timeout=timeout, user_scripts=[_ERRORS]) as b:
        before = len(b.proxy.entries)
        uri = "file://" + os.path.abspath(path)
        start = time.monotonic()
        b._navigate(uri)
        if not wait_until(lambda: b._nav.get("finished") or b._nav.get("failed"), timeout):
            raise HarnessError("the page did not finish loading within %.0f s" % timeout)
        seconds = time.monotonic() - start
        if b._nav.get("failed"):
            raise HarnessError("the page failed to load: %s" % b._nav["failed"])
        results = [b.evaluate(step["eval"], timeout=timeout) for step in steps]
        errors = b.evaluate("window.__radarblockErrors")
        out = {"loaded": True, "seconds": round(seconds, 3), "errors": errors, "results": results}
        out["proxyRequests"] = len(b.proxy.entries) - before
        if screenshot:
            _snapshot(b, screenshot, timeout)
            out["screenshot"] = screenshot
        return out


def _snapshot(browser, path, timeout):
    from gi.repository import WebKit

    box = {}

    def done(view, res, *_):
        try:
            box["texture"] = view.get_snapshot_finish(res)
        except GLib.Error as e:
            box["error"] = e.message

    browser.view.get_snapshot(WebKit.SnapshotRegion.VISIBLE, WebKit.SnapshotOptions.NONE, None, done)
    if not wait_until(lambda: box, timeout):
        raise HarnessError("the snapshot did not complete")
    if "error" in box:
        raise HarnessError("snapshot: " + box["error"])
    box["texture"].save_to_png(path)


def cmd_page(args):
    steps = json.load(open(args.steps)) if args.steps else []
    print(json.dumps(run(args.page, steps, args.screenshot, args.timeout)))
    return 0
