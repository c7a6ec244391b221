// A bounded cache from short byte strings (a URL's scheme and host) to values. Two-way set associative:
// a key lives in one of the two slots its hash names, and a new key evicts the older of them. Memory is
// fixed however many distinct keys a corpus names, and a hostile stream of them costs one miss each. Keys
// are stored inline in fixed-width slots, so a lookup allocates nothing; a longer key is never cached.

#if canImport(Glibc)
import Glibc
#endif

struct ByteKeyCache<Value> {
    /// Keys are shorter than this (the length and flag share a byte).
    static var keyWidth: Int { 56 }
    private let slotCount: Int
    /// Per slot: key length + 1 (0: empty) in the low 7 bits, the entry's flag in bit 7.
    private var meta: [UInt8] = []
    private var keys: [UInt8] = []
    private var values: [Value?] = []

    /// `slots` is rounded up to a power of two, at least 2 (a set is two slots); storage is allocated on the
    /// first `put`.
    init(slots: Int) {
        var n = 2
        while n < slots { n <<= 1 }
        slotCount = n
    }

    func get(_ key: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let slot = find(key) else { return nil }
        return values[slot]
    }

    /// The flag stored with the key's value, read without touching (or copying) the value.
    func flag(_ key: UnsafeBufferPointer<UInt8>) -> Bool? {
        find(key).map { meta[$0] & 0x80 != 0 }
    }

    private func find(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !meta.isEmpty, key.count < Self.keyWidth else { return nil }
        let first = slot(key)
        if holds(first, key) { return first }
        if holds(first ^ 1, key) { return first ^ 1 }
        return nil
    }

    /// Stores `value` in the key's first slot; what that slot held moves to the second (the older entry of
    /// the two is the one evicted).
    mutating func put(_ key: UnsafeBufferPointer<UInt8>, _ value: Value, flag: Bool = false) {
        guard key.count < Self.keyWidth else { return }
        if meta.isEmpty {
            meta = [UInt8](repeating: 0, count: slotCount)
            keys = [UInt8](repeating: 0, count: slotCount * Self.keyWidth)
            values = [Value?](repeating: nil, count: slotCount)
        }
        let first = slot(key)
        if meta[first] != 0 && !holds(first, key) {
            meta[first ^ 1] = meta[first]
            keys.withUnsafeMutableBufferPointer { k in
                (k.baseAddress! + (first ^ 1) * Self.keyWidth).update(from: k.baseAddress! + first * Self.keyWidth, count: Self.keyWidth)
            }
            values[first ^ 1] = values[first]
        }
        meta[first] = UInt8(key.count + 1) | (flag ? 0x80 : 0)
        keys.withUnsafeMutableBufferPointer { k in
            if let from = key.baseAddress { (k.baseAddress! + first * Self.keyWidth).update(from: from, count: key.count) }
        }
        values[first] = value
    }

    private func holds(_ slot: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Int(meta[slot] & 0x7F) == key.count + 1 else { return false }
        return key.isEmpty || keys.withUnsafeBufferPointer { k in memcmp(k.baseAddress! + slot * Self.keyWidth, key.baseAddress!, key.count) == 0 }
    }

    private func slot(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        Int(truncatingIfNeeded: Self.hash(key) >> 20) & (slotCount - 1)
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
}
