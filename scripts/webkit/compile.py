"""Compiling rule lists with WebKit's own compiler (WebKitUserContentFilterStore).

Facts measured on WebKitGTK 2.50.6 (see README.md):
* the store compiles in the *calling* process (API::ContentRuleListStore runs the compiler on a work
  queue thread of the UI process; no helper process is spawned), so getrusage(RUSAGE_SELF) of this
  process sees the compiler's memory and CPU time;
* every compile error surfaces as WEBKIT_USER_CONTENT_FILTER_ERROR_INVALID_SOURCE whose message is
  WebKit's ContentExtensionError message (e.g. "Invalid or unsupported regular expression.");
* for regex errors WebKit additionally writes "Error while parsing <pattern>: <status>" to stderr
  (fd 2, no newline); we capture it as `detail`.
"""

import hashlib
import os
import resource
import tempfile
import time

from .gtkenv import GLib, HarnessError, WebKit, wait_until, webkit_version
from .store_files import file_name

DEFAULT_TIMEOUT = 600.0


def _rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux (a high-water mark)


def _cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _child_pids():
    """Direct children of this process (to check whether compiling spawns a helper process)."""
    me = str(os.getpid())
    kids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[1] == me:
                kids.append(int(pid))
        except (OSError, IndexError):
            continue
    return kids


class _StderrCapture:
    """Redirect fd 2 to a temporary file (WebKit prints regex parse details there from a C++ thread)."""

    def __enter__(self):
        self._file = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        self.text = self._file.read().decode("utf-8", "replace")
        self._file.close()


class Compiler:
    """One WebKitUserContentFilterStore in a directory (a temporary one unless `store_dir` is given)."""

    def __init__(self, store_dir=None):
        self._tmp = None
        if store_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="radarblock-wkstore-")
            store_dir = self._tmp.name
        os.makedirs(store_dir, exist_ok=True)
        self.store_dir = os.path.abspath(store_dir)
        self.store = WebKit.UserContentFilterStore.new(self.store_dir)
        self._filters = {}  # sha256(source) -> (filter, result) for reuse by the page harness
        self._seq = 0

    def close(self):
        self._filters.clear()
        self.store = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def compile(self, source, identifier="radarblock", timeout=DEFAULT_TIMEOUT, keep=True, capture_detail=True):
        """Compile `source` (str or bytes, passed to WebKit untouched). Returns (result dict, filter|None).

        seconds = wall time from the save() call to its completion callback (the compile itself plus
        writing the file; the JSON is not pre-parsed by us)."""
        if isinstance(source, str):
            source = source.encode("utf-8")
        state = {}

        def done(store, res, *_):
            state["end"] = time.perf_counter()
            try:
                state["filter"] = store.save_finish(res)
            except GLib.Error as e:
                state["error"] = e
            except Exception as e:  # never let an exception vanish inside a GLib callback
                state["exception"] = e

        rss_before = _rss_kb()
        cpu_before = _cpu_seconds()
        capture = _StderrCapture() if capture_detail else None
        if capture:
            capture.__enter__()
        try:
            start = time.perf_counter()
            self.store.save(identifier, GLib.Bytes.new(source), None, done)
            # Sampled while the compiler runs: does WebKit use a helper process for this? (it does not)
            kids_during = set(_child_pids())
            finished = wait_until(lambda: "end" in state, timeout, tick=0.005)
        finally:
            if capture:
                capture.__exit__(None, None, None)
        if not finished:
            raise HarnessError("WebKit did not finish compiling %r within %.0f s" % (identifier, timeout))
        if "exception" in state:
            raise state["exception"]
        seconds = round(state["end"] - start, 6)
        measured = {
            "peakRssKB": _rss_kb(),
            "rssBeforeKB": rss_before,
            "cpuSeconds": round(_cpu_seconds() - cpu_before, 6),
            "helperProcesses": len(kids_during),
        }
        detail = capture.text.strip() if capture else ""
        if "error" in state:
            out = {"ok": False, "error": state["error"].message}
            if detail:
                out["detail"] = detail
            out.update({"seconds": seconds, "webkitVersion": webkit_version()})
            out.update(measured)
            return out, None
        path = os.path.join(self.store_dir, file_name(identifier))
        out = {
            "ok": True,
            "seconds": seconds,
            "file": path,
            "bytes": os.path.getsize(path) if os.path.exists(path) else None,
            "webkitVersion": webkit_version(),
        }
        out.update(measured)
        if not keep:
            self.remove(identifier)
            out["file"] = None
        return out, state["filter"]

    def remove(self, identifier, timeout=60.0):
        state = {}

        def done(store, res, *_):
            try:
                store.remove_finish(res)
            except GLib.Error as e:
                state["error"] = e.message
            state["done"] = True

        self.store.remove(identifier, None, done)
        wait_until(lambda: "done" in state, timeout)

    def filter_for(self, rules_json_text):
        """Compiled filter for a rule list, compiled once per distinct source (harness cache).
        Raises HarnessError with WebKit's message if WebKit rejects the list."""
        key = hashlib.sha256(rules_json_text.encode("utf-8")).hexdigest()
        hit = self._filters.get(key)
        if hit is None:
            self._seq += 1
            res, flt = self.compile(rules_json_text, identifier="list-%s" % key[:16], timeout=DEFAULT_TIMEOUT)
            hit = (flt, res)
            self._filters[key] = hit
        flt, res = hit
        if flt is None:
            raise RuleListRejected(res["error"], res.get("detail"))
        return flt


def load_installed(store_dir, identifier, timeout=60.0):
    """The filter an app gets from a store another program filled (e.g. `radarblock install --store DIR`):
    webkit_user_content_filter_store_load on a store made for DIR, nothing compiled here.
    Raises HarnessError with WebKit's message when the identifier is not in the store."""
    store = WebKit.UserContentFilterStore.new(os.path.abspath(store_dir))
    state = {}

    def done(st, res, *_):
        try:
            state["filter"] = st.load_finish(res)
        except GLib.Error as e:
            state["error"] = e.message
        state["done"] = True

    store.load(identifier, None, done)
    wait_until(lambda: "done" in state, timeout)
    if "error" in state:
        raise HarnessError("cannot load %r from the store %s: %s" % (identifier, store_dir, state["error"]))
    return state["filter"]


class RuleListRejected(HarnessError):
    def __init__(self, message, detail=None):
        super().__init__(message)
        self.message = message
        self.detail = detail
