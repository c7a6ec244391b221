// The page side of surrogates.js: the matcher, the surrogate runtime and the tracker report. This file is
// the source; scripts/embed-page-script.py copies it into PageScript.swift (checked in, so the binary stays
// one self-contained file, and PageScriptTests fails when the two disagree). Whole-line `//` comments are left
// out of the bundle (so: no multi-line strings or template literals here). The file is one function
// expression; the bundle calls it:
//   (function (DATA, surrogateFunctions) { ... })(<DATA JSON>, [<surrogate functions>]);
// so node tests can evaluate this file directly and call it with any DATA.
//
// - A surrogate runs for a script element when the rule list blocked it (its `error` event: WebKit fires it
//   when a content rule blocks the load) AND the matcher says the TDS decision for that URL on this page is
//   "redirect" (first matching rule has a surrogate). The rule list decides blocking; the matcher only says
//   which surrogate belongs to a blocked script. One exception, measured in WebKitGTK 2.50: for a blocked
//   parser-blocking script (classic, not async/defer, inserted while the document is loading) the parser
//   does not wait and the error event comes only after DOMContentLoaded, so inline code right after it
//   (`ga('create', ...)`) would break. Such a surrogate runs when the element is inserted (a
//   MutationObserver, which runs before the parser's next script), and the error event confirms the block
//   later; if the script loads instead, the report says `blocked: false`.
// - The matcher implements the TDS semantics of the faithful conversion: host from the URL (ports ignored),
//   tracker by longest suffix, CNAME uncloaking when the host is not itself under a tracker (the host is a
//   `cnames` key, exactly as the rule list's alias rules match; the URL keeps its path), protections off for
//   temp-unprotected sites (unprotectedTemporary + contentBlocking exceptions) and user-unprotected sites
//   (with subdomains), the tracker allowlist (the same regex as the rule list's), first party, then rules in order: the regex
//   (anchored like the rule list's url-filter, case-insensitive) and `options` (domains with subdomains AND
//   types) must match, otherwise evaluation falls through; the first matching rule decides (action ignore
//   or a matching `exceptions` -> allow, else block or surrogate); no rule -> the tracker's default. The
//   request blocklist (config feature) blocks after every TDS decision except the protections-off and
//   allowlist ones, as its rules follow the TDS rules and precede the exception resets in the list.
// - First party, as the rule list decides it: the page is on a domain of the tracker's entity (the list's
//   entity exemption), or, for a request not uncloaked from a CNAME, the request is same-site with the top
//   page (the list's load-type third-party, which WebKit evaluates as "request host is under the top
//   page's registrable domain"). The page has no public suffix list; the bundle carries each tracker's
//   registrable domain (computed with the same list when building), which is all this check needs.
// - Surrogate hook: a CustomEvent `radarblock:surrogate` on `window`, detail
//   `{url, name, tracker, pageUrl, blocked, executed, error}`, one per script element a surrogate was
//   applied to, dispatched when the element's fate is known. `executed` is false when the same surrogate
//   already ran in this document (each runs at most once per document).
// - Tracker report (every bundle unless built with --no-report-trackers; it then carries every tracker): a CustomEvent
//   `radarblock:tracker` on `window`, detail {url, pageUrl, tracker, entity, displayName, category,
//   blocked, reason, surrogate}, once per distinct tracker URL a document requests. `blocked` is the rule
//   list's decision as the matcher computes it (the page cannot see a block for every kind of load), and
//   the real-WebKit tests check it against what WebKit did. Requests are seen through elements (present at
//   document start, added later, src/href/data changed), fetch and XMLHttpRequest (wrapped: the only
//   page-visible change), and Resource Timing for what the platform reports there (CSS-initiated loads,
//   beacons, preloads). Nothing is installed when contentBlocking is disabled.
// - Start-up does not grow with the TDS: trackers, aliases and entities are strings laid out by the build
//   (PageTable.swift) that a lookup searches (binary search) and decodes one host at a time, keeping what it
//   decoded for the document; regexes are compiled at their first test and the allowlist is read at the first
//   request that needs it.
(function (DATA, surrogateFunctions) {
  "use strict";
  var EVENT_NAME = "radarblock:surrogate";
  var TRACKER_EVENT_NAME = "radarblock:tracker";
  // The url-filter prefix of the TDS conventions (scheme, "://", optional subdomains), from
  // TrackerData.TDSConventions through DATA, so the page and the rule list cannot disagree on it.
  var SUBDOMAIN_PREFIX = DATA.subdomainPrefix;
  var MapCtor = Map, SetCtor = Set, URLCtor = URL, RegExpCtor = RegExp;
  var hasOwn = Object.prototype.hasOwnProperty;
  var regexTest = RegExp.prototype.test;
  var applyFn = Reflect.apply;
  var WEB_SCHEME = /^(https?|wss?):$/;
  var CLASSIC_TYPE = /^(text|application)\/(x-)?(java|ecma)script$/i;
  var FONT_FILE = /\.(woff2?|ttf|otf|eot)(\?|#|$)/i;

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

  // The value for the longest suffix of host that has one (get returns null for none), as {key, value}.
  function lookup(get, host) {
    var h = host;
    for (;;) {
      var value = get(h);
      if (value !== null) return { key: h, value: value };
      var dot = h.indexOf(".");
      if (dot < 0 || dot === h.length - 1) return null;
      h = h.slice(dot + 1);
    }
  }

  // The tables PageTable.swift lays out (see there for the format): the page reads one line when it
  // needs it (binary search in a sorted string), decodes it once and keeps it, and never indexes the rest.
  var ESCAPE = /%([0-9A-F]{2})/g, BACKSLASH = /`/g;
  function unescapeOne(match, hex) { return String.fromCharCode(parseInt(hex, 16)); }
  function unesc(text) {
    if (text.indexOf("`") >= 0) text = text.replace(BACKSLASH, "\\");
    return text.indexOf("%") < 0 ? text : text.replace(ESCAPE, unescapeOne);
  }
  // A field of an entity shape: "$" stands for the host of the tracker that owns it.
  function unescBound(text, host) {
    if (host === null) return unesc(text);
    var parts = text.split("$");
    for (var i = 0; i < parts.length; i++) parts[i] = unesc(parts[i]);
    return parts.join(host);
  }
  function keyOf(line) {
    var end = line.indexOf(";");
    return unesc(end < 0 ? line : line.slice(0, end));
  }

  // The line of `table` (sorted "|"-terminated lines, each "key;...") whose key is `key`, or null.
  function findLine(table, key) {
    var lo = 0, hi = table.length;
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      var start = mid === 0 ? 0 : table.lastIndexOf("|", mid - 1) + 1;
      var end = table.indexOf("|", start);
      var line = table.slice(start, end), k = keyOf(line);
      if (k === key) return line;
      if (k < key) lo = end + 1; else hi = start;
    }
    return null;
  }

  // PageBlocks.deflate's text decoded: "#" + 3 digits copies 5-68 units from 1-4,095 units back.
  var LZ_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
  function inflate(text) {
    var out = "";
    for (var i = 0; i < text.length; ) {
      var at = text.indexOf("#", i);
      if (at < 0) return out + text.slice(i);
      out += text.slice(i, at);
      var from = out.length - (LZ_DIGITS.indexOf(text.charAt(at + 1)) * 64 + LZ_DIGITS.indexOf(text.charAt(at + 2)));
      var n = LZ_DIGITS.indexOf(text.charAt(at + 3)) + 5;
      // A copy may overlap what it writes (a run): then it is written in pieces as they exist.
      while (n > 0 && from < out.length) { var piece = out.slice(from, from + n); out += piece; from += piece.length; n -= piece.length; }
      i = at + 4;
    }
    return out;
  }

  // A PageBlocks table: block(b) is block b decoded, at its first use.
  function blocked(table) {
    var decoded = [];
    return function (b) {
      if (decoded[b] === undefined) decoded[b] = inflate(table.blocks[b]);
      return decoded[b];
    };
  }

  // The last index of sorted `list` whose value is <= `value` (-1 when none is).
  function lastAtMost(list, value) {
    var lo = 0, hi = list.length;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (list[mid] <= value) lo = mid + 1; else hi = mid; }
    return lo - 1;
  }

  // PageTable.allowlistLines (compressed): [{regex, domains?}].
  function decodeAllowlist(compressed) {
    var entries = [], text = inflate(compressed);
    for (var start = 0; start < text.length; start = text.indexOf("|", start) + 1) {
      var f = text.slice(start, text.indexOf("|", start)).split(";");
      var e = { regex: f[0].charAt(0) === "~" ? SUBDOMAIN_PREFIX + unesc(f[0].slice(1)) : unesc(f[0].slice(1)) };
      if (f.length > 1) { e.domains = []; for (var i = 2; i < f.length; i++) e.domains.push(unesc(f[i])); }
      entries.push(e);
    }
    return entries;
  }

  function createTables(data) {
    var hosts = data.hosts || { blocks: [], firsts: [] }, entities = data.entities || { blocks: [], starts: [] };
    var hostBlock = blocked(hosts), entityBlock = blocked(entities), categories = data.categories || [];
    var byHost = new MapCtor(), byRef = new MapCtor();

    function entityAt(ref, host) {
      var cacheKey = host === null ? ref : ref + ";" + host;
      if (byRef.has(cacheKey)) return byRef.get(cacheKey);
      var offset = parseInt(ref, 36), b = lastAtMost(entities.starts, offset), text = entityBlock(b);
      offset -= entities.starts[b];
      var fields = text.slice(offset, text.indexOf("|", offset)).split(";");
      var name = unescBound(fields[0], host);
      var domains = [];
      for (var i = 2; i < fields.length; i++) domains.push(unescBound(fields[i], host));
      var e = { name: name, displayName: fields[1] === "" ? name : unescBound(fields[1].slice(1), host), domains: domains };
      byRef.set(cacheKey, e);
      return e;
    }

    function decodeRule(field, key) {
      var kind = field.charAt(0);
      if (kind === "~") return { rule: key.split(".").join("\\.") + unesc(field.slice(1)) };
      if (kind === "=") return { rule: unesc(field.slice(1)) };
      var a = JSON.parse(unesc(field)), r = { rule: a[0] };
      if (a[1] !== null) r.surrogate = a[1];
      if (a[2] !== null) r.action = a[2];
      if (a[3] !== null) r.options = a[3];
      if (a[4] !== null) r.exceptions = a[4];
      return r;
    }

    // key;flags;owner;category;site;cname;rule...
    function decodeLine(line) {
      var f = line.split(";");
      while (f.length < 6) f.push("");
      var key = unesc(f[0]), flags = f[1], tracker = null;
      if (flags === "s") tracker = {};
      else if (flags !== "") {
        tracker = { rules: [] };
        if (flags.charAt(0) === "b") tracker["default"] = "block";
        else if (flags.charAt(0) === "i") tracker["default"] = "ignore";
        if (flags.indexOf("p") > 0) tracker.publicSuffix = true;
        if (f[2] !== "") tracker.entity = f[2].charAt(0) === "*" ? entityAt(f[2].slice(1), key) : entityAt(f[2], null);
        if (f[3] !== "") tracker.category = categories[parseInt(f[3], 36)];
        if (f[4] !== "") tracker.site = unesc(f[4].slice(1));
        for (var i = 6; i < f.length; i++) tracker.rules.push(decodeRule(f[i], key));
      }
      return { key: key, tracker: tracker, cname: f[5] === "" ? null : unesc(f[5].slice(1)) };
    }

    function host(key) {
      if (!byHost.has(key)) {
        var b = lastAtMost(hosts.firsts, key);
        var line = b < 0 ? null : findLine(hostBlock(b), key);
        byHost.set(key, line === null ? null : decodeLine(line));
      }
      return byHost.get(key);
    }

    var entityRefs = pairsToMap(data.entityRefs);
    return {
      tracker: function (key) { var h = host(key); return h === null ? null : h.tracker; },
      cname: function (key) { var h = host(key); return h === null ? null : h.cname; },
      entityNamed: function (name) { return entityRefs.has(name) ? entityAt(entityRefs.get(name), null) : null; },
      // Every line, decoded (for the tests: the page itself never walks the table).
      all: function () {
        var out = [];
        for (var b = 0; b < hosts.blocks.length; b++) {
          var text = hostBlock(b);
          for (var start = 0; start < text.length; start = text.indexOf("|", start) + 1) {
            out.push(decodeLine(text.slice(start, text.indexOf("|", start))));
          }
        }
        return out;
      }
    };
  }

  function parseURL(url, base) {
    var u;
    try { u = base === undefined ? new URLCtor(url) : new URLCtor(url, base); } catch (e) { return null; }
    if (!applyFn(regexTest, WEB_SCHEME, [u.protocol]) || !u.hostname) return null;
    return {
      href: u.href,
      scheme: u.protocol,
      host: u.hostname.toLowerCase(),
      port: u.port,
      userinfo: u.username !== "" || u.password !== "",
      rest: u.pathname + u.search + u.hash
    };
  }

  function hostOf(url) {
    if (!url) return "";
    try { return new URLCtor(url).hostname.toLowerCase(); } catch (e) { return ""; }
  }

  function compile(source, flags) {
    try { return new RegExpCtor(source, flags); } catch (e) { return null; }
  }

  function createMatcher(data) {
    var tables = createTables(data);
    var tempUnprotected = data.tempUnprotected || [];
    var unprotectedSites = data.unprotectedSites || [];
    var ctl = data.clickToLoad || {};
    var ctlEntity = pairsToMap(ctl.supported);
    var ctlExceptions = ctl.exceptions || [];
    var allowlist = null, allowByHost, allowAlways;
    var blocklist = data.requestBlocklist || [];
    var compiled = new MapCtor();
    // Ad-click attribution: [tracker, conversion host] pairs, and the vendor site of the tab's active attribution.
    var attribution = { pairs: data.adClickAttribution || [], vendor: null };

    function regexFor(source, flags) {
      var key = flags + source;
      if (!compiled.has(key)) compiled.set(key, compile(source, flags));
      return compiled.get(key);
    }

    function test(source, text, caseSensitive) {
      var re = regexFor(source, caseSensitive ? "" : "i");
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

    // The allowlist indexed by the host its regex names: `^[^:]+://+([^:/]+\.)?` + host can only match a
    // request to that host or a subdomain of it, so a request tests the entries of its host's suffixes (and
    // those whose host part is not a plain name), not all of them: the iOS config has hundreds.
    // Decoded and indexed at the first request that needs it, not at start-up.
    function loadAllowlist() {
      allowlist = decodeAllowlist(data.allowlist || "");
      allowByHost = new MapCtor();
      allowAlways = [];
      for (var a = 0; a < allowlist.length; a++) {
        var named = allowlistHost(allowlist[a].regex);
        if (named === null) { allowAlways.push(allowlist[a]); continue; }
        if (!allowByHost.has(named)) allowByHost.set(named, []);
        allowByHost.get(named).push(allowlist[a]);
      }
    }

    function allowlistHost(regex) {
      if (regex.slice(0, SUBDOMAIN_PREFIX.length) !== SUBDOMAIN_PREFIX) return null;
      var rest = regex.slice(SUBDOMAIN_PREFIX.length);
      if (rest.slice(-2) === ".*") rest = rest.slice(0, -2);
      var end = rest.search(/\(|\\\//);
      var host = (end < 0 ? rest : rest.slice(0, end)).split("\\.").join(".");
      return /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host) ? host : null;
    }

    function allowMatches(entries, href, pageHost) {
      for (var i = 0; entries && i < entries.length; i++) {
        var e = entries[i];
        if (test(e.regex, href) && (!e.domains || underAny(pageHost, e.domains))) return true;
      }
      return false;
    }

    function isAllowlisted(req, pageHost) {
      if (allowlist === null) loadAllowlist();
      // userinfo lets the regex's subdomain part run past the host: test every entry then.
      if (req.userinfo) return allowMatches(allowlist, req.href, pageHost);
      if (allowMatches(allowAlways, req.href, pageHost)) return true;
      for (var h = req.host; ; ) {
        if (allowMatches(allowByHost.get(h), req.href, pageHost)) return true;
        var dot = h.indexOf(".");
        if (dot < 0) return false;
        h = h.slice(dot + 1);
      }
    }

    // A request-blocklist rule blocking this URL on this page: the regex (scheme and host lowercased by
    // the URL parser, the path case-sensitive, as the rule list's url-filter), the rule's sites, minus the
    // feature's exception sites.
    function blocklisted(req, pageHost) {
      for (var i = 0; i < blocklist.length; i++) {
        var b = blocklist[i];
        if (!test(b.regex, req.scheme + "//" + req.host + (req.port ? ":" + req.port : "") + req.rest, true)) continue;
        if (b.domains && !underAny(pageHost, b.domains)) continue;
        if (b.exceptions && underAny(pageHost, b.exceptions)) continue;
        return true;
      }
      return false;
    }

    // Why a click-to-load rule does not block here, or null when it does (supported action, not unblocked by
    // the user, not the entity's own site, not a feature exception).
    function clickToLoadExemption(action, pageHost, unblocked) {
      if (!ctlEntity.has(action)) return "click-to-load";
      if (unblocked && unblocked.has(action)) return "click-to-load";
      if (pageHost && underAny(pageHost, ctlExceptions)) return "click-to-load";
      var own = tables.entityNamed(ctlEntity.get(action));
      if (pageHost && own && underAny(pageHost, own.domains)) return "first-party";
      return null;
    }

    // The TDS decision for a request: null when the host is no tracker (and no request-blocklist rule
    // blocks it), else {action: "block"|"ignore"|"redirect", reason, tracker, url, surrogate?, rule?}.
    // reason: rule, default, ignore-rule, first-party, tracker-allowlist, unprotected-site,
    // request-blocklist, click-to-load, surrogate.
    // unblocked: optional Set of click-to-load rule actions the user unblocked on the page.
    function decideForHost(requestURL, pageHost, type, unblocked) {
      var req = parseURL(requestURL);
      if (!req) return null;
      pageHost = pageHost || "";
      var hit = lookup(tables.tracker, req.host);
      var matchHost = req.host, cloaked = false;
      if (!hit) {
        // Exactly the alias host, as the rule list's alias rules match it (WebKit blocks no subdomain of an
        // alias, though an alias's parents might suggest it): the report must say what WebKit did.
        var target = tables.cname(req.host);
        if (target !== null) {
          hit = lookup(tables.tracker, target);
          if (hit) { matchHost = target; cloaked = true; }
        }
      }
      var listed = blocklist.length > 0 && blocklisted(req, pageHost);
      if (!hit && !listed) return null;
      var url = req.scheme + "//" + matchHost + req.rest;
      function result(action, reason, extra) {
        var r = { action: action, reason: reason, tracker: hit ? hit.key : null, url: url };
        if (cloaked) r.cname = req.host;
        if (extra) for (var k in extra) if (hasOwn.call(extra, k)) r[k] = extra[k];
        return r;
      }
      var off = protectionsOff(req, pageHost);
      // A request-blocklist URL that is no tracker is reported only when the list blocks it.
      if (!hit) return off ? null : result("block", "request-blocklist");
      if (off) return result("ignore", off);
      var d = decideTracker(hit, req, url, cloaked, pageHost, type, unblocked, result);
      return listed && d.action === "ignore" ? result("block", "request-blocklist") : d;
    }

    // Why nothing is blocked for this request on this page (the rule list's final resets), or null.
    function protectionsOff(req, pageHost) {
      if (data.contentBlockingDisabled) return "unprotected-site";
      if (pageHost && (underAny(pageHost, tempUnprotected) || underAny(pageHost, unprotectedSites))) return "unprotected-site";
      if (isAllowlisted(req, pageHost)) return "tracker-allowlist";
      return null;
    }

    function decideTracker(hit, req, url, cloaked, pageHost, type, unblocked, result) {
      var t = hit.value;
      var entityDomains = t.entity !== undefined ? t.entity.domains : null;
      if (pageHost && entityDomains && underAny(pageHost, entityDomains)) return result("ignore", "first-party");
      if (pageHost && !cloaked && isSameOrSub(pageHost, siteOf(t, hit.key, req.host))) {
        return result("ignore", "first-party");
      }
      var attributed = attributionDecision(hit.key, cloaked ? hostOf(url) : req.host, pageHost);
      if (attributed) return result(attributed, "ad-click-attribution");
      var rules = t.rules || [];
      for (var i = 0; i < rules.length; i++) {
        var r = rules[i];
        var source = r.rule.slice(0, 4) === "http" ? r.rule : SUBDOMAIN_PREFIX + r.rule;
        if (!test(source, url)) continue;
        if (r.options && !conditionsMatch(r.options, pageHost, type)) continue;
        if (r.action === "ignore") return result("ignore", "ignore-rule", { rule: i });
        if (r.exceptions && conditionsMatch(r.exceptions, pageHost, type)) return result("ignore", "ignore-rule", { rule: i });
        var extra = { rule: i };
        var reason = "rule";
        if (typeof r.action === "string" && r.action.slice(0, 10) === "block-ctl-") {
          var exempt = clickToLoadExemption(r.action, pageHost, unblocked);
          if (exempt) return result("ignore", exempt, { rule: i, ruleAction: r.action });
          extra.ruleAction = r.action;
          reason = "click-to-load";
        }
        if (r.surrogate !== undefined) { extra.surrogate = r.surrogate; return result("redirect", "surrogate", extra); }
        return result("block", reason, extra);
      }
      return result(t["default"] === "block" ? "block" : "ignore", "default");
    }

    // While an attribution is active, the attributed list's first rule of the tracker decides its conversion host
    // (and subdomains): allowed on the vendor's site and its subdomains, blocked elsewhere. null otherwise.
    function attributionDecision(tracker, host, pageHost) {
      if (attribution.vendor === null) return null;
      for (var i = 0; i < attribution.pairs.length; i++) {
        var pair = attribution.pairs[i];
        if (pair[0] !== tracker || !isSameOrSub(host, pair[1])) continue;
        return pageHost && isSameOrSub(pageHost, attribution.vendor) ? "ignore" : "block";
      }
      return null;
    }

    // The report for one request: null for a non-tracker, else the radarblock:tracker detail minus the
    // URLs (the caller adds them).
    function classify(requestURL, pageHost, type, unblocked) {
      var d = decideForHost(requestURL, pageHost, type, unblocked);
      if (!d) return null;
      var t = d.tracker !== null ? tables.tracker(d.tracker) : null;
      var owner = t && t.entity !== undefined ? t.entity : null;
      return {
        tracker: d.tracker,
        entity: owner !== null ? owner.name : null,
        displayName: owner !== null ? owner.displayName : null,
        category: t && t.category !== undefined ? t.category : null,
        blocked: d.action !== "ignore",
        reason: d.reason,
        surrogate: d.action === "redirect" ? d.surrogate : null
      };
    }

    return {
      decideForHost: decideForHost,
      decide: function (requestURL, pageURL, type, unblocked) { return decideForHost(requestURL, hostOf(pageURL), type, unblocked); },
      classifyForHost: classify,
      classify: function (requestURL, pageURL, type, unblocked) { return classify(requestURL, hostOf(pageURL), type, unblocked); },
      attributedVendor: function () { return attribution.vendor; },
      setAttributedVendor: function (site) {
        var v = site === null || site === undefined ? "" : String(site).toLowerCase();
        if (v.slice(0, 4) === "www.") v = v.slice(4);
        attribution.vendor = v === "" ? null : v;
      }
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

  // The TDS resource type (webRequest name) of the load an element issues, or null when it issues none.
  function elementLoad(el, getAttribute) {
    var tag = el.localName;
    if (tag === "script") return { attr: "src", type: "script" };
    if (tag === "img") return { attr: "src", type: "image" };
    if (tag === "iframe" || tag === "frame") return { attr: "src", type: "subdocument" };
    if (tag === "audio" || tag === "video" || tag === "source" || tag === "track") return { attr: "src", type: "media" };
    if (tag === "embed") return { attr: "src", type: "object" };
    if (tag === "object") return { attr: "data", type: "object" };
    if (tag === "input") {
      var inputType = applyFn(getAttribute, el, ["type"]);
      return inputType && inputType.toLowerCase() === "image" ? { attr: "src", type: "image" } : null;
    }
    if (tag === "link") {
      var rel = " " + String(applyFn(getAttribute, el, ["rel"]) || "").toLowerCase() + " ";
      if (rel.indexOf(" stylesheet ") >= 0) return { attr: "href", type: "stylesheet" };
      if (rel.indexOf(" icon ") >= 0) return { attr: "href", type: "image" };
      if (rel.indexOf(" preload ") >= 0 || rel.indexOf(" prefetch ") >= 0 || rel.indexOf(" modulepreload ") >= 0) {
        var as = String(applyFn(getAttribute, el, ["as"]) || "").toLowerCase();
        var byAs = { script: "script", style: "stylesheet", image: "image", font: "font", fetch: "xmlhttprequest",
                     audio: "media", video: "media", track: "media", document: "subdocument" };
        return { attr: "href", type: hasOwn.call(byAs, as) ? byAs[as] : (rel.indexOf(" modulepreload ") >= 0 ? "script" : "other") };
      }
    }
    return null;
  }

  // Resource Timing's initiatorType -> the TDS resource type (a CSS-initiated load is a font or an image).
  function timingType(entry) {
    var i = entry.initiatorType;
    if (i === "css") return applyFn(regexTest, FONT_FILE, [entry.name]) ? "font" : "image";
    var byInitiator = { script: "script", img: "image", image: "image", link: "stylesheet", iframe: "subdocument",
                        frame: "subdocument", xmlhttprequest: "xmlhttprequest", fetch: "xmlhttprequest",
                        beacon: "ping", video: "media", audio: "media", track: "media", embed: "object", object: "object" };
    return hasOwn.call(byInitiator, i) ? byInitiator[i] : "other";
  }

  // Tracker detection: every subresource the document requests, classified once per distinct URL and
  // reported as radarblock:tracker. Every page-facing path is guarded: nothing thrown reaches the page.
  function installReport(win, matcher, pageHost, unblocked, dispatchEvent) {
    var doc = win.document;
    var location = win.location;
    var reported = new SetCtor();
    var CustomEventCtor = win.CustomEvent;
    var ElementCtor = win.Element, RequestCtor = win.Request;
    var getAttribute = ElementCtor.prototype.getAttribute;
    var requestURLGetter = RequestCtor ? Object.getOwnPropertyDescriptor(RequestCtor.prototype, "url").get : null;
    var selector = "script[src],img[src],iframe[src],frame[src],audio[src],video[src],source[src],track[src],embed[src]," +
                   "object[data],input[src],link[href]";

    function note(rawURL, type) {
      var req = parseURL(rawURL, doc.baseURI);
      if (!req || reported.has(req.href)) return;
      reported.add(req.href);
      var c = matcher.classifyForHost(req.href, pageHost, type, unblocked);
      if (!c) return;
      var detail = { url: req.href, pageUrl: String(location.href), tracker: c.tracker, entity: c.entity,
                     displayName: c.displayName, category: c.category, blocked: c.blocked, reason: c.reason,
                     surrogate: c.surrogate };
      applyFn(dispatchEvent, win, [new CustomEventCtor(TRACKER_EVENT_NAME, { detail: detail })]);
    }

    function noteElement(el) {
      var load = elementLoad(el, getAttribute);
      if (!load) return;
      var value = applyFn(getAttribute, el, [load.attr]);
      if (value) note(value, load.type);
    }

    function noteTree(node) {
      if (!(node instanceof ElementCtor)) return;
      noteElement(node);
      var inner = node.querySelectorAll(selector);
      for (var i = 0; i < inner.length; i++) noteElement(inner[i]);
    }

    new win.MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        try {
          var r = records[i];
          if (r.type === "attributes") { noteElement(r.target); continue; }
          for (var j = 0; j < r.addedNodes.length; j++) noteTree(r.addedNodes[j]);
        } catch (e) {}
      }
    }).observe(doc, { childList: true, subtree: true, attributes: true, attributeFilter: ["src", "href", "data"] });
    try { noteTree(doc.documentElement); } catch (e) {}

    // A URL as the platform would read it without running page code twice: strings, URL and Request
    // objects (other objects are stringified by the platform; Resource Timing sees their loads).
    function urlOf(input) {
      if (typeof input === "string") return input;
      if (input instanceof URLCtor) return input.href;
      if (requestURLGetter && input instanceof RequestCtor) return applyFn(requestURLGetter, input, []);
      return null;
    }

    // The wrappers keep the original's name, length and property attributes and return exactly what it
    // returns (or throw what it throws); only the observation around the call is guarded.
    function wrap(owner, name, make) {
      var desc = Object.getOwnPropertyDescriptor(owner, name);
      if (!desc || typeof desc.value !== "function") return;
      var original = desc.value;
      var wrapped = make(original);
      Object.defineProperty(wrapped, "name", { value: original.name, configurable: true });
      Object.defineProperty(wrapped, "length", { value: original.length, configurable: true });
      Object.defineProperty(owner, name, { value: wrapped, writable: desc.writable, enumerable: desc.enumerable,
                                           configurable: desc.configurable });
    }

    try {
      // Method definitions, so that the wrappers are no constructors and have no `prototype`, like the originals.
      wrap(win, "fetch", function (original) {
        return ({ fetch(input) {
          try { var u = urlOf(input); if (u !== null) note(u, "xmlhttprequest"); } catch (e) {}
          return applyFn(original, this, arguments);
        } }).fetch;
      });
    } catch (e) {}
    try {
      var openedURL = new win.WeakMap();
      var xhrProto = win.XMLHttpRequest.prototype;
      wrap(xhrProto, "open", function (original) {
        return ({ open(method, url) {
          try { var u = urlOf(url); if (u !== null) openedURL.set(this, u); } catch (e) {}
          return applyFn(original, this, arguments);
        } }).open;
      });
      wrap(xhrProto, "send", function (original) {
        return ({ send() {
          try { if (openedURL.has(this)) note(openedURL.get(this), "xmlhttprequest"); } catch (e) {}
          return applyFn(original, this, arguments);
        } }).send;
      });
    } catch (e) {}
    try {
      new win.PerformanceObserver(function (list) {
        var entries = list.getEntries();
        for (var i = 0; i < entries.length; i++) {
          try { note(entries[i].name, timingType(entries[i])); } catch (e) {}
        }
      }).observe({ type: "resource", buffered: true });
    } catch (e) {}
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

    // Ad-click attribution: the app names the vendor site of the tab's active attribution before the bundle runs
    // (window.radarblockAttributedVendor = "shop.example") or later through
    // window.radarblockAdClickAttribution.activate("shop.example") and .end(), in every frame. The same tab must
    // then have the release's attributed list instead of its ad-click attribution list.
    if (typeof win.radarblockAttributedVendor === "string") matcher.setAttributedVendor(win.radarblockAttributedVendor);
    try {
      Object.defineProperty(win, "radarblockAdClickAttribution", { value: Object.freeze({
        activate: function (site) { matcher.setAttributedVendor(site); },
        end: function () { matcher.setAttributedVendor(null); },
        vendor: function () { return matcher.attributedVendor(); }
      }) });
    } catch (e) {}

    if (DATA.report && !DATA.contentBlockingDisabled) {
      try { installReport(win, matcher, pageHost, unblocked, dispatchEvent); } catch (e) {}
    }

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

  var api = { createMatcher: createMatcher, createTables: createTables, decodeAllowlist: decodeAllowlist, inflate: inflate, data: DATA, surrogateFunctions: surrogateFunctions, eventName: EVENT_NAME,
              trackerEventName: TRACKER_EVENT_NAME };
  if (typeof window === "object" && window !== null && window.document) {
    install(window);
  } else if (typeof module === "object" && module !== null && module.exports) {
    // Not a page (node, the bundle loaded with require): expose the matcher for the tests in Tests/js.
    module.exports = api;
  }
  return api;
})
