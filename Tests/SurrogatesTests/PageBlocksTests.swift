// PageBlocks.deflate against the page's own inflate (PageScript.js, run by node): exact round trips of runs,
// overlapping copies, the longest and farthest copies, and text that is not ASCII.

import XCTest
@testable import Surrogates
import StrictJSON
import TestSupport
import TrackerData

final class PageBlocksTests: XCTestCase {
    static func texts() -> [String] {
        var rng = SplitMix64(seed: 32)
        let words = ["ads", "track", "\\.com", "`/", "pixel", "é", "😀", "%25", "|", ";", "=", "~", "a", "-"]
        var random = ""
        for _ in 0..<20_000 { random += words[Int(rng.next() % UInt64(words.count))] }
        let far = String(repeating: "x", count: 3) + "abcdefghij" + String(repeating: "-", count: 4_085) + "abcdefghij"
        return [
            "", "a", "abcd", "abcde", "abcdeabcde", String(repeating: "a", count: 200),
            "ab" + String(repeating: "ab", count: 100),
            String(repeating: "0123456789", count: 30), far, "é😀é😀é😀é😀é😀é😀é😀é😀",
            "aé😀aé😀aé😀aé😀 aaaaaaaaaa😀aaaaaaaaaa",
            random,
        ]
    }

    func testDeflateCompressesAndInflatesExactly() throws {
        let node = try Support.node()
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bundle = try SurrogateBundleBuilder.build(
            tds: TrackerDataSet(trackers: [:], entities: [:], domains: [:], cnames: [:]),
            scripts: [])
        try Support.write(bundle.script, dir + "/page.js")
        let texts = Self.texts()
        let deflated = texts.map(PageBlocks.deflate)
        XCTAssertLessThan(deflated[5].utf16.count, 20, "a run is a few copies")
        XCTAssertLessThan(deflated.last!.utf16.count, texts.last!.utf16.count * 3 / 4)
        XCTAssertTrue(deflated[8].hasSuffix("#__5"), "10 units copied from 4,095 back: \(deflated[8].suffix(8))")
        try Support.write(JSONWriter.string(.array(deflated.map { .string($0) })), dir + "/in.json")
        let script =
            "const b = require(process.argv[1]); const fs = require('fs');"
            + "fs.writeFileSync(process.argv[3], JSON.stringify(JSON.parse(fs.readFileSync(process.argv[2], "
            + "'utf8')).map(b.inflate)));"
        let (status, out, err) = try Support.run(
            node, ["-e", script, dir + "/page.js", dir + "/in.json", dir + "/out.json"])
        XCTAssertEqual(status, 0, out + err)
        let inflated = try JSONParser.parse([UInt8](FileManager.default.contents(atPath: dir + "/out.json")!))
            .arrayValue!.map { $0.stringValue! }
        XCTAssertEqual(inflated.count, texts.count)
        for (a, b) in zip(inflated, texts) {
            XCTAssertTrue(Array(a.utf16) == Array(b.utf16), "\(a.prefix(40)) != \(b.prefix(40))")
        }
    }

    func testBlocksEndAtLines() {
        let lines = (0..<3_000).map { "host\($0).example;b;0|" }
        let blocks = PageBlocks.cut(lines)
        XCTAssertGreaterThan(blocks.count, 5)
        XCTAssertEqual(blocks.map(\.count).reduce(0, +), lines.count)
        XCTAssertEqual(blocks.first?.lowerBound, 0)
        XCTAssertEqual(blocks.last?.upperBound, lines.count)
    }
}
