// The page script lives in PageScript.js; the binary carries it through the generated PageScript.swift.

import XCTest
@testable import Surrogates
import TrackerData

final class PageScriptTests: XCTestCase {
    /// PageScript.swift is PageScript.js byte for byte (else: run scripts/embed-page-script.py).
    func testEmbeddedCopyEqualsTheFile() throws {
        let path = Support.packageRoot + "/Sources/Surrogates/PageScript.js"
        let file = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
        XCTAssertEqual(
            PageScript.source, String(decoding: file, as: UTF8.self),
            "Sources/Surrogates/PageScript.swift is stale: run scripts/embed-page-script.py")
    }

    /// The bundle carries the file without its comment lines, called with DATA and the surrogate functions, and
    /// the event names the Swift side documents are the ones the script dispatches.
    func testBundleEmbedsTheRuntime() throws {
        XCTAssertTrue(SurrogateBundleBuilder.runtime.hasPrefix("(function (DATA, surrogateFunctions) {\n"))
        XCTAssertTrue(SurrogateBundleBuilder.runtime.hasSuffix("\n})"))
        XCTAssertFalse(
            SurrogateBundleBuilder.runtime.split(separator: "\n").contains {
                $0.drop(while: { $0 == " " }).hasPrefix("//")
            })
        XCTAssertTrue(PageScript.source.contains("var EVENT_NAME = \"\(SurrogateBundleBuilder.eventName)\";"))
        XCTAssertTrue(
            PageScript.source.contains("var TRACKER_EVENT_NAME = \"\(SurrogateBundleBuilder.trackerEventName)\";"))
        let tds = TrackerDataSet(trackers: ["t.com": Tracker(domain: "t.com", defaultAction: .block, rules: [])])
        let bundle = try SurrogateBundleBuilder.build(tds: tds, scripts: [])
        XCTAssertTrue(bundle.script.contains(SurrogateBundleBuilder.runtime + "({"), "runtime then the DATA argument")
        XCTAssertTrue(bundle.script.hasSuffix(", [\n]);\n"))
    }
}
