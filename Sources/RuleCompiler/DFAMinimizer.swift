// DFAMinimizer: partition refinement (Hopcroft, in the formulation of Valmari & Lehtinen, "Fast brief
// practical DFA minimization", 2012, which handles partial DFAs directly), after removing useless
// states (those from which no state with actions is reachable: the interpreter can stop there).
//
// The initial partition splits states by action list (WebKit: "initial partition by action set").
// Labels are the DFA's class-range intervals: two states are merged only when they have transitions on
// exactly the same intervals into equivalent states. That is sound (merged states are equivalent) and
// near-minimal for our automata; adjacent intervals that end up with equal targets are merged afterwards.
// The result is renumbered breadth-first from the root (deterministic output).

struct RefinablePartition {
    var setCount = 0
    var elements: [Int32]      // E: elements ordered by set
    var location: [Int32]      // L: position of each element in `elements`
    var setOf: [Int32]         // S
    var first: [Int32]         // F
    var past: [Int32]          // P
    var marked: [Int32]        // M
    var touched: [Int32] = []  // W

    /// Initial sets: elements grouped by `keys` (ascending key order, stable).
    init(keys: [Int32]) {
        let n = keys.count
        // Counting sort by key (keys are small non-negative ints or -1), stable.
        var maxKey: Int32 = -1
        for k in keys where k > maxKey { maxKey = k }
        var bucketStart = [Int32](repeating: 0, count: Int(maxKey) + 3)
        for k in keys { bucketStart[Int(k) + 2] += 1 }
        for i in 1..<bucketStart.count { bucketStart[i] += bucketStart[i - 1] }
        elements = [Int32](repeating: 0, count: n)
        for e in 0..<n {
            let b = Int(keys[e]) + 1
            elements[Int(bucketStart[b])] = Int32(e)
            bucketStart[b] += 1
        }
        location = [Int32](repeating: 0, count: n)
        setOf = [Int32](repeating: 0, count: n)
        first = [Int32](repeating: 0, count: max(n, 1))
        past = [Int32](repeating: 0, count: max(n, 1))
        marked = [Int32](repeating: 0, count: max(n, 1))
        var i = 0
        while i < n {
            var j = i
            let k = keys[Int(elements[i])]
            while j < n && keys[Int(elements[j])] == k { j += 1 }
            first[setCount] = Int32(i)
            past[setCount] = Int32(j)
            for p in i..<j {
                location[Int(elements[p])] = Int32(p)
                setOf[Int(elements[p])] = Int32(setCount)
            }
            setCount += 1
            i = j
        }
    }

    @inline(__always)
    mutating func mark(_ e: Int32) {
        let s = Int(setOf[Int(e)])
        let m = marked[s]
        let i = Int(location[Int(e)])
        let j = Int(first[s] + m)
        let other = elements[j]
        elements[i] = other
        location[Int(other)] = Int32(i)
        elements[j] = e
        location[Int(e)] = Int32(j)
        if m == 0 { touched.append(Int32(s)) }
        marked[s] = m + 1
    }

    mutating func split() {
        while let s32 = touched.popLast() {
            let s = Int(s32)
            let j = first[s] + marked[s]
            if j == past[s] {
                marked[s] = 0
                continue
            }
            let z = setCount
            if marked[s] <= past[s] - j {
                first[z] = first[s]
                past[z] = j
                first[s] = j
            } else {
                past[z] = past[s]
                first[z] = j
                past[s] = j
            }
            for i in Int(first[z])..<Int(past[z]) { setOf[Int(elements[i])] = Int32(z) }
            marked[s] = 0
            marked[z] = 0
            setCount += 1
        }
    }
}

enum DFAMinimizer {
    static func minimize(_ dfa: DFA) -> DFA {
        let n = dfa.stateCount
        // 1. Useful states (can reach a state with actions).
        var reverseStart = [Int32](repeating: 0, count: n + 1)
        for t in dfa.transitionTarget { reverseStart[Int(t) + 1] += 1 }
        for i in 0..<n { reverseStart[i + 1] += reverseStart[i] }
        var fill = reverseStart
        var reverse = [Int32](repeating: 0, count: dfa.transitionTarget.count)
        for s in 0..<n {
            for t in Int(dfa.transitionStart[s])..<Int(dfa.transitionStart[s + 1]) {
                let h = Int(dfa.transitionTarget[t])
                reverse[Int(fill[h])] = Int32(s)
                fill[h] += 1
            }
        }
        var useful = [Bool](repeating: false, count: n)
        var stack: [Int32] = []
        for s in 0..<n where dfa.actions[s] >= 0 {
            useful[s] = true
            stack.append(Int32(s))
        }
        while let s = stack.popLast() {
            for k in Int(reverseStart[Int(s)])..<Int(reverseStart[Int(s) + 1]) {
                let p = Int(reverse[k])
                if !useful[p] {
                    useful[p] = true
                    stack.append(Int32(p))
                }
            }
        }
        if n == 0 || !useful[0] {
            var empty = DFA(classCount: dfa.classCount, classOfSymbol: dfa.classOfSymbol)
            empty.actions = [n > 0 ? dfa.actions[0] : -1]
            empty.transitionStart = [0, 0]
            return empty
        }
        // Compact indices of useful states.
        var index = [Int32](repeating: -1, count: n)
        var states: [Int32] = []
        for s in 0..<n where useful[s] {
            index[s] = Int32(states.count)
            states.append(Int32(s))
        }
        let m = states.count
        // 2. Transitions among useful states, labelled by interval.
        var tail: [Int32] = [], head: [Int32] = [], label: [Int32] = []
        var labelOfKey = [Int32](repeating: -1, count: 65536)
        var labelCount: Int32 = 0
        for (i, s) in states.enumerated() {
            for t in Int(dfa.transitionStart[Int(s)])..<Int(dfa.transitionStart[Int(s) + 1]) {
                let h = Int(dfa.transitionTarget[t])
                guard useful[h] else { continue }
                let key = Int(dfa.transitionLow[t]) << 8 | Int(dfa.transitionHigh[t])
                if labelOfKey[key] < 0 {
                    labelOfKey[key] = labelCount
                    labelCount += 1
                }
                tail.append(Int32(i))
                head.append(index[h])
                label.append(labelOfKey[key])
            }
        }
        // 3. Partition refinement.
        var blocks = RefinablePartition(keys: states.map { dfa.actions[Int($0)] })
        var cords = RefinablePartition(keys: label)
        var adjacencyStart = [Int32](repeating: 0, count: m + 1)
        for h in head { adjacencyStart[Int(h) + 1] += 1 }
        for i in 0..<m { adjacencyStart[i + 1] += adjacencyStart[i] }
        var adjacencyFill = adjacencyStart
        var adjacency = [Int32](repeating: 0, count: head.count)
        for t in 0..<head.count {
            let h = Int(head[t])
            adjacency[Int(adjacencyFill[h])] = Int32(t)
            adjacencyFill[h] += 1
        }
        var b = 1, c = 0
        tail.withUnsafeBufferPointer { tail in
        adjacency.withUnsafeBufferPointer { adjacency in
        adjacencyStart.withUnsafeBufferPointer { adjacencyStart in
            while c < cords.setCount {
                for i in Int(cords.first[c])..<Int(cords.past[c]) { blocks.mark(tail[Int(cords.elements[i])]) }
                blocks.split()
                c += 1
                while b < blocks.setCount {
                    for i in Int(blocks.first[b])..<Int(blocks.past[b]) {
                        let q = Int(blocks.elements[i])
                        for j in Int(adjacencyStart[q])..<Int(adjacencyStart[q + 1]) { cords.mark(adjacency[j]) }
                    }
                    cords.split()
                    b += 1
                }
            }
        }
        }
        }
        // 4. Quotient automaton, breadth-first from the root's block.
        var result = DFA(classCount: dfa.classCount, classOfSymbol: dfa.classOfSymbol)
        var newIndex = [Int32](repeating: -1, count: blocks.setCount)
        var order: [Int32] = []
        let rootBlock = Int(blocks.setOf[0])
        newIndex[rootBlock] = 0
        order.append(Int32(rootBlock))
        var next = 0
        while next < order.count {
            let block = Int(order[next])
            next += 1
            let representative = Int(states[Int(blocks.elements[Int(blocks.first[block])])])
            result.actions.append(dfa.actions[representative])
            for t in Int(dfa.transitionStart[representative])..<Int(dfa.transitionStart[representative + 1]) {
                let h = Int(dfa.transitionTarget[t])
                guard useful[h] else { continue }
                let targetBlock = Int(blocks.setOf[Int(index[h])])
                if newIndex[targetBlock] < 0 {
                    newIndex[targetBlock] = Int32(order.count)
                    order.append(Int32(targetBlock))
                }
                let target = newIndex[targetBlock]
                let lo = dfa.transitionLow[t], hi = dfa.transitionHigh[t]
                if result.transitionLow.count > Int(result.transitionStart.last!),
                   result.transitionTarget.last == target, Int(result.transitionHigh.last!) + 1 == Int(lo) {
                    result.transitionHigh[result.transitionHigh.count - 1] = hi
                } else {
                    result.transitionLow.append(lo)
                    result.transitionHigh.append(hi)
                    result.transitionTarget.append(target)
                }
            }
            result.transitionStart.append(Int32(result.transitionLow.count))
        }
        return result
    }
}
