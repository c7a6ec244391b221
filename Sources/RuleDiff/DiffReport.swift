// A release diff: identifiers, changed input components, tracker-level changes, WebKit rules added and
// removed, and the requests whose outcome flipped. Rendered as JSON (for machines: a stable contract),
// Markdown (pull requests and release notes: summary first, long sections collapsible) and text.

import Parallel
import RuleEngine
import StrictJSON
import TrackerData

public struct DiffReport: Sendable {
    public var identifier: ValueChange<String?>
    /// Component name -> old/new value, only for components that differ.
    public var inputs: [String: ValueChange<String?>]
    public var dataset: DatasetDiff?
    public var rules: RuleSetDiff
    public var requests: DecisionDiff?
    /// Per list of a release (main parts, click-to-load lists): the ones that differ.
    public var lists: [ListChange] = []
    /// Filters added and removed, when a side holds filter lists (absent from the JSON otherwise).
    public var filters: FilterListDiff?
    /// What the requests were (a derived corpus is synthetic, and every format says so).
    public var corpus: CorpusDescription?
    /// Which tracker and entity each flip belongs to.
    public var attribution = FlipAttribution(datasets: [])
    /// WebKit's compile cost change, when a build measured it: one line for the verdict, a table after it.
    public var compileCostLine: String?
    public var compileCostMarkdown: String?

    public init(
        identifier: ValueChange<String?>, inputs: [String: ValueChange<String?>], dataset: DatasetDiff?,
        rules: RuleSetDiff, requests: DecisionDiff?
    ) {
        self.identifier = identifier
        self.inputs = inputs
        self.dataset = dataset
        self.rules = rules
        self.requests = requests
    }

    /// "Same" as diff(1) means it: nothing that affects behaviour or provenance differs.
    public var isEmpty: Bool {
        identifier.old == identifier.new && inputs.isEmpty && (dataset?.isEmpty ?? true) && rules.isEmpty
            && (requests?.changed.isEmpty ?? true) && lists.isEmpty && (filters?.isEmpty ?? true)
    }

    // MARK: JSON

    /// The whole report as a JSON value: for small reports (a release's changes.json); `writeJSON` streams.
    public func json() throws -> JSONValue {
        var changed: [JSONValue] = []
        try requests?.changed.forEachPage { changed += $0.changes.map(changeJSON) }
        return json(changed: changed, summary: try flipSummary())
    }

    /// `ruleEntries: false` leaves the added and removed rules out (writeJSON writes them itself).
    private func json(changed: [JSONValue], summary: FlipSummary, ruleEntries: Bool = true) -> JSONValue {
        var o = JSONObject()
        o["identifier"] = ["old": optional(identifier.old), "new": optional(identifier.new)]
        var inputsObject = JSONObject()
        for key in inputs.keys.sorted() {
            inputsObject[key] = ["old": optional(inputs[key]!.old), "new": optional(inputs[key]!.new)]
        }
        o["inputs"] = .object(inputsObject)
        let d = dataset ?? DatasetDiff()
        o["trackers"] = [
            "added": .array(d.trackersAdded.map { .string($0) }),
            "removed": .array(d.trackersRemoved.map { .string($0) }),
            "changed": .array(d.trackersChanged.map(trackerJSON)),
        ]
        o["entities"] = [
            "added": .array(d.entitiesAdded.map { .string($0) }),
            "removed": .array(d.entitiesRemoved.map { .string($0) }),
            "changed": .array(
                d.entitiesChanged.map { e in
                    [
                        "name": .string(e.name), "domainsAdded": .array(e.domainsAdded.map { .string($0) }),
                        "domainsRemoved": .array(e.domainsRemoved.map { .string($0) }),
                    ]
                }),
        ]
        o["cnames"] = [
            "added": .object(JSONObject(d.cnamesAdded.keys.sorted().map { ($0, .string(d.cnamesAdded[$0]!)) })),
            "removed": .object(JSONObject(d.cnamesRemoved.keys.sorted().map { ($0, .string(d.cnamesRemoved[$0]!)) })),
            "retargeted": .object(
                JSONObject(
                    d.cnamesRetargeted.keys.sorted().map {
                        (
                            $0,
                            ["old": .string(d.cnamesRetargeted[$0]!.old), "new": .string(d.cnamesRetargeted[$0]!.new)]
                        )
                    })),
        ]
        o["rules"] = [
            "added": .number(Double(rules.added.count)),
            "removed": .number(Double(rules.removed.count)),
            "addedRules": .array(ruleEntries ? rules.added.map(ruleEntryJSON) : []),
            "removedRules": .array(ruleEntries ? rules.removed.map(ruleEntryJSON) : []),
        ]
        o["lists"] = .array(lists.map(\.jsonValue))
        if let filters { o["filters"] = filters.jsonValue }
        o["summary"] = summary.jsonValue
        o["requests"] = requestsJSON(changed: changed)
        return .object(o)
    }

    /// The bytes of `JSONWriter.write(json)`, written a page of flips at a time: a large corpus has millions
    /// of flips, and their JSON tree would cost several times their own memory.
    public func writeJSON(into out: inout [UInt8]) throws {
        try writeJSON { out.append(contentsOf: $0) }
    }

    /// As `writeJSON(into:)`, handing the bytes to `emit` in pieces (a page of flips at a time, each page
    /// written on every core): memory holds one page of the report, however many flips it lists.
    public func writeJSON(_ emit: ([UInt8]) throws -> Void) throws {
        let skeleton = json(changed: [], summary: try flipSummary(), ruleEntries: false)
        guard case .object(let o) = skeleton else { preconditionFailure("a report is a JSON object") }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, key) in o.keys.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            if key == "rules" {
                writeRules(into: &out)
                continue
            }
            guard key == "requests", let r = requests else {
                JSONWriter.write(o[key]!, into: &out)
                continue
            }
            // {"checked":N,"invalid":N,"changed":[...]}, with the flips written as they are read back.
            var head: [UInt8] = []
            JSONWriter.write(requestsJSON(changed: []), into: &head)
            let emptyChanged = Array("[]}".utf8)
            precondition(
                head.suffix(emptyChanged.count).elementsEqual(emptyChanged), "requests JSON ends with its changed array"
            )
            out.append(contentsOf: head.dropLast(emptyChanged.count))
            out.append(UInt8(ascii: "["))
            var first = true
            try r.changed.forEachPage { page in
                // A part of a page at a time: the part before is on its way to the file while the next is made.
                for part in stride(from: 0, to: page.changes.count, by: Self.flipsPerPart) {
                    try emit(out)
                    out = writeFlips(
                        page, part..<min(page.changes.count, part + Self.flipsPerPart), leadingComma: !first)
                    first = false
                }
            }
            out.append(contentsOf: Array("]}".utf8))
        }
        out.append(UInt8(ascii: "}"))
        try emit(out)
    }

    /// Flips written and handed to the output at a time.
    static let flipsPerPart = 2048

    /// Flips of a page, comma-separated (with a leading comma after the first part), written in
    /// consecutive shares, one per core, concatenated in order: flips are independent.
    private func writeFlips(_ page: FlipLog.Page, _ flips: Range<Int>, leadingComma: Bool) -> [UInt8] {
        let parts = Parallel.mapShares(flips.count, workers: Parallel.workers(for: flips.count / 256 + 1)) {
            share -> [UInt8] in
            var part: [UInt8] = []
            // A tracker's entity, looked up in the datasets once per share, not once per flip.
            var entities: [String: String] = [:]
            for j in share.lowerBound + flips.lowerBound..<share.upperBound + flips.lowerBound {
                if j > 0 || leadingComma { part.append(UInt8(ascii: ",")) }
                let c = page.changes[j]
                let tracker = attribution.tracker(of: c)
                let entity: String
                if let known = entities[tracker] {
                    entity = known
                } else {
                    entity = attribution.entity(ofTracker: tracker)
                    entities[tracker] = entity
                }
                Self.writeChange(c, rules: page.ruleJSON[j], tracker: tracker, entity: entity, into: &part)
            }
            return part
        }
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for p in parts { out.append(contentsOf: p) }
        return out
    }

    /// "requests": counts, then the changed requests last (writeJSON relies on that order).
    private func requestsJSON(changed: [JSONValue]) -> JSONValue {
        guard let r = requests else { return ["checked": 0, "changed": []] }
        return [
            "checked": .number(Double(r.checked)),
            "invalid": .number(Double(r.invalid)),
            "corpus": corpus?.jsonValue ?? .null,
            "changed": .array(changed),
        ]
    }

    /// The bytes of `JSONWriter.write(changeJSON(c))`, written without building the value: the rules'
    /// JSON comes written already (`rules`), and a flip's value would cost more than its bytes.
    static func writeChange(
        _ c: DecisionChange, rules: (old: [UInt8]?, new: [UInt8]?), tracker: String, entity: String,
        into out: inout [UInt8]
    ) {
        func member(_ key: StaticString, _ value: String?, first: Bool = false) {
            guard let value else { return }
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
            out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
            JSONWriter.writeString(value, into: &out)
        }
        func raw(_ s: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        func rule(_ bytes: [UInt8]?) { if let bytes { out.append(contentsOf: bytes) } else { raw("null") } }
        func decision(_ d: Decision, _ bytes: [UInt8]?) {
            member("outcome", d.outcome.rawValue, first: true)
            member("surrogate", d.surrogate)
            raw(",\"rule\":")
            rule(bytes)
            raw("}")
        }
        let r = c.request
        raw("{\"request\":{")
        member("url", r.url, first: true)
        member("topURL", r.topURL)
        member("frameURL", r.frameURL)
        member("resourceType", r.resourceType)
        member("loadContext", r.loadContext)
        member("requestMethod", r.requestMethod)
        raw("},\"old\":{")
        decision(c.old, rules.old)
        raw(",\"new\":{")
        decision(c.new, rules.new)
        raw(",\"rule\":")
        rule(rules.new ?? rules.old)
        member("tracker", tracker)
        member("entity", entity)
        raw("}")
    }

    private func changeJSON(_ c: DecisionChange) -> JSONValue {
        let tracker = attribution.tracker(of: c)
        return [
            "request": requestJSON(c.request), "old": c.old.jsonValue, "new": c.new.jsonValue,
            "rule": (c.new.rule ?? c.old.rule)?.jsonValue ?? .null,
            "tracker": .string(tracker), "entity": .string(attribution.entity(ofTracker: tracker)),
        ]
    }

    private func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    private func trackerJSON(_ t: TrackerChange) -> JSONValue {
        var o = JSONObject()
        o["domain"] = .string(t.domain)
        if let d = t.defaultAction { o["default"] = ["old": optional(d.old), "new": optional(d.new)] }
        if let w = t.owner { o["owner"] = ["old": optional(w.old), "new": optional(w.new)] }
        if !t.rulesAdded.isEmpty { o["rulesAdded"] = .array(t.rulesAdded.map(\.jsonValue)) }
        if !t.rulesRemoved.isEmpty { o["rulesRemoved"] = .array(t.rulesRemoved.map(\.jsonValue)) }
        if !t.rulesEdited.isEmpty {
            o["rulesEdited"] = .array(
                t.rulesEdited.map { e in
                    [
                        "rule": .string(e.rule), "fields": .array(e.fields.map { .string($0) }), "old": e.old.jsonValue,
                        "new": e.new.jsonValue,
                    ]
                })
        }
        if t.rulesReordered { o["rulesReordered"] = true }
        return .object(o)
    }

    /// The bytes of "rules" in `json()`. A rule is written as its canonical JSON text, which is JSONWriter's
    /// own output: parsing it and writing it again gives the same bytes, at a cost per rule.
    private func writeRules(into out: inout [UInt8]) {
        func raw(_ s: String) { out.append(contentsOf: s.utf8) }
        func entries(_ list: [RuleSetDiff.Entry]) {
            out.append(UInt8(ascii: "["))
            for (i, e) in list.enumerated() {
                raw(i == 0 ? "{\"index\":" : ",{\"index\":")
                JSONWriter.writeNumber(Double(e.index), into: &out)
                raw(",\"rule\":")
                raw(e.rule)
                if let p = e.provenance {
                    raw(",\"provenance\":")
                    JSONWriter.write(p.jsonValue, into: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        raw("{\"added\":")
        JSONWriter.writeNumber(Double(rules.added.count), into: &out)
        raw(",\"removed\":")
        JSONWriter.writeNumber(Double(rules.removed.count), into: &out)
        raw(",\"addedRules\":")
        entries(rules.added)
        raw(",\"removedRules\":")
        entries(rules.removed)
        out.append(UInt8(ascii: "}"))
    }

    private func ruleEntryJSON(_ e: RuleSetDiff.Entry) -> JSONValue {
        var o = JSONObject()
        o["index"] = .number(Double(e.index))
        o["rule"] = (try? JSONParser.parse(e.rule)) ?? .string(e.rule)
        if let p = e.provenance { o["provenance"] = p.jsonValue }
        return .object(o)
    }

    func requestJSON(_ r: MatchRequest) -> JSONValue { r.jsonValue }

    /// A changed tracker and what changed, with the rules added and removed (each as `ruleText`).
    func trackerLine(_ t: TrackerChange) -> String {
        var parts: [String] = []
        if let d = t.defaultAction { parts.append("default \(d.old ?? "none") -> \(d.new ?? "none")") }
        if let o = t.owner { parts.append("owner \(o.old ?? "none") -> \(o.new ?? "none")") }
        if !t.rulesAdded.isEmpty {
            parts.append(
                "\(t.rulesAdded.count) rule(s) added: " + t.rulesAdded.map(Self.ruleText).joined(separator: ", "))
        }
        if !t.rulesRemoved.isEmpty {
            parts.append(
                "\(t.rulesRemoved.count) rule(s) removed: " + t.rulesRemoved.map(Self.ruleText).joined(separator: ", "))
        }
        for e in t.rulesEdited { parts.append("rule \(e.rule): \(e.fields.joined(separator: ", ")) changed") }
        if t.rulesReordered { parts.append("rules reordered") }
        return "\(t.domain): " + parts.joined(separator: "; ")
    }

    /// An added or removed tracker (`domain`, from the side that has it) with its default and its rules.
    func trackerWithRules(_ domain: String) -> String {
        guard let t = attribution.datasets.lazy.compactMap({ $0.trackers[domain] }).first else { return domain }
        let rules = t.rules.isEmpty ? "no rules" : "rules " + t.rules.map(Self.ruleText).joined(separator: ", ")
        return "\(domain) (default \(t.defaultAction?.rawValue ?? "none")): \(rules)"
    }

    /// A TDS rule in one line: its pattern, and its action, surrogate, options and exceptions when it has them.
    static func ruleText(_ r: TrackerRule) -> String {
        var extras: [String] = []
        if let a = r.action { extras.append(a.description) }
        if let s = r.surrogate { extras.append("surrogate " + s) }
        if r.options != nil { extras.append("with options") }
        if r.exceptions != nil { extras.append("with exceptions") }
        return "/" + r.rule + "/" + (extras.isEmpty ? "" : " (" + extras.joined(separator: ", ") + ")")
    }

    // MARK: text and Markdown (ReviewReport.swift)

    public func text(detail: ReportDetail = .summary) throws -> String {
        try collect { try writeText(detail: detail, $0) }
    }

    public func markdown(detail: ReportDetail = .summary) throws -> String {
        try collect { try writeMarkdown(detail: detail, $0) }
    }

    private func collect(_ write: (([UInt8]) throws -> Void) throws -> Void) throws -> String {
        var bytes: [UInt8] = []
        try write { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes what Markdown would read as markup or HTML; text like "a -> b" stays readable.
    func escapeMarkdown(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "<": out += "&lt;"
            case "&": out += "&amp;"
            case "\\", "`", "*", "[", "]", "|": out += "\\" + String(ch)
            default: out.append(ch)
            }
        }
        return out
    }
}
