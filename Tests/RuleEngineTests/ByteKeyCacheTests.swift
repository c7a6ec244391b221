import XCTest

@testable import RuleEngine

final class ByteKeyCacheTests: XCTestCase {
    func get(_ c: ByteKeyCache<Int>, _ key: String) -> Int? { Array(key.utf8).withUnsafeBufferPointer { c.get($0) } }
    func put(_ c: inout ByteKeyCache<Int>, _ key: String, _ v: Int) { Array(key.utf8).withUnsafeBufferPointer { c.put($0, v) } }

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
        XCTAssertEqual(Array("https://b.example".utf8).withUnsafeBufferPointer { c.flag($0) }, true, "the flag is kept with the entry")
        XCTAssertNil(Array("https://c.example".utf8).withUnsafeBufferPointer { c.flag($0) })
    }

    func testTheSmallestCacheIsOneSetOfTwo() {
        var c = ByteKeyCache<Int>(slots: 1)
        for (i, k) in ["a", "b", "c"].enumerated() { put(&c, k, i) }
        XCTAssertEqual([get(c, "a"), get(c, "b"), get(c, "c")].compactMap { $0 }.count, 2, "two ways, the oldest key evicted")
        XCTAssertEqual(get(c, "c"), 2)
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
        // Two keys of one slot: the first put moves to the slot's other way.
        let keys = (0..<5000).map { "k\($0)" }
        let slot = { (k: String) in Array(k.utf8).withUnsafeBufferPointer { Int(truncatingIfNeeded: ByteKeyCache<Int>.hash($0) >> 20) & 63 } }
        let first = keys[0], second = keys.dropFirst().first { slot($0) == slot(first) }!
        var d = ByteKeyCache<Int>(slots: 64)
        put(&d, first, 1)
        put(&d, second, 2)
        XCTAssertEqual(get(d, first), 1)
        XCTAssertEqual(get(d, second), 2)
    }
}
