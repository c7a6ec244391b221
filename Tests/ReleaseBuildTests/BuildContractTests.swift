// The build's contract as types: the fallback ladder's rungs are an ordered enum, and a build error names its
// component.

import XCTest

@testable import Release
@testable import ReleaseBuild

final class BuildContractTests: XCTestCase {
    func testTheFallbackLadderClimbsInItsOrderFromTheBrokenInput() {
        XCTAssertEqual(
            FallbackStep.allCases, [.previousTDS, .withoutConfig, .withoutUnprotected, .withoutSurrogates])
        XCTAssertEqual(
            FallbackStep.allCases.map { $0.label(fallback: "/r") },
            [
                "previous TDS from /r", "without the privacy config", "without the user's unprotected sites",
                "without surrogates",
            ])
        let record = InputRecord(source: "x", etag: nil, lastModified: nil, sha256: "00", bytes: 0)
        var all = BuildInputs(
            tds: ([], record), config: ([], record), surrogates: ([], record), unprotected: ([], record))
        XCTAssertEqual(FallbackStep.ladder(after: .tds, inputs: all), FallbackStep.allCases)
        XCTAssertEqual(FallbackStep.ladder(after: .rules, inputs: all), FallbackStep.allCases)
        XCTAssertEqual(
            FallbackStep.ladder(after: .config, inputs: all), [.withoutConfig, .withoutUnprotected, .withoutSurrogates])
        XCTAssertEqual(FallbackStep.ladder(after: .surrogates, inputs: all), [.withoutSurrogates])
        all.unprotected = nil
        XCTAssertEqual(
            FallbackStep.ladder(after: .unprotected, inputs: all), [.previousTDS, .withoutConfig, .withoutSurrogates],
            "a rung that does not apply starts the ladder at the bottom")
    }

    func testBuildErrorsNameTheirComponentAsBefore() {
        XCTAssertEqual(
            String(describing: BuildError(component: .unprotected, reason: "bad")), "unprotected: bad")
        XCTAssertEqual(BuildComponent(.config), .config)
    }
}
