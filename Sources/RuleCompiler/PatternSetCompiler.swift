// PatternSetCompiler: MatcherBuilder, which compiles the patterns of one family (url, top-url or
// frame-url) into a Matcher:
//
//   patterns ─► PrefixTree (terms interned, equal prefixes shared, ids on the last vertex)
//            ─► batches of whole generation-root groups, ≤ maximumNFASize NFA nodes each (WebKit's NFA split)
//            ─► NFA per batch (class alphabet) ─► subset construction (NFAToDFA) ─► DFAMinimizer
//            ─► MatcherBytecode (one DFA per batch; universal ids kept aside)
//
// Small groups are packed into the same NFA (this replaces WebKit's DFACombiner, which merges DFAs of
// fewer than 100 nodes after the fact). A batch whose DFA grows past `stateLimit(nfaNodes)` is split in
// two and retried, so combining never explodes.
//
// API contract (used by the rule-list compiler and the engine):
//  * MatcherBuilder.add(filter, id): filter.status must be .ok or .matchesEverything; the same pattern may
//    come with many ids and the same id with many patterns. id = (trigger flags << 32) | action location.
//  * Matcher.match(url, requestFlags, into:): every id whose pattern matches `url` (substring semantics,
//    `^`/`$` anchors, case folding per pattern) and whose flags pass the WebKit flags test, plus universal
//    ids that carry flags (same test); never the universal flag-free ids (universalFlagFree). Order
//    irrelevant, duplicates possible.

import ContentRules
import Dispatch

/// WebKit trigger-flag test (spec §5 TestFlagsAndAppendAction). `ruleFlags` = id >> 32.
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
    public var patterns = 0          // distinct non-universal patterns
    public var universalIds = 0      // distinct ids of match-everything patterns (with and without flags)
    public var nfaCount = 0
    public var nfaNodes = 0
    public var dfaCount = 0
    public var dfaStates = 0         // after minimization
    public var dfaStatesBeforeMinimization = 0
    public var actionLists = 0
    public var actionIds = 0
    public var bytes = 0             // serialized size
    public init() {}
}

public enum MatcherError: Error, Equatable, Sendable {
    case corrupt(String)
}

public struct MatcherBuilder {
    /// NFA size bound per batch (WebKit: 75,000). Patterns are cut only between patterns.
    public var maximumNFASize = 75_000

    private var patternIndex: [URLFilter: Int] = [:]
    private var patterns: [URLFilter] = []
    private var patternIds: [[UInt64]] = []
    private var universal: [UInt64] = []

    public init() {}

    public mutating func add(_ filter: URLFilter, id: UInt64) {
        switch filter.status {
        case .matchesEverything:
            universal.append(id)
        case .ok:
            if let i = patternIndex[filter] {
                patternIds[i].append(id)
            } else {
                patternIndex[filter] = patterns.count
                patterns.append(filter)
                patternIds.append([id])
            }
        default:
            preconditionFailure("MatcherBuilder.add: unsupported url-filter status \(filter.status)")
        }
    }

    static func stateLimit(nfaNodes: Int) -> Int { 8 * nfaNodes + 20_000 }

    /// Builds several families at once, concurrently (the families are independent; the rule-list
    /// compiler has three). Same result as calling build() on each, in the same order.
    public static func buildAll(_ builders: [MatcherBuilder]) -> [Matcher] {
        let results = ConcurrentResults<Matcher>(count: builders.count)
        DispatchQueue.concurrentPerform(iterations: builders.count) { i in
            results.set(i, builders[i].build())
        }
        return results.values()
    }

    public func build() -> Matcher {
        var statistics = MatcherStatistics()
        statistics.patterns = patterns.count
        statistics.universalIds = Set(universal).count

        // Prefix tree.
        var terms = TermTable()
        var tree = PrefixTree()
        var vertexIds: [Int32: [UInt64]] = [:]
        var endVertices: [Int32] = []
        for (i, p) in patterns.enumerated() {
            let ids = p.terms.map { terms.intern($0) }
            let v = tree.insert(ids, fixedLength: terms.fixedLength)
            if vertexIds[v] == nil { endVertices.append(v) }
            vertexIds[v, default: []] += patternIds[i]
        }
        var actionLists = ActionListTable()
        for v in endVertices {
            var ids = vertexIds[v]!
            ids.sort()
            var distinct: [UInt64] = []
            distinct.reserveCapacity(ids.count)
            for x in ids where distinct.last != x { distinct.append(x) }
            tree.action[Int(v)] = actionLists.intern(distinct)
        }

        // Batches -> NFA -> DFA -> minimized DFA.
        var pending = tree.batches(terms: terms, maxNodes: maximumNFASize).reversed().map { $0 }
        var dfas: [DFA] = []
        while let batch = pending.popLast() {
            let nfa = NFA(tree: tree, terms: terms, batch: batch)
            var construction = SubsetConstruction(nfa: nfa)
            let limit = batch.count > 1 ? MatcherBuilder.stateLimit(nfaNodes: nfa.nodeCount) : Int.max
            guard let dfa = construction.run(actionLists: &actionLists, stateLimit: limit) else {
                let half = batch.count / 2
                pending.append(Array(batch[half...]))
                pending.append(Array(batch[..<half]))
                continue
            }
            statistics.nfaCount += 1
            statistics.nfaNodes += nfa.nodeCount
            statistics.dfaStatesBeforeMinimization += dfa.stateCount
            dfas.append(DFAMinimizer.minimize(dfa))
        }

        // Keep only the action lists the DFAs use, numbered in order of use.
        var listRemap = [Int32](repeating: -1, count: actionLists.lists.count)
        var usedLists: [[UInt64]] = []
        for d in dfas.indices {
            for s in 0..<dfas[d].stateCount where dfas[d].actions[s] >= 0 {
                let old = Int(dfas[d].actions[s])
                if listRemap[old] < 0 {
                    listRemap[old] = Int32(usedLists.count)
                    usedLists.append(actionLists.lists[old])
                }
                dfas[d].actions[s] = listRemap[old]
            }
        }

        // Serialize.
        var flagFree = Set<UInt64>(), withFlags = Set<UInt64>()
        for id in universal {
            if id >> 32 == 0 { flagFree.insert(id) } else { withFlags.insert(id) }
        }
        var out: [UInt8] = MatcherBytecode.magic
        MatcherBytecode.append32(MatcherBytecode.formatVersion, to: &out)
        MatcherBytecode.append32(UInt32(flagFree.count), to: &out)
        MatcherBytecode.append32(UInt32(withFlags.count), to: &out)
        MatcherBytecode.append32(UInt32(usedLists.count), to: &out)
        let idCount = usedLists.reduce(0) { $0 + $1.count }
        MatcherBytecode.append32(UInt32(idCount), to: &out)
        MatcherBytecode.append32(UInt32(dfas.count), to: &out)
        MatcherBytecode.append32(0, to: &out) // total length, patched below
        MatcherBytecode.append32(UInt32(clamping: statistics.patterns), to: &out)
        MatcherBytecode.append32(UInt32(clamping: statistics.nfaCount), to: &out)
        MatcherBytecode.append32(UInt32(clamping: statistics.nfaNodes), to: &out)
        MatcherBytecode.append32(UInt32(clamping: statistics.dfaStatesBeforeMinimization), to: &out)
        for id in flagFree.sorted() { MatcherBytecode.append64(id, to: &out) }
        for id in withFlags.sorted() { MatcherBytecode.append64(id, to: &out) }
        var start: UInt32 = 0
        for l in usedLists {
            MatcherBytecode.append32(start, to: &out)
            start += UInt32(l.count)
        }
        MatcherBytecode.append32(start, to: &out)
        for l in usedLists { for id in l { MatcherBytecode.append64(id, to: &out) } }
        for d in dfas { MatcherBytecode.encode(d, into: &out) }
        out += [UInt8](repeating: 0, count: MatcherBytecode.padding)
        let total = UInt32(out.count)
        for k in 0..<4 { out[28 + k] = UInt8(truncatingIfNeeded: total >> (8 * UInt32(k))) }
        do {
            return try Matcher(validated: out)
        } catch {
            preconditionFailure("MatcherBuilder produced invalid bytecode: \(error)")
        }
    }
}

/// Write-once result slots filled by concurrent workers (each index by exactly one worker).
final class ConcurrentResults<T>: @unchecked Sendable {
    private var slots: [T?]
    init(count: Int) { slots = [T?](repeating: nil, count: count) }
    func set(_ i: Int, _ value: T) {
        // Each worker writes only its own slot; the storage is never reallocated while workers run.
        slots.withUnsafeMutableBufferPointer { $0[i] = value }
    }
    func values() -> [T] { slots.map { $0! } }
}
