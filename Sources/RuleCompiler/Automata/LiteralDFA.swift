// LiteralDFA: the DFA of one unanchored literal (`.*` then single-class letters) in linear time and space,
// Knuth-Morris-Pratt style, instead of subset construction.
//
// Subset construction is quadratic on self-overlapping literals: after k letters of `aaaa...` the state is
// the set of all k positions that still match, so 100,000 × `a` means 5·10^9 set members. But for `.*`
// followed by letters that are each exactly one class of the batch alphabet (and that `.*` covers), the
// set after any input is {the `.*` loop} plus the positions on the failure chain of the longest matching
// position: it is determined by that position. So state k = "k letters matched", discovered in order
// 0, 1, ..., n (every transition goes to k + 1 or back), its transition row is the row of its failure
// position with letter k replaced, and its elementary intervals are cut at the boundaries of the letters
// on its failure chain. The result is the DFA subset construction builds, state for state and range for
// range (MatcherPropertyTests checks this on random literals), so the output bytes do not change.

import ContentRules

enum LiteralDFA {
    /// The DFA of the batch's only pattern when it is an unanchored literal, nil otherwise (or when it
    /// would have more than `stateLimit` states or its transition table would not fit `byteLimit`), with
    /// the number of NFA nodes summed over its states that subset construction would have stored.
    static func build(tree: PrefixTree, terms: TermTable, vertex: Int32, nfa: NFA, stateLimit: Int, byteLimit: Int)
        -> (dfa: DFA, members: Int)?
    {
        let alphabet = nfa.alphabet
        guard let literal = literal(tree: tree, terms: terms, vertex: vertex, alphabet: alphabet) else { return nil }
        let n = literal.letters.count
        guard n + 1 <= stateLimit else { return nil }
        let (tableBytes, overflow) = (n + 1).multipliedReportingOverflow(by: 4 * alphabet.classCount)
        guard !overflow, tableBytes <= byteLimit else { return nil }
        let rows = Rows(letters: literal.letters, loopRanges: literal.loopRanges, classCount: alphabet.classCount)
        var dfa = DFA(classCount: alphabet.classCount, classOfSymbol: alphabet.classOfSymbol)
        rows.appendStates(to: &dfa, finalAction: tree.action[Int(vertex)])
        return (dfa, rows.members)
    }

    /// The class ranges of the leading `.*` and the class of each letter after it, when the pattern ending
    /// at `vertex` is `.*` then letters that are each exactly one class that the `.*` covers.
    private static func literal(tree: PrefixTree, terms: TermTable, vertex: Int32, alphabet: ClassAlphabet)
        -> (loopRanges: [(UInt8, UInt8)], letters: [Int])?
    {
        var path: [Int32] = []
        var v = vertex
        while v > 0 {
            path.append(tree.edgeTerm[Int(v)])
            v = tree.parent[Int(v)]
        }
        path.reverse()
        guard path.count >= 2, case .characterSet(let anySet, .zeroOrMore) = terms.terms[Int(path[0])] else {
            return nil
        }
        let loopRanges = alphabet.setRanges[Int(alphabet.setId(anySet))]
        var loopCovers = [Bool](repeating: false, count: alphabet.classCount)
        for (lo, hi) in loopRanges {
            for c in Int(lo)...Int(hi) { loopCovers[c] = true }
        }
        var letters: [Int] = []
        letters.reserveCapacity(path.count - 1)
        for t in path.dropFirst() {
            guard case .characterSet(let set, .one) = terms.terms[Int(t)] else { return nil }
            let ranges = alphabet.setRanges[Int(alphabet.setId(set))]
            guard ranges.count == 1, ranges[0].0 == ranges[0].1, loopCovers[Int(ranges[0].0)] else { return nil }
            letters.append(Int(ranges[0].0))
        }
        return (loopRanges, letters)
    }

    /// The transition rows of states 0...n (n letters), built along the failure chain.
    private struct Rows {
        let classCount: Int
        /// Row k = target state per class (-1: no transition).
        var row: [Int32]
        /// Per state, the boundaries of its elementary intervals.
        var boundaries: [(UInt64, UInt64, UInt64, UInt64)]
        /// NFA nodes summed over the states, as subset construction would store them.
        var members = 0

        init(letters: [Int], loopRanges: [(UInt8, UInt8)], classCount: Int) {
            let n = letters.count
            self.classCount = classCount
            row = [Int32](repeating: -1, count: (n + 1) * classCount)
            boundaries = [(UInt64, UInt64, UInt64, UInt64)](repeating: (0, 0, 0, 0), count: n + 1)
            for (lo, hi) in loopRanges {
                DFABoundarySet.insert(Int(lo), &boundaries[0])
                DFABoundarySet.insert(Int(hi) + 1, &boundaries[0])
                for c in Int(lo)...Int(hi) { row[c] = 0 }
            }
            var failure = 0
            // Positions on the failure chain of k (k and 0 included): the state's chain members.
            var depth = [Int32](repeating: 1, count: n + 1)
            for k in 0...n {
                if k > 0 {
                    depth[k] = depth[failure] + 1
                    // Row k starts as the row of its failure position.
                    let from = failure * classCount, to = k * classCount
                    for c in 0..<classCount { row[to + c] = row[from + c] }
                    boundaries[k] = boundaries[failure]
                }
                members += 1 + Int(depth[k]) // and the `.*` loop
                if k < n {
                    let letter = letters[k]
                    DFABoundarySet.insert(letter, &boundaries[k])
                    DFABoundarySet.insert(letter + 1, &boundaries[k])
                    // The failure position of k + 1: where the failure position of k goes on this letter.
                    if k > 0 { failure = Int(row[failure * classCount + letter]) }
                    row[k * classCount + letter] = Int32(k + 1)
                }
            }
        }

        /// States 0...n, one transition per elementary interval that has a target; the last one reports
        /// `finalAction`.
        func appendStates(to dfa: inout DFA, finalAction: Int32) {
            let n = boundaries.count - 1
            for k in 0...n {
                dfa.actions.append(k == n ? finalAction : -1)
                var lastTarget: Int32 = -1
                var lo = DFABoundarySet.next(after: -1, boundaries[k])
                while lo >= 0 {
                    let following = DFABoundarySet.next(after: lo, boundaries[k])
                    if following < 0 { break }
                    let hi = following - 1
                    defer { lo = following }
                    let target = row[k * classCount + lo]
                    if target < 0 { lastTarget = -1; continue }
                    dfa.appendTransition(
                        lo: lo, hi: hi, target: target, previousTarget: lastTarget, rowStart: dfa.transitionStart[k])
                    lastTarget = target
                }
                dfa.transitionStart.append(Int32(dfa.transitionLow.count))
            }
        }
    }
}
