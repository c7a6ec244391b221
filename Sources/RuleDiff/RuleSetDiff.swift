// WebKit rules added and removed between two rule lists, compared as multisets of canonical rules
// (the canonical JSON of a rule is its identity), each with where it came from when provenance is known.

import ContentRules
import Provenance

public struct RuleSetDiff: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// Canonical JSON of the rule.
        public let rule: String
        /// Index in its list.
        public let index: Int
        /// Provenance (tracker, TDS rule, exception source) when the list came with it.
        public let provenance: RuleProvenance?
    }
    public var added: [Entry] = []
    public var removed: [Entry] = []
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    public init() {}

    public static func compare(
        old: [ContentRule], new: [ContentRule],
        oldProvenance: [RuleProvenance]? = nil, newProvenance: [RuleProvenance]? = nil
    ) -> RuleSetDiff {
        compare(oldKeys: keys(old), newKeys: keys(new), oldProvenance: oldProvenance, newProvenance: newProvenance)
    }

    /// Each rule's identity, its canonical JSON: most of a comparison's time, and independent per side.
    public static func keys(_ rules: [ContentRule]) -> [String] { rules.map(\.canonicalJSON) }

    /// As `compare(old:new:...)`, with each side's `keys` already made.
    public static func compare(
        oldKeys: [String], newKeys: [String],
        oldProvenance: [RuleProvenance]? = nil, newProvenance: [RuleProvenance]? = nil
    ) -> RuleSetDiff {
        // Each distinct old key gets a slot, found by one hash of the key; counts are kept per slot. Keys are whole
        // rules (hundreds of bytes), and hashing them again for every count was most of the comparison. Keys are
        // compared as bytes (`ExactString`): rules that are equal Strings but not the same bytes are two rules.
        var slotOf: [ExactString: Int] = [:]
        slotOf.reserveCapacity(oldKeys.count)
        var remaining: [Int] = [], matched: [Int] = []
        let oldSlots = oldKeys.map { key -> Int in
            let k = ExactString(string: key), fresh = remaining.count
            if let s = slotOf.updateValue(fresh, forKey: k) {
                slotOf[k] = s // a rule the old list repeats
                remaining[s] += 1
                return s
            }
            remaining.append(1)
            matched.append(0)
            return fresh
        }
        var diff = RuleSetDiff()
        for (i, k) in newKeys.enumerated() {
            if let s = slotOf[ExactString(string: k)], remaining[s] > 0 {
                remaining[s] -= 1
                matched[s] += 1
            } else {
                diff.added.append(Entry(rule: k, index: i, provenance: provenanceAt(newProvenance, i)))
            }
        }
        // The first occurrences of a key in the old list are the ones the new list kept.
        for (i, s) in oldSlots.enumerated() {
            if matched[s] > 0 {
                matched[s] -= 1
            } else {
                diff.removed.append(Entry(rule: oldKeys[i], index: i, provenance: provenanceAt(oldProvenance, i)))
            }
        }
        return diff
    }

    private static func provenanceAt(_ list: [RuleProvenance]?, _ i: Int) -> RuleProvenance? {
        guard let list, i < list.count else { return nil }
        return list[i]
    }
}
