// ActionListTable: the action lists of a matcher's DFA states, interned and merged.

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
