// The diff as a person reviews it before a release: the verdict first (what changes, what it costs, what was
// checked), then the flips per entity and per tracker with a few examples, score-only changes apart. Markdown
// fits one pull-request comment (ReportDetail.markdownLimit) whatever the pair of releases; --full and
// --max-flips add the flips themselves, as many as asked.

import StrictJSON
import TrackerData

/// How much of the flips a text or Markdown report lists after its summary.
public enum ReportDetail: Sendable, Equatable {
    /// The summary and a few examples per tracker, bounded by `markdownLimit` characters.
    case summary
    /// The summary, then every flip and every change.
    case full
    /// The summary, then the first N flips.
    case flips(Int)

    /// A GitHub comment holds 65,536 characters; the bounded report keeps a margin for a heading around it.
    public static let markdownLimit = 60_000

    /// How many flips are listed one by one: nil for all.
    var listedFlips: Int? {
        switch self {
        case .summary: return 0
        case .full: return nil
        case .flips(let n): return n
        }
    }
}

/// What the decisions were checked on.
public struct CorpusDescription: Sendable, Equatable {
    public enum Kind: String, Sendable { case derived, requests, pages, mixed }
    public var kind: Kind
    /// A derived corpus that also holds the requests derived from filter lists (FilterCorpus).
    public var filterLists = false
    public init(kind: Kind, filterLists: Bool = false) {
        self.kind = kind
        self.filterLists = filterLists
    }

    /// A derived corpus is made up: URLs built from the datasets' own rules, on invented sites.
    public var synthetic: Bool { kind == .derived }

    public var phrase: String {
        switch kind {
        case .derived where filterLists:
            return
                "the derived corpus: SYNTHETIC requests made from both sides (URLs each network filter and tracker rule"
                + " matches and near misses, on invented first- and third-party sites, the filters' $domain sites and"
                + " others, of the filters' types and others), not real traffic"
        case .derived:
            return
                "the derived corpus: SYNTHETIC requests made from both datasets (URLs each tracker rule matches and "
                + "near misses, "
                + "on invented first-party, same-entity and third-party sites under radarblock.test), not real traffic"
        case .requests: return "the requests given (--requests)"
        case .pages: return "the subresources of the saved pages given (--pages)"
        case .mixed: return "the requests and saved pages given (--requests, --pages)"
        }
    }

    public var jsonValue: JSONValue { ["kind": .string(kind.rawValue), "synthetic": .bool(synthetic)] }
}

/// Lines appended while they fit in `limit` UTF-8 bytes (at least as many as characters); the rest counted.
struct BoundedText {
    let limit: Int
    var text = ""
    var omitted = 0
    var bytes = 0

    /// Appends `s` whole or not at all.
    @discardableResult mutating func add(_ s: String) -> Bool {
        let n = s.utf8.count
        guard bytes + n <= limit else {
            omitted += 1
            return false
        }
        text += s
        bytes += n
        return true
    }
}

extension DiffReport {
    /// Entities, trackers and example trackers shown in the bounded summary.
    static let summaryEntities = 25, summaryTrackers = 50, exampleTrackers = 20, summaryListItems = 40
    /// The longest line the bounded summary shows of a URL or a rule (the rest is cut with "…").
    static let summaryLineLimit = 300

    /// The flips grouped by entity and tracker (empty without requests).
    public func flipSummary() throws -> FlipSummary {
        guard let r = requests else { return FlipSummary() }
        return try FlipSummary.make(r.changed, attribution: attribution)
    }

    /// Trackers whose only changes are rule scores ("metadata": fingerprinting, cookies), kept apart from
    /// changes that can alter blocking.
    var scoreOnlyTrackers: [TrackerChange] {
        (dataset?.trackersChanged ?? []).filter(Self.isScoreOnly)
    }

    static func isScoreOnly(_ t: TrackerChange) -> Bool {
        t.defaultAction == nil && t.owner == nil && t.rulesAdded.isEmpty && t.rulesRemoved.isEmpty && !t.rulesReordered
            && !t.rulesEdited.isEmpty && t.rulesEdited.allSatisfy { $0.fields == ["metadata"] }
    }

    /// The verdict: the flips by kind, the rule and compile-cost change, what was checked.
    func verdictLines(_ s: FlipSummary) -> (headline: String, details: [String]) {
        let headline: String
        if let r = requests {
            headline =
                r.changed.isEmpty
                ? "No request changes outcome (\(r.checked) checked)."
                : "\(s.all.total) of \(r.checked) requests change outcome: \(s.all.newlyBlocked) newly blocked, "
                    + "\(s.all.newlyAllowed) newly allowed, \(s.all.surrogateChanged) with another surrogate."
        } else {
            headline =
                "No requests were checked (neither side has a dataset to derive them from; give --requests or --pages)."
        }
        var details: [String] = []
        if let r = requests {
            details.append(
                "checked: \(r.checked) requests of \((corpus ?? CorpusDescription(kind: .requests)).phrase)"
                    + (r.invalid > 0 ? "; \(r.invalid) invalid requests skipped" : ""))
            if s.all.total > 0 { details.append(Self.flipMeaning(s)) }
        }
        details.append("WebKit rules: \(rules.added.count) added, \(rules.removed.count) removed")
        if let f = filters { details.append("filters: \(f.added.count) added, \(f.removed.count) removed") }
        details.append(
            "WebKit compile cost: " + (compileCostLine ?? "not measured here (radarblock build --previous measures it)")
        )
        if let d = dataset {
            let scoreOnly = scoreOnlyTrackers.count
            details.append(
                "trackers: \(d.trackersAdded.count) added, \(d.trackersRemoved.count) removed, "
                    + "\(d.trackersChanged.count - scoreOnly) changed in what they block, \(scoreOnly) changed in "
                    + "scores only (metadata)"
            )
            if !(d.entitiesAdded.isEmpty && d.entitiesRemoved.isEmpty && d.entitiesChanged.isEmpty) {
                details.append(
                    "entities: \(d.entitiesAdded.count) added, \(d.entitiesRemoved.count) removed, "
                        + "\(d.entitiesChanged.count) changed"
                )
            }
            if !(d.cnamesAdded.isEmpty && d.cnamesRemoved.isEmpty && d.cnamesRetargeted.isEmpty) {
                details.append(
                    "cnames: \(d.cnamesAdded.count) added, \(d.cnamesRemoved.count) removed, "
                        + "\(d.cnamesRetargeted.count) retargeted"
                )
            }
        }
        if identifier.old != identifier.new {
            details.append("identifier: \(identifier.old ?? "none") -> \(identifier.new ?? "none")")
        }
        for key in inputs.keys.sorted() {
            details.append("input \(key): \(inputs[key]!.old ?? "none") -> \(inputs[key]!.new ?? "none")")
        }
        details += lists.map(\.line)
        return (headline, details)
    }

    /// What a flip count counts, said once beside the counts: corpus requests, not distinct URLs.
    static func flipMeaning(_ s: FlipSummary) -> String {
        "a flip is one request of the corpus (a URL loaded as one resource type from one page), and a corpus loads a "
            + "URL from many pages and as several types: the \(s.all.total) flips are \(s.reach.urls) distinct URLs "
            + "on \(s.reach.pages) pages (the URLs and pages columns count them per entity and tracker)"
    }

    /// `allowed -> blocked`, with the deciding rule of each side ("no rule" where none decided).
    func exampleLine(_ c: DecisionChange, clip: Bool) -> String {
        func describe(_ d: Decision) -> String { d.outcome.rawValue + (d.surrogate.map { " (\($0))" } ?? "") }
        func cut(_ s: String) -> String { clip ? Self.clipped(s) : s }
        return "\(c.request.resourceType) \(cut(c.request.url)) on \(cut(c.request.topURL)): \(describe(c.old)) -> "
            + "\(describe(c.new)); old by \(cut(Self.ruleName(c.old.rule))); new by \(cut(Self.ruleName(c.new.rule)))"
    }

    /// The deciding rule of one side as the reports name it: its provenance (or JSON), or "no rule".
    static func ruleName(_ r: DecidingRuleRecord?) -> String { r.map { JSONWriter.string($0.jsonValue) } ?? "no rule" }

    static func clipped(_ s: String) -> String {
        s.count <= summaryLineLimit ? s : String(s.prefix(summaryLineLimit)) + "… (\(s.utf8.count) bytes)"
    }

    // MARK: Markdown

    /// The summary-first Markdown report; `.summary` stays within `ReportDetail.markdownLimit` characters.
    public func writeMarkdown(detail: ReportDetail, _ emit: ([UInt8]) throws -> Void) throws {
        if isEmpty {
            // The same release may still cost WebKit more to compile (another WebKit, another machine).
            let cost =
                (compileCostLine.map { "\n- WebKit compile cost: " + escapeMarkdown($0) + "\n" } ?? "")
                + (compileCostMarkdown ?? "")
            return try emit(Array(("## Rule-set changes\n\nNo differences.\n" + cost).utf8))
        }
        let s = try flipSummary()
        // What follows the summary in the bounded form: a line on what was left out, and the way to it.
        var out = BoundedText(limit: ReportDetail.markdownLimit - 600)
        out.add("## Rule-set changes\n\n")
        let (headline, details) = verdictLines(s)
        out.add("**\(escapeMarkdown(headline))**\n\n")
        for line in details { out.add("- " + escapeMarkdown(Self.clipped(line)) + "\n") }
        if let table = compileCostMarkdown { out.add(table) }
        markdownGroups(s, into: &out)
        if detail == .summary { markdownExamples(s, into: &out) }
        markdownChanges(into: &out, bounded: detail == .summary)
        if detail == .summary {
            var footer = "\n---\n"
            if out.omitted > 0 { footer += "_\(out.omitted) more line(s) left out to fit one comment._ " }
            footer += "_`radarblock diff OLD NEW --full` lists every flip and change; `--format json` is complete._\n"
            return try emit(Array((out.text + footer).utf8))
        }
        try emit(Array(out.text.utf8))
        try markdownFlips(limit: detail.listedFlips, emit)
    }

    private func markdownGroups(_ s: FlipSummary, into out: inout BoundedText) {
        guard s.all.total > 0 else { return }
        out.add("\n_Flips count corpus requests, not URLs: " + escapeMarkdown(Self.flipMeaning(s)) + "._\n")
        func table(_ title: String, _ groups: [FlipSummary.Group], shown: Int, entityColumn: Bool) {
            out.add("\n### \(title) (\(groups.count))\n\n")
            out.add(
                entityColumn
                    ? "| tracker | entity | newly blocked | newly allowed | other surrogate | flips | URLs | pages "
                        + "|\n|---|---|--:|--:|--:|--:|--:|--:|\n"
                    : "| entity | newly blocked | newly allowed | other surrogate | flips | URLs | pages |\n"
                        + "|---|--:|--:|--:|--:|--:|--:|\n")
            for g in groups.prefix(shown) {
                let c = g.counts
                let name =
                    escapeMarkdown(Self.clipped(g.name))
                    + (entityColumn ? " | " + escapeMarkdown(Self.clipped(g.entity ?? "")) : "")
                out.add(
                    "| \(name) | \(c.newlyBlocked) | \(c.newlyAllowed) | \(c.surrogateChanged) | \(c.total) | "
                        + "\(g.reach.urls) | \(g.reach.pages) |\n")
            }
            if groups.count > shown {
                let rest = groups.dropFirst(shown).reduce(0) { $0 + $1.counts.total }
                out.add("\n\(groups.count - shown) more, with \(rest) flips in all.\n")
            }
        }
        table("Flips per entity", s.entities, shown: Self.summaryEntities, entityColumn: false)
        table("Flips per tracker", s.trackers, shown: Self.summaryTrackers, entityColumn: true)
    }

    private func markdownExamples(_ s: FlipSummary, into out: inout BoundedText) {
        guard s.all.total > 0 else { return }
        out.add("\n### Examples (" + Self.examplesPhrase(s) + ")\n")
        for g in s.trackers.prefix(Self.exampleTrackers) {
            out.add(
                "\n**\(escapeMarkdown(Self.clipped(g.name)))** (\(escapeMarkdown(g.entity ?? ""))), "
                    + escapeMarkdown(Self.groupCounts(g)) + ":\n"
            )
            for c in g.examples { out.add("- " + escapeMarkdown(exampleLine(c, clip: true)) + "\n") }
        }
    }

    /// Which flips the examples are.
    static func examplesPhrase(_ s: FlipSummary) -> String {
        "up to \(FlipSummary.examplesPerTracker) flips of each of the \(min(Self.exampleTrackers, s.trackers.count)) "
            + "trackers with most flips, each another URL, newly blocked and newly allowed in turn; each with the "
            + "rule that decided on the old and on the new side"
    }

    /// A group's counts, each with what it counts.
    static func groupCounts(_ g: FlipSummary.Group) -> String {
        let c = g.counts
        return "\(c.total) flips (\(c.newlyBlocked) newly blocked, \(c.newlyAllowed) newly allowed, "
            + "\(c.surrogateChanged) other surrogate) of \(g.reach.urls) distinct URLs on \(g.reach.pages) pages"
    }

    private func markdownChanges(into out: inout BoundedText, bounded: Bool) {
        let limit = bounded ? Self.summaryListItems : Int.max
        func list(_ title: String, _ items: [String], code: Bool = false) {
            guard !items.isEmpty else { return }
            out.add("\n### \(title) (\(items.count))\n\n")
            for item in items.prefix(limit) {
                let shown = bounded ? Self.clipped(item) : item
                out.add(
                    code
                        ? "- `" + shown.replacingOccurrences(of: "`", with: "'") + "`\n"
                        : "- " + escapeMarkdown(shown) + "\n")
            }
            if items.count > limit { out.add("- … \(items.count - limit) more\n") }
        }
        if let d = dataset {
            list("Trackers added, with their rules", d.trackersAdded.map(trackerWithRules))
            list("Trackers removed, with their rules", d.trackersRemoved.map(trackerWithRules))
            list(
                "Trackers changed in what they block",
                d.trackersChanged.filter { !Self.isScoreOnly($0) }.map(trackerLine))
            let scores = scoreOnlyTrackers
            if !scores.isEmpty {
                out.add("\n### Score-only changes (metadata, \(scores.count) trackers): no effect on blocking\n\n")
                let names = scores.prefix(limit).map(\.domain).joined(separator: ", ")
                let more = scores.count > limit ? ", … \(scores.count - limit) more" : ""
                out.add(escapeMarkdown(names) + more + "\n")
            }
        }
        if let f = filters {
            list("Filters added", f.added.map(\.text), code: true)
            list("Filters removed", f.removed.map(\.text), code: true)
        }
        list("WebKit rules added", rules.added.map(\.rule), code: true)
        list("WebKit rules removed", rules.removed.map(\.rule), code: true)
    }

    /// Every flip (`limit` nil) or the first `limit`, a page at a time, each with both sides' rules.
    private func markdownFlips(limit: Int?, _ emit: ([UInt8]) throws -> Void) throws {
        guard let r = requests, !r.changed.isEmpty, limit != 0 else { return }
        let shown = min(r.changed.count, limit ?? r.changed.count)
        try emit(
            Array(
                "\n<details><summary>Requests that changed outcome (\(shown) of \(r.changed.count))</summary>\n\n".utf8)
        )
        var left = shown
        try r.changed.forEachPage { page in
            guard left > 0 else { return }
            let part = page.changes.prefix(left)
            left -= part.count
            try emit(Array(part.map { "- " + escapeMarkdown(exampleLine($0, clip: false)) + "\n" }.joined().utf8))
        }
        try emit(Array("\n</details>\n".utf8))
    }

    // MARK: text

    /// The text report in the same shape: the verdict, the groups, examples or the flips.
    public func writeText(detail: ReportDetail, _ emit: ([UInt8]) throws -> Void) throws {
        if isEmpty { return try emit(Array("no differences\n".utf8)) }
        let s = try flipSummary()
        let (headline, details) = verdictLines(s)
        var out = headline + "\n" + details.map { "  " + $0 + "\n" }.joined()
        func table(_ title: String, _ groups: [FlipSummary.Group], shown: Int) {
            guard !groups.isEmpty else { return }
            out +=
                "\n\(title) (\(groups.count)): newly blocked / newly allowed / other surrogate / flips / URLs / pages\n"
            for g in groups.prefix(shown) {
                let c = g.counts
                out +=
                    "  \(c.newlyBlocked) / \(c.newlyAllowed) / \(c.surrogateChanged) / \(c.total) / \(g.reach.urls) / "
                    + "\(g.reach.pages)  "
                    + "\(Self.clipped(g.name))"
                    + (g.entity.map { " (\(Self.clipped($0)))" } ?? "") + "\n"
            }
            if groups.count > shown { out += "  … \(groups.count - shown) more\n" }
        }
        let bounded = detail == .summary
        table("flips per entity", s.entities, shown: bounded ? Self.summaryEntities : s.entities.count)
        table("flips per tracker", s.trackers, shown: bounded ? Self.summaryTrackers : s.trackers.count)
        if bounded, s.all.total > 0 {
            out += "\nexamples (" + Self.examplesPhrase(s) + "):\n"
            for g in s.trackers.prefix(Self.exampleTrackers) {
                for c in g.examples { out += "  " + exampleLine(c, clip: true) + "\n" }
            }
        }
        if let d = dataset {
            let limit = bounded ? Self.summaryListItems : Int.max
            func list(_ title: String, _ items: [String], mark: String) {
                guard !items.isEmpty else { return }
                out +=
                    "\n\(title) (\(items.count)):\n"
                    + items.prefix(limit).map { "  \(mark) \(bounded ? Self.clipped($0) : $0)\n" }
                    .joined()
                if items.count > limit { out += "  … \(items.count - limit) more\n" }
            }
            list("trackers added, with their rules", d.trackersAdded.map(trackerWithRules), mark: "+")
            list("trackers removed, with their rules", d.trackersRemoved.map(trackerWithRules), mark: "-")
            list(
                "trackers changed in what they block",
                d.trackersChanged.filter { !Self.isScoreOnly($0) }.map(trackerLine), mark: "~")
            list("trackers changed in scores only (metadata)", scoreOnlyTrackers.map(\.domain), mark: "~")
        }
        if let f = filters { out += filterLines(f, bounded: bounded) }
        try emit(Array(out.utf8))
        guard !bounded, let r = requests, !r.changed.isEmpty else { return }
        var left = detail.listedFlips ?? r.changed.count
        guard left > 0 else { return }
        try emit(Array("\nrequests that changed outcome (\(min(left, r.changed.count)) of \(r.changed.count)):\n".utf8))
        try r.changed.forEachPage { page in
            guard left > 0 else { return }
            let part = page.changes.prefix(left)
            left -= part.count
            try emit(Array(part.map { "  " + exampleLine($0, clip: false) + "\n" }.joined().utf8))
        }
    }

    /// The text report's filters added and removed, each as `+ list:line: filter`.
    func filterLines(_ f: FilterListDiff, bounded: Bool) -> String {
        let limit = bounded ? Self.summaryListItems : Int.max
        var out = ""
        for (title, entries, mark) in [("filters added", f.added, "+"), ("filters removed", f.removed, "-")]
        where !entries.isEmpty {
            out += "\n\(title) (\(entries.count)):\n"
            out += entries.prefix(limit).map { "  \(mark) \(bounded ? Self.clipped($0.text) : $0.text)\n" }.joined()
            if entries.count > limit { out += "  … \(entries.count - limit) more\n" }
        }
        return out
    }
}
