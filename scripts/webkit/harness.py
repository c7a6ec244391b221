"""The page-load harness: one WebKitWebView (one web process) reused for every scenario, behind the
recording proxy of proxy.py.

Verdicts:
* a load is **blocked** iff its URL never reached the proxy during its page load (WebKit does not put
  a blocked request on the network; caches are off, so every allowed load reaches the proxy);
* the page element's event is recorded too: "not seen by the proxy" but a `load` event is a harness
  inconsistency (reported in `error`), "seen" and an `error` event is a load that failed for another
  reason (reported as not blocked, with `event: "error"`);
* **hidden** = getComputedStyle(element).display == 'none', computed in the element's own document
  (frames compute it themselves and postMessage it to the top page);
* **topBlocked** = the top document failed and never reached the proxy.
"""

import contextlib
import json
import os
import sys
import time

from . import pages
from .compile import Compiler, RuleListRejected, load_installed
from .gtkenv import GLib, Gtk, HarnessError, WebKit, init_gtk, pump, wait_until, webkit_version
from .proxy import ProxyServer, normalize_url

# Neutral page between scenarios (served by the proxy like any other URL; never a scenario site).
RESET_URL = "https://reset.radarblock.invalid/"

# The surrogate bundle announces every surrogate it runs with this DOM event on window
# (detail: anything JSON-serialisable, e.g. {"name": "tracker.js", "url": "..."}).
SURROGATE_EVENT = "radarblock:surrogate"
# A reporting bundle (the default; not --no-report-trackers) reports every tracker request with this event
# (detail: {url, blocked, reason, ...}); each load's result lists the events whose url is the load's URL
# (`trackerEvents`).
TRACKER_EVENT = "radarblock:tracker"

# Installed before any other user script, at document start, in all frames: collects the events.
_SURROGATE_LISTENER = """
(function () {
  function collect(name, key) {
    window[key] = window[key] || [];
    window.addEventListener(name, function (e) {
      var d = e.detail; try { JSON.stringify(d); } catch (x) { d = String(d); }
      window[key].push(d === undefined ? null : d);
    }, true);
  }
  collect(%s, "__rbSurrogates");
  collect(%s, "__rbTrackers");
})();
""" % (json.dumps(SURROGATE_EVENT), json.dumps(TRACKER_EVENT))


def load_scenarios(path):
    import sys

    f = sys.stdin if path == "-" else open(path, encoding="utf-8")
    try:
        out = []
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except ValueError as e:
                    out.append({"__error": "line %d is not JSON: %s" % (n, e)})
        return out
    finally:
        if f is not sys.stdin:
            f.close()


class Browser:
    """WebView + proxy + compiler. Use as a context manager: everything is shut down on exit."""

    def __init__(self, timeout=20.0, grace=0.25, user_scripts=(), poll=0.015):
        self.timeout = timeout
        self.grace = grace
        self.poll = poll
        self._user_scripts = list(user_scripts)
        self.proxy = None
        self.compiler = None
        self.window = None
        self.view = None
        self._filters_key = None
        self._stderr = None
        try:
            self._redirect_stderr()
            init_gtk()
            self.proxy = ProxyServer()
            self.compiler = Compiler()
            self._make_view()
        except BaseException:
            self.close()
            raise

    # -- setup / teardown -------------------------------------------------------------------------
    def _redirect_stderr(self):
        """WebKit's web/network processes inherit fd 2 and are chatty (ALSA, D-Bus, GStreamer): send
        fd 2 to $RADARBLOCK_WEBKIT_LOG (default /dev/null) while Python's sys.stderr keeps the terminal."""
        target = os.environ.get("RADARBLOCK_WEBKIT_LOG") or os.devnull
        saved = os.dup(2)
        self._stderr = (saved, sys.stderr)
        sys.stderr = os.fdopen(os.dup(saved), "w", buffering=1)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)

    def _restore_stderr(self):
        if self._stderr is None:
            return
        saved, py = self._stderr
        self._stderr = None
        try:
            sys.stderr.flush()
            sys.stderr.close()
        except OSError:
            pass
        sys.stderr = py
        os.dup2(saved, 2)
        os.close(saved)

    def _make_view(self):
        session = WebKit.NetworkSession.new_ephemeral()  # no disk cache, no persistent cookies
        session.set_proxy_settings(
            WebKit.NetworkProxyMode.CUSTOM, WebKit.NetworkProxySettings.new(self.proxy.url, None)
        )
        session.set_tls_errors_policy(WebKit.TLSErrorsPolicy.IGNORE)  # our MITM certificate
        session.set_itp_enabled(False)
        context = WebKit.WebContext.new()
        # DOCUMENT_VIEWER = no memory cache and no page cache: every load must reach the proxy.
        context.set_cache_model(WebKit.CacheModel.DOCUMENT_VIEWER)
        self.ucm = WebKit.UserContentManager()
        self.ucm.add_script(
            WebKit.UserScript.new(
                _SURROGATE_LISTENER,
                WebKit.UserContentInjectedFrames.ALL_FRAMES,
                WebKit.UserScriptInjectionTime.START,
                None,
                None,
            )
        )
        for src in self._user_scripts:
            self.ucm.add_script(
                WebKit.UserScript.new(
                    src, WebKit.UserContentInjectedFrames.ALL_FRAMES, WebKit.UserScriptInjectionTime.START, None, None
                )
            )
        settings = WebKit.Settings()
        settings.set_property("enable-page-cache", False)
        settings.set_property("enable-hyperlink-auditing", True)  # <a ping>
        settings.set_property("media-playback-requires-user-gesture", False)
        settings.set_property("hardware-acceleration-policy", WebKit.HardwareAccelerationPolicy.NEVER)
        settings.set_property("enable-developer-extras", False)
        self.view = WebKit.WebView(
            web_context=context, network_session=session, user_content_manager=self.ucm, settings=settings
        )
        self._session = session
        self._nav = {}
        self.view.connect("load-changed", self._on_load_changed)
        self.view.connect("load-failed", self._on_load_failed)
        self.view.connect("web-process-terminated", self._on_terminated)
        self.window = Gtk.Window()
        self.window.set_default_size(800, 600)
        self.window.set_child(self.view)
        self.window.present()
        self._filters_key = None
        self._crashed = False
        # Every page load starts from the reset page, the first one too (see _reset).
        self._reset()

    def close(self):
        try:
            if self.view is not None:
                try:
                    self.view.stop_loading()
                    self.view.try_close()
                except Exception:
                    pass
            if self.window is not None:
                self.window.destroy()
                pump(0.05)
        finally:
            self.view = self.window = None
            if self.proxy is not None:
                self.proxy.close()
                self.proxy = None
            if self.compiler is not None:
                self.compiler.close()
                self.compiler = None
            self._restore_stderr()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- signals ----------------------------------------------------------------------------------
    # Signals of a previous navigation can arrive after the next one started (e.g. the reset page's
    # "Load request cancelled" when the scenario page replaces it): only events for the URI we are
    # loading now count.
    def _navigate(self, uri):
        self._nav = {"uri": normalize_url(uri)}
        self.view.load_uri(uri)

    def _is_current(self, uri):
        return uri is not None and normalize_url(uri) == self._nav.get("uri")

    def _on_load_changed(self, view, event):
        if event == WebKit.LoadEvent.FINISHED and self._is_current(view.get_uri()):
            self._nav["finished"] = True

    def _on_load_failed(self, view, event, uri, error):
        if self._is_current(uri):
            self._nav["failed"] = {"uri": uri, "domain": error.domain, "code": error.code, "message": error.message}
        return False

    def _on_terminated(self, view, reason):
        self._crashed = True

    # -- JS ---------------------------------------------------------------------------------------
    def evaluate(self, script, timeout=5.0):
        """Evaluate JS in the top document; returns the result as a Python value (via JSON) or raises."""
        box = {}

        def done(view, res, *_):
            try:
                v = view.evaluate_javascript_finish(res)
                box["value"] = v.to_json(0) if v is not None and not v.is_undefined() else None
            except GLib.Error as e:
                box["error"] = e.message
            except Exception as e:
                box["error"] = repr(e)

        self.view.evaluate_javascript(script, -1, None, None, None, done)
        if not wait_until(lambda: box, timeout, tick=0.005):
            raise HarnessError("evaluate_javascript timed out")
        if "error" in box:
            raise HarnessError(box["error"])
        return json.loads(box["value"]) if box["value"] is not None else None

    # -- navigation -------------------------------------------------------------------------------
    def _reset(self):
        """Leave the previous page for RESET_URL, with no rule lists installed.

        Why not about:blank: WebKit matches a main-resource load with the frame URL of the frame's
        current document when the navigation stays in the same web process (about:blank after
        about:blank), but with the request URL itself when the navigation swaps to a new web process
        (cross-site navigations; the new process's frame has no document yet). Which one happens after
        about:blank depended on the previous pages' sites, so `if-frame-url` rules on top documents
        were not reproducible. Coming from a site of its own (.invalid is never a scenario site)
        makes every scenario navigation cross-site: frameURL of the top document = topURL, always.
        Leaving the page also cancels its outstanding loads. Lists are removed first so that no rule
        can block the reset page itself."""
        self.ucm.remove_all_filters()
        self._filters_key = None
        self._navigate(RESET_URL)
        wait_until(lambda: self._nav.get("finished") or self._nav.get("failed"), 5.0)

    def _set_filters(self, rule_lists):
        texts = [
            r if isinstance(r, (str, pages.InstalledList)) else json.dumps(r, separators=(",", ":")) for r in rule_lists
        ]
        key = tuple(texts)
        if key == self._filters_key:
            return
        # Installed lists are loaded from their store each time (an install may have replaced them).
        filters = [
            load_installed(*t) if isinstance(t, pages.InstalledList) else self.compiler.filter_for(t) for t in texts
        ]  # raises RuleListRejected / HarnessError
        self.ucm.remove_all_filters()
        for f in filters:
            self.ucm.add_filter(f)
        self._filters_key = key

    def run_scenario(self, scenario):
        """Run one scenario (dict). Returns the result dict (never raises for scenario problems)."""
        t0 = time.monotonic()
        out = {"loads": {}, "hidden": {}, "topBlocked": False, "error": None}
        if "id" in scenario:
            out = {"id": scenario["id"], **out}
        if "__error" in scenario:
            out["error"] = scenario["__error"]
            return out
        try:
            rule_lists, loads, elements = pages.validate(scenario)
            rounds = pages.plan(scenario["topURL"], loads, elements)
        except pages.ScenarioError as e:
            out["error"] = "bad scenario: %s" % e
            return out
        try:
            self._set_filters(rule_lists)
        except RuleListRejected as e:
            out["error"] = "WebKit rejected a rule list: %s" % e.message
            out["rejected"] = {"error": e.message, "detail": e.detail}
            return out
        except HarnessError as e:  # an installed list missing from its store
            out["error"] = str(e)
            return out
        errors = []
        for i, rnd in enumerate(rounds):
            if self._crashed:
                self._recover()  # a fresh view (and UserContentManager) before installing the lists
            # _reset() removes the lists after every page load: install them for each round.
            self._set_filters(rule_lists)
            res = self._run_round(
                rnd, scenario.get("html") if i == 0 else None, scenario.get("expressions") if i == 0 else None
            )
            if res.get("error"):
                errors.append(res["error"])
            if i == 0:
                out["topBlocked"] = res["topBlocked"]
                out["hidden"] = res["hidden"]
                if "surrogates" in res:
                    out["surrogates"] = res["surrogates"]
                if res.get("expressions") is not None:
                    out["expressions"] = res["expressions"]
            out["loads"].update(res["loads"])
        out["loads"] = {load["id"]: out["loads"].get(load["id"]) for load in loads}
        if len(rounds) > 1:
            out["rounds"] = len(rounds)
        out["error"] = "; ".join(errors) if errors else None
        out["seconds"] = round(time.monotonic() - t0, 3)
        return out

    def _run_round(self, rnd, user_html, expressions=None):
        docs = rnd.documents(user_html)
        routes = {normalize_url(u): (200, "text/html; charset=utf-8", h.encode("utf-8"), []) for u, h in docs.items()}
        hints = {normalize_url(load["url"]): pages.BODY_KIND[load["type"]] for load in rnd.loads}
        top_key = normalize_url(rnd.top_url)
        if top_key in hints:
            routes[top_key] = [routes[top_key], "hint"]  # first the page, then the subresource body
        epoch = self.proxy.new_epoch(routes, hints)
        self._navigate(rnd.top_url)
        event_loads = [load for load in rnd.loads if pages.LOAD_KINDS[load["type"]][1] == "event"]
        quiet_loads = [load for load in rnd.loads if pages.LOAD_KINDS[load["type"]][1] != "event"]
        deadline = time.monotonic() + self.timeout
        state = {}
        settled_at = None
        timed_out = False
        err = None

        while True:
            if self._crashed:
                err = "web process terminated"
                break
            failed = self._nav.get("failed")
            seen = self.proxy.seen_counts(epoch)
            if failed and top_key not in seen:
                break  # top document blocked (or failed before the network)
            if self._nav.get("finished") or failed:
                try:
                    st = self.evaluate("window.__rb && __rb.state ? __rb.state() : null")
                    state = json.loads(st) if st else {}
                except HarnessError as e:
                    state = {}
                    err = "reading page state failed: %s" % e
                if self._settled(rnd, state, seen, event_loads):
                    if settled_at is None:
                        settled_at = time.monotonic()
                    pending_quiet = [load for load in quiet_loads if not self._seen(load, rnd, seen)]
                    if not pending_quiet or time.monotonic() - settled_at >= self.grace:
                        break
                else:
                    settled_at = None
            if time.monotonic() >= deadline:
                timed_out = True
                break
            pump(self.poll)

        failed = self._nav.get("failed")
        if not timed_out and not self._crashed and (self._nav.get("finished") or failed):
            # Final read of the page state. Frames re-post their report every 40 ms: give them two
            # periods so their computed styles reflect every load that settled.
            if any(e["frame"] is not None for e in rnd.elements):
                pump(0.09)
            try:
                st = self.evaluate("window.__rb && __rb.state ? __rb.state() : null")
                state = json.loads(st) if st else state
            except HarnessError:
                pass
        seen = self.proxy.seen_counts(epoch)
        top_seen = top_key in seen
        res = {"loads": {}, "hidden": {}, "topBlocked": bool(failed) and not top_seen}
        if res["topBlocked"]:
            # Nothing of a blocked page loads and nothing on it exists.
            res["loads"] = {load["id"]: {"blocked": True, "event": None} for load in rnd.loads}
            res["hidden"] = {e["id"]: None for e in rnd.elements}
            bad = [load for load in rnd.loads if self._seen(load, rnd, seen)]
            if bad:
                err = "top document blocked but the proxy saw: %s" % ", ".join(load["url"] for load in bad)
        else:
            if expressions:
                res["expressions"] = {k: self._expression(e) for k, e in expressions.items()}
            problems = []
            # A blocked script the injected bundle replaced by its surrogate fires "load" without reaching the
            # proxy: that is the surrogate working, not a cache.
            replaced = {
                normalize_url(s["url"])
                for fr in [state] + list((state.get("frames") or {}).values())
                for s in fr.get("surrogates") or []
                if isinstance(s, dict) and isinstance(s.get("url"), str) and s.get("executed")
            }
            for load in rnd.loads:
                ev = self._event_of(load, state)
                was_seen = self._seen(load, rnd, seen)
                r = {"blocked": not was_seen, "event": ev}
                if not was_seen and ev == "load" and normalize_url(load["url"]) not in replaced:
                    problems.append("%s loaded without reaching the proxy (cache?)" % load["id"])
                res["loads"][load["id"]] = r
            for e in rnd.elements:
                res["hidden"][e["id"]] = self._hidden_of(e, state, seen)
            surr = list(state.get("surrogates") or [])
            trackers = list(state.get("trackers") or [])
            for fr in (state.get("frames") or {}).values():
                surr.extend(fr.get("surrogates") or [])
                trackers.extend(fr.get("trackers") or [])
            res["surrogates"] = surr
            # Only pages with a tracker-reporting bundle get the key (other results keep their shape).
            for load in rnd.loads if trackers else []:
                key = normalize_url(load["url"])
                res["loads"][load["id"]]["trackerEvents"] = [
                    t
                    for t in trackers
                    if isinstance(t, dict) and isinstance(t.get("url"), str) and normalize_url(t["url"]) == key
                ]
            if failed and top_seen and not err:
                problems.append("top document failed: %s" % failed["message"])
            if problems:
                err = "; ".join(problems)
        if timed_out:
            pending = self._pending(rnd, state, seen, event_loads)
            err = (err + "; " if err else "") + "timeout after %.0fs waiting for %s" % (
                self.timeout,
                ", ".join(pending) or "page",
            )
        res["error"] = err
        self._reset()
        self.proxy.drop_log(epoch + 1)  # the log is only needed per page load
        return res

    def _expression(self, expr, wait=0.5):
        """Truth value of a JS expression in the top page. A surrogate may run asynchronously after
        the blocked load's error event, so a false value is re-checked for up to `wait` seconds."""
        end = time.monotonic() + wait
        while True:
            try:
                v = self.evaluate("(function(){ try { return !!(%s); } catch (e) { return 'error: ' + e; } })()" % expr)
            except HarnessError as e:
                v = "error: %s" % e
            if v is True or time.monotonic() >= end:
                return v
            pump(0.05)

    # -- settlement -------------------------------------------------------------------------------
    @staticmethod
    def _seen(load, rnd, counts):
        """Did `load` reach the proxy? (A load of the page's own URL is the second request to it.)"""
        key = normalize_url(load["url"])
        return counts.get(key, 0) >= (2 if key == normalize_url(rnd.top_url) else 1)

    def _doc_state(self, frame, state):
        if frame is None:
            return state
        return (state.get("frames") or {}).get(frame)

    def _event_of(self, load, state):
        doc = self._doc_state(load["frame"], state)
        if doc is None:
            return None
        return (doc.get("events") or {}).get(load["id"])

    def _frame_loaded(self, frame, rnd, seen):
        """Is frame `frame` (and its ancestors) a document that reached the proxy?"""
        while frame is not None:
            if normalize_url(frame) not in seen:
                return False
            frame = rnd.frames[frame]["parent"]
        return True

    def _hidden_of(self, element, state, seen):
        doc = self._doc_state(element["frame"], state)
        if doc is None:
            return None  # the frame was blocked (or never reported)
        return (doc.get("hidden") or {}).get(element["id"])

    def _pending(self, rnd, state, seen, event_loads):
        pending = []
        for f in rnd.frames:
            if self._frame_loaded(f, rnd, seen) and self._doc_state(f, state) is None:
                pending.append("report of frame %s" % f)
        for load in event_loads:
            if load["frame"] is not None and not self._frame_loaded(load["frame"], rnd, seen):
                continue  # its frame is blocked: the load can never happen
            if load["type"] == "child-document":
                # iframes have no error event; a frame that reached the proxy is covered by the frame
                # report above, one that did not is blocked (checked only after the top load finished,
                # which waits for every iframe).
                continue
            if self._event_of(load, state) is None:
                pending.append("event of %s" % load["id"])
        return pending

    def _settled(self, rnd, state, seen, event_loads):
        if not state:
            return False
        # A frame's report must describe its final state: every frame load with an event has one.
        return not self._pending(rnd, state, seen, event_loads)

    def _recover(self):
        """The web process died: start over with a fresh view (the proxy and compiled lists are kept)."""
        with contextlib.suppress(Exception):
            self.window.destroy()
        self._make_view()


def harness_info():
    return {"webkitVersion": webkit_version(), "surrogateEvent": SURROGATE_EVENT, "trackerEvent": TRACKER_EVENT}
