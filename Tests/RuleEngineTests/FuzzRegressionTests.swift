// Reproducers found by the fuzz targets in Fuzz/ (issue 16), kept as regression tests.

import Foundation
import XCTest

@testable import RuleCompiler
@testable import RuleEngine

final class FuzzRegressionTests: XCTestCase {
    /// Fuzz/targets/rbc.swift: a mutated .rbc, resealed, whose matcher returns an id that is not an action
    /// location. It loaded, and the first match trapped in LoadedRuleList.actionsFor; now loading fails.
    func testAMatcherIdThatIsNotAnActionIsRefusedAtLoad() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../RuleCompilerTests/Fixtures/fuzz-rbc-action-id.rbc").standardized
        var file = Array(try Data(contentsOf: path))
        file.replaceSubrange(56..<88, with: [UInt8](repeating: 0, count: 32))
        file = RBCFile.sealed(file)
        let compiled = try RBCFile.load(file)
        XCTAssertThrowsError(try LoadedRuleList(compiled)) { error in
            XCTAssertTrue(String(describing: error).contains("not an action"), String(describing: error))
        }
    }
}
