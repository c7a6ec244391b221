// The content gates of `build --previous` on their own figures (the nights of Tests/cli/nightly.sh run them on
// real releases), and the TDS age read from HTTP Last-Modified dates.

import Release
@testable import ReleaseBuild
import XCTest

final class ContentGateTests: XCTestCase {
    let defaults = ContentGateLimits(maxTrackerRemovalPercent: 25, maxNewlyAllowed: 20000)

    func testTheDefaultsLetEmbeddedToV5ThroughAndStopV5ToV7() {
        // DuckDuckGo's iOS TDS files: embedded -> v5 removes 463 of 2,734 trackers, v5 -> v7 1,206 of 2,898.
        let v5 = ContentChange(previousTrackers: 2734, trackersRemoved: 463, newlyAllowed: 0)
        XCTAssertNil(v5.gate(defaults, previousRelease: "pub/current", olderTDS: nil))
        let v7 = ContentChange(previousTrackers: 2898, trackersRemoved: 1206, newlyAllowed: 0)
        let refusal = v7.gate(defaults, previousRelease: "pub/current", olderTDS: nil)
        XCTAssertEqual(refusal?.component, .gate)
        XCTAssertEqual(
            refusal?.reason,
            "1206 of the previous release's 2898 trackers removed (41.6%, over --max-tracker-removal 25%) "
                + "against pub/current; nothing was published")
    }

    func testNewlyAllowedRequestsAndAnOlderTDSAreNamed() {
        let change = ContentChange(previousTrackers: 10, trackersRemoved: 0, newlyAllowed: 20001)
        let refusal = change.gate(defaults, previousRelease: "p", olderTDS: "the new TDS is older")
        XCTAssertEqual(
            refusal?.reason,
            "20001 corpus requests newly allowed (over --max-newly-allowed 20000) against p; the new TDS is older; "
                + "nothing was published")
        XCTAssertNil(change.gate(ContentGateLimits(), previousRelease: "p", olderTDS: nil))
    }

    func testTDSAgeComparesLastModifiedDatesOnly() {
        func record(_ date: String?) -> InputRecord {
            InputRecord(source: "https://x/tds.json", etag: nil, lastModified: date, sha256: "", bytes: 0)
        }
        let older = TDSAge.olderNote(
            new: record("Fri, 12 Jul 2024 10:00:00 GMT"), previous: record("Tue, 17 Jun 2025 08:00:00 GMT"),
            previousRelease: "pub/current")
        XCTAssertEqual(
            older,
            "the new TDS https://x/tds.json (Last-Modified Fri, 12 Jul 2024 10:00:00 GMT) is older than the TDS of "
                + "pub/current (Last-Modified Tue, 17 Jun 2025 08:00:00 GMT)")
        XCTAssertNil(
            TDSAge.olderNote(
                new: record("Tue, 17 Jun 2025 08:00:00 GMT"), previous: record("Fri, 12 Jul 2024 10:00:00 GMT"),
                previousRelease: "p"))
        XCTAssertNil(
            TDSAge.olderNote(
                new: record(nil), previous: record("Fri, 12 Jul 2024 10:00:00 GMT"),
                previousRelease: "p"))
    }
}
