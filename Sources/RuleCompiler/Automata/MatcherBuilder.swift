// MatcherBuilder compiles the patterns of one family (url, top-url or
// frame-url) into a Matcher:
//
//   patterns ─► `||host^` patterns ─► MatcherHostTable (host -> action list; MatcherHostTable.swift)
//            ─► `||host/...` patterns ─► groups of hosts, each a gate (its hosts in the table open it),
//               each built as below into DFAs of its own
//            ─► the others ─► PrefixTree (terms interned, equal prefixes shared, ids on the last vertex)
//            ─► batches of whole generation-root groups, ≤ maximumNFASize NFA nodes each (WebKit's NFA split)
//            ─► NFA per batch (class alphabet) ─► subset construction (NFAToDFA) ─► DFAMinimizer
//            ─► compact DFA ─► MatcherLayout (the execution form) ─► MatcherBytecode (one DFA per batch;
//               universal ids kept aside)
//
// Small groups are packed into the same NFA (this replaces WebKit's DFACombiner, which merges DFAs of
// fewer than 100 nodes after the fact). A batch whose DFA grows past `stateLimit(nfaNodes)` (or past the
// budget's states or bytes) is split (between generation-root groups where it can) and retried, so combining
// never explodes. A single pattern
// over the budget is left out and reported; see CompileBudget.
//
// API contract (used by the rule-list compiler and the engine):
//  * MatcherBuilder.add(filter, id): filter.status must be .ok or .matchesEverything; the same pattern may
//    come with many ids and the same id with many patterns. id = (trigger flags << 32) | rule index
//    (RuleListCompiler).
//  * Matcher.match(url, requestFlags, into:): every id whose pattern matches `url` (substring semantics,
//    `^`/`$` anchors, case folding per pattern) and whose flags pass the WebKit flags test, plus universal
//    ids that carry flags (same test); never the universal flag-free ids (universalFlagFree). Order
//    irrelevant, duplicates possible.

import ContentRules
import Dispatch
import Parallel

/// WebKit's trigger-flag test (TestFlagsAndAppendAction in WebKit's
/// Source/WebCore/contentextensions/DFABytecodeInterpreter.cpp). `ruleFlags` = id >> 32.
@inline(__always)
public func matcherFlagsTestPasses(ruleFlags: UInt32, requestFlags: UInt32) -> Bool {
    let loadType = ruleFlags & 0xC000
    let loadContext = ruleFlags & 0x30000
    let resourceType = ruleFlags & 0x3FFF
    let method = ruleFlags & 0x1E0_0000
    if loadType != 0 && loadType & requestFlags == 0 { return false }
    if loadContext != 0 && loadContext & requestFlags == 0 { return false }
    if resourceType != 0 && resourceType & requestFlags == 0 { return false }
    if method != 0 && method != requestFlags & 0x1E0_0000 { return false }
    return true
}

public struct MatcherStatistics: Sendable, Hashable {
    public var patterns = 0 // distinct non-universal patterns
    public var universalIds = 0 // distinct ids of match-everything patterns (with and without flags)
    public var nfaCount = 0
    public var nfaNodes = 0
    public var dfaCount = 0
    public var dfaStates = 0 // after minimization
    public var dfaStatesBeforeMinimization = 0
    public var actionLists = 0
    public var actionIds = 0
    public var bytes = 0 // serialized size
    public var hostKeys = 0 // hosts of the host table (MatcherHostTable.swift)
    public var hostTableBytes = 0 // its section of the serialized size
    public var gatedDFAs = 0 // DFAs walked only where the host table opens their gate
    public init() {}
}

public enum MatcherError: Error, Equatable, Sendable {
    case corrupt(String)
}

public struct MatcherBuilder {
    /// NFA size bound per batch (WebKit: 75,000). Patterns are cut only between patterns.
    public var maximumNFASize = 75_000
    /// Limits of every automaton of this family and of the family as a whole.
    public var budget: CompileBudget
    /// What the family is called in budget errors ("url-filter", "top-url", "frame-url").
    public var family: String
    /// Whether the `||host^` patterns go to a host table rather than the DFAs, and the `||host/...` ones to gated
    /// DFAs (the same ids, see MatcherHostTable.swift; tests build both).
    public var hostTable = true
    /// The fewest patterns a gate's DFAs hold (more when the gates would be more than MatcherHostTable allows): a
    /// URL that opens a gate walks its DFAs, and more gates mean more DFAs in the file.
    public var patternsPerGate = 64

    private var patternIndex: [URLFilter: Int] = [:]
    private var patterns: [URLFilter] = []
    private var patternIds: [[UInt64]] = []
    /// Smallest rule (source index) that uses each pattern: the rule a budget error names.
    private var patternRule: [Int] = []
    private var universal: [UInt64] = []

    public init(family: String = "url-filter", budget: CompileBudget = .unlimited) {
        self.family = family
        self.budget = budget
    }

    public mutating func add(_ filter: URLFilter, id: UInt64, rule: Int = 0) {
        switch filter.status {
        case .matchesEverything:
            universal.append(id)
        case .ok:
            if let i = patternIndex[filter] {
                patternIds[i].append(id)
                patternRule[i] = min(patternRule[i], rule)
            } else {
                patternIndex[filter] = patterns.count
                patterns.append(filter)
                patternIds.append([id])
                patternRule.append(rule)
            }
        default:
            preconditionFailure("MatcherBuilder.add: unsupported url-filter status \(filter.status)")
        }
    }

    /// The DFA size past which a batch of several patterns counts as exploding. Batches that combine well
    /// build about one state per NFA node (the TDS lists' and the filter lists' host runs: 1.0-1.1), so
    /// twice that is a wide margin; a combination that multiplies is stopped early, which is what keeps the
    /// states built for the retries near what the final DFAs need (figures in docs/compile-cost.md).
    static func stateLimit(nfaNodes: Int) -> Int { 2 * nfaNodes + 10_000 }

    /// How many parts a batch over its limit is cut into: four rather than two halves the retries (and the
    /// states they build) on the way down to combinations that fit.
    static let splitWays = 4

    /// The patterns `selected` in one prefix tree with their action lists (interned in `actionLists`) on the end
    /// vertices; `vertexPattern` is, per end vertex, the pattern of the smallest rule ending there.
    private func prefixTree(_ selected: [Int], actionLists: inout ActionListTable) -> (
        TermTable, PrefixTree, [Int32: Int]
    ) {
        var terms = TermTable()
        var tree = PrefixTree()
        var vertexIds: [Int32: [UInt64]] = [:]
        var vertexPattern: [Int32: Int] = [:]
        var endVertices: [Int32] = []
        for i in selected {
            let p = patterns[i]
            let ids = p.terms.map { terms.intern($0) }
            let v = tree.insert(ids, fixedLength: terms.fixedLength)
            if vertexIds[v] == nil { endVertices.append(v) }
            vertexIds[v, default: []] += patternIds[i]
            if vertexPattern[v].map({ patternRule[$0] > patternRule[i] }) ?? true { vertexPattern[v] = i }
        }
        for v in endVertices { tree.action[Int(v)] = actionLists.intern(Self.sortedDistinct(vertexIds[v]!)) }
        return (terms, tree, vertexPattern)
    }

    private static func sortedDistinct(_ ids: [UInt64]) -> [UInt64] {
        var distinct: [UInt64] = []
        distinct.reserveCapacity(ids.count)
        for x in ids.sorted() where distinct.last != x { distinct.append(x) }
        return distinct
    }

    /// How the patterns are parted (MatcherHostTable.swift): those the host table takes, by host (their ids); the
    /// gated ones, per gate; the others. With `hostTable` off, all are others.
    private struct Parting {
        /// Per host key its patterns' ids, and whether they match the lower case only (all of them do, or none).
        var hostIds: [[UInt8]: (ids: [UInt64], caseSensitive: Bool)] = [:]
        var gates: [[Int]] = []
        var gateOfHost: [[UInt8]: Int] = [:]
        var others: [Int] = []
    }

    /// Gated patterns by host, the hosts in the order of their reversed bytes (a host and those under it are
    /// neighbours, and so mostly share a gate), cut into runs of at least `patternsPerGate` patterns, and of as
    /// many as it takes to make at most `maximumGates` of them.
    private func parting() -> Parting {
        var parting = Parting()
        guard hostTable else {
            parting.others = Array(patterns.indices)
            return parting
        }
        let shape = MatcherHostTable.PatternShape()
        var gatedByHost: [[UInt8]: [Int]] = [:]
        var hostPatterns: [MatcherHostTable.PatternShape.Host: [Int]] = [:]
        for (i, p) in patterns.enumerated() {
            if let host = shape.host(of: p) {
                hostPatterns[host, default: []].append(i)
            } else if let key = shape.gatingHost(of: p) {
                gatedByHost[key, default: []].append(i)
            } else {
                parting.others.append(i)
            }
        }
        // An entry's list is of one case or the other: the lower-case-only patterns of a host that also has
        // patterns of both cases are walked as DFAs.
        for (host, indices) in hostPatterns {
            if host.caseSensitive && hostPatterns[.init(key: host.key, caseSensitive: false)] != nil {
                parting.others += indices
                continue
            }
            parting.hostIds[host.key] = (indices.flatMap { patternIds[$0] }, host.caseSensitive)
        }
        parting.others.sort()
        let gated = gatedByHost.values.reduce(0) { $0 + $1.count }
        let perGate = max(patternsPerGate, (gated + MatcherHostTable.maximumGates - 1) / MatcherHostTable.maximumGates)
        let hosts = gatedByHost.keys.sorted { $0.reversed().lexicographicallyPrecedes($1.reversed()) }
        for host in hosts {
            if parting.gates.last.map({ $0.count >= perGate }) ?? true { parting.gates.append([]) }
            parting.gates[parting.gates.count - 1] += gatedByHost[host]!
            parting.gateOfHost[host] = parting.gates.count
        }
        return parting
    }

    private func firstPattern(of batch: [Int32], _ vertexPattern: [Int32: Int]) -> Int {
        batch.map { vertexPattern[$0]! }.min { (patternRule[$0], $0) < (patternRule[$1], $1) }!
    }

    /// WebKit's compiler has no limit in its subset construction: it builds one NFA per generation root
    /// (cut only past 75,000 nodes, so one pattern is never cut), converts each to a DFA whatever its size,
    /// and merges only DFAs under 100 nodes. Its cost is therefore that of the largest of those DFAs. This
    /// runs the same subset construction on WebKit's NFAs (same grouping, no packing) and reports each one
    /// that needs more than `states` DFA states or more than `members` NFA nodes summed over its states
    /// (WebKit stores every state's node set: the quadratic part of long self-overlapping literals).
    public func webKitPain(states: Int, members: Int) -> [WebKitPainWarning] {
        var actionLists = ActionListTable()
        let (terms, tree, vertexPattern) = prefixTree(Array(patterns.indices), actionLists: &actionLists)
        var warnings: [WebKitPainWarning] = []
        for batch in tree.batches(terms: terms, maxNodes: maximumNFASize, packGroups: false) {
            let nfa = NFA(tree: tree, terms: terms, batch: batch)
            // A long literal: its size is known without storing WebKit's quadratic state sets.
            if batch.count == 1,
                let literal = LiteralDFA.build(
                    tree: tree, terms: terms, vertex: batch[0], nfa: nfa, stateLimit: .max, byteLimit: 1 << 30)
            {
                let over =
                    literal.dfa.stateCount > states
                    ? WebKitPainWarning.Reason.states(states)
                    : literal.members > members ? .members(members) : nil
                if let over {
                    let p = firstPattern(of: batch, vertexPattern)
                    warnings.append(
                        WebKitPainWarning(
                            family: family, rule: patternRule[p], pattern: patterns[p].pattern,
                            patternsInAutomaton: 1, nfaNodes: nfa.nodeCount, reason: over))
                }
                continue
            }
            var construction = SubsetConstruction(nfa: nfa)
            // 4 bytes per member in the state pool: the member bound is a byte bound of the construction.
            let outcome = construction.run(
                actionLists: &actionLists, stateLimit: states,
                byteLimit: members.multipliedReportingOverflow(by: 4).overflow ? Int.max : 4 * members,
                deadline: .infinity)
            guard case .over(let kind) = outcome else { continue }
            let p = firstPattern(of: batch, vertexPattern)
            warnings.append(
                WebKitPainWarning(
                    family: family, rule: patternRule[p], pattern: patterns[p].pattern,
                    patternsInAutomaton: batch.count, nfaNodes: nfa.nodeCount,
                    reason: kind == .states ? .states(states) : .members(members)))
        }
        return warnings
    }

    /// Builds several families at once, concurrently (the families are independent; the rule-list
    /// compiler has three). Same result as calling build() on each, in the same order. Budget errors of
    /// all families are thrown together (the family-wide ones alone when there are any).
    public static func buildAll(_ builders: [MatcherBuilder]) throws -> [Matcher] {
        let results = Parallel.map(builders.count) { i in
            Result { try builders[i].buildWithinBudget() }.mapError { $0 as! CompileBudgetErrors }
        }
        var matchers: [Matcher] = [], exceeded: [CompileBudgetExceeded] = []
        for r in results {
            switch r {
            case .success(let m): matchers.append(m)
            case .failure(let e): exceeded += e.exceeded
            }
        }
        guard exceeded.isEmpty else {
            let familyWide = exceeded.filter { !$0.isRuleLevel }
            throw CompileBudgetErrors(exceeded: familyWide.isEmpty ? exceeded : familyWide)
        }
        return matchers
    }

    /// Builds without any budget (trusted input).
    public func build() -> Matcher {
        var unbounded = self
        unbounded.budget = .unlimited
        do {
            return try unbounded.buildWithinBudget()
        } catch {
            preconditionFailure("an unlimited budget cannot be exceeded: \(error)")
        }
    }

    /// Builds under `budget`: throws CompileBudgetErrors naming every pattern whose own automaton is over
    /// it (the others are still built, so all offenders are found in one run), or the family-wide budget
    /// that ran out.
    public func buildWithinBudget() throws -> Matcher {
        var statistics = MatcherStatistics()
        statistics.patterns = patterns.count
        statistics.universalIds = Set(universal).count
        let parting = parting()
        var actionLists = ActionListTable()
        var run = BuildRun(
            deadline: budget.seconds.isFinite ? monotonicSeconds() + budget.seconds : .infinity,
            statistics: statistics)
        var dfas = try minimizedDFAs(parting.others, actionLists: &actionLists, run: &run)
        var gates = [Int](repeating: 0, count: dfas.count)
        for (g, group) in parting.gates.enumerated() {
            let more = try minimizedDFAs(group, actionLists: &actionLists, run: &run)
            dfas += more
            gates += repeatElement(g + 1, count: more.count)
        }
        if !run.offenders.isEmpty {
            throw CompileBudgetErrors(exceeded: run.offenders.sorted { ($0.rule, $0.pattern) < ($1.rule, $1.pattern) })
        }
        var hosts = parting.hostIds.map {
            HostEntry(
                key: $0.key, list: actionLists.intern(Self.sortedDistinct($0.value.ids)), gate: 0,
                caseSensitive: $0.value.caseSensitive)
        }
        let entryOfHost = Dictionary(uniqueKeysWithValues: hosts.enumerated().map { ($1.key, $0) })
        for (key, gate) in parting.gateOfHost {
            if let e = entryOfHost[key] {
                hosts[e].gate = gate
            } else {
                hosts.append(HostEntry(key: key, list: -1, gate: gate, caseSensitive: false))
            }
        }
        let usedLists = MatcherBuilder.keepUsedActionLists(of: &dfas, hosts: &hosts, from: actionLists)
        let table =
            hosts.isEmpty
            ? nil
            : MatcherHostTable(
                hosts: hosts.map {
                    .init(
                        key: $0.key, list: $0.list < 0 ? MatcherHostTable.noList : UInt32($0.list),
                        gate: UInt32($0.gate), caseSensitive: $0.caseSensitive)
                })
        return serializedMatcher(
            dfas: dfas, gates: gates, hosts: table, usedLists: usedLists, statistics: run.statistics)
    }

    /// A host's entry while its action list is still the builder's: -1 for none.
    private struct HostEntry {
        var key: [UInt8]
        var list: Int32
        var gate: Int
        var caseSensitive: Bool
    }

    /// What the builds of a family's parts share: the deadline, the states built so far (against totalStates), the
    /// patterns over the budget (all reported together), the statistics.
    private struct BuildRun {
        let deadline: Double
        var builtStates = 0
        var offenders: [CompileBudgetExceeded] = []
        var statistics: MatcherStatistics
    }

    /// The patterns `selected`: batches -> NFA -> DFA -> minimized DFA, splitting a batch over its limits.
    private func minimizedDFAs(_ selected: [Int], actionLists: inout ActionListTable, run: inout BuildRun) throws
        -> [DFA]
    {
        let deadline = run.deadline
        let (terms, tree, vertexPattern) = prefixTree(selected, actionLists: &actionLists)
        func exceeded(_ kind: CompileBudget.Kind, batch: [Int32]) -> CompileBudgetExceeded {
            let p = firstPattern(of: batch, vertexPattern)
            return CompileBudgetExceeded(
                family: family, rule: patternRule[p], pattern: patterns[p].pattern, kind: kind,
                limit: budget.limit(kind))
        }
        var pending = tree.batches(terms: terms, maxNodes: maximumNFASize).reversed().map { $0 }
        var dfas: [DFA] = []
        while let batch = pending.popLast() {
            let nfa = NFA(tree: tree, terms: terms, batch: batch)
            let combinationLimit = batch.count > 1 ? MatcherBuilder.stateLimit(nfaNodes: nfa.nodeCount) : Int.max
            let limit = min(combinationLimit, budget.states)
            // States built for the family so far count against totalStates, failed attempts included:
            // splitting a combination that explodes (thousands of `.*x.*y.*z`) cannot spin either.
            let remaining = budget.totalStates - run.builtStates
            let (outcome, built) = determinize(
                nfa, batch: batch, tree: tree, terms: terms, actionLists: &actionLists,
                stateLimit: min(limit, remaining), deadline: deadline)
            run.builtStates += built
            guard case .dfa(let dfa) = outcome else {
                guard case .over(let kind) = outcome, kind != .seconds else {
                    throw CompileBudgetErrors(exceeded: [exceeded(.seconds, batch: batch)])
                }
                if kind == .states && remaining < limit {
                    throw CompileBudgetErrors(exceeded: [exceeded(.totalStates, batch: batch)])
                }
                if batch.count == 1 {
                    run.offenders.append(exceeded(kind, batch: batch))
                    continue
                }
                pending += tree.split(batch, ways: MatcherBuilder.splitWays).reversed()
                continue
            }
            run.statistics.nfaCount += 1
            run.statistics.nfaNodes += nfa.nodeCount
            run.statistics.dfaStatesBeforeMinimization += dfa.stateCount
            let minimized = DFAMinimizer.minimize(dfa)
            if deadline.isFinite && monotonicSeconds() > deadline {
                throw CompileBudgetErrors(exceeded: [exceeded(.seconds, batch: batch)])
            }
            dfas.append(minimized)
        }
        return dfas
    }

    /// One batch's DFA: a lone literal pattern by LiteralDFA, anything else by the subset construction;
    /// with the number of states built (they count against the family's budget even when over it).
    private func determinize(
        _ nfa: NFA, batch: [Int32], tree: PrefixTree, terms: TermTable,
        actionLists: inout ActionListTable, stateLimit: Int,
        deadline: Double
    ) -> (SubsetConstruction.Outcome, Int) {
        if batch.count == 1,
            let literal = LiteralDFA.build(
                tree: tree, terms: terms, vertex: batch[0], nfa: nfa,
                stateLimit: stateLimit, byteLimit: budget.bytes)
        {
            return (.dfa(literal.dfa), literal.dfa.stateCount)
        }
        var construction = SubsetConstruction(nfa: nfa)
        let outcome = construction.run(
            actionLists: &actionLists, stateLimit: stateLimit, byteLimit: budget.bytes,
            deadline: deadline)
        return (outcome, construction.builtStates)
    }

    /// Keeps only the action lists the DFAs and the host table use, numbered in order of use (the hosts' last, in
    /// the order of their keys).
    private static func keepUsedActionLists(
        of dfas: inout [DFA], hosts: inout [HostEntry], from actionLists: ActionListTable
    ) -> [[UInt64]] {
        var listRemap = [Int32](repeating: -1, count: actionLists.lists.count)
        var usedLists: [[UInt64]] = []
        func used(_ old: Int32) -> Int32 {
            if listRemap[Int(old)] < 0 {
                listRemap[Int(old)] = Int32(usedLists.count)
                usedLists.append(actionLists.lists[Int(old)])
            }
            return listRemap[Int(old)]
        }
        for d in dfas.indices {
            for s in 0..<dfas[d].stateCount where dfas[d].actions[s] >= 0 {
                dfas[d].actions[s] = used(dfas[d].actions[s])
            }
        }
        hosts.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for h in hosts.indices where hosts[h].list >= 0 { hosts[h].list = used(hosts[h].list) }
        return usedLists
    }

    /// The DFAs laid out and serialized with the universal ids and the action lists, loaded back.
    private func serializedMatcher(
        dfas: [DFA], gates: [Int], hosts: MatcherHostTable?, usedLists: [[UInt64]], statistics: MatcherStatistics
    ) -> Matcher {
        var flagFree = Set<UInt64>(), withFlags = Set<UInt64>()
        for id in universal {
            if id >> 32 == 0 { flagFree.insert(id) } else { withFlags.insert(id) }
        }
        let header = MatcherBytecode.header(
            universalFlagFree: flagFree.count, universalWithFlags: withFlags.count, actionLists: usedLists,
            dfaCount: dfas.count, statistics: statistics)
        var starts: [UInt32] = [0]
        for l in usedLists { starts.append(starts.last! + UInt32(l.count)) }
        let compact = dfas.map { d -> [UInt8] in
            var bytes: [UInt8] = []
            MatcherBytecode.encode(d, into: &bytes)
            return bytes + [UInt8](repeating: 0, count: MatcherBytecode.padding)
        }
        var program = MatcherProgram(
            laidOut: compact, gates: gates, listStarts: starts, ids: usedLists.flatMap { $0 })
        program.hosts = hosts
        let out = MatcherBytecode.serialize(
            header: header, universalFlagFree: flagFree.sorted(), universalWithFlags: withFlags.sorted(),
            program: program)
        do {
            return try Matcher(serialized: out)
        } catch {
            preconditionFailure("MatcherBuilder produced an invalid matcher: \(error)")
        }
    }
}
