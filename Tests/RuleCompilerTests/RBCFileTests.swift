// The .rbc container: round trip, byte identity, and refusal of every kind of damage.

import ContentRules
import TestSupport
import XCTest

@testable import RuleCompiler

let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

func goldenRules() throws -> [UInt8] {
    Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent("golden-rules.json")))
}

final class RBCFileTests: XCTestCase {
    func sample(embedSource: Bool = true) throws -> CompiledRuleList {
        try RuleListCompiler.compile(
            json: goldenRules(), options: .init(name: "sample", dataset: "e1", embedSource: embedSource))
    }

    func testRoundTrip() throws {
        for embed in [true, false] {
            let list = try sample(embedSource: embed)
            let bytes = RBCFile.bytes(list)
            XCTAssertEqual(try RBCFile.load(bytes), list)
            XCTAssertEqual(RBCFile.bytes(try RBCFile.load(bytes)), bytes)
        }
    }

    func testIdenticalInputGivesIdenticalBytes() throws {
        XCTAssertEqual(RBCFile.bytes(try sample()), RBCFile.bytes(try sample()))
        let other = try RuleListCompiler.compile(
            json: goldenRules() + [0x0A], options: .init(name: "sample", dataset: "e1", embedSource: true))
        XCTAssertNotEqual(other.identifier, try sample().identifier, "the identifier covers the source bytes")
    }

    func testLayoutIsAligned() throws {
        let bytes = RBCFile.bytes(try sample())
        XCTAssertEqual(Array(bytes.prefix(8)), RBCFile.magic)
        for s in RBCFile.sectionSizes(bytes) { XCTAssertEqual(s.offset % 16, 0, s.tag) }
        XCTAssertEqual(RBCFile.sectionSizes(bytes).map(\.tag), RBCFile.sectionTags)
    }

    private func assertRefused(
        _ bytes: [UInt8], containing text: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try RBCFile.load(bytes, path: "x.rbc"), file: file, line: line) { error in
            let message = String(describing: error)
            XCTAssertTrue(message.hasPrefix("x.rbc: "), message, file: file, line: line)
            XCTAssertTrue(message.contains(text), "\"\(message)\" should mention \"\(text)\"", file: file, line: line)
        }
    }

    func testRefusesWrongMagicVersionSizeAndChecksum() throws {
        let good = RBCFile.bytes(try sample())
        var magic = good
        magic[1] = UInt8(ascii: "X")
        assertRefused(magic, containing: "wrong magic")
        assertRefused(
            Array(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}]"#.utf8)
                + [UInt8](repeating: 0x20, count: 100), containing: "this is JSON")

        var version = good
        version[8] = UInt8(truncatingIfNeeded: RBCFile.formatVersion + 1)
        assertRefused(RBCFile.sealed(version), containing: "format version \(RBCFile.formatVersion + 1)")

        assertRefused(Array(good.dropLast(7)), containing: "truncated")
        assertRefused(good + [0], containing: "truncated or damaged")
        assertRefused(Array(good.prefix(40)), containing: "too short")

        var flipped = good
        flipped[good.count / 2] ^= 0x10
        assertRefused(flipped, containing: "checksum mismatch")
        // Damage that also breaks a part (the section table points outside the file) is refused for the checksum:
        // made beside the parts' checks, its verdict comes first whatever they find.
        var table = good
        table[96 + 8 + 6] = 0x7F
        assertRefused(table, containing: "checksum mismatch")
    }

    func testRefusesConsistentButWrongContent() throws {
        let good = RBCFile.bytes(try sample())
        let sections = RBCFile.sectionSizes(good)
        // A different source under a valid checksum: the source digest no longer matches.
        let source = sections.first { $0.tag == "SRCE" }!
        var tampered = good
        tampered[source.offset + 3] ^= 0x01
        assertRefused(RBCFile.sealed(tampered), containing: "SHA-256")
        // An action location that is not an action.
        let universal = sections.first { $0.tag == "UNIV" }!
        XCTAssertGreaterThan(universal.size, 0)
        var badLocation = good
        badLocation[universal.offset] = 0xFF
        badLocation[universal.offset + 1] = 0xFF
        assertRefused(RBCFile.sealed(badLocation), containing: "UNIV")
        // A section table pointing outside the file.
        var table = good
        table[96 + 8 + 6] = 0x7F
        assertRefused(RBCFile.sealed(table), containing: "outside the file")
    }

    /// Random damage is always refused (the checksum covers every byte), and never crashes.
    func testRandomByteFlipsAreRefused() throws {
        let good = RBCFile.bytes(try sample())
        var rng = SplitMix64(seed: 0xF11B)
        for _ in 0..<3000 {
            var bad = good
            let flips = Int.random(in: 1...4, using: &rng)
            for _ in 0..<flips {
                let i = Int.random(in: 0..<bad.count, using: &rng)
                bad[i] ^= UInt8.random(in: 1...255, using: &rng)
            }
            XCTAssertThrowsError(try RBCFile.load(bad))
        }
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 500)) {
            XCTAssertThrowsError(try RBCFile.load(Array(good.prefix(length))))
        }
    }

    /// Damage behind a recomputed checksum (a forged or buggy file) must still never crash the loader.
    func testSealedRandomDamageNeverCrashes() throws {
        let good = RBCFile.bytes(try sample(embedSource: false))
        var rng = SplitMix64(seed: 0x5EA1)
        var refused = 0
        for _ in 0..<2000 {
            var bad = good
            let i = Int.random(in: 88..<bad.count, using: &rng)
            bad[i] ^= UInt8.random(in: 1...255, using: &rng)
            do {
                _ = try RBCFile.load(RBCFile.sealed(bad))
            } catch {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 0)
    }
}

/// Forces a format-version bump whenever the bytes of a compiled list change.
final class RBCGoldenFileTests: XCTestCase {
    func testGoldenFileForTheCurrentFormatVersion() throws {
        let compiled = try RuleListCompiler.compile(
            json: goldenRules(), options: .init(name: "golden", toolVersion: "0.0.0-golden", embedSource: true))
        let bytes = RBCFile.bytes(compiled)
        let golden = fixturesDirectory.appendingPathComponent("golden-v\(RBCFile.formatVersion).rbc")
        guard let expected = try? Data(contentsOf: golden) else {
            if ProcessInfo.processInfo.environment["RBC_WRITE_GOLDEN"] == "1" {
                try Data(bytes).write(to: golden)
                return
            }
            XCTFail(
                """
                No golden file for format version \(RBCFile.formatVersion). If you changed the .rbc layout or \
                the Matcher serialization on purpose, you have bumped RBCFile.formatVersion: create \
                \(golden.lastPathComponent) with \
                RBC_WRITE_GOLDEN=1 swift test --filter RBCGoldenFileTests
                """)
            return
        }
        XCTAssertTrue(
            Array(expected) == bytes,
            """
            The compiled bytes differ from \(golden.lastPathComponent): the layout or the automata serialization \
            changed. \
            Files written by older builds would be misread: bump RBCFile.formatVersion and create the new golden file \
            with RBC_WRITE_GOLDEN=1 (never rewrite an existing one).
            """)
        // The golden file itself must load.
        XCTAssertEqual(try RBCFile.load(Array(expected)).identifier, compiled.identifier)
    }
}
