// `blocksFirst`, a RuleListOptimizer transformation: the block rules of a run of tracker rules move to the front of
// the run, ahead of the other trackers' exceptions.
//
// Why: WebKit gives two block rules with the same flags one action location only when no ignore-previous-rules
// rule stands between them (docs/compile-cost.md, "Blocks first"). Interleaved with per-tracker exceptions, every
// tracker's blocks get a location of their own, so the url-filter automaton's accepting states carry distinct
// actions and share no suffixes. Together, all blocks of a flag set are one action.
//
// Why it is exact: every TDS rule is about one host scope, the hosts under its tracker's domain (or one CNAME alias),
// and matches only URLs whose host part ends in that scope (HostFilters.swift). Two rules whose scopes are disjoint
// never match the same URL, so their order decides nothing. Rules are grouped by the shortest suffix of their
// scope that is the scope of a rule of the run: two groups never nest. Within a group nothing moves but the blocks
// before the group's first other rule, which keep their order among themselves; and a block and another block
// commute. A rule of no tracker (a shared `.*` exemption, the global exceptions) or of another source ends the run.

import ContentRules
import Provenance

enum BlocksFirst {
    static func reorder(_ rules: [ContentRule], _ provenance: [RuleProvenance]) -> (
        [ContentRule], [RuleProvenance], moved: Int
    ) {
        var order: [Int] = []
        order.reserveCapacity(rules.count)
        var moved = 0
        var start = 0
        while start < rules.count {
            guard scope(provenance[start]) != nil else {
                order.append(start)
                start += 1
                continue
            }
            var end = start
            while end < rules.count, scope(provenance[end]) != nil { end += 1 }
            moved += reorderRun(rules, provenance, start..<end, into: &order)
            start = end
        }
        return (order.map { rules[$0] }, order.map { provenance[$0] }, moved)
    }

    /// The run's leading blocks of each group, then the rest, each in list order. Returns how many blocks moved
    /// ahead of a rule they followed.
    private static func reorderRun(
        _ rules: [ContentRule], _ provenance: [RuleProvenance], _ run: Range<Int>, into order: inout [Int]
    ) -> Int {
        let scopes = ListUnit.Scopes(run.map { scope(provenance[$0])! })
        var groupsPastBlocks = Set<String>()
        var front: [Int] = []
        var rest: [Int] = []
        for i in run {
            let group = scopes.outermost(above: scope(provenance[i])!)
            if rules[i].action == .block && !groupsPastBlocks.contains(group) {
                front.append(i)
            } else {
                groupsPastBlocks.insert(group)
                rest.append(i)
            }
        }
        let firstRest = rest.first ?? run.upperBound
        order.append(contentsOf: front)
        order.append(contentsOf: rest)
        return front.filter { $0 > firstRest }.count
    }

    /// The host scope of a TDS rule; nil for every other rule.
    private static func scope(_ p: RuleProvenance) -> String? {
        p.source == .tds ? ListUnit.scope(p) : nil
    }
}
