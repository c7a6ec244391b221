import Foundation
@testable import Release
import TestSupport
import XCTest

/// The smallest manifest that says radarblock wrote a directory.
let releaseManifest: (name: String, bytes: [UInt8]) = (
    "manifest.json",
    Array(#"{"identifier":"t_v1_0_0","manifestVersion":1,"tool":{"name":"radarblock","version":"0"}}"#.utf8)
)

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
        try ReleaseDirectory.publish(
            [("a.json", Array("1".utf8)), ("b.json", Array("2".utf8)), releaseManifest], to: out)
        XCTAssertEqual(try contents(out).keys.sorted(), ["a.json", "b.json", "manifest.json"])
        try ReleaseDirectory.publish([("a.json", Array("3".utf8)), releaseManifest], to: out)
        XCTAssertEqual(
            try contents(out).keys.sorted(), ["a.json", "manifest.json"], "files of the old release must not linger")
        XCTAssertEqual(try contents(out)["a.json"], "3")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent), ["release"], "no staging leftovers")
    }

    func testAFailedPublishLeavesThePreviousReleaseUntouched() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let out = parent + "/release"
        try ReleaseDirectory.publish([("a.json", Array("old".utf8)), releaseManifest], to: out)
        XCTAssertThrowsError(try ReleaseDirectory.publish([("ok.json", [1]), ("../escape", [2])], to: out))
        XCTAssertEqual(try contents(out)["a.json"], "old")
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

    // Issue 16, B1: `--out` pointing at a directory of documents used to delete them.
    func testADirectoryThatIsNotAReleaseIsRefusedAndKept() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let docs = parent + "/docs"
        try FileManager.default.createDirectory(atPath: docs, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: docs + "/thesis.txt"))
        XCTAssertThrowsError(try ReleaseDirectory.publish([releaseManifest], to: docs)) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.hasPrefix(docs + ": is not empty and not a radarblock release"), text)
            XCTAssertTrue(text.contains("--force"), text)
        }
        XCTAssertThrowsError(try ReleaseDirectory.preflight(docs, force: false))
        XCTAssertEqual(try contents(docs), ["thesis.txt": "keep me"])
        // A manifest.json that radarblock did not write does not make a release either.
        try Data(#"{"identifier":"x","tool":{"name":"other"}}"#.utf8).write(
            to: URL(fileURLWithPath: docs + "/manifest.json"))
        XCTAssertThrowsError(try ReleaseDirectory.publish([releaseManifest], to: docs))
        XCTAssertEqual(try contents(docs)["thesis.txt"], "keep me")

        try ReleaseDirectory.publish([releaseManifest], to: docs, force: true)
        XCTAssertEqual(try contents(docs).keys.sorted(), ["manifest.json"], "--force replaces it")
    }

    func testAnEmptyDirectoryIsReplaced() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try FileManager.default.createDirectory(atPath: parent + "/empty", withIntermediateDirectories: true)
        try ReleaseDirectory.publish([releaseManifest], to: parent + "/empty")
        XCTAssertTrue(ReleaseDirectory.isRelease(parent + "/empty"))
    }

    func testAFileInThePathIsACleanError() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: parent + "/file"))
        XCTAssertThrowsError(try ReleaseDirectory.publish([releaseManifest], to: parent + "/file/sub")) { error in
            XCTAssertEqual(String(describing: error), parent + "/file/sub: " + parent + "/file is not a directory")
        }
        XCTAssertThrowsError(try ReleaseDirectory.lock(parent + "/file/sub")) { error in
            XCTAssertEqual(String(describing: error), parent + "/file/sub: " + parent + "/file is not a directory")
        }
    }

    // Issue 16, B6: a symlinked --out used to be replaced by a real directory.
    func testASymlinkedOutStaysALinkToTheNewReleaseBesideTheOld() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try ReleaseDirectory.publish([("a.json", Array("old".utf8)), releaseManifest], to: parent + "/releases/r1")
        try FileManager.default.createSymbolicLink(atPath: parent + "/current", withDestinationPath: "releases/r1")
        try ReleaseDirectory.publish(
            [("a.json", Array("new".utf8)), releaseManifest], to: parent + "/current", releaseName: "r2")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: parent + "/current"), "releases/r2",
            "the link stays relative and points at the new release")
        XCTAssertEqual(try contents(parent + "/current")["a.json"], "new")
        XCTAssertEqual(try contents(parent + "/releases/r1")["a.json"], "old", "the old release is kept")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: parent).sorted(), ["current", "releases"],
            "no staging leftovers")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: parent + "/releases").sorted(), ["r1", "r2"])

        // The same identifier again replaces that release in place; the link does not move.
        try ReleaseDirectory.publish(
            [("a.json", Array("newer".utf8)), releaseManifest], to: parent + "/current", releaseName: "r2")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: parent + "/current"), "releases/r2")
        XCTAssertEqual(try contents(parent + "/current")["a.json"], "newer")
    }

    func testALinkToSomethingThatIsNotAReleaseIsRefused() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try FileManager.default.createDirectory(atPath: parent + "/home", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: parent + "/home/notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: parent + "/current", withDestinationPath: parent + "/home")
        XCTAssertThrowsError(try ReleaseDirectory.publish([releaseManifest], to: parent + "/current", releaseName: "r"))
        XCTAssertThrowsError(try ReleaseDirectory.preflight(parent + "/current", force: false))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent + "/home"), ["notes.txt"])
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: parent + "/current"), parent + "/home")
    }

    func testADanglingLinkGetsItsFirstRelease() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try FileManager.default.createSymbolicLink(atPath: parent + "/current", withDestinationPath: "releases/none")
        try ReleaseDirectory.publish([releaseManifest], to: parent + "/current", releaseName: "r1")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: parent + "/current"), "releases/r1")
        XCTAssertTrue(ReleaseDirectory.isRelease(parent + "/current"))
    }

    func testASecondLockOfTheSameDirectoryFailsAtOnceAndTheFirstReleaseFreesIt() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        var first: ReleaseLock? = try ReleaseDirectory.lock(parent + "/release")
        XCTAssertNotNil(first)
        XCTAssertThrowsError(try ReleaseDirectory.lock(parent + "/release")) { error in
            XCTAssertTrue(
                String(describing: error).contains("another radarblock build is writing this release"),
                String(describing: error))
        }
        XCTAssertNoThrow(try ReleaseDirectory.lock(parent + "/other"), "other directories are not locked")
        first = nil
        XCTAssertNoThrow(try ReleaseDirectory.lock(parent + "/release"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: parent), [], "the lock file goes with the lock")
    }
}
