// MatcherLayout: the translation of the compiler's compact DFAs (MatcherBytecode.encode) into MatcherProgram's
// execution form (see MatcherInterpreter.swift for that form), done once when a matcher is built; files hold the
// execution form (MatcherBytecode.swift), so a load only validates and copies it.
//
// Each DFA is laid out on its own: first planned (which states are reachable, in what order, how many words
// each takes, which row each uses), then written into its own range of the program's words. Plans are
// independent, and once they are made every DFA's range is known, so all DFAs are planned at once and then
// written at once.

import Parallel

extension MatcherProgram {
    /// Lays out `compact`, one DFA each as MatcherBytecode.encode writes it (with its 4 bytes of padding).
    /// `gates` per DFA: 0, or its gate (MatcherHostTable.swift).
    init(laidOut compact: [[UInt8]], gates: [Int], listStarts: [UInt32], ids: [UInt64]) {
        self.listStarts = listStarts
        self.ids = ids
        let plans = Parallel.map(compact.count) { d in compact[d].withUnsafeBytes { DFALayoutPlan($0, dfa: 0) } }
        var wordBases: [Int] = [], rowBases: [Int] = []
        var wordCount = 0, rowBytes = 0
        for p in plans {
            wordBases.append(wordCount)
            rowBases.append(rowBytes)
            wordCount += p.wordCount
            rowBytes += p.rows.count
        }
        words = [UInt32](unsafeUninitializedCapacity: wordCount) { out, count in
            let out = out // each DFA writes only its own range
            _ = Parallel.map(plans.count) { d in
                compact[d].withUnsafeBytes {
                    plans[d].write($0, into: out, wordBase: wordBases[d], rowBase: rowBases[d])
                }
            }
            count = wordCount
        }
        rows = plans.flatMap(\.rows)
        classMaps = plans.flatMap(\.classMap)
        eosClasses = plans.map(\.eosClass)
        // A DFA's root is the first state of its order.
        roots = wordBases
        (rootTargets, rootTargetStarts) = Self.rootTargets(
            words: words, rows: rows, roots: roots, classCounts: plans.map(\.classCount))
        shapes = plans.indices.map { d in
            DFAShape(
                firstRow: rowBases[d], rowCount: plans[d].rows.count / plans[d].classCount,
                classCount: plans[d].classCount,
                stateCount: plans[d].stateCount, gate: gates[d])
        }
    }

    /// Per DFA its root's target per class (the root's own targets are never `rootTarget`), and where each DFA's
    /// start: what a state's `rootTarget` reads, without the root's header and row.
    private static func rootTargets(words: [UInt32], rows: [UInt8], roots: [Int], classCounts: [Int]) -> (
        [UInt32], [Int]
    ) {
        var targets: [UInt32] = [], starts: [Int] = []
        for (d, root) in roots.enumerated() {
            starts.append(targets.count)
            let header = words[root]
            let first = root + 1 + Int(header & 1)
            for c in 0..<classCounts[d] { targets.append(words[first + Int(rows[Int(header >> 1) + c])]) }
        }
        return (targets, starts)
    }

    /// The program of a blob that MatcherBytecode.validate accepted, with that layout.
    init(validated b: UnsafeRawBufferPointer, layout: MatcherBytecode.Layout) {
        listStarts = (0...layout.listCount).map { MatcherBytecode.read32(b, layout.listStarts + 4 * $0) }
        ids = (0..<layout.idCount).map {
            b.loadUnaligned(fromByteOffset: layout.ids + 8 * $0, as: UInt64.self).littleEndian
        }
        rows = Array(b[layout.rows])
        let wordBytes = UnsafeRawBufferPointer(rebasing: b[layout.words])
        words = [UInt32](unsafeUninitializedCapacity: wordBytes.count / 4) { out, count in
            UnsafeMutableRawBufferPointer(out).copyMemory(from: wordBytes)
            count = wordBytes.count / 4
            for i in 0..<count { out[i] = UInt32(littleEndian: out[i]) } // no-op on little-endian machines
        }
        classMaps = layout.dfas.flatMap { b[$0.classMap..<($0.classMap + 256)] }
        eosClasses = layout.dfas.map(\.eosClass)
        roots = layout.dfas.map(\.firstWord)
        (rootTargets, rootTargetStarts) = Self.rootTargets(
            words: words, rows: rows, roots: roots, classCounts: layout.dfas.map(\.classCount))
        hosts = layout.hosts
        hasHosts = layout.hosts != nil // an initializer's assignment runs no didSet
        shapes = layout.dfas.map {
            DFAShape(
                firstRow: $0.firstRow, rowCount: $0.rowCount, classCount: $0.classCount, stateCount: $0.stateCount,
                gate: $0.gate)
        }
    }
}

/// One DFA's layout before its words are written: its states in layout order with their word offsets (from
/// 0), and its rows.
struct DFALayoutPlan {
    let classMap: [UInt8]
    let eosClass: Int
    let wordCount: Int
    var classCount: Int { k }
    var stateCount: Int { order.count }
    /// This DFA's rows: K bytes per row, interned by their exception ranges.
    let rows: [UInt8]
    private let k: Int, w: Int
    private let noneTarget: UInt32
    /// The states in the compact form's order: where each starts in it.
    private let offsets: [Int]
    /// Where states start, as a bitmap over the DFA's area with a count of starts before each 64-bit word: a
    /// target (a state offset, as the encoder wrote it) becomes its state's index by a rank, in 1/32 of the memory of a
    /// table
    /// indexed by offset.
    private let starts: [UInt64], startsBefore: [Int32]
    /// The layout order: depth first from the root, a state's exception targets before its default target, so
    /// that a chain of states (the letters of a domain name) lies in consecutive words and shares cache lines;
    /// matching is bound by memory latency, not by instructions. Unreachable states (none after minimization)
    /// are left out: matching never reaches them.
    private let order: [Int32]
    /// Per state (compact order): its word offset in this DFA's range, and its row's offset in `rows`.
    private let wordOf: [UInt32], rowOf: [UInt32]

    init(_ b: UnsafeRawBufferPointer, dfa o: Int) {
        let length = Int(MatcherBytecode.read32(b, o))
        k = Int(b[o + 8])
        w = Int(b[o + 9])
        noneTarget = w == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(w))) - 1
        eosClass = Int(b[o + 10])
        classMap = Array(UnsafeRawBufferPointer(rebasing: b[(o + 12)..<(o + 268)]))
        let area = o + MatcherBytecode.dfaHeaderSize
        let areaEnd = o + length
        var offsets: [Int] = [], sizes: [Int] = []
        var starts = [UInt64](repeating: 0, count: (areaEnd - area + 63) / 64)
        var p = area
        while p < areaEnd {
            starts[(p - area) >> 6] |= 1 << UInt64((p - area) & 63)
            offsets.append(p)
            let h = b[p]
            p += 1
            var size = 1
            if h & 0x80 != 0 { p += 4; size += 1 }
            switch h & 3 {
            case 1:
                let n = Int((h >> 2) & 31)
                p += n * (2 + w) + w
                size += n + 1
            case 2:
                p += k * w
                size += k
            default:
                size += 1
            }
            sizes.append(size)
        }
        var startsBefore = [Int32](repeating: 0, count: starts.count)
        var running: Int32 = 0
        for i in 0..<starts.count {
            startsBefore[i] = running
            running += Int32(starts[i].nonzeroBitCount)
        }
        self.offsets = offsets
        self.starts = starts
        self.startsBefore = startsBefore
        order = Self.depthFirstOrder(b, offsets: offsets, k: k, w: w, noneTarget: noneTarget) {
            Self.state(at: $0, starts: starts, startsBefore: startsBefore)
        }
        var wordOf = [UInt32](repeating: 0, count: offsets.count)
        var next = 0
        for s in order {
            wordOf[Int(s)] = UInt32(next)
            next += sizes[Int(s)]
        }
        self.wordOf = wordOf
        wordCount = next
        (rows, rowOf) = Self.internRows(b, order: order, offsets: offsets, k: k)
    }

    /// The index of the state that starts at area offset `t`: a rank over the bitmap of starts.
    private static func state(at t: Int, starts: [UInt64], startsBefore: [Int32]) -> Int {
        Int(startsBefore[t >> 6]) + (starts[t >> 6] & ((1 << UInt64(t & 63)) &- 1)).nonzeroBitCount
    }

    private static func depthFirstOrder(
        _ b: UnsafeRawBufferPointer, offsets: [Int], k: Int, w: Int, noneTarget: UInt32,
        stateAt: (Int) -> Int
    ) -> [Int32] {
        var order: [Int32] = []
        order.reserveCapacity(offsets.count)
        var visited = [Bool](repeating: false, count: offsets.count)
        var stack: [Int32] = [0]
        visited[0] = true
        while let s = stack.popLast() {
            order.append(s)
            var q = offsets[Int(s)]
            let h = b[q]
            q += 1 + (h & 0x80 != 0 ? 4 : 0)
            var first = q, count = 0
            switch h & 3 {
            case 1:
                let n = Int((h >> 2) & 31)
                first = q + 2 * n
                count = n + 1
            case 2:
                count = k
            default:
                break
            }
            // Pushed last = laid out next: push the default (or last class) first.
            var x = count - 1
            while x >= 0 {
                let t = MatcherBytecode.read32(b, first + w * x) & noneTarget
                if t < noneTarget - 1 { // neither none nor the root's target
                    let u = stateAt(Int(t))
                    if !visited[u] {
                        visited[u] = true
                        stack.append(Int32(u))
                    }
                }
                x -= 1
            }
        }
        return order
    }

    /// The rows of the states in `order`, interned by their exception ranges packed in two words (at most 8
    /// ranges, as MatcherBytecode.encode writes them; a longer list gets a row of its own). n = 255: dense.
    private static func internRows(_ b: UnsafeRawBufferPointer, order: [Int32], offsets: [Int], k: Int) -> (
        rows: [UInt8], rowOf: [UInt32]
    ) {
        struct RowKey: Hashable { var low: UInt64, high: UInt64, n: UInt8 }
        var rows: [UInt8] = []
        var rowOf = [UInt32](repeating: 0, count: offsets.count)
        var interned: [RowKey: UInt32] = [:]
        func row(_ key: RowKey?, _ make: () -> [UInt8]) -> UInt32 {
            if let key, let r = interned[key] { return r }
            let r = UInt32(rows.count)
            rows.append(contentsOf: make())
            if let key { interned[key] = r }
            return r
        }
        for s in order {
            var p = offsets[Int(s)]
            let h = b[p]
            p += 1 + (h & 0x80 != 0 ? 4 : 0)
            switch h & 3 {
            case 1:
                let n = Int((h >> 2) & 31)
                var key: RowKey? = nil
                if n <= 8 {
                    var packed = RowKey(low: 0, high: 0, n: UInt8(n))
                    for x in 0..<(2 * n) {
                        if x < 8 {
                            packed.low |= UInt64(b[p + x]) << (8 * UInt64(x))
                        } else {
                            packed.high |= UInt64(b[p + x]) << (8 * UInt64(x - 8))
                        }
                    }
                    key = packed
                }
                let rangesAt = p
                rowOf[Int(s)] = row(key) {
                    var indices = [UInt8](repeating: UInt8(n), count: k)
                    for e in 0..<n {
                        for c in Int(b[rangesAt + 2 * e])...Int(b[rangesAt + 2 * e + 1]) { indices[c] = UInt8(e) }
                    }
                    return indices
                }
            case 2:
                rowOf[Int(s)] = row(RowKey(low: 0, high: 0, n: 255)) { (0..<k).map { UInt8($0) } }
            default:
                rowOf[Int(s)] = row(RowKey(low: 0, high: 0, n: 0)) { [UInt8](repeating: 0, count: k) }
            }
        }
        return (rows, rowOf)
    }

    /// Writes the DFA's states into `out[wordBase ..< wordBase + wordCount]`, its targets as word indices of
    /// the whole program and its rows at `rowBase` of the program's rows.
    func write(_ b: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt32>, wordBase: Int, rowBase: Int) {
        // The compact form ends with 4 bytes of padding, so a 32-bit load at any target is in bounds.
        func word(_ at: Int) -> UInt32 {
            let t = MatcherBytecode.read32(b, at) & noneTarget
            if t == noneTarget { return MatcherProgram.none }
            if t == noneTarget - 1 { return MatcherProgram.rootTarget }
            return UInt32(wordBase) + wordOf[Self.state(at: Int(t), starts: starts, startsBefore: startsBefore)]
        }
        var o = wordBase
        for s in order {
            var p = offsets[Int(s)]
            let h = b[p]
            p += 1
            out[o] = (UInt32(rowBase) + rowOf[Int(s)]) << 1 | (h & 0x80 != 0 ? 1 : 0)
            o += 1
            if h & 0x80 != 0 {
                out[o] = MatcherBytecode.read32(b, p)
                o += 1
                p += 4
            }
            switch h & 3 {
            case 1:
                let n = Int((h >> 2) & 31)
                p += 2 * n
                for _ in 0...n {
                    out[o] = word(p)
                    o += 1
                    p += w
                }
            case 2:
                for _ in 0..<k {
                    out[o] = word(p)
                    o += 1
                    p += w
                }
            default:
                out[o] = MatcherProgram.none
                o += 1
            }
        }
        precondition(o == wordBase + wordCount, "a DFA's words fill its range")
    }
}
