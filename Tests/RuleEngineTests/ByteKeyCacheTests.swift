import XCTest

@testable import RuleEngine

final class ByteKeyCacheTests: XCTestCase {
    func get(_ c: ByteKeyCache<Int>, _ key: String) -> Int? { Array(key.utf8).withUnsafeBufferPointer { c.get($0) } }
    func put(_ c: inout ByteKeyCache<Int>, _ key: String, _ v: Int) {
        Array(key.utf8).withUnsafeBufferPointer { c.put($0, v) }
    }

    func testStoredKeysAnswerAndOthersMiss() {
        var c = ByteKeyCache<Int>(slots: 1 << 10)
        XCTAssertNil(get(c, "https://a.example"), "nothing is stored before the first put")
        put(&c, "https://a.example", 1)
        put(&c, "", 2)
        XCTAssertEqual(get(c, "https://a.example"), 1)
        XCTAssertEqual(get(c, ""), 2, "the empty key is a key")
        XCTAssertNil(get(c, "https://a.exampl"), "a prefix of a key is another key")
        XCTAssertNil(get(c, "https://a.examplf"))
        put(&c, "https://a.example", 3)
        XCTAssertEqual(get(c, "https://a.example"), 3, "a put replaces the value")
        XCTAssertEqual(Array("https://a.example".utf8).withUnsafeBufferPointer { c.flag($0) }, false)
        Array("https://b.example".utf8).withUnsafeBufferPointer { c.put($0, 4, flag: true) }
        XCTAssertEqual(
            Array("https://b.example".utf8).withUnsafeBufferPointer { c.flag($0) }, true,
            "the flag is kept with the entry")
        XCTAssertNil(Array("https://c.example".utf8).withUnsafeBufferPointer { c.flag($0) })
    }

    func testTheSmallestCacheIsOneSet() {
        var c = ByteKeyCache<Int>(slots: 1)
        let keys = (0...ByteKeyCache<Int>.ways).map { "k\($0)" }
        for (i, k) in keys.enumerated() { put(&c, k, i) }
        XCTAssertNil(get(c, keys[0]), "one set: the oldest of nine keys is evicted")
        for (i, k) in keys.enumerated().dropFirst() { XCTAssertEqual(get(c, k), i) }
    }

    /// A cache is a value: a copy that is written to leaves the original as it was (the storage is shared
    /// until then), and values are released with the last copy.
    func testCopiesAreIndependent() {
        final class Token {}
        weak var released: Token?
        var a = ByteKeyCache<Token>(slots: 16)
        do {
            let t = Token()
            released = t
            Array("x".utf8).withUnsafeBufferPointer { a.put($0, t) }
        }
        var b = a
        Array("y".utf8).withUnsafeBufferPointer { b.put($0, Token()) }
        XCTAssertNil(Array("y".utf8).withUnsafeBufferPointer { a.get($0) })
        XCTAssertNotNil(Array("y".utf8).withUnsafeBufferPointer { b.get($0) })
        XCTAssertTrue(
            Array("x".utf8).withUnsafeBufferPointer { a.get($0) }
                === Array("x".utf8).withUnsafeBufferPointer { b.get($0) })
        a = ByteKeyCache<Token>(slots: 16)
        XCTAssertNotNil(released, "the copy still holds the value")
        b = ByteKeyCache<Token>(slots: 16)
        XCTAssertNil(released, "the last copy released it")
    }

    func testKeysTooLongAreNeverCached() {
        var c = ByteKeyCache<Int>(slots: 16)
        let long = String(repeating: "a", count: ByteKeyCache<Int>.keyWidth)
        put(&c, long, 1)
        XCTAssertNil(get(c, long))
        let longest = String(long.dropLast())
        put(&c, longest, 2)
        XCTAssertEqual(get(c, longest), 2)
    }

    /// Memory stays fixed: with more keys than slots, every answer is still right or a miss, the most recent
    /// keys are kept, and two keys that share a slot are both kept.
    func testMoreKeysThanSlotsEvictButNeverMisanswer() {
        var c = ByteKeyCache<Int>(slots: 64)
        for i in 0..<5000 { put(&c, "https://host\(i).example", i) }
        var hits = 0
        for i in 0..<5000 {
            if let v = get(c, "https://host\(i).example") {
                XCTAssertEqual(v, i)
                hits += 1
            }
        }
        XCTAssertLessThanOrEqual(hits, 64)
        XCTAssertEqual(get(c, "https://host4999.example"), 4999, "the last key put is kept")
        // The keys of one set: all eight are kept, whatever their tags; a ninth evicts the oldest, and a put
        // of a key already there replaces its value without evicting another.
        var d = ByteKeyCache<Int>(slots: 64)
        let set = { (k: String) in Array(k.utf8).withUnsafeBufferPointer { d.set(of: $0) } }
        let same = (0..<50_000).map { "k\($0)" }.filter { set($0) == set("k0") }.prefix(ByteKeyCache<Int>.ways + 1)
        XCTAssertEqual(same.count, ByteKeyCache<Int>.ways + 1)
        for (i, k) in same.dropLast().enumerated() { put(&d, k, i) }
        put(&d, same.first!, 100)
        for (i, k) in same.dropLast().enumerated() { XCTAssertEqual(get(d, k), i == 0 ? 100 : i) }
        put(&d, same.last!, 8)
        XCTAssertNil(get(d, same.first!), "the oldest key of the set is the one evicted")
        for (i, k) in same.enumerated().dropFirst() { XCTAssertEqual(get(d, k), i) }
    }
}
