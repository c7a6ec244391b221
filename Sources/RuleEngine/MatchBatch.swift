// JSONL batches: one request line in, one answer line out, errors in place of answers.

import FileIO
import Parallel
import Provenance
import StrictJSON

public struct MatchBatch {
    public let engine: RuleEngine
    private var result = MatchResult()
    /// With `match --explain`: how to name the deciding rule of each answer.
    private var explainer: DecidingRuleDescriber?
    private var format: Format
    /// Whether answers name their deciding rule (`explainer` is set: always in the text form), and whether the form
    /// is text. Stored because they are read per line, and reading `explainer` or `format` there copied them (and
    /// once the whole batch, a retain and release per field).
    private let deciding: Bool, text: Bool
    private var decider: Decider
    /// Per list, per compiled rule: the surrogate the page runs when that rule decides a block (the TDS rule's
    /// `surrogate`, through the rule's provenance); empty when unknown.
    public var surrogates: [[String?]] = []
    /// The lines of the share being answered: the errors before its first answered line (at most
    /// `NotRequestsError.leadingLines`), and whether it had one.
    private var leading = LeadingErrors()

    /// Who names the deciding rule. The engine does it from its automata in the same pass as the answer;
    /// Explain re-derives it rule by rule, slowly, as an independent cross-check (scripts/testing compares the two).
    public enum Decider: Sendable, Equatable {
        case automaton
        /// Explain over the rules whose url-filter the automaton reports (`allRules`: over every rule).
        case explain(allRules: Bool)
    }

    public enum Format: Sendable {
        /// The `match --requests` answer line of `MatchResult` (with "decidedBy" when explaining).
        case json
        /// One readable line per request, as the renderer writes what the page gets.
        case text(AnswerTextRenderer)

        public var isText: Bool { if case .text = self { return true } else { return false } }
    }

    public init(
        engine: RuleEngine, explainer: DecidingRuleDescriber? = nil, format: Format = .json,
        decider: Decider = .automaton
    ) {
        self.engine = engine
        // The text form names the deciding rule: by the lists' identifiers when no one says how.
        self.explainer =
            explainer ?? (format.isText ? DecidingRuleDescriber(engine: engine, labels: [], provenance: []) : nil)
        self.format = format
        self.decider = decider
        deciding = self.explainer != nil
        text = format.isText
    }

    /// A batch answering the same, for another thread.
    public func copy() -> MatchBatch {
        let e = engine.copy()
        var batch = MatchBatch(engine: e, explainer: explainer?.describing(e), format: format, decider: decider)
        batch.surrogates = surrogates
        return batch
    }

    /// Appends the answer line for one request line (without its newline) to `out`.
    public mutating func answer(
        line: ArraySlice<UInt8>, lineNumber: Int, tooLong: Bool = false, into out: inout [UInt8]
    ) {
        line.withUnsafeBufferPointer { answer(line: $0, lineNumber: lineNumber, tooLong: tooLong, into: &out) }
    }

    /// As `answer(line:...)`, for a line's bytes in place.
    public mutating func answer(
        line: UnsafeBufferPointer<UInt8>, lineNumber: Int, tooLong: Bool = false, into out: inout [UInt8]
    ) {
        let look = tooLong ? ScannedLine() : Self.look(at: line, engine: engine, decider: decider)
        answer(line: line, look: look, lineNumber: lineNumber, tooLong: tooLong, into: &out)
    }

    /// Answers lines in order, each looked at (see `ScannedLine`) while the one before it is answered.
    mutating func answer<Line: ChunkLine>(_ lines: Slice<UnsafeBufferPointer<Line>>, into out: inout [UInt8]) {
        // A nested function reading `self` would copy the whole batch (a retain and release per field) per line.
        let engine = engine, decider = decider
        func look(_ i: Int) -> ScannedLine {
            lines[i].tooLong
                ? ScannedLine() : lines[i].withBytes { Self.look(at: $0, engine: engine, decider: decider) }
        }
        var next = lines.isEmpty ? ScannedLine() : look(lines.startIndex)
        for i in lines.indices {
            let current = next
            if i + 1 < lines.endIndex { next = look(i + 1) }
            let line = lines[i]
            line.withBytes {
                answer(line: $0, look: current, lineNumber: line.number, tooLong: line.tooLong, into: &out)
            }
        }
    }

    private mutating func answer(
        line: UnsafeBufferPointer<UInt8>, look: ScannedLine, lineNumber: Int, tooLong: Bool, into out: inout [UInt8]
    ) {
        if tooLong {
            fail("line \(lineNumber): the line is too long", into: &out)
            return
        }

        do {
            var decidedBy: DecidingRule? = nil
            let (engine, deciding, decider) = (engine, deciding, decider)
            let request = try Self.read(line, look, deciding: deciding, engine: engine, text: text, decider: decider) {
                load in
                guard let load else {
                    result.clear()
                    return
                }
                engine.match(load, into: &result, deciding: deciding && decider == .automaton ? .all : .none)
                decidedBy = result.decidedBy
                if deciding, case .explain(let allRules) = decider {
                    let lists = engine.lists
                    decidedBy = Explain.decidingRule(
                        lists, try lists.map { try Explain.explain($0, load, prefilter: !allRules) })
                }
            }
            if !text {
                if deciding {
                    result.writeJSONLine(into: &out, closingWith: false)
                    out.append(contentsOf: ",\"decidedBy\":".utf8)
                    explainer!.write(decidedBy, into: &out)
                    out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
                } else {
                    result.writeJSONLine(into: &out)
                }
            } else if case .text(let renderer) = format {
                let outcome = DecisionSide.outcome(
                    result, decidedBy: decidedBy, surrogateOfRule: surrogates, actions: true)
                let line = renderer.line(request!, outcome, decidedBy: decidedBy.flatMap { explainer?.describe($0) })
                out.append(contentsOf: Array(line.utf8))
                out.append(0x0A)
            }
            leading.answered = true
        } catch let e as RequestError {
            fail("line \(lineNumber): \(e.message)", into: &out)
        } catch {
            fail("line \(lineNumber): \(error)", into: &out)
        }
    }

    /// A line's error in place of its answer, noted while no line of the share was answered.
    private mutating func fail(_ message: String, into out: inout [UInt8]) {
        if !leading.answered, leading.messages.count < NotRequestsError.leadingLines {
            leading.messages.append(message)
        }
        writeError(message, into: &out)
    }

    /// What is known of a line before its answer: its fields (nil: not a flat line) and its URL's plain host.
    /// The look also starts loading the url automata's cached prefix for that host, which the answer reads
    /// first: the cache spans megabytes, a request to a slot not in the core's cache waited for memory, and
    /// the answer of the line before now covers that wait (docs/matching.md has the measurement). Offsets only,
    /// no pointers: the answer reads the line's bytes again.
    struct ScannedLine {
        var fields: RequestLineScanner.Fields? = nil
        var plainHost: CanonicalURL.PlainHost? = nil
    }

    static func look(at line: UnsafeBufferPointer<UInt8>, engine: RuleEngine, decider: Decider) -> ScannedLine {
        guard let f = RequestLineScanner.scan(UnsafeRawBufferPointer(line)) else { return ScannedLine() }
        let raw = UnsafeBufferPointer(rebasing: line[f.url])
        let plain = CanonicalURL.plainHost(raw)
        if decider == .automaton, let (_, host) = plain { engine.prefetchURL(raw, hostEnd: host.upperBound) }
        return ScannedLine(fields: f, plainHost: plain)
    }

    /// Decodes and resolves one line, and hands its load to `answer`: nil when the engine reports nothing for its
    /// URL whatever the rest. Returns the request (built only for the text form, or when the line is not a flat
    /// object of plain strings). A flat line is read in place: no String for its URLs, and no site resolved for a
    /// URL no rule can match. Static, with the batch's parts as arguments: a method called from the mutating
    /// `answer` copied the whole batch on each line. The load is handed on, not returned: returned as an optional,
    /// it was copied and destroyed through the generic value witnesses on every line.
    private static func read(
        _ line: UnsafeBufferPointer<UInt8>, _ look: ScannedLine, deciding: Bool, engine: RuleEngine, text: Bool,
        decider: Decider, answer: (ResourceLoad?) throws -> Void
    ) throws -> MatchRequest? {
        guard let f = look.fields else {
            let request = try MatchRequest.decode(line: UnsafeRawBufferPointer(line))
            try answer(try engine.resolve(request))
            return request
        }
        func bytes(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: line[r]) }
        func string(_ r: Range<Int>) -> String { String(decoding: bytes(r), as: UTF8.self) }
        let request = text ? f.request(in: UnsafeRawBufferPointer(line)) : nil
        let names = try LoadNames(resourceType: bytes(f.resourceType), loadContext: f.loadContext.map(bytes))
        // Explain's cross-check reads every request in full. A plain scheme and host decide "nothing" before the
        // rest of the URL is read: when the URL is valid they begin its serialization, and when it is not, WebKit
        // reports nothing for it either.
        let raw = bytes(f.url), plain = look.plainHost
        if decider == .automaton, let (_, host) = plain,
            engine.reportsNothing(rawURL: raw, hostEnd: host.upperBound, deciding: deciding)
        {
            try answer(nil)
            return request
        }
        let url = CanonicalURL.parse(utf8: raw, plainHost: plain)
        // A valid URL with a plain host serializes with the bytes just asked about: no need to ask again.
        if decider == .automaton, plain == nil || url == nil, engine.reportsNothing(for: url, deciding: deciding) {
            try answer(nil)
            return request
        }
        // Explain's cross-check parses the top URL only when it is not the last one.
        let topRaw = bytes(f.topURL)
        let top: URLResolver.Top
        if decider == .automaton {
            let topPlain = CanonicalURL.plainHost(topRaw)
            engine.prefetchSite(topURL: topRaw, plainHost: topPlain)
            top = engine.resolver.top(utf8: topRaw, plainHost: topPlain)
        } else {
            top = engine.resolver.top(utf8: topRaw)
        }
        try answer(
            ResourceLoad(
                url: url, rawURL: raw, topURL: topRaw, top: top, frameURL: f.frameURL.map(bytes), names: names,
                requestMethod: f.requestMethod.map(string), resolver: engine.resolver))
        return request
    }

    /// A line's error in place of its answer, in the batch's format.
    private func writeError(_ message: String, into out: inout [UInt8]) {
        switch format {
        case .json: MatchResult.writeErrorLine(message, into: &out)
        case .text(let renderer): out.append(contentsOf: Array((renderer.errorLine(message) + "\n").utf8))
        }
    }
}

/// Writes the lines of `MatchBatch.Format.text` (the CLI's: the engine returns values, the CLI says them).
public protocol AnswerTextRenderer: Sendable {
    /// The line for one request (without its newline); `decidedBy` is nil when no rule decided.
    func line(_ request: MatchRequest, _ outcome: PageOutcome, decidedBy: DecidingRuleDescription?) -> String
    /// The line in place of a request's answer that could not be given.
    func errorLine(_ message: String) -> String
}

extension MatchBatch {
    /// `match --requests`: the JSONL requests of `path` ("-": stdin) answered on `fd`, one line each, in
    /// order, with buffered reads and writes. Lines are read in chunks, each chunk is answered on every core
    /// (each with its own copy of `batch`) and written in order; a closed output ends the run quietly. A regular
    /// file is mapped (MappedLines); anything else is read (LineReader).
    public static func answer(requestsFrom path: String, with batch: MatchBatch, to fd: Int32 = 1) throws {
        try answer(requestsFrom: path, with: batch, to: fd, chunk: (chunkLines, chunkBytes))
    }

    static func answer(
        requestsFrom path: String, with batch: MatchBatch, to fd: Int32, chunk: (lines: Int, bytes: Int),
        mapping: Bool = true
    ) throws {
        if mapping, var mapped = try MappedLines.open(path: path) {
            defer { mapped.close() }
            // Where the chunk being answered starts: a chunk is read while the one before it is answered.
            var answering = 0
            try answer(
                batch, path: path, to: fd,
                fill: { lines in
                    // The chunks before the one being answered are answered and written: their pages can go.
                    mapped.release(before: answering)
                    answering = mapped.offset
                    return readChunk(limits: chunk, into: &lines) { mapped.next() }
                })
            return
        }
        var reader = try LineReader(path: path)
        defer { reader.close() }
        try answer(
            batch, path: path, to: fd,
            fill: { lines in try readChunk(limits: chunk, into: &lines) { try reader.next() } })
    }

    /// The stream of chunks: `fill` appends a chunk of lines (false once the input is exhausted).
    private static func answer<Line: ChunkLine>(
        _ batch: MatchBatch, path: String, to fd: Int32, fill: (inout [Line]) throws -> Bool
    ) throws {
        var output = BufferedOutput(fd: fd)
        // Nothing is written until the file has shown it holds requests: its first lines are not all errors.
        var start = LeadingErrors()
        try Parallel.stream(
            state: batch, copy: { $0.copy() }, fill: fill,
            work: { batch, share in
                var out: [UInt8] = []
                batch.leading = LeadingErrors()
                batch.answer(share, into: &out)
                return (out, batch.leading)
            },
            consume: { outputs, _ in
                for (o, leading) in outputs {
                    try start.extend(with: leading, path: path)
                    output.buffer.append(contentsOf: o)
                    if start.answered, !output.flush() { return false }
                }
                return true
            })
        _ = output.flush()
    }

    /// Appends up to a chunk of lines from `next`; false once it is exhausted.
    static func readChunk<Line: ChunkLine>(
        limits: (lines: Int, bytes: Int), into lines: inout [Line], next: () throws -> Line?
    ) rethrows -> Bool {
        var bytes = 0
        while lines.count < limits.lines && bytes < limits.bytes {
            guard let line = try next() else { return false }
            bytes += line.byteCount
            lines.append(line)
        }
        return true
    }

    /// Lines per chunk: large enough to amortize waking the other cores, small enough to stream.
    static let chunkLines = 16384
    static let chunkBytes = 8 << 20
}

/// A line of either source: what a chunk counts, and what its answer reads.
protocol ChunkLine {
    var byteCount: Int { get }
    var number: Int { get }
    var tooLong: Bool { get }
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
}

extension LineReader.Line: ChunkLine {
    var byteCount: Int { bytes.count }
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { bytes.withUnsafeBufferPointer(body) }
}

extension MappedLines.Line: ChunkLine {
    var byteCount: Int { bytes.count }
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { body(bytes) }
}

/// A deciding rule as `match --explain` names it.
public struct DecidingRuleDescription: Sendable, Equatable {
    /// The list's name (file name or identifier).
    public var list: String
    /// The rule's index in the list's JSON.
    public var rule: Int
    /// The rule itself; nil for an .rbc compiled without its source.
    public var ruleJSON: JSONValue?
    /// What the builder recorded for the rule, when known.
    public var provenance: RuleProvenance?

    /// `{"list", "rule", "ruleJSON", "provenance"}`, absent values as null.
    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                ("list", .string(list)), ("rule", .number(Double(rule))), ("ruleJSON", ruleJSON ?? .null),
                ("provenance", provenance?.jsonValue ?? .null),
            ]))
    }
}

/// Names deciding rules for `match --explain`, with the builder's record of the rule when known.
public struct DecidingRuleDescriber {
    private(set) var engine: RuleEngine
    /// Per list: the name printed as "list" (file name or identifier).
    let labels: [String]
    /// Per list: provenance by JSON index, when known.
    let provenance: [[RuleProvenance]?]
    private var cache: [DecidingRule: [UInt8]] = [:]

    public init(engine: RuleEngine, labels: [String], provenance: [[RuleProvenance]?]) {
        self.engine = engine
        self.labels = labels
        self.provenance = provenance
        // Parsed once here, so that copies for other threads share the parsed rules.
        for list in engine.lists { list.parseSource() }
    }

    /// The same descriptions from `engine` (a copy of this one's, for another thread).
    func describing(_ engine: RuleEngine) -> DecidingRuleDescriber {
        var d = self
        d.engine = engine
        return d
    }

    public func describe(_ d: DecidingRule) -> DecidingRuleDescription {
        let list = engine.lists[d.list]
        let source = Int(list.compiled.rules[d.rule].sourceIndex)
        var recorded: RuleProvenance? = nil
        if d.list < provenance.count, let p = provenance[d.list], source < p.count { recorded = p[source] }
        return DecidingRuleDescription(
            list: d.list < labels.count ? labels[d.list] : list.identifier, rule: source,
            ruleJSON: list.ruleJSON(d.rule), provenance: recorded)
    }

    /// Appends the "decidedBy" value (null when no rule decided).
    mutating func write(_ d: DecidingRule?, into out: inout [UInt8]) {
        guard let d else {
            out.append(contentsOf: Array("null".utf8))
            return
        }
        if let bytes = cache[d] {
            out.append(contentsOf: bytes)
            return
        }
        let bytes = JSONWriter.bytes(describe(d).jsonValue)
        cache[d] = bytes
        out.append(contentsOf: bytes)
    }
}

/// The errors of a run's (or a share's) first lines, up to its first answered line.
struct LeadingErrors {
    var messages: [String] = []
    var answered = false

    /// The run's leading errors followed by those of its next share; throws once they are too many to be a few
    /// bad lines of a requests file.
    mutating func extend(with share: LeadingErrors, path: String) throws {
        guard !answered else { return }
        messages += share.messages.prefix(NotRequestsError.leadingLines - messages.count)
        if messages.count >= NotRequestsError.leadingLines {
            throw NotRequestsError(path: path, firstErrors: Array(messages.prefix(3)))
        }
        answered = share.answered
    }
}

/// `match --requests` given a file that is not JSONL requests (a TDS, a rule list, a JSON array): its first
/// `leadingLines` lines are all errors. Answering on would print an error line for each of its lines and exit 0.
public struct NotRequestsError: Error, CustomStringConvertible {
    /// Ten: a requests file with a few bad lines has a good one among its first ten, and a pretty-printed JSON
    /// file has none.
    public static let leadingLines = 10
    public var path: String
    public var firstErrors: [String]

    public var description: String {
        "\(path == "-" ? "standard input" : path): not JSONL requests (one JSON request object per line): its first"
            + " \(Self.leadingLines) lines are all errors, nothing was answered; " + firstErrors.joined(separator: "; ")
    }
}
