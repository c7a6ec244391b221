"""Importing WebKitGTK (6.0 API) and running its main loop with bounded waits.

All WebKit calls are asynchronous; the harness never calls GLib.MainLoop.run() without a deadline,
it iterates the default main context until a condition holds or a timeout expires (`wait_until`).
A Python exception raised inside a GLib callback is only printed by PyGObject, so callbacks store
their results/errors in plain objects that the waiting code inspects.
"""

import os
import sys
import time


class HarnessError(Exception):
    """A problem of the harness or of its environment (not a WebKit verdict)."""


def _require():
    try:
        import gi
    except ImportError:
        raise HarnessError("python3-gi is missing: use /usr/bin/python3 and apt-get install -y python3-gi") from None
    try:
        gi.require_version("WebKit", "6.0")
        gi.require_version("Gtk", "4.0")
        from gi.repository import GLib, Gtk, WebKit  # noqa: F401
    except (ValueError, ImportError) as e:
        raise HarnessError(
            "WebKitGTK 6.0 introspection data is missing (apt-get install -y gir1.2-webkit-6.0 "
            "libwebkitgtk-6.0-dev): %s" % e
        ) from e
    return gi


_gi = _require()
from gi.repository import GLib, Gtk, WebKit  # noqa: E402

_gtk_ready = False


def webkit_version():
    return "%d.%d.%d" % (WebKit.get_major_version(), WebKit.get_minor_version(), WebKit.get_micro_version())


def init_gtk():
    """Gtk.init for page loads (compiling does not need a display)."""
    global _gtk_ready
    if _gtk_ready:
        return
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise HarnessError("no display: run through scripts/webkit-check (it starts xvfb-run)")
    if not Gtk.init_check():
        raise HarnessError("Gtk.init_check() failed (is Xvfb running? DISPLAY=%s)" % os.environ.get("DISPLAY"))
    _gtk_ready = True


def wait_until(cond, timeout, tick=0.01):
    """Iterate the GLib main context until cond() is true or `timeout` seconds passed. Returns cond()."""
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    # A periodic source guarantees that iteration(True) wakes up even when WebKit is silent.
    src = GLib.timeout_add(max(1, int(tick * 1000)), lambda: True)
    try:
        while not cond():
            if time.monotonic() >= deadline:
                break
            ctx.iteration(True)
        return bool(cond())
    finally:
        GLib.source_remove(src)


def pump(seconds):
    """Let the main loop run for a fixed time (used for short grace periods)."""
    end = time.monotonic() + seconds
    wait_until(lambda: time.monotonic() >= end, seconds + 1)


def log(*args):
    print(*args, file=sys.stderr, flush=True)
