// Reproducers found by the fuzz targets in Fuzz/ (issue 16), kept as regression tests.

import Foundation
import XCTest

@testable import RuleCompiler
@testable import RuleEngine

final class FuzzRegressionTests: XCTestCase {
    /// Fuzz/targets/rbc.swift: a mutated .rbc, resealed, whose matcher returns an id that no list table
    /// entry answers. It loaded, and the first match trapped looking the id up; now loading fails. Since
    /// format 2 an id names a rule of the RULE table: the fixture (format 2) is a two-rule list whose url
    /// automaton names rule 5.
    func testAMatcherIdThatNamesNoRuleIsRefusedAtLoad() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../RuleCompilerTests/Fixtures/fuzz-rbc-rule-id.rbc").standardized
        var file = Array(try Data(contentsOf: path))
        file.replaceSubrange(56..<88, with: [UInt8](repeating: 0, count: 32))
        file = RBCFile.sealed(file)
        XCTAssertThrowsError(try RBCFile.load(file)) { error in
            XCTAssertTrue(String(describing: error).contains("names no rule"), String(describing: error))
        }
    }
}
