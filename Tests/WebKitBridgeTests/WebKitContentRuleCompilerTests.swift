// WebKit's own compiler through the run-time bridge. These tests compile tiny lists with the installed
// WebKitGTK (no display needed) and skip, saying why, when it is not installed.

import Foundation
import XCTest
@testable import WebKitBridge

final class WebKitContentRuleCompilerTests: XCTestCase {
    private var scratch: String!

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "/wkbridge-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    private func compiler() throws -> WebKitContentRuleCompiler {
        do {
            return try WebKitContentRuleCompiler(timeout: 120)
        } catch let e as WebKitBridgeError {
            if case .libraryUnavailable = e {
                throw XCTSkip("WebKitGTK 6.0 is not installed (apt-get install -y libwebkitgtk-6.0-dev): \(e)")
            }
            throw e
        }
    }

    func testCompilesASmallListIntoWebKitsStoreFile() throws {
        let wk = try compiler()
        // A store file of WebKit 2.50.6: 69 characters of source -> a 241-byte file in the v21 store format.
        let source = #"[{"action":{"type":"block"},"trigger":{"url-filter":".*webkit.org"}}]"#
        XCTAssertEqual(source.utf8.count, 69)
        let store = scratch + "/store"
        let result = try wk.compile(rulesJSON: Array(source.utf8), identifier: "small list", storePath: store)

        XCTAssertEqual(result.filePath, store + "/ContentRuleList-small%20list")
        let file = try XCTUnwrap(FileManager.default.contents(atPath: result.filePath))
        XCTAssertEqual(result.bytes, file.count)
        XCTAssertGreaterThan(result.seconds, 0)
        XCTAssertTrue(result.webkitVersion.hasPrefix("2."), result.webkitVersion)
        // Header: u32 version, u64 sourceSize (the 8-bit flag + the source, kept verbatim).
        let bytes = [UInt8](file)
        let version = bytes[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        XCTAssertGreaterThanOrEqual(version, 12)
        let sourceSize = bytes[4..<12].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        XCTAssertEqual(sourceSize, 70)
        XCTAssertEqual(
            Array(bytes[65..<(65 + 69)]), Array(source.utf8), "WebKit keeps the source after the 64-byte header")
    }

    func testInvalidRegexIsRejectedWithWebKitsMessage() throws {
        let wk = try compiler()
        let source = #"[{"action":{"type":"block"},"trigger":{"url-filter":"a(b"}}]"#
        let store = scratch + "/store"
        XCTAssertThrowsError(try wk.compile(rulesJSON: Array(source.utf8), identifier: "bad", storePath: store)) {
            error in
            guard case let WebKitBridgeError.rejected(message, _) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertEqual(message, "Invalid or unsupported regular expression.")
            XCTAssertTrue(String(describing: error).contains("Invalid or unsupported regular expression."))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "/ContentRuleList-bad"))

        let verdict = try wk.verify(rulesJSON: Array(source.utf8))
        XCTAssertFalse(verdict.accepted)
        XCTAssertEqual(verdict.message, "Invalid or unsupported regular expression.")
        XCTAssertNil(verdict.bytes)
    }

    func testVerifyAcceptsAValidListAndLeavesNoStoreBehind() throws {
        let wk = try compiler()
        let before = Set(
            try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
                $0.hasPrefix("radarblock-wkverify-")
            })
        let source =
            #"[{"action":{"type":"css-display-none","selector":".ad"},"#
            + #""trigger":{"url-filter":".*","if-domain":["*example.com"]}}]"#
        let verdict = try wk.verify(rulesJSON: Array(source.utf8))
        XCTAssertTrue(verdict.accepted, verdict.message ?? "")
        XCTAssertNil(verdict.message)
        XCTAssertGreaterThan(verdict.bytes ?? 0, 64 + source.utf8.count)
        let after = Set(
            try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
                $0.hasPrefix("radarblock-wkverify-")
            })
        XCTAssertEqual(after, before, "the temporary store is deleted")
    }

    func testTopLevelErrorsCarryWebKitsMessage() throws {
        let wk = try compiler()
        let verdict = try wk.verify(rulesJSON: Array(#"{"not":"a list"}"#.utf8))
        XCTAssertFalse(verdict.accepted)
        XCTAssertEqual(verdict.message, "Invalid input, the top level structure is not an array.")
    }

    func testAbsentLibraryIsAClearError() {
        XCTAssertThrowsError(try WebKitContentRuleCompiler(libraryName: "libwebkitgtk-does-not-exist.so.0")) { error in
            guard case let WebKitBridgeError.libraryUnavailable(library, _) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(library, "libwebkitgtk-does-not-exist.so.0")
            let text = String(describing: error)
            XCTAssertTrue(text.contains("WebKitGTK is not available"), text)
            XCTAssertTrue(text.contains("libwebkitgtk-does-not-exist.so.0"), text)
            XCTAssertTrue(text.contains("--engine radarblock"), text)
        }
    }

    func testACompileThatOutlivesTheDeadlineIsReportedAsATimeout() throws {
        var wk = try compiler()
        wk.timeout = 0.001
        // ~2,000 distinct host rules take WebKit hundreds of milliseconds, far beyond 1 ms.
        let rules = (0..<2000).map {
            #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?tracker\#($0)\\.com[:/]"},"action":{"type":"block"}}"#
        }
        let source = "[" + rules.joined(separator: ",") + "]"
        XCTAssertThrowsError(
            try wk.compile(rulesJSON: Array(source.utf8), identifier: "slow", storePath: scratch + "/store")
        ) { error in
            XCTAssertEqual(error as? WebKitBridgeError, .timedOut(seconds: 0.001))
            XCTAssertTrue(String(describing: error).contains("did not finish compiling"), "\(error)")
        }
    }

    func testFileNamesEncodeLikeWebKit() {
        XCTAssertEqual(WebKitFileName.encode("ddg_v1"), "ContentRuleList-ddg_v1")
        XCTAssertEqual(
            WebKitFileName.encode("a/b:c %d*?\"<>|\\\u{7F}\u{1}"),
            "ContentRuleList-a%2Fb%3Ac%20%25d%2A%3F%22%3C%3E%7C%5C%7F%01")
        XCTAssertEqual(WebKitFileName.encode("é.list"), "ContentRuleList-é.list")
        XCTAssertEqual(WebKitFileName.decode("ContentRuleList-x%2Fy%25z"), "x/y%z")
        XCTAssertEqual(WebKitFileName.decode("ContentRuleList-tds@abc_v1_0.1.0_0123"), "tds@abc_v1_0.1.0_0123")
        XCTAssertEqual(WebKitFileName.decode(WebKitFileName.encode("a/b:c %d")), "a/b:c %d")
        XCTAssertNil(WebKitFileName.decode("ContentRuleList-bad%2"))
        XCTAssertNil(WebKitFileName.decode("other-x"))
    }

    func testStorePathThatIsAFileIsRefused() throws {
        let wk = try compiler()
        let file = scratch + "/plain-file"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        XCTAssertThrowsError(try wk.compile(rulesJSON: Array("[]".utf8), identifier: "x", storePath: file)) { error in
            XCTAssertTrue(String(describing: error).contains("is not a directory"), "\(error)")
        }
    }

    /// The peak memory is /proc/self/status's VmHWM or an error: never a figure from elsewhere.
    func testPeakMemoryIsVmHWMOrALoudError() throws {
        let status = "Name:\tradarblock\nVmPeak:\t  900 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 100 kB\n"
        XCTAssertEqual(try WebKitLibrary.highWaterMarkKB(status: status, path: "status"), 12345)
        XCTAssertThrowsError(try WebKitLibrary.highWaterMarkKB(status: "Name:\tx\n", path: "status")) { error in
            XCTAssertTrue("\(error)".contains("status has no VmHWM line"), "\(error)")
        }
        XCTAssertThrowsError(try WebKitLibrary.highWaterMarkKB(status: "VmHWM:\t12 MB\n", path: "status")) { error in
            XCTAssertTrue("\(error)".contains("is not \"VmHWM: <n> kB\""), "\(error)")
        }
        XCTAssertGreaterThan(try WebKitLibrary.peakRSSKB(), 0)
    }
}
