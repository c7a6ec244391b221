// NFAToDFA: subset construction over class ranges (WebKit's NFAToDFA).
//
// A DFA state is the sorted set of "important" NFA nodes (nodes with character transitions or actions)
// of an epsilon closure. For a state, the class ranges of all member transitions are cut into
// elementary intervals; each interval's target set is the union of the closures of the covering
// transitions' targets. States are interned in an open-addressing table over a flat pool.
// Actions of a DFA state = union of its members' action lists.

import ContentRules

struct DFA {
    var classCount: Int
    var classOfSymbol: [UInt8]
    /// Transitions per state (CSR): class range -> target state. Ranges sorted and disjoint.
    var transitionStart: [Int32] = [0]
    var transitionLow: [UInt8] = []
    var transitionHigh: [UInt8] = []
    var transitionTarget: [Int32] = []
    /// Action list id per state (-1 if none).
    var actions: [Int32] = []

    var stateCount: Int { actions.count }

    /// Appends the interval lo...hi -> target to the row of the state being built (whose row starts at
    /// `rowStart`), extending the previous interval instead when it is contiguous and goes to the same target.
    mutating func appendTransition(lo: Int, hi: Int, target: Int32, previousTarget: Int32, rowStart: Int32) {
        if target == previousTarget, let last = transitionHigh.last, Int(last) + 1 == lo, transitionLow.count > Int(rowStart) {
            transitionHigh[transitionHigh.count - 1] = UInt8(hi)
        } else {
            transitionLow.append(UInt8(lo))
            transitionHigh.append(UInt8(hi))
            transitionTarget.append(target)
        }
    }

    init(classCount: Int, classOfSymbol: [UInt8]) {
        self.classCount = classCount
        self.classOfSymbol = classOfSymbol
    }

    /// Reference walk used by tests and for small sanity checks: all action ids reached on `url`.
    func run(_ url: [UInt8], visit: (Int32) -> Void) {
        var s = 0
        var i = 0
        while true {
            if actions[s] >= 0 { visit(actions[s]) }
            if i > url.count { return }
            let symbol = i < url.count ? URLFilterCharacterSet.symbol(forByte: url[i]) : 0
            let c = classOfSymbol[symbol]
            var next = -1
            for t in Int(transitionStart[s])..<Int(transitionStart[s + 1]) where transitionLow[t] <= c && c <= transitionHigh[t] {
                next = Int(transitionTarget[t])
                break
            }
            if next < 0 { return }
            s = next
            i += 1
        }
    }
}

/// Merges action lists of DFA states (shared across all DFAs of a matcher).
struct ActionListTable {
    var lists: [[UInt64]] = []
    private var index: [[UInt64]: Int32] = [:]
    private var unions: [[Int32]: Int32] = [:]

    mutating func intern(_ ids: [UInt64]) -> Int32 {
        if let i = index[ids] { return i }
        let i = Int32(lists.count)
        lists.append(ids)
        index[ids] = i
        return i
    }

    /// The list id of the union of the given (sorted, distinct) list ids.
    mutating func union(_ ids: [Int32]) -> Int32 {
        if ids.count == 1 { return ids[0] }
        if let u = unions[ids] { return u }
        var merged: [UInt64] = []
        for i in ids { merged += lists[Int(i)] }
        merged.sort()
        var out: [UInt64] = []
        out.reserveCapacity(merged.count)
        for x in merged where out.last != x { out.append(x) }
        let u = intern(out)
        unions[ids] = u
        return u
    }
}

/// A set of interval boundaries 0...255 in four words.
enum DFABoundarySet {
    @inline(__always)
    static func insert(_ x: Int, _ set: inout (UInt64, UInt64, UInt64, UInt64)) {
        let bit = UInt64(1) << UInt64(x & 63)
        switch x >> 6 {
        case 0: set.0 |= bit
        case 1: set.1 |= bit
        case 2: set.2 |= bit
        default: set.3 |= bit
        }
    }

    /// The smallest element > x, or -1.
    @inline(__always)
    static func next(after x: Int, _ set: (UInt64, UInt64, UInt64, UInt64)) -> Int {
        var word = (x + 1) >> 6
        guard word < 4 else { return -1 }
        let shift = UInt64((x + 1) & 63)
        var bits: UInt64
        switch word {
        case 0: bits = set.0
        case 1: bits = set.1
        case 2: bits = set.2
        default: bits = set.3
        }
        bits &= ~UInt64(0) << shift
        while true {
            if bits != 0 { return word << 6 | bits.trailingZeroBitCount }
            word += 1
            if word == 4 { return -1 }
            switch word {
            case 1: bits = set.1
            case 2: bits = set.2
            default: bits = set.3
            }
        }
    }
}

struct SubsetConstruction {
    let nfa: NFA
    // Important-closure cache per NFA node.
    private var closureStart: [Int32]
    private var closureLength: [Int32]
    private var closurePool: [Int32] = []
    private var mark: [UInt32]
    private var stamp: UInt32 = 0
    private var closureMark: [UInt32]
    private var closureStamp: UInt32 = 0
    // Interned DFA states.
    private var setStart: [Int32] = []
    private var setLength: [Int32] = []
    private var setPool: [Int32] = []
    private var setHash: [UInt32] = []
    private var table: [Int32]
    private var tableMask: Int

    init(nfa: NFA) {
        self.nfa = nfa
        closureStart = [Int32](repeating: -1, count: nfa.nodeCount)
        closureLength = [Int32](repeating: 0, count: nfa.nodeCount)
        mark = [UInt32](repeating: 0, count: nfa.nodeCount)
        closureMark = [UInt32](repeating: 0, count: nfa.nodeCount)
        table = [Int32](repeating: -1, count: 1024)
        tableMask = 1023
    }

    private func isImportant(_ n: Int) -> Bool {
        nfa.transitionStart[n] != nfa.transitionStart[n + 1] || nfa.actions[n] >= 0
    }

    private mutating func nextStamp() -> UInt32 {
        stamp &+= 1
        if stamp == 0 {
            for i in mark.indices { mark[i] = 0 }
            stamp = 1
        }
        return stamp
    }

    private mutating func closure(_ n: Int) -> (Int, Int) {
        if closureStart[n] >= 0 { return (Int(closureStart[n]), Int(closureLength[n])) }
        closureStamp &+= 1
        if closureStamp == 0 {
            for i in closureMark.indices { closureMark[i] = 0 }
            closureStamp = 1
        }
        let s = closureStamp
        let start = closurePool.count
        var stack: [Int32] = [Int32(n)]
        closureMark[n] = s
        while let x = stack.popLast() {
            let xi = Int(x)
            if isImportant(xi) { closurePool.append(x) }
            for e in Int(nfa.epsilonStart[xi])..<Int(nfa.epsilonStart[xi + 1]) {
                let t = Int(nfa.epsilonTarget[e])
                if closureMark[t] != s {
                    closureMark[t] = s
                    stack.append(Int32(t))
                }
            }
        }
        closurePool[start...].sort()
        closureStart[n] = Int32(start)
        closureLength[n] = Int32(closurePool.count - start)
        return (start, closurePool.count - start)
    }

    private static func hash(_ p: UnsafeBufferPointer<Int32>) -> UInt32 {
        var h: UInt32 = 2166136261
        for x in p { h = (h ^ UInt32(bitPattern: x)) &* 16777619 }
        return h ^ (h >> 15)
    }

    /// Interns `members` (sorted); returns (state id, isNew).
    private mutating func intern(_ members: [Int32]) -> (Int32, Bool) {
        let h = members.withUnsafeBufferPointer { SubsetConstruction.hash($0) }
        var slot = Int(h) & tableMask
        while true {
            let s = Int(table[slot])
            if s < 0 { break }
            if setHash[s] == h && Int(setLength[s]) == members.count {
                let start = Int(setStart[s])
                var equal = true
                for k in 0..<members.count where setPool[start + k] != members[k] {
                    equal = false
                    break
                }
                if equal { return (Int32(s), false) }
            }
            slot = (slot + 1) & tableMask
        }
        let id = Int32(setStart.count)
        setStart.append(Int32(setPool.count))
        setLength.append(Int32(members.count))
        setPool.append(contentsOf: members)
        setHash.append(h)
        table[slot] = id
        if setStart.count * 2 > table.count { grow() }
        return (id, true)
    }

    private mutating func grow() {
        let capacity = table.count * 2
        table = [Int32](repeating: -1, count: capacity)
        tableMask = capacity - 1
        for s in 0..<setStart.count {
            var slot = Int(setHash[s]) & tableMask
            while table[slot] >= 0 { slot = (slot + 1) & tableMask }
            table[slot] = Int32(s)
        }
    }

    /// States interned so far (also after a run that stopped at a limit).
    var builtStates: Int { setStart.count }

    enum Outcome {
        case dfa(DFA)
        case over(CompileBudget.Kind)
    }

    /// Bytes held by the construction so far (state sets, intern table, closures, transitions).
    private func workingBytes(_ dfa: DFA) -> Int {
        4 * (setPool.count + closurePool.count + table.count) + 12 * setStart.count
            + 6 * dfa.transitionLow.count + 4 * (dfa.actions.count + dfa.transitionStart.count)
    }

    /// Runs the construction under limits: stops as soon as more than `stateLimit` states or
    /// `byteLimit` bytes would be needed, or the monotonic clock passes `deadline`.
    mutating func run(actionLists: inout ActionListTable, stateLimit: Int, byteLimit: Int, deadline: Double) -> Outcome {
        var dfa = DFA(classCount: nfa.alphabet.classCount, classOfSymbol: nfa.alphabet.classOfSymbol)
        let (rs, rl) = closure(0)
        _ = intern(Array(closurePool[rs..<rs + rl]))
        var rangeLow: [UInt8] = [], rangeHigh: [UInt8] = [], rangeTarget: [Int32] = []
        var boundaries: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var members: [Int32] = []
        var actionIds: [Int32] = []
        var state = 0
        while state < setStart.count {
            if setStart.count > stateLimit { return .over(.states) }
            if workingBytes(dfa) > byteLimit { return .over(.bytes) }
            if state & 63 == 0 && deadline.isFinite && monotonicSeconds() > deadline { return .over(.seconds) }
            // Actions.
            actionIds.removeAll(keepingCapacity: true)
            let start = Int(setStart[state]), count = Int(setLength[state])
            rangeLow.removeAll(keepingCapacity: true)
            rangeHigh.removeAll(keepingCapacity: true)
            rangeTarget.removeAll(keepingCapacity: true)
            for k in start..<start + count {
                let n = Int(setPool[k])
                if nfa.actions[n] >= 0 { actionIds.append(nfa.actions[n]) }
                for t in Int(nfa.transitionStart[n])..<Int(nfa.transitionStart[n + 1]) {
                    rangeLow.append(nfa.transitionLow[t])
                    rangeHigh.append(nfa.transitionHigh[t])
                    rangeTarget.append(nfa.transitionTarget[t])
                }
            }
            if actionIds.isEmpty {
                dfa.actions.append(-1)
            } else {
                actionIds.sort()
                var distinct: [Int32] = []
                for a in actionIds where distinct.last != a { distinct.append(a) }
                dfa.actions.append(actionLists.union(distinct))
            }
            // Elementary intervals: boundaries (each range's low and high + 1) in a 256-bit set, which
            // replaces sorting them (class numbers are < 130).
            boundaries = (0, 0, 0, 0)
            for r in 0..<rangeLow.count {
                DFABoundarySet.insert(Int(rangeLow[r]), &boundaries)
                DFABoundarySet.insert(Int(rangeHigh[r]) + 1, &boundaries)
            }
            var lastTarget: Int32 = -1
            var lo = DFABoundarySet.next(after: -1, boundaries)
            while lo >= 0 {
                let following = DFABoundarySet.next(after: lo, boundaries)
                if following < 0 { break }
                let hi = following - 1
                defer { lo = following }
                // Union of closures of targets covering [lo, hi].
                let s = nextStamp()
                members.removeAll(keepingCapacity: true)
                rangeLow.withUnsafeBufferPointer { rangeLow in
                    rangeHigh.withUnsafeBufferPointer { rangeHigh in
                        for r in 0..<rangeLow.count where Int(rangeLow[r]) <= lo && hi <= Int(rangeHigh[r]) {
                            let (cs, cl) = closure(Int(rangeTarget[r]))
                            closurePool.withUnsafeBufferPointer { pool in
                                mark.withUnsafeMutableBufferPointer { mark in
                                    for k in cs..<cs + cl {
                                        let m = Int(pool[k])
                                        if mark[m] != s {
                                            mark[m] = s
                                            members.append(Int32(truncatingIfNeeded: m))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                if members.isEmpty { lastTarget = -1; continue }
                members.sort()
                let (target, _) = intern(members)
                dfa.appendTransition(lo: lo, hi: hi, target: target, previousTarget: lastTarget, rowStart: dfa.transitionStart[state])
                lastTarget = target
            }
            dfa.transitionStart.append(Int32(dfa.transitionLow.count))
            state += 1
        }
        return .dfa(dfa)
    }
}
