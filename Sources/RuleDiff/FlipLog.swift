// The flipped requests of a decision diff, in corpus order, in bounded memory however many there are.
// A corpus of ten million requests can flip a million of them, and a report must list them all.
//
// Each flip is held as a compact record: its request's strings, then each side's outcome and surrogate,
// and the deciding rule as an index into a table of the distinct rules seen (a few thousand at most, while
// flips share them by the hundred thousand). Records fill a page in memory; a full page goes to a scratch
// file, and reading back decodes one page at a time. Copies stay independent: the file only grows, and
// each copy knows its own pages.

import FileIO
import RuleEngine
import StrictJSON

public struct FlipLog: @unchecked Sendable {
    /// Record bytes held in memory before they go to the scratch file.
    public static let defaultPageBytes = 1 << 22

    public private(set) var count = 0
    public var isEmpty: Bool { count == 0 }

    private let pageBytes: Int
    private var tail: [UInt8] = []
    private var tailCount = 0
    /// Pages in the scratch file: their byte ranges and how many records each holds.
    private var pages: [(bytes: Range<Int>, count: Int)] = []
    private var scratch: FileIO.ScratchFile?
    /// The distinct deciding rules, by the bytes of their JSON (JSONObject's equality ignores key order,
    /// which the report's bytes do not).
    private var rules: [DecidingRuleRecord] = []
    private var ruleIndex: [[UInt8]: Int] = [:]
    /// The JSON of each rule, for reports: written once however many flips it decides.
    private var ruleBytes: [[UInt8]] = []

    public init(pageBytes: Int = FlipLog.defaultPageBytes) {
        self.pageBytes = Swift.max(1, pageBytes)
    }

    /// Pages written to the scratch file so far (the rest is in memory).
    public var spilledPages: Int { pages.count }

    public mutating func append(_ change: DecisionChange) throws {
        func recorded(_ d: Decision) -> RecordedDecision {
            RecordedDecision(outcome: d.outcome, surrogate: d.surrogate, rule: d.rule.map { intern($0) })
        }
        try append(request: change.request, old: recorded(change.old), new: recorded(change.new))
    }

    /// One side of a flip as the log keeps it: the deciding rule as its index from `intern`.
    struct RecordedDecision {
        var outcome: PageOutcome.Kind
        var surrogate: String?
        var rule: Int?
    }

    /// As `append(_:)`, with the rules already interned: a diff interns each deciding rule once, not once per
    /// flip it decides.
    mutating func append(request r: MatchRequest, old: RecordedDecision, new: RecordedDecision) throws {
        // Field by field, not over array literals: those were two arrays made for every flip.
        Record.write(r.url, into: &tail)
        Record.write(r.topURL, into: &tail)
        Record.write(r.frameURL, into: &tail)
        Record.write(r.resourceType, into: &tail)
        Record.write(r.loadContext, into: &tail)
        Record.write(r.requestMethod, into: &tail)
        write(old)
        write(new)
        count += 1
        tailCount += 1
        if tail.count >= pageBytes { try spill() }
    }

    private mutating func write(_ d: RecordedDecision) {
        tail.append(d.outcome.code)
        Record.write(d.surrogate, into: &tail)
        Record.write(d.rule.map { $0 + 1 } ?? 0, into: &tail)
    }

    /// A recorded side of a flip as the log reads it back.
    func decision(_ d: RecordedDecision) -> Decision {
        Decision(outcome: d.outcome, surrogate: d.surrogate, rule: d.rule.map { rules[$0] })
    }

    /// The index of `rule` in the table of distinct rules, added when new.
    mutating func intern(_ rule: DecidingRuleRecord) -> Int {
        let key = JSONWriter.bytes(rule.jsonValue)
        if let i = ruleIndex[key] { return i }
        rules.append(rule)
        ruleBytes.append(key)
        ruleIndex[key] = rules.count - 1
        return rules.count - 1
    }

    private mutating func spill() throws {
        if scratch == nil { scratch = try FileIO.ScratchFile() }
        let start = scratch!.size
        try scratch!.append(tail)
        pages.append((start..<scratch!.size, tailCount))
        tail.removeAll(keepingCapacity: true)
        tailCount = 0
    }

    /// A page of flips, with the JSON of each decision's rule.
    public struct Page {
        public var changes: [DecisionChange] = []
        /// Per change, the JSON bytes of `old.rule` and `new.rule` (nil: no rule).
        public var ruleJSON: [(old: [UInt8]?, new: [UInt8]?)] = []
    }

    /// Every flip in order, a page at a time: memory holds one decoded page.
    public func forEachPage(_ body: (Page) throws -> Void) throws {
        for i in 0..<pages.count + 1 {
            let page = try self.page(i)
            if !page.changes.isEmpty { try body(page) }
        }
    }

    /// Page `i` decoded: the scratch file's pages, then the one in memory.
    private func page(_ i: Int) throws -> Page {
        if i == pages.count { return decode(tail, count: tailCount) }
        return decode(try scratch!.read(pages[i].bytes), count: pages[i].count)
    }

    private func decode(_ bytes: [UInt8], count: Int) -> Page {
        var reader = Record.Reader(bytes: bytes)
        var out = Page()
        out.changes.reserveCapacity(count)
        out.ruleJSON.reserveCapacity(count)
        for _ in 0..<count {
            let request = MatchRequest(
                url: reader.string()!, topURL: reader.string()!, frameURL: reader.string(),
                resourceType: reader.string()!, loadContext: reader.string(), requestMethod: reader.string())
            func decision() -> (Decision, [UInt8]?) {
                let outcome = PageOutcome.Kind(code: reader.byte())
                let surrogate = reader.string()
                let rule = reader.number()
                return (
                    Decision(
                        outcome: outcome, surrogate: surrogate, rule: rule == 0 ? nil : rules[rule - 1]),
                    rule == 0 ? nil : ruleBytes[rule - 1]
                )
            }
            let old = decision(), new = decision()
            out.changes.append(DecisionChange(request: request, old: old.0, new: new.0))
            out.ruleJSON.append((old.1, new.1))
        }
        return out
    }

    /// Every flip in order, read back whole: for tests and small diffs (the reports use `forEachPage`).
    /// A failed read of the scratch file (a failing disk: the file is this process's own, unlinked and never
    /// truncated) is thrown, naming the file.
    public func changes() throws -> [DecisionChange] {
        var all: [DecisionChange] = []
        all.reserveCapacity(count)
        try forEachPage { all += $0.changes }
        return all
    }
}

extension PageOutcome.Kind {
    var code: UInt8 {
        switch self {
        case .allowed: 0
        case .blocked: 1
        case .surrogate: 2
        }
    }

    init(code: UInt8) { self = code == 2 ? .surrogate : code == 1 ? .blocked : .allowed }
}

/// The record encoding: numbers as LEB128, an optional string as its length + 1 (0: none) and its bytes.
enum Record {
    static func write(_ n: Int, into out: inout [UInt8]) {
        var n = UInt(n)
        while n >= 0x80 {
            out.append(UInt8(n & 0x7F) | 0x80)
            n >>= 7
        }
        out.append(UInt8(n))
    }

    static func write(_ s: String?, into out: inout [UInt8]) {
        guard var s else { return write(0, into: &out) }
        s.withUTF8 { utf8 in
            write(utf8.count + 1, into: &out)
            out.append(contentsOf: utf8)
        }
    }

    /// Reads what `write` wrote (the bytes are this process's own, so they are well formed).
    struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func byte() -> UInt8 {
            defer { at += 1 }
            return bytes[at]
        }

        mutating func number() -> Int {
            var n: UInt = 0, shift: UInt = 0
            while true {
                let b = byte()
                n |= UInt(b & 0x7F) << shift
                if b < 0x80 { return Int(n) }
                shift += 7
            }
        }

        mutating func string() -> String? {
            let n = number()
            guard n > 0 else { return nil }
            defer { at += n - 1 }
            return String(decoding: bytes[at..<at + n - 1], as: UTF8.self)
        }
    }
}
