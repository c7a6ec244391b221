// Two orders that WebKit takes from hash tables are observable in its answers:
//  * css-display-none groups flushed at the same point are written in the iteration order of a
//    HashMap<Trigger> (so two merged selectors that match one request are reported in that order);
//  * the selectors of the global display:none stylesheet are joined in the iteration order of
//    HashSet<uint64_t> (the universal actions, copied twice through such sets).
// WTF's tables are deterministic (no random seed), so we reproduce them: the same hash functions
// (SuperFastHash-based Hasher, Thomas Wang's 64-bit intHash), the same open addressing with
// triangular probing, the same growth policy (minimum 8 slots; grow x2 at 3/4 load up to 1024
// slots, at 1/2 load above). Iteration walks the slots in index order.

enum WebKitHashOrder {
    /// WTF::intHash(uint64_t).
    static func intHash(_ k: UInt64) -> UInt32 {
        var key = k
        key &+= ~(key << 32)
        key ^= (key >> 22)
        key &+= ~(key << 13)
        key ^= (key >> 8)
        key &+= (key << 3)
        key ^= (key >> 15)
        key &+= ~(key << 27)
        key ^= (key >> 31)
        return UInt32(truncatingIfNeeded: key)
    }

    /// WTF::Hasher (SuperFastHash underneath) fed the way `add(Hasher&, ...)` feeds it.
    struct Hasher {
        private var hash: UInt32 = 0x9E37_79B9

        private mutating func addTwo(_ a: UInt32, _ b: UInt32) {
            var r = hash
            r &+= a
            r = (r << 16) ^ ((b << 11) ^ r)
            r &+= r >> 11
            hash = r
        }

        /// add(Hasher&, unsigned integer ≤ 32 bits): the low and high 16-bit halves as two characters.
        mutating func add(_ v: UInt32) { addTwo(v & 0xFFFF, v >> 16) }

        mutating func add(_ b: Bool) { add(UInt32(b ? 1 : 0)) }

        /// add(Hasher&, const String&): characters two at a time as (c[i] << 16 | c[i+1]), then a lone last one.
        mutating func add(_ s: String) {
            let units = Array(s.utf16)
            var i = 0
            while i + 1 < units.count {
                add(UInt32(units[i]) << 16 | UInt32(units[i + 1]))
                i += 2
            }
            if i < units.count { add(UInt32(units[i])) }
        }

        func finalize() -> UInt32 {
            var r = hash
            r ^= r << 3
            r &+= r >> 5
            r ^= r << 2
            r &+= r >> 15
            r ^= r << 10
            return r == 0 ? 0x80_0000 : r
        }
    }

    /// TriggerHash: computeHash(urlFilterIsCaseSensitive, urlFilter, flags, conditions).
    static func triggerHash(_ t: TriggerKey) -> UInt32 {
        var h = Hasher()
        h.add(t.urlFilterIsCaseSensitive)
        h.add(t.urlFilter)
        h.add(t.flags)
        for c in t.conditions { h.add(c) }
        return h.finalize()
    }

    /// Iteration order of a WTF hash table after inserting distinct keys with these hashes, in order
    /// (no removals). Returns indices into `hashes`.
    static func iterationOrder(hashes: [UInt32]) -> [Int] {
        var table: [Int] = [] // slot -> key index, -1 empty
        var count = 0

        func place(_ key: Int, in table: inout [Int]) {
            let mask = UInt32(table.count - 1)
            var i = hashes[key] & mask
            var probe: UInt32 = 0
            while table[Int(i)] >= 0 {
                probe &+= 1
                i = (i &+ probe) & mask
            }
            table[Int(i)] = key
        }
        func shouldExpand(_ keys: Int, _ size: Int) -> Bool {
            size <= 1024 ? keys * 4 >= size * 3 : keys * 2 >= size
        }

        for key in hashes.indices {
            if table.isEmpty { table = [Int](repeating: -1, count: 8) }
            place(key, in: &table)
            count += 1
            if shouldExpand(count, table.count) {
                let old = table
                table = [Int](repeating: -1, count: old.count * 2)
                for k in old where k >= 0 { place(k, in: &table) }
            }
        }
        return table.filter { $0 >= 0 }
    }

    /// HashMap<Trigger, ...> iteration order for groups inserted in this order.
    static func triggerMapOrder(_ keys: [TriggerKey]) -> [Int] {
        iterationOrder(hashes: keys.map(triggerHash))
    }

    /// HashSet<uint64_t> iteration order of `values` inserted in order (duplicates ignored like `add`).
    static func uint64SetOrder(_ values: [UInt64]) -> [UInt64] {
        var seen = Set<UInt64>()
        let distinct = values.filter { seen.insert($0).inserted }
        return iterationOrder(hashes: distinct.map(intHash)).map { distinct[$0] }
    }

    /// The order of ContentExtension::m_universalActions: the url family's universal ids go through the
    /// compiler's UniversalActionSet (all of them, with and without flags), become the first DFA root's
    /// actions in that order, and the flag-free ones are read back into the interpreter's HashSet.
    static func universalActionOrder(universalIDs: [UInt64]) -> [UInt64] {
        let rootOrder = uint64SetOrder(universalIDs)
        return uint64SetOrder(rootOrder.filter { $0 >> 32 == 0 })
    }
}
