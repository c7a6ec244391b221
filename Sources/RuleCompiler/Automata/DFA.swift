// DFA: the automaton the subset construction (NFAToDFA) and LiteralDFA build and DFAMinimizer minimizes,
// with the set of interval boundaries both use to cut a state's class ranges.

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
        if target == previousTarget, let last = transitionHigh.last, Int(last) + 1 == lo,
            transitionLow.count > Int(rowStart)
        {
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
            for t in Int(transitionStart[s])..<Int(transitionStart[s + 1])
            where transitionLow[t] <= c && c <= transitionHigh[t] {
                next = Int(transitionTarget[t])
                break
            }
            if next < 0 { return }
            s = next
            i += 1
        }
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
