// WebKit rules added and removed between two rule lists, compared as multisets of canonical rules
// (the canonical JSON of a rule is its identity), each with where it came from when provenance is known.

import ContentRules
import StrictJSON

public struct RuleSetDiff: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// Canonical JSON of the rule.
        public let rule: String
        /// Index in its list.
        public let index: Int
        /// Provenance (tracker, TDS rule, exception source) when the list came with it.
        public let provenance: JSONValue?
    }
    public var added: [Entry] = []
    public var removed: [Entry] = []
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    public init() {}

    public static func compare(old: [ContentRule], new: [ContentRule],
                               oldProvenance: [JSONValue]? = nil, newProvenance: [JSONValue]? = nil) -> RuleSetDiff {
        compare(oldKeys: keys(old), newKeys: keys(new), oldProvenance: oldProvenance, newProvenance: newProvenance)
    }

    /// Each rule's identity, its canonical JSON: most of a comparison's time, and independent per side.
    public static func keys(_ rules: [ContentRule]) -> [String] { rules.map(\.canonicalJSON) }

    /// As `compare(old:new:...)`, with each side's `keys` already made.
    public static func compare(oldKeys: [String], newKeys: [String],
                               oldProvenance: [JSONValue]? = nil, newProvenance: [JSONValue]? = nil) -> RuleSetDiff {
        var remaining: [String: Int] = [:]
        for k in oldKeys { remaining[k, default: 0] += 1 }
        var diff = RuleSetDiff()
        var matchedInOld: [String: Int] = [:]
        for (i, k) in newKeys.enumerated() {
            if let n = remaining[k], n > 0 {
                remaining[k] = n - 1
                matchedInOld[k, default: 0] += 1
            } else {
                diff.added.append(Entry(rule: k, index: i, provenance: provenanceAt(newProvenance, i)))
            }
        }
        for (i, k) in oldKeys.enumerated() {
            if let n = matchedInOld[k], n > 0 {
                matchedInOld[k] = n - 1
            } else {
                diff.removed.append(Entry(rule: k, index: i, provenance: provenanceAt(oldProvenance, i)))
            }
        }
        return diff
    }

    private static func provenanceAt(_ list: [JSONValue]?, _ i: Int) -> JSONValue? {
        guard let list, i < list.count else { return nil }
        return list[i]
    }
}
