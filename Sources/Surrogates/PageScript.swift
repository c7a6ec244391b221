// The page side of the surrogate bundle, as JavaScript source. Kept as a string literal so the bundle is a
// pure function of the inputs (no resource lookup at run time). See SurrogateBundle.swift for how it is
// assembled and the module notes for the design:
//
// - A surrogate runs for a script element when the rule list blocked it (its `error` event: WebKit fires it
//   when a content rule blocks the load) AND the matcher says the TDS decision for that URL on this page
//   is "redirect" (first matching rule has a surrogate). The rule list decides blocking; the matcher only
//   says which surrogate belongs to a blocked script. One exception, measured in WebKitGTK 2.50: for a
//   blocked parser-blocking script (classic, not async/defer, inserted while the document is loading) the
//   parser does not wait and the error event comes only after DOMContentLoaded, so inline code right after
//   it (`ga('create', ...)`) would break. Such a surrogate runs when the element is inserted (a
//   MutationObserver, which runs before the parser's next script), and the error event confirms the block
//   later; if the script loads instead, the report says `blocked: false`.
// - The matcher implements the TDS semantics of the faithful conversion: host from the URL (ports ignored),
//   tracker by longest suffix, CNAME uncloaking when the host is not itself under a tracker (the alias or
//   one of its parents is a `cnames` key; the URL keeps its path), protections off for temp-unprotected
//   sites (with subdomains) and user-unprotected sites (with subdomains), the tracker allowlist (the same regex as the
//   rule list's), first party, then rules in order: the regex (anchored like the rule list's url-filter,
//   case-insensitive) and `options` (domains with subdomains AND types) must match, otherwise evaluation
//   falls through; the first matching rule decides (action ignore -> allow, exceptions -> allow, else
//   block or surrogate); no rule -> the tracker's default.
// - First party, as the rule list decides it: the page is on a domain of the tracker's entity (the list's
//   entity exemption), or, for a request not uncloaked from a CNAME, the request is same-site with the top
//   page (the list's load-type third-party, which WebKit evaluates as "request host is under the top
//   page's registrable domain"). The page has no public suffix list; the bundle carries each tracker's
//   registrable domain (computed with the same list when building), which is all this check needs: a
//   request under tracker T is same-site with the page exactly when the page host is under T's
//   registrable domain (or, when T is itself a public suffix, under the label of the request host below T).
// - The hook: a CustomEvent named `radarblock:surrogate` on `window`, detail
//   `{url, name, tracker, pageUrl, blocked, executed, error}`, one per script element a surrogate was
//   applied to, dispatched when the element's fate is known: on its (suppressed) error, before its `load`
//   event is fired (`blocked: true`), or on its real load for an early-applied parser-blocking script
//   (`blocked: false`). `executed` is false when the same surrogate already ran in this document (each
//   runs at most once per document); the element still gets its `load` event.

enum PageScript {
    /// The name of the CustomEvent reporting each surrogate applied (one constant, shared with tests).
    static let eventName = "radarblock:surrogate"

    /// `(function (surrogateFunctions) {` + "var DATA = " ... the runtime below is placed after DATA.
    static let runtime = #"""
  var EVENT_NAME = "radarblock:surrogate";
  // The url-filter prefix of the faithful conversion: scheme, "://", optional subdomains.
  var SUBDOMAIN_PREFIX = "^[^:]+://+([^:/]+\\.)?";
  var MapCtor = Map, SetCtor = Set, URLCtor = URL, RegExpCtor = RegExp;
  var hasOwn = Object.prototype.hasOwnProperty;
  var regexTest = RegExp.prototype.test;
  var applyFn = Reflect.apply;
  var WEB_SCHEME = /^(https?|wss?):$/;
  var CLASSIC_TYPE = /^(text|application)\/(x-)?(java|ecma)script$/i;

  function isSameOrSub(host, domain) {
    if (host === domain) return true;
    var n = host.length - domain.length;
    return n > 1 && host.charCodeAt(n - 1) === 46 && host.slice(n) === domain;
  }

  function underAny(host, domains) {
    if (!domains) return false;
    for (var i = 0; i < domains.length; i++) if (isSameOrSub(host, domains[i])) return true;
    return false;
  }

  function pairsToMap(pairs) {
    var m = new MapCtor();
    for (var i = 0; pairs && i < pairs.length; i++) m.set(pairs[i][0], pairs[i][1]);
    return m;
  }

  // The value for the longest suffix of host that is a key of map, as {key, value}.
  function lookup(map, host) {
    var h = host;
    for (;;) {
      if (map.has(h)) return { key: h, value: map.get(h) };
      var dot = h.indexOf(".");
      if (dot < 0 || dot === h.length - 1) return null;
      h = h.slice(dot + 1);
    }
  }

  function parseURL(url, base) {
    var u;
    try { u = base === undefined ? new URLCtor(url) : new URLCtor(url, base); } catch (e) { return null; }
    if (!applyFn(regexTest, WEB_SCHEME, [u.protocol]) || !u.hostname) return null;
    return {
      href: u.href,
      scheme: u.protocol,
      host: u.hostname.toLowerCase(),
      rest: u.pathname + u.search + u.hash
    };
  }

  function hostOf(url) {
    if (!url) return "";
    try { return new URLCtor(url).hostname.toLowerCase(); } catch (e) { return ""; }
  }

  function compile(source) {
    try { return new RegExpCtor(source, "i"); } catch (e) { return null; }
  }

  function createMatcher(data) {
    var trackers = pairsToMap(data.trackers);
    var entities = pairsToMap(data.entities);
    var cnames = pairsToMap(data.cnames);
    var tempUnprotected = data.tempUnprotected || [];
    var unprotectedSites = data.unprotectedSites || [];
    var ctl = data.clickToLoad || {};
    var ctlEntity = pairsToMap(ctl.supported);
    var ctlExceptions = ctl.exceptions || [];
    var allowlist = data.allowlist || [];
    var compiled = new MapCtor();

    function regexFor(source) {
      if (!compiled.has(source)) compiled.set(source, compile(source));
      return compiled.get(source);
    }

    function test(source, text) {
      var re = regexFor(source);
      return re !== null && applyFn(regexTest, re, [text]);
    }

    // options / exceptions: every given (non-empty) condition must hold, and at least one must be given.
    function conditionsMatch(m, pageHost, type) {
      var given = false, ok = true;
      if (m.domains && m.domains.length) { given = true; ok = underAny(pageHost, m.domains); }
      if (m.types && m.types.length) { given = true; ok = ok && m.types.indexOf(type) >= 0; }
      return given && ok;
    }

    // The site (registrable domain) of a request host under tracker domain T, as the bundle recorded it.
    function siteOf(tracker, trackerDomain, host) {
      if (!tracker.publicSuffix) return tracker.site || trackerDomain;
      if (host === trackerDomain) return host;
      var head = host.slice(0, host.length - trackerDomain.length - 1);
      return head.slice(head.lastIndexOf(".") + 1) + "." + trackerDomain;
    }

    function isAllowlisted(href, pageHost) {
      for (var i = 0; i < allowlist.length; i++) {
        var e = allowlist[i];
        if (test(e.regex, href) && (!e.domains || underAny(pageHost, e.domains))) return true;
      }
      return false;
    }

    // The TDS decision for a request: null when the host is no tracker, else
    // {action: "block"|"ignore"|"redirect", reason, tracker, surrogate?, rule?, url}.
    // Why a click-to-load rule does not block here, or null when it does (supported action, not unblocked by
    // the user, not the entity's own site, not a feature exception).
    function clickToLoadExemption(action, pageHost, unblocked) {
      if (!ctlEntity.has(action)) return "click-to-load: unsupported rule action";
      if (unblocked && unblocked.has(action)) return "click-to-load: unblocked by the user";
      if (pageHost && underAny(pageHost, ctlExceptions)) return "click-to-load: site exception";
      var own = entities.has(ctlEntity.get(action)) ? entities.get(ctlEntity.get(action)) : null;
      if (pageHost && own && underAny(pageHost, own)) return "click-to-load: first party";
      return null;
    }

    // unblocked: optional Set of click-to-load rule actions the user unblocked on the page.
    function decideForHost(requestURL, pageHost, type, unblocked) {
      var req = parseURL(requestURL);
      if (!req) return null;
      pageHost = pageHost || "";
      var hit = lookup(trackers, req.host);
      var matchHost = req.host, cloaked = false;
      if (!hit) {
        var alias = lookup(cnames, req.host);
        if (alias) {
          hit = lookup(trackers, alias.value);
          if (hit) { matchHost = alias.value; cloaked = true; }
        }
      }
      if (!hit) return null;
      var t = hit.value;
      var url = req.scheme + "//" + matchHost + req.rest;
      function result(action, reason, extra) {
        var r = { action: action, reason: reason, tracker: hit.key, url: url };
        if (cloaked) r.cname = req.host;
        if (extra) for (var k in extra) if (hasOwn.call(extra, k)) r[k] = extra[k];
        return r;
      }
      if (data.contentBlockingDisabled) return result("ignore", "contentBlocking disabled");
      if (pageHost && (underAny(pageHost, tempUnprotected) || underAny(pageHost, unprotectedSites))) {
        return result("ignore", "protections off for this site");
      }
      if (isAllowlisted(req.href, pageHost)) return result("ignore", "tracker allowlist");
      var entityDomains = t.owner !== undefined && entities.has(t.owner) ? entities.get(t.owner) : null;
      if (pageHost && entityDomains && underAny(pageHost, entityDomains)) return result("ignore", "first party (same entity)");
      if (pageHost && !cloaked && isSameOrSub(pageHost, siteOf(t, hit.key, req.host))) {
        return result("ignore", "first party (same site)");
      }
      var rules = t.rules || [];
      for (var i = 0; i < rules.length; i++) {
        var r = rules[i];
        var source = r.rule.slice(0, 4) === "http" ? r.rule : SUBDOMAIN_PREFIX + r.rule;
        if (!test(source, url)) continue;
        if (r.options && !conditionsMatch(r.options, pageHost, type)) continue;
        if (r.action === "ignore") return result("ignore", "rule: ignore", { rule: i });
        if (r.exceptions && conditionsMatch(r.exceptions, pageHost, type)) return result("ignore", "rule: exception", { rule: i });
        var extra = { rule: i };
        if (typeof r.action === "string" && r.action.slice(0, 10) === "block-ctl-") {
          var exempt = clickToLoadExemption(r.action, pageHost, unblocked);
          if (exempt) return result("ignore", exempt, { rule: i, ruleAction: r.action });
          extra.ruleAction = r.action;
        }
        if (r.surrogate !== undefined) { extra.surrogate = r.surrogate; return result("redirect", "rule: surrogate", extra); }
        return result("block", "rule: block", extra);
      }
      return t["default"] === "block" ? result("block", "default: block") : result("ignore", "default: ignore");
    }

    return {
      decideForHost: decideForHost,
      decide: function (requestURL, pageURL, type, unblocked) { return decideForHost(requestURL, hostOf(pageURL), type, unblocked); }
    };
  }

  // The host of the top-level page (WebKit evaluates if-domain and load-type against the main document).
  function topHost(win) {
    try {
      var origins = win.location.ancestorOrigins;
      if (origins && origins.length) return hostOf(origins[origins.length - 1]);
    } catch (e) {}
    try { if (win.top === win) return hostOf(win.location.href); } catch (e) {}
    try { return hostOf(win.top.location.href); } catch (e) {}
    try { if (win.document.referrer) return hostOf(win.document.referrer); } catch (e) {}
    return hostOf(win.location.href);
  }

  function install(win) {
    var matcher = createMatcher(DATA);
    var pageHost = topHost(win);
    var doc = win.document;
    var names = DATA.surrogates || [];
    var ran = new SetCtor();
    // Elements a surrogate was applied to before their fate was known (parser-blocking scripts).
    var early = new win.WeakMap();
    var ScriptElement = win.HTMLScriptElement;
    var srcGetter = Object.getOwnPropertyDescriptor(ScriptElement.prototype, "src").get;
    var dispatchEvent = win.EventTarget.prototype.dispatchEvent;
    var stopImmediatePropagation = win.Event.prototype.stopImmediatePropagation;
    var getAttribute = win.Element.prototype.getAttribute;
    var EventCtor = win.Event, CustomEventCtor = win.CustomEvent, MutationObserverCtor = win.MutationObserver;
    var location = win.location;

    // Click-to-load: the app names the rule actions the user unblocked on this page, either before the bundle
    // runs (window.radarblockUnblockedRuleActions = ["block-ctl-fb"]) or later through
    // window.radarblockClickToLoad.unblock("block-ctl-fb"), in every frame (each frame has its own bundle).
    // The same tab must then load the page without that action's ctl-<ruleAction> list.
    var unblocked = new SetCtor();
    var preset = win.radarblockUnblockedRuleActions;
    if (preset && typeof preset.length === "number") for (var p = 0; p < preset.length; p++) unblocked.add(String(preset[p]));
    var ctlSupported = ((DATA.clickToLoad || {}).supported || []).map(function (pair) { return pair[0]; });
    try {
      Object.defineProperty(win, "radarblockClickToLoad", { value: Object.freeze({
        unblock: function (action) { unblocked.add(String(action)); },
        unblocked: function () { var out = []; unblocked.forEach(function (a) { out.push(a); }); return out; },
        supportedRuleActions: function () { return ctlSupported.slice(); }
      }) });
    } catch (e) {}

    function surrogateFor(element) {
      if (!(element instanceof ScriptElement)) return null;
      var src = applyFn(srcGetter, element, []);
      if (!src) return null;
      var decision = matcher.decideForHost(src, pageHost, "script", unblocked);
      if (!decision || decision.action !== "redirect") return null;
      var index = names.indexOf(decision.surrogate);
      if (index < 0 || typeof surrogateFunctions[index] !== "function") return null;
      return { src: src, decision: decision, fn: surrogateFunctions[index], executed: false, error: null };
    }

    // Runs the surrogate unless it already ran in this document.
    function run(applied) {
      if (ran.has(applied.decision.surrogate)) return;
      ran.add(applied.decision.surrogate);
      applied.executed = true;
      try { applyFn(applied.fn, win, []); } catch (e) { applied.error = String(e && e.message !== undefined ? e.message : e); }
    }

    function report(applied, blocked) {
      var detail = {
        url: applied.src, name: applied.decision.surrogate, tracker: applied.decision.tracker,
        pageUrl: String(location.href), blocked: blocked, executed: applied.executed, error: applied.error
      };
      try { applyFn(dispatchEvent, win, [new CustomEventCtor(EVENT_NAME, { detail: detail })]); } catch (e) {}
    }

    // A classic script the parser would wait for: code after it may use the tracker's API synchronously.
    // WebKit does not make the parser wait for a script a content rule blocked, and fires its error event
    // only after DOMContentLoaded, so such a surrogate runs when the element is inserted (the observer
    // runs before the parser's next script), and its block is confirmed by the error event later.
    function parserBlocking(element) {
      if (doc.readyState !== "loading" || element.async || element.defer) return false;
      var type = applyFn(getAttribute, element, ["type"]);
      return type === null || type === "" || applyFn(regexTest, CLASSIC_TYPE, [type]);
    }

    function onInserted(element) {
      if (early.has(element) || !(element instanceof ScriptElement) || !parserBlocking(element)) return;
      var applied = surrogateFor(element);
      if (!applied) return;
      early.set(element, applied);
      run(applied);
    }

    function onError(event) {
      var element = event.target;
      var applied = early.has(element) ? early.get(element) : surrogateFor(element);
      if (!applied) return;
      early["delete"](element);
      // The page must not see the failure: stop the error before it reaches the element's handlers.
      applyFn(stopImmediatePropagation, event, []);
      run(applied);
      report(applied, true);
      // Code waiting for the script (onload, addEventListener("load")) goes on.
      try { applyFn(dispatchEvent, element, [new EventCtor("load")]); } catch (e) {}
    }

    function onLoad(event) {
      // A parser-blocking script that got its surrogate early but was not blocked after all.
      var element = event.target;
      if (!early.has(element)) return;
      var applied = early.get(element);
      early["delete"](element);
      report(applied, false);
    }

    win.addEventListener("error", onError, true);
    // Element load events do not reach window (the document is the last stop for "load").
    doc.addEventListener("load", onLoad, true);
    new MutationObserverCtor(function (records) {
      for (var i = 0; i < records.length; i++) {
        var added = records[i].addedNodes;
        for (var j = 0; j < added.length; j++) {
          var node = added[j];
          if (node instanceof ScriptElement) onInserted(node);
          else if (node.querySelectorAll) {
            var inner = node.querySelectorAll("script[src]");
            for (var k = 0; k < inner.length; k++) onInserted(inner[k]);
          }
        }
      }
    }).observe(doc, { childList: true, subtree: true });
  }

  if (typeof window === "object" && window !== null && window.document) {
    install(window);
  } else if (typeof module === "object" && module !== null && module.exports) {
    // Not a page (node): expose the matcher for the tests in tests/js.
    module.exports = { createMatcher: createMatcher, data: DATA, surrogateFunctions: surrogateFunctions, eventName: EVENT_NAME };
  }
"""#
}
