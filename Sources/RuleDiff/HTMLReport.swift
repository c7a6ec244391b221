// The diff as one self-contained HTML page (`diff --format html`, a release's changes.html): the verdict, the
// summary as inline SVG charts, examples per tracker, the trackers added, removed and changed with their rules, and
// every flip with both sides' deciding rules in a table filtered by tracker, entity, outcome and resource type.
// Nothing is fetched (a Content-Security-Policy forbids it); dataset strings reach the page only as escaped text
// or as JSON data that the page's script puts in place with textContent, never as markup.

import StrictJSON

extension DiffReport {
    /// Rows the table shows at once; the filters narrow the rest.
    static let htmlShownRows = 500

    public func html() throws -> String {
        var bytes: [UInt8] = []
        try writeHTML { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The page in pieces: the flips' data a page of the flip log at a time.
    public func writeHTML(_ emit: ([UInt8]) throws -> Void) throws {
        let s = try flipSummary()
        let (headline, details) = verdictLines(s)
        var out = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
            script-src 'unsafe-inline'">
            <title>radarblock diff</title>
            <style>\(Self.htmlStyle)</style></head><body>
            <h1>Rule-set changes</h1>
            <p id="verdict"><strong>\(Self.escapeHTML(isEmpty ? "No differences." : headline))</strong></p>
            <ul>\(details.map { "<li>" + Self.escapeHTML($0) + "</li>" }.joined())</ul>

            """
        out += "<h2>Flips per entity</h2>\n" + entityChart(s) + "\n"
        if s.all.total > 0 { out += "<p id=\"flip-meaning\">" + Self.escapeHTML(Self.flipMeaning(s)) + "</p>\n" }
        out +=
            "<h2>WebKit rules</h2>\n" + rulesChart() + "\n" + htmlExamples(s) + htmlTrackerChanges()
            + htmlFilterChanges()
        out += """
            <h2>Flips</h2>
            <div id="filters">
            <label>tracker <select id="f-tracker"><option value="">all</option></select></label>
            <label>entity <select id="f-entity"><option value="">all</option></select></label>
            <label>outcome <select id="f-outcome"><option value="">all</option></select></label>
            <label>type <select id="f-type"><option value="">all</option></select></label>
            </div>
            <p id="count"></p>
            <table id="flips"><thead><tr><th>tracker</th><th>entity</th><th>type</th><th>URL</th><th>page</th>\
            <th>old</th><th>new</th><th>old deciding rule</th><th>new deciding rule</th></tr></thead><tbody></tbody>\
            </table>
            <script type="application/json" id="flip-data">[
            """
        try emit(Array(out.utf8))
        var first = true
        try requests?.changed.forEachPage { page in
            var part: [UInt8] = []
            for c in page.changes {
                if !first { part.append(UInt8(ascii: ",")) }
                first = false
                let tracker = attribution.tracker(of: c)
                func outcome(_ d: Decision) -> String { d.outcome.rawValue + (d.surrogate.map { " (\($0))" } ?? "") }
                let row: JSONValue = .array(
                    [
                        tracker, attribution.entity(ofTracker: tracker), c.request.resourceType, c.request.url,
                        c.request.topURL, outcome(c.old), outcome(c.new), Self.ruleName(c.old.rule),
                        Self.ruleName(c.new.rule),
                    ].map { .string($0) })
                Self.writeScriptJSON(row, into: &part)
                part.append(0x0A)
            }
            try emit(part)
        }
        try emit(Array("]</script>\n<script>\(Self.htmlScript)</script>\n</body></html>\n".utf8))
    }

    /// The examples of the trackers with most flips (as the Markdown report picks them), each with its counts.
    func htmlExamples(_ s: FlipSummary) -> String {
        guard s.all.total > 0 else { return "" }
        var out = "<h2>Examples</h2>\n<p>" + Self.escapeHTML(Self.examplesPhrase(s)) + ".</p>\n<div id=\"examples\">"
        for g in s.trackers.prefix(Self.exampleTrackers) {
            out +=
                "<h3>" + Self.escapeHTML(g.name) + " (" + Self.escapeHTML(g.entity ?? "") + ")</h3><p>"
                + Self.escapeHTML(Self.groupCounts(g)) + "</p><ul>"
                + g.examples.map { "<li>" + Self.escapeHTML(exampleLine($0, clip: true)) + "</li>" }.joined() + "</ul>"
        }
        return out + "</div>\n"
    }

    /// Trackers added and removed with their rules, and those changed in what they block with what changed.
    func htmlTrackerChanges() -> String {
        guard let d = dataset else { return "" }
        func section(_ id: String, _ title: String, _ items: [String]) -> String {
            guard !items.isEmpty else { return "" }
            return "<h2>\(title) (\(items.count))</h2>\n<ul id=\"\(id)\">"
                + items.map { "<li>" + Self.escapeHTML($0) + "</li>" }.joined() + "</ul>\n"
        }
        return section("trackers-added", "Trackers added, with their rules", d.trackersAdded.map(trackerWithRules))
            + section("trackers-removed", "Trackers removed, with their rules", d.trackersRemoved.map(trackerWithRules))
            + section(
                "trackers-changed", "Trackers changed in what they block",
                d.trackersChanged.filter { !Self.isScoreOnly($0) }.map(trackerLine))
    }

    /// Filters added and removed (when a side holds filter lists), each with its list and line.
    func htmlFilterChanges() -> String {
        guard let f = filters else { return "" }
        func section(_ id: String, _ title: String, _ items: [FilterListDiff.Entry]) -> String {
            guard !items.isEmpty else { return "" }
            return "<h2>\(title) (\(items.count))</h2>\n<ul id=\"\(id)\">"
                + items.map { "<li><code>" + Self.escapeHTML($0.text) + "</code></li>" }.joined() + "</ul>\n"
        }
        return section("filters-added", "Filters added", f.added)
            + section("filters-removed", "Filters removed", f.removed)
    }

    /// Horizontal bars of the entities with most flips: newly blocked, newly allowed, other surrogate, stacked.
    func entityChart(_ s: FlipSummary) -> String {
        let shown = Array(s.entities.prefix(15))
        guard let top = shown.first?.counts.total, top > 0 else { return "<p>No flips.</p>" }
        let width = 520.0, label = 230.0, bar = 18.0
        var svg =
            "<svg id=\"chart-entities\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(label + width + 80))\" "
            + "height=\"\(Int(Double(shown.count) * (bar + 6) + 10))\">"
        for (i, g) in shown.enumerated() {
            let y = Double(i) * (bar + 6) + 4
            svg += "<text x=\"0\" y=\"\(y + 13)\" font-size=\"12\">\(Self.escapeHTML(Self.clipped(g.name, 34)))</text>"
            var x = label
            for (n, color) in [
                (g.counts.newlyBlocked, "#c0392b"), (g.counts.newlyAllowed, "#27ae60"),
                (g.counts.surrogateChanged, "#2980b9"),
            ] where n > 0 {
                let w = max(1, width * Double(n) / Double(top))
                svg +=
                    "<rect class=\"bar\" x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(bar)\" "
                    + "fill=\"\(color)\"></rect>"
                x += w
            }
            svg += "<text x=\"\(x + 4)\" y=\"\(y + 13)\" font-size=\"12\">\(g.counts.total)</text>"
        }
        return svg + "</svg><p class=\"legend\"><span style=\"color:#c0392b\">■</span> newly blocked "
            + "<span style=\"color:#27ae60\">■</span> newly allowed <span style=\"color:#2980b9\">■</span> other "
            + "surrogate</p>"
    }

    /// Rules of every list before and after (and the added and removed ones).
    func rulesChart() -> String {
        let before = lists.compactMap(\.ruleCount.old).reduce(0, +),
            after = lists.compactMap(\.ruleCount.new).reduce(0, +)
        let bars = [
            ("before", before), ("after", after), ("added", rules.added.count), ("removed", rules.removed.count),
        ]
        let top = max(1, bars.map(\.1).max() ?? 1)
        var svg =
            "<svg id=\"chart-rules\" xmlns=\"http://www.w3.org/2000/svg\" width=\"700\" "
            + "height=\"\(bars.count * 24 + 10)\">"
        for (i, (name, n)) in bars.enumerated() {
            let y = i * 24 + 4, w = max(1, 520 * n / top)
            svg += "<text x=\"0\" y=\"\(y + 13)\" font-size=\"12\">\(name)</text>"
            svg += "<rect class=\"bar\" x=\"80\" y=\"\(y)\" width=\"\(w)\" height=\"18\" fill=\"#7f8c8d\"></rect>"
            svg += "<text x=\"\(84 + w)\" y=\"\(y + 13)\" font-size=\"12\">\(n)</text>"
        }
        return svg + "</svg>"
            + (compileCostLine.map { "<p>WebKit compile cost: " + Self.escapeHTML($0) + "</p>" } ?? "")
    }

    static func clipped(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }

    /// Text for HTML content and attribute values.
    static func escapeHTML(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// JSON inside <script type="application/json">: "<", ">" and "&" as \u escapes, so no "</script>" or "<!--"
    /// can close or comment the element, whatever the strings hold.
    static func writeScriptJSON(_ value: JSONValue, into out: inout [UInt8]) {
        var raw: [UInt8] = []
        JSONWriter.write(value, into: &raw)
        for b in raw {
            switch b {
            case UInt8(ascii: "<"): out += Array("\\u003c".utf8)
            case UInt8(ascii: ">"): out += Array("\\u003e".utf8)
            case UInt8(ascii: "&"): out += Array("\\u0026".utf8)
            default: out.append(b)
            }
        }
    }

    static let htmlStyle = """
        body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;font-size:12px}
        td,th{border-bottom:1px solid #ddd;padding:2px \
        6px;text-align:left;vertical-align:top}td:nth-child(4),td:nth-child(5),td:nth-child(8),\
        td:nth-child(9){word-break:break-all;max-width:32em}
        #filters label{margin-right:1em}.legend{font-size:12px}
        """

    /// Fills the filters from the data and shows the matching flips (the first htmlShownRows of them).
    static let htmlScript = """
        (function () {
          "use strict";
          var rows = JSON.parse(document.getElementById("flip-data").textContent);
          var filters = {tracker: "f-tracker", entity: "f-entity", outcome: "f-outcome", type: "f-type"};
          function outcomeOf(r) { return r[5] + " -> " + r[6]; }
          function fill(id, values) {
            var select = document.getElementById(id), seen = {}, list = [];
            values.forEach(function (v) { if (!Object.prototype.hasOwnProperty.call(seen, v)) { seen[v] = true; \
        list.push(v); } });
            list.sort();
            list.forEach(function (v) { var o = document.createElement("option"); o.value = v; o.textContent = v; \
        select.appendChild(o); });
            select.addEventListener("change", render);
          }
          fill(filters.tracker, rows.map(function (r) { return r[0]; }));
          fill(filters.entity, rows.map(function (r) { return r[1]; }));
          fill(filters.outcome, rows.map(outcomeOf));
          fill(filters.type, rows.map(function (r) { return r[2]; }));
          function value(key) { return document.getElementById(filters[key]).value; }
          function render() {
            var t = value("tracker"), e = value("entity"), o = value("outcome"), y = value("type");
            var body = document.querySelector("#flips tbody"), matching = 0, shown = document.createDocumentFragment();
            for (var i = 0; i < rows.length; i++) {
              var r = rows[i];
              if ((t && r[0] !== t) || (e && r[1] !== e) || (y && r[2] !== y) || (o && outcomeOf(r) !== o)) continue;
              matching++;
              if (matching > \(htmlShownRows)) continue;
              var tr = document.createElement("tr");
              r.forEach(function (cell) { var td = document.createElement("td"); td.textContent = cell; \
        tr.appendChild(td); });
              shown.appendChild(tr);
            }
            body.textContent = "";
            body.appendChild(shown);
            document.getElementById("count").textContent = matching + " of " + rows.length + " flips match"
              + (matching > \(htmlShownRows) ? " (the first \(htmlShownRows) shown)" : "");
            document.body.setAttribute("data-matching", String(matching));
          }
          render();
        })();
        """
}
