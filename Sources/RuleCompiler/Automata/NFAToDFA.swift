// NFAToDFA: subset construction over class ranges (WebKit's NFAToDFA).
//
// A DFA state is the sorted set of "important" NFA nodes (nodes with character transitions or actions)
// of an epsilon closure. For a state, the class ranges of all member transitions are cut into
// elementary intervals; each interval's target set is the union of the closures of the covering
// transitions' targets. States are interned in an open-addressing table over a flat pool.
// Actions of a DFA state = union of its members' action lists.

import ContentRules

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
    mutating func run(actionLists: inout ActionListTable, stateLimit: Int, byteLimit: Int, deadline: Double) -> Outcome
    {
        var dfa = DFA(classCount: nfa.alphabet.classCount, classOfSymbol: nfa.alphabet.classOfSymbol)
        let (rs, rl) = closure(0)
        _ = intern(Array(closurePool[rs..<rs + rl]))
        var scratch = StateScratch()
        var state = 0
        while state < setStart.count {
            if setStart.count > stateLimit { return .over(.states) }
            if workingBytes(dfa) > byteLimit { return .over(.bytes) }
            if state & 63 == 0 && deadline.isFinite && monotonicSeconds() > deadline { return .over(.seconds) }
            collectNodes(of: state, into: &scratch)
            dfa.actions.append(scratch.actionIds.isEmpty ? -1 : actionLists.union(scratch.distinctActionIds()))
            appendTransitions(of: state, &scratch, to: &dfa)
            dfa.transitionStart.append(Int32(dfa.transitionLow.count))
            state += 1
        }
        return .dfa(dfa)
    }

    /// The actions and the transitions of the NFA nodes of DFA state `state`.
    private func collectNodes(of state: Int, into scratch: inout StateScratch) {
        scratch.actionIds.removeAll(keepingCapacity: true)
        scratch.ranges.removeAll(keepingCapacity: true)
        let start = Int(setStart[state]), count = Int(setLength[state])
        for k in start..<start + count {
            let n = Int(setPool[k])
            if nfa.actions[n] >= 0 { scratch.actionIds.append(nfa.actions[n]) }
            for t in Int(nfa.transitionStart[n])..<Int(nfa.transitionStart[n + 1]) {
                scratch.ranges.append(
                    NodeRange(low: nfa.transitionLow[t], high: nfa.transitionHigh[t], target: nfa.transitionTarget[t]))
            }
        }
    }

    /// One transition per elementary interval of the collected ranges, to the state of the union of the
    /// closures of the targets covering it (none where nothing covers it).
    private mutating func appendTransitions(of state: Int, _ scratch: inout StateScratch, to dfa: inout DFA) {
        // Boundaries (each range's low and high + 1) in a 256-bit set, which replaces sorting them (class
        // numbers are < 130).
        var boundaries: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for r in scratch.ranges {
            DFABoundarySet.insert(Int(r.low), &boundaries)
            DFABoundarySet.insert(Int(r.high) + 1, &boundaries)
        }
        var lastTarget: Int32 = -1
        var lo = DFABoundarySet.next(after: -1, boundaries)
        while lo >= 0 {
            let following = DFABoundarySet.next(after: lo, boundaries)
            if following < 0 { break }
            let hi = following - 1
            defer { lo = following }
            unionOfClosures(covering: lo, hi, scratch.ranges, into: &scratch.members)
            if scratch.members.isEmpty { lastTarget = -1; continue }
            scratch.members.sort()
            let (target, _) = intern(scratch.members)
            dfa.appendTransition(
                lo: lo, hi: hi, target: target, previousTarget: lastTarget, rowStart: dfa.transitionStart[state])
            lastTarget = target
        }
    }

    /// `members` = the union of the closures of the targets of the ranges covering [lo, hi], unsorted.
    private mutating func unionOfClosures(
        covering lo: Int, _ hi: Int, _ ranges: [NodeRange], into members: inout [Int32]
    ) {
        let s = nextStamp()
        members.removeAll(keepingCapacity: true)
        ranges.withUnsafeBufferPointer { ranges in
            for r in ranges where Int(r.low) <= lo && hi <= Int(r.high) {
                let (cs, cl) = closure(Int(r.target))
                addUnmarked(cs..<cs + cl, stamp: s, to: &members)
            }
        }
    }

    /// Appends the closure-pool entries in `span` not yet marked with `stamp`, marking them.
    private mutating func addUnmarked(_ span: Range<Int>, stamp s: UInt32, to members: inout [Int32]) {
        closurePool.withUnsafeBufferPointer { pool in
            mark.withUnsafeMutableBufferPointer { mark in
                for k in span {
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

/// One transition of an NFA node of the DFA state being built: classes [low, high] -> target node.
private struct NodeRange {
    var low: UInt8
    var high: UInt8
    var target: Int32
}

/// Buffers reused from one DFA state to the next.
private struct StateScratch {
    var actionIds: [Int32] = []
    var ranges: [NodeRange] = []
    var members: [Int32] = []

    /// The collected action ids, sorted and distinct.
    mutating func distinctActionIds() -> [Int32] {
        actionIds.sort()
        var distinct: [Int32] = []
        for a in actionIds where distinct.last != a { distinct.append(a) }
        return distinct
    }
}
