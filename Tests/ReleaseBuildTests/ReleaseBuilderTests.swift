import Digest
import Foundation
@testable import Release
@testable import ReleaseBuild
import TestSupport
import XCTest

let sampleData = SampleData.directory

func sampleOptions(out: String) -> BuildOptions {
    var o = BuildOptions(out: out)
    o.tds = SampleData.tds
    o.config = SampleData.config
    o.surrogates = SampleData.surrogates
    o.unprotected = SampleData.unprotected
    return o
}

func directoryDigest(_ dir: String) throws -> [String: String] {
    var out: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
        out[name] = Digest.hex(.sha256, Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))))
    }
    return out
}

final class ReleaseBuilderTests: XCTestCase {
    var work = ""
    override func setUpWithError() throws { work = try makeTemporaryDirectory("release") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: work) }

    func manifest(_ dir: String) throws -> Manifest {
        try Manifest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))))
    }

    func testTwoBuildsFromTheSameInputsAreByteIdentical() throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/b"))
        let a = try directoryDigest(work + "/a"), b = try directoryDigest(work + "/b")
        XCTAssertEqual(a, b)
        for name in ["rules.json", "rules.rbc", "surrogates.js", "manifest.json", "provenance.json"] {
            XCTAssertNotNil(a[name], "missing \(name)")
        }
    }

    func testManifestHashesMatchTheFiles() throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        let m = try manifest(work + "/a")
        let files = try directoryDigest(work + "/a")
        XCTAssertEqual(Set(m.outputs.map(\.name)), Set(files.keys).subtracting(["manifest.json"]))
        for out in m.outputs {
            XCTAssertEqual(out.sha256, files[out.name], out.name)
            let size = try FileManager.default.attributesOfItem(atPath: work + "/a/" + out.name)[.size] as! Int
            XCTAssertEqual(out.bytes, size, out.name)
        }
        XCTAssertEqual(
            m.inputs[.tds]?.sha256,
            Digest.hex(.sha256, Array(try Data(contentsOf: URL(fileURLWithPath: sampleData + "/tds.json")))))
        XCTAssertGreaterThan(m.counts[.rules] ?? 0, 0)
        XCTAssertGreaterThan(m.counts[.surrogates] ?? 0, 0)
    }

    func testAChangedConfigChangesTheIdentifier() throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        var config = try String(contentsOfFile: sampleData + "/privacy-config.json", encoding: .utf8)
        // Add a temp-unprotected domain: the exceptions change, so behaviour and identifier change.
        config = config.replacingOccurrences(
            of: "\"unprotectedTemporary\": [",
            with: "\"unprotectedTemporary\": [{\"domain\": \"added-by-test.example\"},")
        XCTAssertTrue(
            config.contains("added-by-test.example"), "the sample config must have an unprotectedTemporary list")
        try config.write(toFile: work + "/config.json", atomically: true, encoding: .utf8)
        var o = sampleOptions(out: work + "/b")
        o.config = work + "/config.json"
        _ = try ReleaseBuilder.run(o)
        XCTAssertNotEqual(try manifest(work + "/a").identifier, try manifest(work + "/b").identifier)
        XCTAssertNotEqual(
            try manifest(work + "/a").components["tempListId"], try manifest(work + "/b").components["tempListId"])
    }

    func testIfChangedIsANoOpWhenNothingChanged() throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        let before = try directoryDigest(work + "/a")
        var o = sampleOptions(out: work + "/a")
        o.previous = work + "/a"
        o.ifChanged = true
        guard case .unchanged = try ReleaseBuilder.run(o) else { return XCTFail("expected no rebuild") }
        XCTAssertEqual(try directoryDigest(work + "/a"), before)
    }

    /// The tracker report is on by default: surrogates.js carries it and the manifest says so; toggling it
    /// (--no-report-trackers) is a change for --if-changed (the inputs alone are the same).
    func testReportTrackersIsRecordedAndDefeatsIfChanged() throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        XCTAssertTrue(try manifest(work + "/a").flags.trackerReport)
        XCTAssertTrue(
            try String(contentsOfFile: work + "/a/surrogates.js", encoding: .utf8).contains("\"report\":true"),
            "the bundle's DATA enables the report")
        var o = sampleOptions(out: work + "/a")
        o.previous = work + "/a"
        o.ifChanged = true
        o.reportTrackers = false
        guard case .built = try ReleaseBuilder.run(o) else { return XCTFail("--no-report-trackers must rebuild") }
        XCTAssertFalse(try manifest(work + "/a").flags.trackerReport)
        XCTAssertFalse(
            try String(contentsOfFile: work + "/a/surrogates.js", encoding: .utf8).contains("\"report\":true"))
        guard case .unchanged = try ReleaseBuilder.run(o) else {
            return XCTFail("the same options and inputs again: no rebuild")
        }
        o.reportTrackers = true
        guard case .built = try ReleaseBuilder.run(o) else { return XCTFail("reporting again must rebuild") }
        XCTAssertTrue(try manifest(work + "/a").flags.trackerReport)
    }

    func testInputsFromALoopbackServerWithETagsAndASecondIfChangedRunIsANoOp() throws {
        let served = try makeTemporaryDirectory("served")
        defer { try? FileManager.default.removeItem(atPath: served) }
        for name in ["tds.json", "privacy-config.json", "surrogates.txt"] {
            try FileManager.default.copyItem(atPath: sampleData + "/" + name, toPath: served + "/" + name)
        }
        let server = try FixtureServer(serving: served)
        var o = BuildOptions(out: work + "/r")
        o.tds = server.base + "/tds.json"
        o.config = server.base + "/privacy-config.json"
        o.surrogates = server.base + "/surrogates.txt"
        o.fetch = FetchOptions(cacheDirectory: work + "/cache", timeout: 5, retries: 0)
        _ = try ReleaseBuilder.run(o)
        let m = try manifest(work + "/r")
        XCTAssertNotNil(m.inputs[.tds]?.etag)
        XCTAssertEqual(m.components["tdsEtag"], m.inputs[.tds]?.etag)
        XCTAssertNotNil(m.inputs[.tds]?.lastModified)
        XCTAssertTrue(m.identifier.contains("@"), "the identifier carries the TDS ETag: \(m.identifier)")

        let before = try directoryDigest(work + "/r")
        o.previous = work + "/r"
        o.ifChanged = true
        guard case .unchanged = try ReleaseBuilder.run(o) else { return XCTFail("expected no rebuild") }
        XCTAssertEqual(try directoryDigest(work + "/r"), before)
        XCTAssertEqual(try server.stats()["notModified"] as? Int, 3, "the second run must use conditional requests")
    }

    func assertFailureLeavesReleaseUntouched(
        _ configure: (inout BuildOptions) -> Void, component: BuildComponent,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/r"))
        let before = try directoryDigest(work + "/r")
        var o = sampleOptions(out: work + "/r")
        configure(&o)
        XCTAssertThrowsError(try ReleaseBuilder.run(o), file: file, line: line) { error in
            XCTAssertEqual(
                (error as? BuildError)?.component, component, String(describing: error), file: file, line: line)
        }
        XCTAssertEqual(try directoryDigest(work + "/r"), before, file: file, line: line)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.contains("staging") }, [], file: file,
            line: line)
    }

    func testTruncatedTDSLeavesThePreviousReleaseUntouched() throws {
        let tds = Array(try Data(contentsOf: URL(fileURLWithPath: sampleData + "/tds.json")))
        try Data(tds.prefix(tds.count / 2)).write(to: URL(fileURLWithPath: work + "/truncated.json"))
        try assertFailureLeavesReleaseUntouched({ $0.tds = self.work + "/truncated.json" }, component: .tds)
    }

    func testHTTP500LeavesThePreviousReleaseUntouched() throws {
        let server = try FixtureServer(serving: sampleData)
        try assertFailureLeavesReleaseUntouched(
            {
                $0.tds = server.base + "/status/500"
                $0.fetch = FetchOptions(timeout: 5, retries: 1, backoff: 0.01)
            }, component: .tds)
    }

    func testTimeoutLeavesThePreviousReleaseUntouched() throws {
        let server = try FixtureServer(serving: sampleData)
        try assertFailureLeavesReleaseUntouched(
            {
                $0.config = server.base + "/slow/10"
                $0.fetch = FetchOptions(timeout: 1, retries: 0)
            }, component: .config)
    }

    func testFallbackToThePreviousTDSIsRecorded() throws {
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/r"))
        try Data("{\"trackers\": {".utf8).write(to: URL(fileURLWithPath: work + "/broken.json"))
        var o = sampleOptions(out: work + "/new")
        o.tds = work + "/broken.json"
        o.fallback = work + "/r"
        guard case .built(let m, let warnings) = try ReleaseBuilder.run(o) else { return XCTFail("expected a build") }
        XCTAssertNotNil(m.inputs[.tds]?.fallback)
        XCTAssertTrue(
            warnings.contains { $0.contains("fallback used: previous TDS") }, warnings.joined(separator: "\n"))
        XCTAssertEqual(try manifest(work + "/r").counts[.rules], m.counts[.rules])
    }
}
