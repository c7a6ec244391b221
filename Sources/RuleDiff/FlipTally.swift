// Counting flips into a FlipSummary in one pass. A diff's report waits for the summary before it writes its
// flips, on one core, so each flip costs here what a few integer lookups cost: its URL and page are numbered
// once (by their bytes), its tracker and entity once per name, and "distinct URLs of this group" is a set of
// (group, URL number) pairs instead of a set of strings per group.

import TrackerData

#if canImport(Glibc)
    import Glibc
#endif

extension FlipSummary {
    struct Tally {
        let attribution: FlipAttribution
        private var urls = ExactNumbers(), pages = ExactNumbers()
        private var trackerIndex: [String: Int32] = [:], entityIndex: [String: Int32] = [:]
        private var trackers: [Group] = [], entities: [Group] = []
        /// Per tracker, the index of its entity in `entities`.
        private var entityOfTracker: [Int32] = []
        private var pickers: [ExamplePicker] = []
        /// The (group, URL or page number) pairs counted in a group's reach already.
        private var trackerURLs = Set<UInt64>(), trackerPages = Set<UInt64>()
        private var entityURLs = Set<UInt64>(), entityPages = Set<UInt64>()
        private var all = FlipCounts()
        /// The tracker of the flip before: flips of one tracker come in runs.
        private var lastTracker: (name: String, index: Int32)? = nil

        init(attribution: FlipAttribution) { self.attribution = attribution }

        mutating func add(_ c: DecisionChange) {
            let kind = FlipKind(c)
            let t = trackerNumber(attribution.tracker(of: c))
            let e = entityOfTracker[Int(t)]
            let url = urls.number(c.request.url), page = pages.number(c.request.topURL)
            trackers[Int(t)].counts.add(kind)
            entities[Int(e)].counts.add(kind)
            pickers[Int(t)].offer(c, kind: kind, url: url)
            if trackerURLs.insert(Self.pair(t, url)).inserted { trackers[Int(t)].reach.urls += 1 }
            if trackerPages.insert(Self.pair(t, page)).inserted { trackers[Int(t)].reach.pages += 1 }
            if entityURLs.insert(Self.pair(e, url)).inserted { entities[Int(e)].reach.urls += 1 }
            if entityPages.insert(Self.pair(e, page)).inserted { entities[Int(e)].reach.pages += 1 }
            all.add(kind)
        }

        static func pair(_ group: Int32, _ number: Int32) -> UInt64 {
            UInt64(UInt32(bitPattern: group)) << 32 | UInt64(UInt32(bitPattern: number))
        }

        /// The tracker's index, its group (and its entity's) made the first time it is named.
        private mutating func trackerNumber(_ name: String) -> Int32 {
            if let l = lastTracker, l.name == name { return l.index }
            let index: Int32
            if let known = trackerIndex[name] {
                index = known
            } else {
                index = Int32(trackers.count)
                trackerIndex[name] = index
                let entity = attribution.entity(ofTracker: name)
                trackers.append(Group(name: name, entity: entity))
                pickers.append(ExamplePicker())
                if let e = entityIndex[entity] {
                    entityOfTracker.append(e)
                } else {
                    entityIndex[entity] = Int32(entities.count)
                    entityOfTracker.append(Int32(entities.count))
                    entities.append(Group(name: entity))
                }
            }
            lastTracker = (name, index)
            return index
        }

        var summary: FlipSummary {
            var s = FlipSummary()
            s.all = all
            s.reach = FlipReach(urls: urls.count, pages: pages.count)
            var trackers = trackers
            for i in trackers.indices { trackers[i].examples = pickers[i].examples }
            func ranked(_ groups: [Group]) -> [Group] {
                groups.sorted {
                    $0.counts.total != $1.counts.total ? $0.counts.total > $1.counts.total : byteOrder($0.name, $1.name)
                }
            }
            s.entities = ranked(entities)
            s.trackers = ranked(trackers)
            return s
        }
    }
}

/// Strings numbered in the order first seen, told apart by their bytes (`ExactString`). Every flip asks for two
/// (its URL and its page): the bytes are kept back to back and found by their hash (`Hasher`, seeded per process,
/// so that no corpus can choose collisions), where a Dictionary of `ExactString` kept a String per number and
/// hashed it again at every growth.
struct ExactNumbers {
    /// The strings' bytes, back to back; number n ends at `ends[n]`.
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [Int] = []
    /// Open addressing, linear probing, at most half full: per slot a number + 1, or 0.
    private var slots = [Int32](repeating: 0, count: 64)
    /// The number asked for last: a corpus asks for one URL, or from one page, several times in a row.
    private var last: Int32 = -1

    var count: Int { ends.count }

    mutating func number(_ s: String) -> Int32 {
        var s = s
        return s.withUTF8 { number(of: $0) }
    }

    private mutating func number(of key: UnsafeBufferPointer<UInt8>) -> Int32 {
        if last >= 0, holds(Int(last), key) { return last }
        var h = Hasher()
        h.combine(bytes: UnsafeRawBufferPointer(key))
        let hash = h.finalize()
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let n = Int(slots[slot]) - 1
            if hashes[n] == hash, holds(n, key) {
                last = Int32(n)
                return last
            }
            slot = (slot + 1) & mask
        }
        let n = ends.count
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
        hashes.append(hash)
        slots[slot] = Int32(n + 1)
        if 2 * ends.count > slots.count { grow() }
        last = Int32(n)
        return last
    }

    /// Whether number `n`'s bytes are `key`.
    private func holds(_ n: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = n == 0 ? 0 : ends[n - 1]
        guard ends[n] - start == key.count else { return false }
        return bytes.withUnsafeBufferPointer { b in
            key.isEmpty || memcmp(b.baseAddress! + start, key.baseAddress!, key.count) == 0
        }
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: 2 * slots.count)
        let mask = slots.count - 1
        for (n, hash) in hashes.enumerated() {
            var slot = hash & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(n + 1)
        }
    }
}
