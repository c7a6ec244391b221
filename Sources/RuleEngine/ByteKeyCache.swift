// A bounded cache from short byte strings (a URL's scheme and host) to values. Eight-way set associative:
// a key lives in one of the eight slots of the set its hash names, and a new key replaces the set's oldest.
// Memory is fixed however many distinct keys a corpus names, and a hostile stream of them costs one miss
// each. Keys and values are stored inline in fixed-width slots, so a lookup allocates nothing and reads one
// line; a longer key is never cached.
//
// Why eight ways: with two, a set that three keys of a corpus hash to keeps evicting one of them. On the
// 1M-request bench (two cores, each with its own caches; counted on a model of the cache) that walked the url
// automata 122,000 times for 16,194 hosts and the top-URL automaton 242,000 times for 75,000 sites. With eight
// ways: 39,000 and 160,000, against 32,400 and 150,000 if nothing were ever evicted. A one-byte tag per slot,
// eight to a word, finds the candidate slots of a set with one load, so more ways cost no more key compares.

import CSystem

struct ByteKeyCache<Value> {
    /// Keys are shorter than this. A slot is one 64-byte line: the key's length and flag, the key, and from
    /// `valueOffset` the value (at most a word: an Int, or one reference).
    static var keyWidth: Int { valueOffset }
    static var ways: Int { 8 }
    static var slotBytes: Int { 64 }
    static var valueOffset: Int { 56 }
    private let setCount: Int
    private var storage: Storage? = nil

    /// `slots` is rounded up to a power of two, at least one set; storage is allocated on the first `put`.
    init(slots: Int) {
        precondition(
            MemoryLayout<Value>.size <= Self.slotBytes - Self.valueOffset && MemoryLayout<Value>.alignment <= 8,
            "a cached value is at most a word")
        var n = Self.ways
        while n < slots { n <<= 1 }
        setCount = n / Self.ways
    }

    func get(_ key: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let storage, let slot = find(key, in: storage) else { return nil }
        return storage.value(slot).pointee
    }

    /// The flag stored with the key's value, read without copying the value (which may retain an object that
    /// is in no cache line yet).
    func flag(_ key: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let storage, let slot = find(key, in: storage) else { return nil }
        return storage.line(slot).load(as: UInt8.self) & 0x80 != 0
    }

    /// As `flag(_:)`; when the flag is not set, also starts loading the object the value refers to, for a value
    /// that is one reference (a class instance, or a struct of one array): its first 64 bytes, the header and
    /// the first elements. The value is not copied, since a copy writes the object's reference count and so
    /// waits for it. (For any other value this loads a line that is never read: a hint, never a fault.)
    func flagPrefetchingObject(_ key: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let storage, let slot = find(key, in: storage) else { return nil }
        let line = storage.line(slot)
        if line.load(as: UInt8.self) & 0x80 != 0 { return true }
        if let object = UnsafeRawPointer(bitPattern: (line + Self.valueOffset).load(as: UInt.self)) {
            rb_prefetch(object)
            rb_prefetch(object + 32)
        }
        return false
    }

    /// The key's flag, and its value only when the flag is not set.
    func valueUnlessFlagged(_ key: UnsafeBufferPointer<UInt8>) -> (flagged: Bool, value: Value?)? {
        guard let storage, let slot = find(key, in: storage) else { return nil }
        if storage.line(slot).load(as: UInt8.self) & 0x80 != 0 { return (true, nil) }
        return (false, storage.value(slot).pointee)
    }

    /// Starts loading the slot that holds `key`, if any, so that a lookup soon after does not wait for memory:
    /// slots are spread over megabytes, and a lookup's one cache miss is most of its cost.
    /// A key in no slot of its set loads the slot a `put` of it would take (see `prefetchSlotForNewKey`).
    func prefetch(_ key: UnsafeBufferPointer<UInt8>) {
        guard let storage, key.count < Self.keyWidth else { return }
        let h = Self.hash(key)
        var any = false
        forEachCandidate(h, in: storage) {
            rb_prefetch(storage.line($0)); any = true; return false
        }
        if !any {
            let set = set(h)
            rb_prefetch(storage.line(set * Self.ways + Int(storage.next[set])))
        }
    }

    /// For a `put` of `key`, not in the cache, that follows a long computation of its value: starts loading the
    /// slot it will take (its set's oldest) and the object that slot's value refers to, which `put` releases.
    /// Both were in no core's cache, and `put` waited for them (most of its time, and a third of all releases, on
    /// the bench). As in `flagPrefetchingObject`, a value that is no reference makes this a load never read.
    func prefetchSlotForNewKey(_ key: UnsafeBufferPointer<UInt8>) {
        guard let storage, key.count < Self.keyWidth else { return }
        let set = set(Self.hash(key))
        let way = Int(storage.next[set])
        let line = storage.line(set * Self.ways + way)
        rb_prefetch(line)
        guard Self.tagByte(storage.tags[set], way) != 0,
            let object = UnsafeRawPointer(bitPattern: (line + Self.valueOffset).load(as: UInt.self))
        else { return }
        rb_prefetch(object)
    }

    /// Stores `value` for `key`, in place of its old value or of the oldest entry of its set.
    mutating func put(_ key: UnsafeBufferPointer<UInt8>, _ value: Value, flag: Bool = false) {
        guard key.count < Self.keyWidth else { return }
        if storage == nil {
            storage = Storage(sets: setCount)
        } else if !isKnownUniquelyReferenced(&storage!) {
            storage = storage!.copy()
        }
        let s = storage!
        let h = Self.hash(key)
        let set = set(h)
        let slot: Int
        if let existing = find(key, hash: h, in: s) {
            slot = existing
            s.value(slot).pointee = value
        } else {
            let way = Int(s.next[set])
            s.next[set] = UInt8((way + 1) & (Self.ways - 1))
            slot = set * Self.ways + way
            if Self.tagByte(s.tags[set], way) != 0 {
                s.value(slot).pointee = value
            } else {
                (s.line(slot) + Self.valueOffset).initializeMemory(as: Value.self, to: value)
            }
            s.tags[set] = s.tags[set] & ~(0xFF << (UInt64(way) * 8)) | UInt64(Self.tag(h)) << (UInt64(way) * 8)
        }
        let line = s.line(slot)
        line.storeBytes(of: UInt8(key.count + 1) | (flag ? 0x80 : 0), as: UInt8.self)
        if let from = key.baseAddress { (line + 1).copyMemory(from: from, byteCount: key.count) }
    }

    private func find(_ key: UnsafeBufferPointer<UInt8>, in s: Storage) -> Int? {
        guard key.count < Self.keyWidth else { return nil }
        return find(key, hash: Self.hash(key), in: s)
    }

    private func find(_ key: UnsafeBufferPointer<UInt8>, hash h: UInt64, in s: Storage) -> Int? {
        var found: Int? = nil
        forEachCandidate(h, in: s) { slot in
            if Self.holds(s.line(slot), key) { found = slot }
            return found != nil
        }
        return found
    }

    /// The slots of the key's set whose tag is the key's, until `body` says stop.
    @inline(__always)
    private func forEachCandidate(_ h: UInt64, in s: Storage, _ body: (Int) -> Bool) {
        let set = set(h)
        var candidates = Self.waysHolding(Self.tag(h), s.tags[set])
        while candidates != 0 {
            if body(set * Self.ways + candidates.trailingZeroBitCount >> 3) { return }
            candidates &= candidates - 1
        }
    }

    private static func holds(_ line: UnsafeMutableRawPointer, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Int(line.load(as: UInt8.self) & 0x7F) == key.count + 1 else { return false }
        guard let k = key.baseAddress else { return true }
        let stored = UnsafeRawPointer(line + 1), given = UnsafeRawPointer(k)
        var i = 0
        while i + 8 <= key.count {
            if stored.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != given.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < key.count {
            if stored.load(fromByteOffset: i, as: UInt8.self) != k[i] { return false }
            i += 1
        }
        return true
    }

    private func set(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> 20) & (setCount - 1) }

    /// The set a key lives in (tests use it to make keys collide).
    func set(of key: UnsafeBufferPointer<UInt8>) -> Int { set(Self.hash(key)) }

    /// A slot's tag: the hash's top byte, never 0 (the tag of an empty slot). Bits the set index never uses.
    private static func tag(_ hash: UInt64) -> UInt8 { max(UInt8(truncatingIfNeeded: hash >> 56), 1) }

    private static func tagByte(_ tags: UInt64, _ way: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: tags >> (UInt64(way) * 8))
    }

    /// Bit 7 of each byte of the result is set where `tags` holds `tag` (exact: no carries between bytes).
    private static func waysHolding(_ tag: UInt8, _ tags: UInt64) -> UInt64 {
        let x = tags ^ (UInt64(tag) &* 0x0101_0101_0101_0101)
        let low7 = 0x7F7F_7F7F_7F7F_7F7F as UInt64
        return ~(((x & low7) &+ low7) | x) & ~low7
    }

    /// A multiply-xorshift hash over 8-byte words. Not keyed: a collision only evicts an entry.
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        guard let base = key.baseAddress else { return h }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= key.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < key.count {
            tail |= UInt64(base[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 31)
    }

    /// The slots, outside Swift arrays: one 64-byte line each (aligned), read without bounds or exclusivity
    /// checks on every probe. A slot's value is initialized (and its memory bound to Value) exactly when its
    /// tag is not 0.
    private final class Storage {
        let sets: Int
        /// Per set: a tag byte per way (way w in bits 8w...8w+7).
        let tags: UnsafeMutablePointer<UInt64>
        /// Per set: the way the next new key takes (the oldest).
        let next: UnsafeMutablePointer<UInt8>
        let lines: UnsafeMutableRawPointer

        init(sets: Int) {
            self.sets = sets
            let slots = sets * ByteKeyCache.ways
            tags = .allocate(capacity: sets)
            tags.initialize(repeating: 0, count: sets)
            next = .allocate(capacity: sets)
            next.initialize(repeating: 0, count: sets)
            lines = .allocate(byteCount: slots * ByteKeyCache.slotBytes, alignment: ByteKeyCache.slotBytes)
        }

        func line(_ slot: Int) -> UnsafeMutableRawPointer { lines + slot * ByteKeyCache.slotBytes }

        /// The value of a filled slot.
        func value(_ slot: Int) -> UnsafeMutablePointer<Value> {
            (line(slot) + ByteKeyCache.valueOffset).assumingMemoryBound(to: Value.self)
        }

        func copy() -> Storage {
            let c = Storage(sets: sets)
            c.tags.update(from: tags, count: sets)
            c.next.update(from: next, count: sets)
            forEachFilled { slot in
                c.line(slot).copyMemory(from: line(slot), byteCount: ByteKeyCache.valueOffset)
                (c.line(slot) + ByteKeyCache.valueOffset).initializeMemory(as: Value.self, to: value(slot).pointee)
            }
            return c
        }

        private func forEachFilled(_ body: (Int) -> Void) {
            for set in 0..<sets {
                for way in 0..<ByteKeyCache.ways where ByteKeyCache.tagByte(tags[set], way) != 0 {
                    body(set * ByteKeyCache.ways + way)
                }
            }
        }

        deinit {
            forEachFilled { value($0).deinitialize(count: 1) }
            lines.deallocate()
            next.deallocate()
            tags.deallocate()
        }
    }
}
