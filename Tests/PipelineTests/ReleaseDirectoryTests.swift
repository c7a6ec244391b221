import Foundation
import XCTest
@testable import Pipeline

final class ReleaseDirectoryTests: XCTestCase {
    func contents(_ dir: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            out[name] = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
        }
        return out
    }

    func testPublishCreatesThenReplacesAsAWhole() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let out = parent + "/release"
        try ReleaseDirectory.publish([("a.json", Array("1".utf8)), ("b.json", Array("2".utf8))], to: out)
        XCTAssertEqual(try contents(out), ["a.json": "1", "b.json": "2"])
        try ReleaseDirectory.publish([("a.json", Array("3".utf8))], to: out)
        XCTAssertEqual(try contents(out), ["a.json": "3"], "files of the old release must not linger")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent), ["release"], "no staging leftovers")
    }

    func testAFailedPublishLeavesThePreviousReleaseUntouched() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let out = parent + "/release"
        try ReleaseDirectory.publish([("a.json", Array("old".utf8))], to: out)
        XCTAssertThrowsError(try ReleaseDirectory.publish([("ok.json", [1]), ("../escape", [2])], to: out))
        XCTAssertEqual(try contents(out), ["a.json": "old"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent), ["release"])
    }

    func testStaleStagingFromAKilledRunIsRemoved() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        // A pid that cannot be alive: beyond pid_max.
        let stale = parent + "/" + ReleaseDirectory.stagingMarker + "release-99999999"
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
        try ReleaseDirectory.publish([("a.json", [0x31])], to: parent + "/release")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
    }
}
