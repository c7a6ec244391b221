// `compile --format json`'s contract: the report's keys in their order, read back by its one decoder, and a
// report that lacks a figure refused naming the key.

import XCTest
@testable import WebKitBridge

final class WebKitCompileReportTests: XCTestCase {
    private let report = WebKitCompileReport(
        file: "/s/ContentRuleList-x", webkitVersion: "2.50.6", bytes: 1234, seconds: 0.5, peakRSSKB: 90_000,
        rssBeforeKB: 80_000, cpuSeconds: 0.25)

    func testWritesTheKeysInTheContractsOrder() {
        XCTAssertEqual(
            String(decoding: report.jsonLine, as: UTF8.self),
            #"{"file":"/s/ContentRuleList-x","webkitVersion":"2.50.6","bytes":1234,"seconds":0.5,"#
                + #""peakRSSKB":90000,"rssBeforeKB":80000,"cpuSeconds":0.25}"# + "\n")
    }

    func testReadsBackWhatItWrote() throws {
        XCTAssertEqual(try WebKitCompileReport(json: report.jsonLine), report)
    }

    func testAMissingOrMistypedFigureIsNamed() {
        let text = #"{"file":"f","webkitVersion":"v","bytes":1.5,"seconds":1,"peakRSSKB":1,"rssBeforeKB":1}"#
        XCTAssertThrowsError(try WebKitCompileReport(json: Array(text.utf8))) {
            XCTAssertEqual("\($0)", #"WebKit compile report: "bytes" is missing or not an integer"#)
        }
        let noCPU = #"{"file":"f","webkitVersion":"v","bytes":1,"seconds":1,"peakRSSKB":1,"rssBeforeKB":1}"#
        XCTAssertThrowsError(try WebKitCompileReport(json: Array(noCPU.utf8))) {
            XCTAssertEqual("\($0)", #"WebKit compile report: "cpuSeconds" is missing or not a number"#)
        }
    }
}
