// The filter lists' lists split at the target's rule limit. WebKit evaluates each content rule list on its own: an
// ignore-previous-rules rule cancels the earlier rules of its own list only, so every part that holds blocks must
// also hold every rule that can cancel them. The blocks (the cosmetic layer's hides) are shared out over the parts
// in list order; every other rule (the exceptions, the `$important` blocks, the navigation reset, the `$document`
// rules, the page-wide hiding exceptions, the unprotected sites' rules) is in every part, in its place. A part then
// decides a load as the whole list decides it for the blocks it holds, and a load is blocked when some part blocks
// it: when the whole list blocks it.

import Provenance
import RuleBuilder

enum FilterListSplitter {
    /// `list` in parts of at most `maxRules` rules (one part when it fits).
    static func split(_ list: RuleBuildResult, maxRules: Int) throws -> [RuleBuildResult] {
        guard list.rules.count > maxRules else { return [list] }
        let isBlock = list.provenance.map { $0.source == .filterList && ($0.role == .block || $0.role == .hide) }
        let shared = isBlock.filter { !$0 }.count
        let capacity = maxRules - shared
        guard capacity > 0 else {
            throw SplitError(
                description: "the filter lists' \(shared) exceptions and other rules every part holds reach the"
                    + " limit of \(maxRules) rules per list")
        }
        let blocks = list.rules.count - shared
        let partCount = (blocks + capacity - 1) / capacity
        // Blocks in even shares, so that the parts are alike in size and cost.
        let share = (blocks + partCount - 1) / partCount
        var parts = Array(repeating: RuleBuildResult(rules: [], provenance: []), count: partCount)
        var block = 0
        for i in list.rules.indices {
            let owners = isBlock[i] ? block / share..<block / share + 1 : 0..<partCount
            if isBlock[i] { block += 1 }
            for p in owners {
                parts[p].rules.append(list.rules[i])
                parts[p].provenance.append(list.provenance[i])
            }
        }
        return parts
    }
}
