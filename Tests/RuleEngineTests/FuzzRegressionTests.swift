// Reproducers found by the fuzz targets in Fuzz/ (issue 16), kept as regression tests.

import XCTest

@testable import RuleCompiler
@testable import RuleEngine

final class FuzzRegressionTests: XCTestCase {
    /// Fuzz/targets/rbc.swift: a mutated .rbc, resealed, whose matcher returns an id that no list table
    /// entry answers. It loaded, and the first match trapped looking the id up; now loading fails. Since
    /// format 2 an id names a rule of the RULE table. The reproducer was a two-rule list whose url automaton
    /// names rule 5; it is made here from the current format, as the fuzzer made it: one id of MURL's action
    /// lists rewritten, the file resealed.
    func testAMatcherIdThatNamesNoRuleIsRefusedAtLoad() throws {
        let rules =
            #"[{"trigger":{"url-filter":"tracker\\.example"},"action":{"type":"block"}},"#
            + #"{"trigger":{"url-filter":"ads\\.example"},"action":{"type":"block"}}]"#
        var file = RBCFile.bytes(try RuleListCompiler.compile(json: Array(rules.utf8), options: .init(name: "fuzz")))
        let murl = try XCTUnwrap(RBCFile.sectionSizes(file).first { $0.tag == "MURL" })
        func u32(_ at: Int) -> Int {
            file.withUnsafeBytes {
                Int($0.loadUnaligned(fromByteOffset: murl.offset + at, as: UInt32.self).littleEndian)
            }
        }
        // The matcher's header counts its universal ids and action lists; the first id follows the list starts.
        let firstID = murl.offset + 48 + 8 * (u32(8) + u32(12)) + 4 * (u32(16) + 1)
        XCTAssertGreaterThan(u32(20), 0, "the url automaton has action ids")
        XCTAssertNoThrow(try RBCFile.load(file))
        file[firstID] = 5 // the low byte of the rule index: rule 5 of a two-rule list
        XCTAssertThrowsError(try RBCFile.load(RBCFile.sealed(file))) { error in
            XCTAssertTrue(
                String(describing: error).contains("MURL: id") && String(describing: error).contains("names no rule"),
                String(describing: error))
        }
    }
}
