import Foundation
@testable import Release
@testable import ReleaseBuild
import StrictJSON
import TestSupport
import XCTest

/// The compile-cost gate's logic, and a build it refuses; WebKit itself is stood in for by a meter whose cost
/// grows with the list (the real-WebKit run is a step of scripts/test-webkit.sh).
final class CompileCostGateTests: XCTestCase {
    func cost(cpu: Double, mib: Double, bytes: Int = 1_000_000) -> WebKitCompileCost {
        WebKitCompileCost(seconds: cpu * 1.5, cpuSeconds: cpu, memoryKB: Int(mib * 1024), bytes: bytes)
    }

    func testDoubledTimeOrMemoryFailsAndTheMessageGivesBothFigures() throws {
        let previous = cost(cpu: 2.0, mib: 100)
        let slower = CompileCostChange(previous: previous, new: cost(cpu: 4.0, mib: 100), previousMeasuredNow: false)
        let failure = try XCTUnwrap(slower.gate(maxPercent: 20, previousRelease: "/releases/old"))
        XCTAssertEqual(failure.component, .gate)
        XCTAssertTrue(failure.reason.contains("compile time 2.000 s -> 4.000 s CPU (+100%)"), failure.reason)
        XCTAssertTrue(failure.reason.contains("--max-compile-regression 20%"), failure.reason)
        XCTAssertTrue(failure.reason.contains("/releases/old"), failure.reason)
        XCTAssertFalse(failure.reason.contains("memory"), failure.reason)

        let hungrier = CompileCostChange(previous: previous, new: cost(cpu: 2.0, mib: 250), previousMeasuredNow: false)
        XCTAssertEqual(hungrier.regressions(maxPercent: 20), ["peak memory 100.0 MiB -> 250.0 MiB (+150%)"])
    }

    func testWithinTheLimitOrCheaperPasses() {
        let previous = cost(cpu: 2.0, mib: 100)
        XCTAssertNil(
            CompileCostChange(previous: previous, new: cost(cpu: 2.39, mib: 119), previousMeasuredNow: false)
                .gate(maxPercent: 20, previousRelease: "p"))
        XCTAssertNil(
            CompileCostChange(previous: previous, new: cost(cpu: 1.0, mib: 50), previousMeasuredNow: false)
                .gate(maxPercent: 0, previousRelease: "p"))
        // Just over the limit fails: the comparison is strict, not rounded.
        XCTAssertNotNil(
            CompileCostChange(previous: previous, new: cost(cpu: 2.42, mib: 100), previousMeasuredNow: false)
                .gate(maxPercent: 20, previousRelease: "p"))
    }

    func testRisesWithinTheMeasurementNoiseNeverFail() {
        // A tiny list: +100% CPU and memory, but 20 ms and 2 MiB.
        let tiny = CompileCostChange(
            previous: cost(cpu: 0.02, mib: 2), new: cost(cpu: 0.04, mib: 4), previousMeasuredNow: false)
        XCTAssertEqual(tiny.regressions(maxPercent: 10), [])
    }

    func testTheManifestRoundTripsTheRecordedCost() throws {
        let recorded = ReleaseCompileCost(
            webkitVersion: "2.50.6",
            lists: [
                ("rules.json", cost(cpu: 2.5, mib: 90, bytes: 9_000_000)),
                ("ctl-fb.json", cost(cpu: 0.01, mib: 1, bytes: 4000)),
            ])
        XCTAssertEqual(
            recorded.total, WebKitCompileCost(seconds: 3.765, cpuSeconds: 2.51, memoryKB: 90 * 1024, bytes: 9_004_000))
        var m = Manifest(
            identifier: "x", toolVersion: "t", rbcFormatVersion: 2, mode: .faithful, inputs: [:], components: [:],
            outputs: [], counts: [:], lists: [], webKitVerification: nil)
        m.webKitCompileCost = recorded
        let parsed = try Manifest.parse(m.bytes())
        XCTAssertEqual(parsed.webKitCompileCost, recorded)
        XCTAssertNil(ReleaseCompileCost(json: .object(JSONObject([("webkitVersion", .string("2.50.6"))]))))
    }

    /// A meter that charges every rule of a list, so a TDS with three times the trackers costs three times as much.
    static func meterChargingPerRule(version: String = "fake-1") -> WebKitCostMeter {
        WebKitCostMeter {
            WebKitCostMeter.Loaded(version: version) { json in
                let rules = json.filter { $0 == 0x0A }.count
                return WebKitCompileCost(
                    seconds: Double(rules) * 0.002, cpuSeconds: Double(rules) * 0.001,
                    memoryKB: rules * 20, bytes: json.count * 3)
            }
        }
    }

    func testABuildThatTriplesTheCompileCostFailsAndLeavesThePreviousReleaseAlone() throws {
        let work = try makeTemporaryDirectory("cost-gate")
        defer { try? FileManager.default.removeItem(atPath: work) }
        try Data(syntheticTDS(trackers: 20, rulesPerTracker: 4).canonicalBytes).write(
            to: URL(fileURLWithPath: work + "/small.json"))
        try Data(syntheticTDS(trackers: 60, rulesPerTracker: 4).canonicalBytes).write(
            to: URL(fileURLWithPath: work + "/big.json"))
        func options(_ tds: String, out: String, previous: String?) -> BuildOptions {
            var o = BuildOptions(out: work + "/" + out)
            o.tds = work + "/" + tds
            o.previous = previous.map { work + "/" + $0 }
            o.webKitCostMeter = Self.meterChargingPerRule()
            return o
        }
        _ = try ReleaseBuilder.run(options("small.json", out: "first", previous: nil))
        // The first release has no recorded cost: the second build measures it and records its own.
        var second = options("small.json", out: "second", previous: "first")
        second.maxCompileRegression = 20
        _ = try ReleaseBuilder.run(second)
        let recorded = try XCTUnwrap(
            try Manifest.parse(try Array(Data(contentsOf: URL(fileURLWithPath: work + "/second/manifest.json"))))
                .webKitCompileCost)
        XCTAssertEqual(recorded.lists.map(\.name), ["rules.json"])
        let changes = try String(contentsOfFile: work + "/second/changes.md", encoding: .utf8)
        XCTAssertTrue(changes.contains("## WebKit compile cost"), changes)
        XCTAssertTrue(changes.contains("its lists were compiled by this build"), changes)

        let before = try directoryDigest(work + "/second")
        var third = options("big.json", out: "second", previous: "second")
        third.maxCompileRegression = 50
        XCTAssertThrowsError(try ReleaseBuilder.run(third)) { error in
            let e = error as? BuildError
            XCTAssertEqual(e?.component, .gate)
            XCTAssertTrue(
                e?.reason.contains("WebKit compile cost regression over --max-compile-regression 50%") == true,
                "\(error)")
            XCTAssertTrue(e?.reason.contains("nothing was published") == true, "\(error)")
        }
        XCTAssertEqual(try directoryDigest(work + "/second"), before, "the previous release was touched")

        // The same change passes a looser gate, and changes.md shows the cost against the recorded one.
        third.maxCompileRegression = 500
        third.out = work + "/third"
        _ = try ReleaseBuilder.run(third)
        let grown = try String(contentsOfFile: work + "/third/changes.md", encoding: .utf8)
        XCTAssertTrue(grown.contains("| compile time (CPU) |"), grown)
        XCTAssertFalse(grown.contains("compiled by this build"), grown)
    }

    func testOneSlowMeasurementIsMeasuredAgainAndDoesNotFailTheBuild() throws {
        let work = try makeTemporaryDirectory("cost-gate")
        defer { try? FileManager.default.removeItem(atPath: work) }
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        // The first compile of the night runs on a busy machine: three times as slow.
        let calls = Counter()
        let busyOnce = WebKitCostMeter {
            WebKitCostMeter.Loaded(version: "fake-1") { json in
                let slow = calls.next() == 1 ? 3.0 : 1.0
                return WebKitCompileCost(seconds: slow, cpuSeconds: slow, memoryKB: 50_000, bytes: json.count)
            }
        }
        var o = sampleOptions(out: work + "/b")
        o.previous = work + "/a"
        o.webKitCostMeter = busyOnce
        o.maxCompileRegression = 20
        _ = try ReleaseBuilder.run(o)
        XCTAssertEqual(calls.count, 3, "new, previous, new again")
        let recorded = try XCTUnwrap(
            try Manifest.parse(try Array(Data(contentsOf: URL(fileURLWithPath: work + "/b/manifest.json"))))
                .webKitCompileCost)
        XCTAssertEqual(recorded.total.cpuSeconds, 1.0, "the cheaper of the two measurements is recorded")
    }

    func testAListWebKitCannotCompileIsAWarningWithoutAGateAndAnErrorWithOne() throws {
        let work = try makeTemporaryDirectory("cost-gate")
        defer { try? FileManager.default.removeItem(atPath: work) }
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        var o = sampleOptions(out: work + "/b")
        o.previous = work + "/a"
        o.webKitCostMeter = WebKitCostMeter {
            WebKitCostMeter.Loaded(version: "fake-1") { _ in
                throw ManifestError(reason: "WebKit rejected the rule list")
            }
        }
        guard case .built(_, let warnings) = try ReleaseBuilder.run(o) else { return XCTFail("not built") }
        XCTAssertTrue(
            warnings.contains {
                $0.contains("WebKit compile cost not measured") && $0.contains("WebKit rejected the rule list")
            },
            warnings.joined(separator: "\n"))
        o.out = work + "/c"
        o.maxCompileRegression = 20
        XCTAssertThrowsError(try ReleaseBuilder.run(o)) { error in
            XCTAssertTrue(
                "\(error)".contains(
                    "WebKit compile cost of the new release's rules.json: WebKit rejected the rule list"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/c"))
    }

    func testAPreviousManifestNamingAPathOutsideItsReleaseIsSetAside() throws {
        let work = try makeTemporaryDirectory("cost-gate")
        defer { try? FileManager.default.removeItem(atPath: work) }
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        let outside = Array("[{\"trigger\":{\"url-filter\":\"outside\"},\"action\":{\"type\":\"block\"}}]".utf8)
        try Data(outside).write(to: URL(fileURLWithPath: work + "/outside.json"))
        let manifestPath = work + "/a/manifest.json"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        XCTAssertTrue(manifest.contains("\"rules.json\""))
        try manifest.replacingOccurrences(of: "\"rules.json\"", with: "\"../outside.json\"").write(
            toFile: manifestPath, atomically: true, encoding: .utf8)
        let seen = Counter()
        var o = sampleOptions(out: work + "/b")
        o.previous = work + "/a"
        o.webKitCostMeter = WebKitCostMeter {
            WebKitCostMeter.Loaded(version: "fake-1") { json in
                if json == outside { _ = seen.next() }
                return WebKitCompileCost(seconds: 1, cpuSeconds: 1, memoryKB: 1_000, bytes: json.count)
            }
        }
        // Such a release is damaged: set aside with a warning (the night goes on), and nothing outside it is read.
        guard case .built(_, let warnings) = try ReleaseBuilder.run(o) else { return XCTFail("not built") }
        XCTAssertTrue(
            warnings.contains { $0.contains("is damaged") && $0.contains("../outside.json") }, "\(warnings)")
        XCTAssertEqual(seen.count, 0, "a file outside the previous release was compiled")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/b/changes.md"))
    }

    func testAMeterThatCannotLoadSkipsTheCostButNotTheGate() throws {
        let work = try makeTemporaryDirectory("cost-gate")
        defer { try? FileManager.default.removeItem(atPath: work) }
        _ = try ReleaseBuilder.run(sampleOptions(out: work + "/a"))
        var o = sampleOptions(out: work + "/b")
        o.previous = work + "/a"
        o.webKitCostMeter = WebKitCostMeter { throw ManifestError(reason: "no WebKitGTK here") }
        _ = try ReleaseBuilder.run(o)
        XCTAssertNil(
            try Manifest.parse(try Array(Data(contentsOf: URL(fileURLWithPath: work + "/b/manifest.json"))))
                .webKitCompileCost)
        o.out = work + "/c"
        o.maxCompileRegression = 20
        XCTAssertThrowsError(try ReleaseBuilder.run(o)) { error in
            XCTAssertTrue(
                "\(error)".contains("--max-compile-regression needs WebKitGTK's compiler: no WebKitGTK here"),
                "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/c"))
    }
}

/// Numbers the meter's calls (the meter's closure may be called from any thread).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
    var count: Int { lock.lock(); defer { lock.unlock() }; return n }
}
