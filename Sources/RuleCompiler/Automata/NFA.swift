// NFA: a flat (CSR) Thompson automaton for one batch of prefix-tree patterns, over a batch-local
// alphabet of symbol classes.
//
// Alphabet: the 129 matcher symbols (0...127, 128 = any byte >= 0x80; see URLFilterTerm.swift) are
// grouped into classes of symbols that every character set of the batch treats alike; classes are
// numbered by their smallest symbol, so the usual sets (`[^/]`, `[a-z]`, letters of both cases) become
// a few contiguous class ranges. Transitions carry class ranges.

import ContentRules

struct ClassAlphabet {
    /// Class of each symbol 0...128.
    var classOfSymbol: [UInt8] = []
    var classCount = 0
    /// For each distinct character set (in first-use order): its class ranges.
    var setRanges: [[(UInt8, UInt8)]] = []
    private var setIds: [URLFilterCharacterSet: Int32] = [:]

    init(sets: [URLFilterCharacterSet]) {
        var distinct: [URLFilterCharacterSet] = []
        for s in sets where setIds[s] == nil {
            setIds[s] = Int32(distinct.count)
            distinct.append(s)
        }
        let words = max(1, (distinct.count + 63) / 64)
        var signatureToClass: [[UInt64]: Int] = [:]
        classOfSymbol = [UInt8](repeating: 0, count: 129)
        var sig = [UInt64](repeating: 0, count: words)
        for symbol in 0...128 {
            for w in 0..<words { sig[w] = 0 }
            for (i, s) in distinct.enumerated() where s.contains(symbol: symbol) {
                sig[i >> 6] |= 1 << UInt64(i & 63)
            }
            if let c = signatureToClass[sig] {
                classOfSymbol[symbol] = UInt8(c)
            } else {
                signatureToClass[sig] = classCount
                classOfSymbol[symbol] = UInt8(classCount)
                classCount += 1
            }
        }
        for s in distinct {
            var member = [Bool](repeating: false, count: classCount)
            for symbol in 0...128 where s.contains(symbol: symbol) { member[Int(classOfSymbol[symbol])] = true }
            var ranges: [(UInt8, UInt8)] = []
            var c = 0
            while c < classCount {
                if member[c] {
                    let start = c
                    while c + 1 < classCount && member[c + 1] { c += 1 }
                    ranges.append((UInt8(start), UInt8(c)))
                }
                c += 1
            }
            setRanges.append(ranges)
        }
    }

    func setId(_ s: URLFilterCharacterSet) -> Int32 { setIds[s]! }
}

struct NFA {
    var nodeCount = 0
    // Character transitions (class range -> target), CSR by source node.
    var transitionStart: [Int32] = []
    var transitionLow: [UInt8] = []
    var transitionHigh: [UInt8] = []
    var transitionTarget: [Int32] = []
    // Epsilon transitions, CSR by source node.
    var epsilonStart: [Int32] = []
    var epsilonTarget: [Int32] = []
    /// Action list id per node, -1 if none.
    var actions: [Int32] = []
    var alphabet: ClassAlphabet

    /// Builds the NFA of the prefix-tree paths leading to `batch` (action vertices). Node 0 is the root.
    init(tree: PrefixTree, terms: TermTable, batch: [Int32]) {
        // Included vertices: the union of the root paths of the batch's action vertices.
        var included = Set<Int32>()
        var vertices: [Int32] = [0]
        for v in batch {
            var u = v
            while u > 0 && included.insert(u).inserted {
                vertices.append(u)
                u = tree.parent[Int(u)]
            }
        }
        vertices.sort()
        // Alphabet from the character sets of the included edges.
        var sets: [URLFilterCharacterSet] = []
        var seenTerms = Set<Int32>()
        func collect(_ t: URLFilterTerm) {
            switch t {
            case .characterSet(let s, _): sets.append(s)
            case .group(let inner, _): inner.forEach(collect)
            }
        }
        for v in vertices.dropFirst() {
            let t = tree.edgeTerm[Int(v)]
            if seenTerms.insert(t).inserted { collect(terms.terms[Int(t)]) }
        }
        alphabet = ClassAlphabet(sets: sets)

        var builder = Builder(alphabet: alphabet)
        var nodeOfVertex: [Int32: Int32] = [0: builder.newNode()]
        let batchSet = Set(batch)
        for v in vertices.dropFirst() {
            let node = builder.newNode()
            nodeOfVertex[v] = node
            let from = nodeOfVertex[tree.parent[Int(v)]]!
            builder.generate(terms.terms[Int(tree.edgeTerm[Int(v)])], from: from, to: node)
            if batchSet.contains(v) { builder.actions[Int(node)] = tree.action[Int(v)] }
        }
        nodeCount = builder.actions.count
        actions = builder.actions
        (transitionStart, transitionLow, transitionHigh, transitionTarget) = NFA.csr(
            nodeCount: nodeCount, sources: builder.tSource, low: builder.tLow, high: builder.tHigh,
            targets: builder.tTarget)
        let (es, _, _, et) = NFA.csr(
            nodeCount: nodeCount, sources: builder.eSource, low: nil, high: nil, targets: builder.eTarget)
        epsilonStart = es
        epsilonTarget = et
    }

    private static func csr(nodeCount: Int, sources: [Int32], low: [UInt8]?, high: [UInt8]?, targets: [Int32])
        -> ([Int32], [UInt8], [UInt8], [Int32])
    {
        var start = [Int32](repeating: 0, count: nodeCount + 1)
        for s in sources { start[Int(s) + 1] += 1 }
        for i in 0..<nodeCount { start[i + 1] += start[i] }
        var fill = start
        var lo = [UInt8](repeating: 0, count: low == nil ? 0 : sources.count)
        var hi = [UInt8](repeating: 0, count: high == nil ? 0 : sources.count)
        var tg = [Int32](repeating: 0, count: sources.count)
        for i in 0..<sources.count {
            let p = Int(fill[Int(sources[i])])
            fill[Int(sources[i])] += 1
            if let low { lo[p] = low[i] }
            if let high { hi[p] = high[i] }
            tg[p] = targets[i]
        }
        return (start, lo, hi, tg)
    }

    /// Stores the edges of the shared construction (ContentRules.TermGraphSink) as class-range transitions.
    struct Builder: TermGraphSink {
        let alphabet: ClassAlphabet
        var actions: [Int32] = []
        var tSource: [Int32] = [], tLow: [UInt8] = [], tHigh: [UInt8] = [], tTarget: [Int32] = []
        var eSource: [Int32] = [], eTarget: [Int32] = []

        mutating func newNode() -> Int32 {
            actions.append(-1)
            return Int32(actions.count - 1)
        }

        mutating func epsilon(from: Int32, to: Int32) {
            eSource.append(from)
            eTarget.append(to)
        }

        mutating func characterSet(_ set: URLFilterCharacterSet, from: Int32, to: Int32) {
            for (lo, hi) in alphabet.setRanges[Int(alphabet.setId(set))] {
                tSource.append(from)
                tLow.append(lo)
                tHigh.append(hi)
                tTarget.append(to)
            }
        }
    }
}
