// Which requests now behave differently: a corpus evaluated with the engine against both versions.
// Decisions come from the compiled lists (the same code path `match` uses); only for the requests that
// flipped do we ask Explain which rule decided on each side, so the common case stays fast.

import ContentRules
import Domains
import Foundation
import RuleCompiler
import RuleEngine
import StrictJSON

/// One side of a decision diff: its compiled lists, provenance per list (parallel to each list's rules), and
/// the surrogate named by each rule's provenance when the TDS gives one.
public struct DecisionSide: @unchecked Sendable {
    public let engine: RuleEngine
    /// Per list: provenance JSON for each rule (by source index), if known.
    public let provenance: [[JSONValue]]
    /// Surrogate name for (tracker, TDS rule index), when the rule has one.
    public let surrogates: [String: String]
    /// Trackers with at least one surrogate rule: only their blocked requests can be "surrogate".
    let surrogateTrackers: Set<String>

    public init(lists: [LoadedRuleList], provenance: [[JSONValue]] = [], surrogates: [String: String] = [:]) {
        engine = RuleEngine(lists: lists)
        self.provenance = provenance
        self.surrogates = surrogates
        surrogateTrackers = Set(surrogates.keys.compactMap { $0.split(separator: "#").first.map(String.init) })
    }

    /// Whether a blocked request to `url` may be served a surrogate (its host is under such a tracker).
    func mayHaveSurrogate(_ url: String) -> Bool {
        guard !surrogateTrackers.isEmpty, let host = URLComponents(string: url)?.host?.lowercased() else { return false }
        return Host.suffixes(of: host).contains { surrogateTrackers.contains($0) }
    }

    public static func surrogateKey(tracker: String, rule: Int) -> String { "\(tracker)#\(rule)" }
}

public struct Decision: Sendable, Equatable {
    public enum Outcome: String, Sendable { case allowed, blocked, surrogate }
    public var outcome: Outcome
    public var surrogate: String?
    /// The rule that decided (provenance, or the rule's JSON when no provenance is known).
    public var rule: JSONValue?

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["outcome"] = .string(outcome.rawValue)
        if let surrogate { o["surrogate"] = .string(surrogate) }
        o["rule"] = rule ?? .null
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
    public var changed: [DecisionChange] = []

    public static func compare(_ requests: [MatchRequest], old: DecisionSide, new: DecisionSide) -> DecisionDiff {
        // Both cores: halves of the corpus in parallel, results merged in corpus order.
        let chunks = 2
        let size = (requests.count + chunks - 1) / max(chunks, 1)
        var partial = [[(Int, DecisionChange?)]](repeating: [], count: chunks)
        var invalidCounts = [Int](repeating: 0, count: chunks)
        partial.withUnsafeMutableBufferPointer { results in
            invalidCounts.withUnsafeMutableBufferPointer { invalid in
                DispatchQueue.concurrentPerform(iterations: chunks) { c in
                    let lo = c * size, hi = min(requests.count, lo + size)
                    guard lo < hi else { return }
                    // Loaded lists keep scratch buffers and caches: each worker gets its own copies.
                    guard let oldEngine = try? RuleEngine(lists: old.engine.lists.map { try LoadedRuleList($0.compiled) }),
                          let newEngine = try? RuleEngine(lists: new.engine.lists.map { try LoadedRuleList($0.compiled) })
                    else { return }
                    for i in lo..<hi {
                        let r = requests[i]
                        guard let oldLoad = try? oldEngine.resolve(r), let newLoad = try? newEngine.resolve(r) else {
                            invalid[c] += 1
                            continue
                        }
                        let a = oldEngine.match(oldLoad), b = newEngine.match(newLoad)
                        let blockedA = a.actions.contains { $0.kind == .block }, blockedB = b.actions.contains { $0.kind == .block }
                        // Explaining (which rule decided) is slow; do it only where the outcome can differ.
                        let surrogateCandidate = (blockedA && old.mayHaveSurrogate(r.url)) || (blockedB && new.mayHaveSurrogate(r.url))
                        guard blockedA != blockedB || surrogateCandidate else { continue }
                        let da = decision(old, engine: oldEngine, load: oldLoad, blocked: blockedA)
                        let db = decision(new, engine: newEngine, load: newLoad, blocked: blockedB)
                        if da.outcome != db.outcome || da.surrogate != db.surrogate {
                            results[c].append((i, DecisionChange(request: r, old: da, new: db)))
                        }
                    }
                }
            }
        }
        var diff = DecisionDiff()
        diff.checked = requests.count
        diff.invalid = invalidCounts.reduce(0, +)
        diff.changed = partial.flatMap { $0 }.sorted { $0.0 < $1.0 }.compactMap(\.1)
        return diff
    }

    /// The deciding rule is the last matching block / ignore-previous-rules rule (WebKit's last-match order).
    static func decision(_ side: DecisionSide, engine: RuleEngine, load: ResourceLoad, blocked: Bool) -> Decision {
        var rule: JSONValue? = nil
        var surrogate: String? = nil
        do {
            for (l, list) in engine.lists.enumerated() {
                guard let ex = try? Explain.explain(list, load, prefilter: true) else { continue }
                guard let deciding = ex.matched.last(where: { action(of: $0.rule) == .block || action(of: $0.rule) == .ignorePreviousRules })
                else { continue }
                let blocks = action(of: deciding.rule) == .block
                if blocked && !blocks { continue }
                let prov: JSONValue? = l < side.provenance.count && deciding.sourceIndex < side.provenance[l].count ? side.provenance[l][deciding.sourceIndex] : nil
                rule = prov ?? ruleJSON(deciding.rule)
                if blocks, let p = prov, let tracker = p["tracker"]?.stringValue, let index = p["rule"]?.numberValue {
                    surrogate = side.surrogates[DecisionSide.surrogateKey(tracker: tracker, rule: Int(index))]
                }
                if blocked { break }
            }
        }
        let outcome: Decision.Outcome = blocked ? (surrogate != nil ? .surrogate : .blocked) : .allowed
        return Decision(outcome: outcome, surrogate: blocked ? surrogate : nil, rule: rule)
    }

    static func action(of rule: ParsedRule) -> Action? {
        if case .content(let r) = rule.kind { return r.action }
        return nil
    }

    static func ruleJSON(_ rule: ParsedRule) -> JSONValue {
        if case .content(let r) = rule.kind { return r.jsonValue }
        return .null
    }
}
