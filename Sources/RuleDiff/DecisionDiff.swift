// Which requests now behave differently: a corpus evaluated with the engine against both versions.
// Decisions and the rules that made them come from the compiled lists (the same code path `match
// --explain` uses: MatchResult.decidedBy); the corpus streams through in chunks, each chunk split over
// the cores (Parallel.stream), so memory holds two chunks, never every answer; the flips go to a FlipLog,
// which keeps a page of them in memory and the rest in a scratch file.

import ContentRules
import Domains
import Foundation
import Parallel
import Provenance
import RuleCompiler
import RuleEngine
import StrictJSON
import TrackerData

extension DecisionSide {
    /// The deciding rule as a diff names it: its provenance, or its JSON when no provenance is known.
    func describe(_ d: DecidingRule) -> DecidingRuleRecord? {
        if let p = provenance(of: d) { return .provenance(p) }
        return engine.lists[d.list].ruleJSON(d.rule).map(DecidingRuleRecord.rule)
    }

    /// Surrogate names by TDS rule of a dataset, for telling "surrogate" from "blocked".
    public static func surrogates(of tds: TrackerDataSet) -> [TDSRuleID: String] {
        var out: [TDSRuleID: String] = [:]
        for (domain, tracker) in tds.trackers {
            for (i, rule) in tracker.rules.enumerated() {
                if let s = rule.surrogate { out[TDSRuleID(tracker: domain, index: i)] = s }
            }
        }
        return out
    }
}

/// The rule that decided, as a diff names it: the builder's record of it, or the rule's JSON when its side has no
/// provenance.
public enum DecidingRuleRecord: Hashable, Sendable {
    case provenance(RuleProvenance)
    case rule(JSONValue)

    public var jsonValue: JSONValue {
        switch self {
        case .provenance(let p): return p.jsonValue
        case .rule(let json): return json
        }
    }

    /// The TDS tracker the provenance names.
    public var tracker: String? {
        guard case .provenance(let p) = self else { return nil }
        return p.tracker
    }
}

public struct Decision: Sendable, Equatable {
    public var outcome: PageOutcome.Kind
    public var surrogate: String?
    /// The rule that decided.
    public var rule: DecidingRuleRecord?

    public init(outcome: PageOutcome.Kind, surrogate: String?, rule: DecidingRuleRecord?) {
        self.outcome = outcome
        self.surrogate = surrogate
        self.rule = rule
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["outcome"] = .string(outcome.rawValue)
        if let surrogate { o["surrogate"] = .string(surrogate) }
        o["rule"] = rule?.jsonValue ?? .null
        return .object(o)
    }
}

public struct DecisionChange: Sendable {
    public var request: MatchRequest
    public var old: Decision
    public var new: Decision
}

public struct DecisionDiff: Sendable {
    public var checked = 0
    public var invalid = 0
    public var changed = FlipLog()
    /// The flips grouped by entity and tracker, when `compare` was given their attribution: counted as each
    /// flip is recorded, while the next chunk is answered, instead of in a pass of its own before the report.
    public internal(set) var summary: FlipSummary?

    public init() {}

    /// Requests per chunk: enough to keep every core busy, small enough to bound memory.
    public static let chunkSize = 1 << 14

    /// Throws only when the flips cannot be set aside (the scratch file: a full disk).
    public static func compare(_ requests: [MatchRequest], old: DecisionSide, new: DecisionSide) throws -> DecisionDiff
    {
        try compare(ArrayRequests(requests), old: old, new: new)
    }

    /// Streams the corpus through both sides; `progress` gets the number of requests checked after each chunk.
    /// With `attribution`, also the summary of the flips (`summary`).
    public static func compare(
        _ requests: RequestStream, old: DecisionSide, new: DecisionSide, attribution: FlipAttribution? = nil,
        progress: ((Int) -> Void)? = nil, pageBytes: Int = FlipLog.defaultPageBytes,
        chunkSize: Int = DecisionDiff.chunkSize
    ) throws -> DecisionDiff {
        var diff = DecisionDiff()
        diff.changed = FlipLog(pageBytes: pageBytes)
        var tally = attribution.map { FlipSummary.Tally(attribution: $0) }
        // Per side: each deciding rule's index in the log's table of rules (nil: a rule with no description).
        var oldRules: [DecidingRule: Int?] = [:], newRules: [DecidingRule: Int?] = [:]
        // Loaded lists keep scratch buffers and caches: each worker gets its own copies, kept for the whole run. The
        // sides' own engines are left to `consume`, which describes deciding rules while the workers answer.
        try Parallel.stream(
            state: (old.engine.copy(), new.engine.copy()), copy: { ($0.0.copy(), $0.1.copy()) },
            fill: { (chunk: inout [StreamedRequest]) in try requests.next(chunkSize, into: &chunk) },
            work: { engines, share -> (flips: [Flip], invalid: Int) in
                var found: [Flip] = []
                guard !share.isEmpty else { return (found, 0) }
                let invalid = evaluate(share, old: (old, engines.0), new: (new, engines.1), into: &found)
                return (found, invalid)
            },
            consume: { partial, count in
                // Workers take consecutive shares: concatenating their flips keeps corpus order. Each flip
                // is recorded as it arrives, so memory holds it once; each deciding rule is described and
                // interned once per side.
                for p in partial {
                    for f in p.flips {
                        let x = f.old.recorded(old, &oldRules, &diff.changed)
                        let y = f.new.recorded(new, &newRules, &diff.changed)
                        try diff.changed.append(request: f.request, old: x, new: y)
                        tally?.add(
                            DecisionChange(
                                request: f.request, old: diff.changed.decision(x), new: diff.changed.decision(y)))
                    }
                }
                diff.invalid += partial.reduce(0) { $0 + $1.invalid }
                diff.checked += count
                progress?(diff.checked)
                return true
            })
        diff.summary = tally?.summary
        return diff
    }

    /// A flipped request, with the deciding rules as indices (described once the run is over).
    struct Flip: @unchecked Sendable {
        var request: MatchRequest
        var old: PageOutcome
        var new: PageOutcome
    }

    /// Runs `requests` through both sides; returns how many could not be resolved.
    static func evaluate(
        _ requests: Slice<UnsafeBufferPointer<StreamedRequest>>, old: (DecisionSide, RuleEngine),
        new: (DecisionSide, RuleEngine), into flips: inout [Flip]
    ) -> Int {
        var invalid = 0
        var a = MatchResult(), b = MatchResult()
        // The worker's own resolver (one per engine copy), so that registrable domains stay cached from chunk to
        // chunk; a fresh one per call allocated its cache anew and looked every site up again.
        let resolver = old.1.resolver
        // The URL of the request before (its index), parsed, and whether neither side reports anything for it. A
        // corpus loads each URL as several types in a row (the derived one: as a script, then as an image), so each
        // is read once. The same URL is the same bytes, not an equal String.
        var last: (index: Int, parsed: CanonicalURL?, nothing: Bool)? = nil
        // The plain host of the next request's URL, read while this one is answered, with both sides' cache slots
        // for it starting to load: as `match --requests` does, the answer covers the wait for memory.
        var next = requests.first.flatMap { lookAhead($0, old.1, new.1) }
        for i in requests.indices {
            let r = requests[i]
            let plain = next
            next = i + 1 < requests.endIndex ? lookAhead(requests[i + 1], old.1, new.1) : nil
            guard (try? r.checkNames()) != nil else {
                invalid += 1
                continue
            }
            // A URL neither side reports an action for is allowed on both, whatever its site: no flip (a flip is
            // a change of outcome, so the rule that decided "allowed" does not matter).
            let seen: (index: Int, parsed: CanonicalURL?, nothing: Bool)
            if let l = last, r.withURL({ u in requests[l.index].withURL { $0.elementsEqual(u) } }) {
                seen = l
            } else {
                let (parsed, nothing) = r.withURL { look($0, plainHost: plain, old.1, new.1) }
                seen = (i, parsed, nothing)
            }
            last = seen
            if seen.nothing { continue }
            // The load does not depend on the rules: resolve once for both sides.
            guard let load = try? r.load(url: seen.parsed, resolver: resolver) else {
                invalid += 1
                continue
            }
            // Allowed on both sides is no flip, whatever decided it: an allowed side's deciding rule (which costs
            // each list that cannot be skipped) is needed only where the other side blocks.
            old.1.match(load, into: &a, deciding: .blocks)
            new.1.match(load, into: &b, deciding: .blocks)
            let blocked = (a.isBlocked, b.isBlocked)
            if !blocked.0 && !blocked.1 { continue }
            // So is blocked on both sides when neither side replaces a block with a surrogate.
            if blocked.0 && blocked.1 && !old.0.replacesBlocks && !new.0.replacesBlocks { continue }
            if !blocked.0 { old.1.match(load, into: &a, deciding: .all) }
            if !blocked.1 { new.1.match(load, into: &b, deciding: .all) }
            let x = old.0.outcome(a), y = new.0.outcome(b)
            if x.kind != y.kind || x.surrogate != y.surrogate {
                flips.append(Flip(request: r.request, old: x, new: y))
            }
        }
        return invalid
    }

    /// The plain host of a request's URL (`CanonicalURL.plainHost`), with each side's cache slot for it starting
    /// to load.
    static func lookAhead(_ r: StreamedRequest, _ a: RuleEngine, _ b: RuleEngine) -> CanonicalURL.PlainHost? {
        r.withURL { raw -> CanonicalURL.PlainHost? in
            guard let plain = CanonicalURL.plainHost(raw) else { return nil }
            a.prefetchURL(raw, hostEnd: plain.hostRange.upperBound)
            b.prefetchURL(raw, hostEnd: plain.hostRange.upperBound)
            return plain
        }
    }

    /// `url` parsed, and whether neither side reports anything for it: for a plain host (`plainHost`, read from
    /// the same bytes) asked before parsing, so a URL no rule can match is never parsed (nil then).
    static func look(
        _ raw: UnsafeBufferPointer<UInt8>, plainHost plain: CanonicalURL.PlainHost?, _ a: RuleEngine, _ b: RuleEngine
    ) -> (CanonicalURL?, nothing: Bool) {
        guard let plain else {
            let parsed = CanonicalURL.parse(utf8: raw, plainHost: nil)
            return (
                parsed,
                a.reportsNothing(for: parsed, deciding: false) && b.reportsNothing(for: parsed, deciding: false)
            )
        }
        let end = plain.hostRange.upperBound
        if a.reportsNothing(rawURL: raw, hostEnd: end, deciding: false),
            b.reportsNothing(rawURL: raw, hostEnd: end, deciding: false)
        {
            return (nil, true)
        }
        // An invalid URL gets nothing on either side.
        let parsed = CanonicalURL.parse(utf8: raw, plainHost: plain)
        return (parsed, parsed == nil)
    }
}

extension PageOutcome {
    /// The decision as `log` records it, its rule interned there once per side (`known` remembers it).
    func recorded(_ side: DecisionSide, _ known: inout [DecidingRule: Int?], _ log: inout FlipLog)
        -> FlipLog.RecordedDecision
    {
        var rule: Int? = nil
        if let d = decidedBy {
            if let k = known[d] {
                rule = k
            } else {
                rule = side.describe(d).map { log.intern($0) }
                known.updateValue(rule, forKey: d)
            }
        }
        return FlipLog.RecordedDecision(outcome: kind, surrogate: surrogate, rule: rule)
    }
}
