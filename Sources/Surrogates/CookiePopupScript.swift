// The script layer of the cookie pop-up list: the filters CSS cannot express (`sel:-abp-contains(text)`), applied
// by a small observer appended to surrogates.js. It is a piece of its own, with its own data and function, apart
// from the surrogate runtime (PageScript.js) and its data (PageData).
//
// What it does, in every frame at document start: it decides the page's host (the top page's, from
// `location.ancestorOrigins` in a cross-origin frame, as the rule list judges the top URL), keeps the filters that
// apply there (ABP's most-specific-site rule, exceptions, the config's off sites: the same data and the same
// decision as `CosmeticSites.applies`), and hides every element that matches a filter's CSS and whose text
// contains its text, now and whenever nodes or text are added (MutationObserver). It hides with an inline
// `display: none !important`, which no style sheet of the page overrides.
//
// Safety: every string from the dataset is JSON data written with .scriptSafe; selectors only reach
// `querySelectorAll` (inside try), texts only `indexOf`. Nothing is evaluated.

import Domains
import StrictJSON
import TrackerData

public struct CookiePopupScriptData: Sendable, Hashable {
    public var filters: [CosmeticScriptHide]
    /// Sites (with subdomains) where the list is off.
    public var offSites: [String]

    public init(filters: [CosmeticScriptHide], offSites: [String]) {
        self.filters = filters
        self.offSites = offSites
    }

    /// The data as the script and `cpm-script.json` carry it.
    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                ("offSites", .array(offSites.map(JSONValue.string))),
                (
                    "filters",
                    .array(
                        filters.map { f in
                            .object(
                                JSONObject([
                                    ("selector", .string(f.selector)),
                                    ("css", .string(f.css)),
                                    ("text", .string(f.text)),
                                    (
                                        "sites",
                                        .array(f.sites.entries.map { .array([.string($0.domain), .bool($0.include)]) })
                                    ),
                                    ("exceptions", .array(f.sites.exceptions.map(JSONValue.string))),
                                    ("lines", .array(f.lines.map { .number(Double($0)) })),
                                ]))
                        })
                ),
            ]))
    }

    /// Reads `jsonValue` back (`match` reads a release's cpm-script.json); nil when it is not that shape.
    public init?(json: JSONValue) {
        guard let off = json["offSites"]?.arrayValue?.compactMap(\.stringValue), let raw = json["filters"]?.arrayValue
        else { return nil }
        var filters: [CosmeticScriptHide] = []
        for f in raw {
            guard let selector = f["selector"]?.stringValue, let css = f["css"]?.stringValue,
                let text = f["text"]?.stringValue,
                let sites = f["sites"]?.arrayValue,
                let exceptions = f["exceptions"]?.arrayValue?.compactMap(\.stringValue)
            else { return nil }
            var entries: [CosmeticFilter.SiteEntry] = []
            for s in sites {
                guard let pair = s.arrayValue, pair.count == 2, let d = pair[0].stringValue,
                    case .bool(let include) = pair[1]
                else { return nil }
                entries.append(.init(domain: d, include: include))
            }
            let lines = f["lines"]?.arrayValue?.compactMap { $0.numberValue.map(Int.init) } ?? []
            filters.append(
                CosmeticScriptHide(
                    selector: selector, css: css, text: text,
                    sites: CosmeticSites(entries: entries, exceptions: exceptions), lines: lines))
        }
        self.init(filters: filters, offSites: off)
    }

    /// The filters the script applies on a page whose top host is `host` (normalised).
    public func active(onHost host: String) -> [CosmeticScriptHide] {
        if Host.suffixes(of: host).contains(where: { offSites.contains($0) }) { return [] }
        return filters.filter { $0.sites.applies(toHost: host) }
    }
}

public enum CookiePopupScript {
    /// The piece appended to the bundle: the observer, called with its data.
    public static func piece(_ data: CookiePopupScriptData) -> String {
        "/* radarblock cookie pop-up filters for the script layer: \(data.filters.count). */\n"
            + observer + "(" + JSONWriter.string(data.jsonValue, options: [.sortedKeys, .scriptSafe]) + ");\n"
    }

    static let observer = """
        (function (DATA) {
          "use strict";
          if (!DATA.filters.length || typeof document === "undefined") return;
          function topHost() {
            try { if (window.top === window) return location.hostname; } catch (e) {}
            var a = location.ancestorOrigins;
            if (a && a.length) { try { return new URL(a[a.length - 1]).hostname; } catch (e) {} }
            try { return window.top.location.hostname; } catch (e) { return location.hostname; }
          }
          function suffixes(h) {
            var out = [h];
            for (var i = h.indexOf("."); i >= 0 && i + 1 < h.length; i = h.indexOf(".")) { h = h.slice(i + 1); \
        out.push(h); }
            return out;
          }
          function covered(s, list) {
            for (var i = 0; i < s.length; i++) if (list.indexOf(s[i]) >= 0) return true;
            return false;
          }
          function applies(f, s) {
            if (covered(s, f.exceptions)) return false;
            for (var i = 0; i < s.length; i++)
              for (var j = 0; j < f.sites.length; j++) if (f.sites[j][0] === s[i]) return f.sites[j][1];
            for (var k = 0; k < f.sites.length; k++) if (f.sites[k][1]) return false;
            return true;
          }
          var s = suffixes(String(topHost()).toLowerCase().replace(/\\.$/, ""));
          if (covered(s, DATA.offSites)) return;
          var active = DATA.filters.filter(function (f) { return applies(f, s); });
          if (!active.length) return;
          function scan() {
            for (var i = 0; i < active.length; i++) {
              var els;
              try { els = document.querySelectorAll(active[i].css); } catch (e) { continue; }
              for (var j = 0; j < els.length; j++)
                if (String(els[j].textContent).indexOf(active[i].text) >= 0) els[j].style.setProperty("display", \
        "none", "important");
            }
          }
          new MutationObserver(scan).observe(document, { childList: true, subtree: true, characterData: true });
          scan();
        })
        """
}
