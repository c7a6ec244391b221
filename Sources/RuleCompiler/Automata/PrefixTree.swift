// PrefixTree: all term sequences of one pattern family in one prefix tree (WebKit's CombinedURLFilters),
// and the partition of its patterns into NFA batches (WebKit's processNFAs).
//
// Every vertex is reached from its parent through one interned term. A pattern's action list sits on the
// vertex where its term sequence ends. The "generation root" of a vertex is the vertex after the last
// variable-length (quantified) term on its path (or the tree root): WebKit builds one NFA per generation
// root (that prefix plus all fixed-length subtrees below it), because patterns whose variable-length
// prefixes differ multiply the DFA size when they are combined. Batches here follow the same grouping,
// are bounded by `maximumNFASize` nodes (cut only between patterns, so an NFA may overshoot like WebKit's),
// and consecutive small groups share an NFA as long as the bound allows; a batch whose DFA would explode
// is split again by the compiler (MatcherBuilder), between groups where it can (`split`).

import ContentRules

struct TermTable {
    private(set) var terms: [URLFilterTerm] = []
    private(set) var fixedLength: [Bool] = []
    /// NFA nodes the term adds when generated (its destination node included).
    private(set) var nodeCost: [Int32] = []
    private var index: [URLFilterTerm: Int32] = [:]
    // Fast path for the very common single character-set terms.
    private var setIndex: [SetKey: Int32] = [:]

    struct SetKey: Hashable {
        var low: UInt64, high: UInt64, flags: UInt8
    }

    mutating func intern(_ term: URLFilterTerm) -> Int32 {
        if case .characterSet(let set, let q) = term {
            let key = SetKey(low: set.low, high: set.high, flags: q.rawValue << 1 | (set.nonASCII ? 1 : 0))
            if let id = setIndex[key] { return id }
            let id = append(term)
            setIndex[key] = id
            return id
        }
        if let id = index[term] { return id }
        let id = append(term)
        index[term] = id
        return id
    }

    private mutating func append(_ term: URLFilterTerm) -> Int32 {
        terms.append(term)
        fixedLength.append(term.hasFixedLength)
        nodeCost.append(Int32(TermTable.cost(term)))
        return Int32(terms.count - 1)
    }

    static func cost(_ term: URLFilterTerm) -> Int {
        var atom = 0
        if case .group(let inner, _) = term {
            atom = inner.reduce(0) { $0 + cost($1) }
        }
        switch term.quantifier {
        case .one, .zeroOrOne: return 1 + atom
        case .zeroOrMore, .oneOrMore: return 3 + atom
        }
    }
}

struct PrefixTree {
    var parent: [Int32] = [-1]
    var edgeTerm: [Int32] = [-1]
    /// Action list id per vertex (index into the builder's pattern id lists), -1 if none.
    var action: [Int32] = [-1]
    var generationRoot: [Int32] = [0]
    private var children: [UInt64: Int32] = [:]

    var vertexCount: Int { parent.count }

    /// Inserts the term sequence and returns its last vertex.
    mutating func insert(_ termIds: [Int32], fixedLength: [Bool]) -> Int32 {
        var v: Int32 = 0
        for t in termIds {
            let key = UInt64(UInt32(v)) << 32 | UInt64(UInt32(t))
            if let c = children[key] {
                v = c
            } else {
                let c = Int32(parent.count)
                parent.append(v)
                edgeTerm.append(t)
                action.append(-1)
                generationRoot.append(fixedLength[Int(t)] ? generationRoot[Int(v)] : c)
                children[key] = c
                v = c
            }
        }
        return v
    }

    /// Action vertices grouped into batches of at most ~maxNodes NFA nodes (whole generation-root groups
    /// when they fit, cut between patterns otherwise). Without `packGroups`, every generation-root group
    /// starts a batch of its own, as WebKit's processNFAs makes one NFA per group.
    func batches(terms: TermTable, maxNodes: Int, packGroups: Bool = true) -> [[Int32]] {
        var actionVertices: [Int32] = []
        for v in 0..<vertexCount where action[v] >= 0 { actionVertices.append(Int32(v)) }
        actionVertices.sort { (generationRoot[Int($0)], $0) < (generationRoot[Int($1)], $1) }
        var result: [[Int32]] = []
        var current: [Int32] = []
        var mark = [Int32](repeating: -1, count: vertexCount)
        var batchId: Int32 = 0
        var size = 0
        var i = 0
        while i < actionVertices.count {
            // One generation-root group.
            let root = generationRoot[Int(actionVertices[i])]
            var j = i
            while j < actionVertices.count && generationRoot[Int(actionVertices[j])] == root { j += 1 }
            let groupCost = cost(of: actionVertices[i..<j], terms: terms)
            if !current.isEmpty && (!packGroups || size + groupCost > maxNodes) {
                result.append(current)
                current = []
                batchId += 1
                size = 0
            }
            for k in i..<j {
                let v = actionVertices[k]
                var u = v
                var added = 0
                while u > 0 && mark[Int(u)] != batchId {
                    mark[Int(u)] = batchId
                    added += Int(terms.nodeCost[Int(edgeTerm[Int(u)])])
                    u = parent[Int(u)]
                }
                if !current.isEmpty && size + added > maxNodes {
                    result.append(current)
                    current = []
                    batchId += 1
                    size = 0
                    // Re-mark the path for the new batch.
                    var w = v
                    added = 0
                    while w > 0 && mark[Int(w)] != batchId {
                        mark[Int(w)] = batchId
                        added += Int(terms.nodeCost[Int(edgeTerm[Int(w)])])
                        w = parent[Int(w)]
                    }
                }
                size += added
                current.append(v)
            }
            i = j
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// A batch over its limit cut in `ways` parts (fewer when it has fewer vertices), each cut at the
    /// generation-root group boundary nearest its share of the vertices (within a group when the batch is
    /// one group). Whole groups stay together: a large group (the unanchored `.*LITERAL` patterns, a run of
    /// hosts) is cut off from the small groups that multiply (`.*A.*B`) instead of sharing every retry with
    /// them. Every part is non-empty and smaller than the batch, so retrying always ends.
    func split(_ batch: [Int32], ways: Int) -> [[Int32]] {
        precondition(batch.count > 1, "a single pattern cannot be split")
        var boundaries: [Int] = []
        for i in 1..<batch.count where generationRoot[Int(batch[i])] != generationRoot[Int(batch[i - 1])] {
            boundaries.append(i)
        }
        let parts = min(ways, batch.count)
        var cuts = [0]
        for k in 1..<parts {
            let share = k * batch.count / parts
            let cut = boundaries.min { abs($0 - share) < abs($1 - share) } ?? share
            if cut > cuts.last! { cuts.append(cut) }
        }
        cuts.append(batch.count)
        return (1..<cuts.count).map { Array(batch[cuts[$0 - 1]..<cuts[$0]]) }
    }

    private func cost(of vertices: ArraySlice<Int32>, terms: TermTable) -> Int {
        var seen = Set<Int32>()
        var total = 0
        for v in vertices {
            var u = v
            while u > 0 && seen.insert(u).inserted {
                total += Int(terms.nodeCost[Int(edgeTerm[Int(u)])])
                u = parent[Int(u)]
            }
        }
        return total
    }
}
