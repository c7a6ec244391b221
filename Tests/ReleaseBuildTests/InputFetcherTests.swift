import Foundation
@testable import ReleaseBuild
import TestSupport
import XCTest

final class InputFetcherTests: XCTestCase {
    var served = ""
    var server: FixtureServer!

    override func setUpWithError() throws {
        served = try makeTemporaryDirectory("served")
        try Data("{\"trackers\":{}}".utf8).write(to: URL(fileURLWithPath: served + "/tds.json"))
        server = try FixtureServer(serving: served)
    }

    override func tearDown() {
        server = nil
        try? FileManager.default.removeItem(atPath: served)
    }

    func testRecordsETagAndMakesConditionalRequestsWithACache() throws {
        let cache = try makeTemporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let options = FetchOptions(cacheDirectory: cache, timeout: 5, retries: 0)
        let first = try InputFetcher.fetch(server.base + "/tds.json", options: options)
        XCTAssertEqual(String(decoding: first.bytes, as: UTF8.self), "{\"trackers\":{}}")
        XCTAssertNotNil(first.etag)
        XCTAssertNotNil(first.lastModified)
        XCTAssertFalse(first.notModified)

        let second = try InputFetcher.fetch(server.base + "/tds.json", options: options)
        XCTAssertTrue(second.notModified, "the second fetch must be answered 304 from the cache")
        XCTAssertEqual(second.bytes, first.bytes)
        XCTAssertEqual(second.etag, first.etag)
        XCTAssertEqual(second.sha256, first.sha256)
        let stats = try server.stats()
        XCTAssertEqual(stats["notModified"] as? Int, 1)
    }

    func testHTTPErrorNamesURLAndStatus() {
        let url = server.base + "/status/500"
        XCTAssertThrowsError(try InputFetcher.fetch(url, options: FetchOptions(timeout: 5, retries: 1, backoff: 0.01)))
        { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains(url), text)
            XCTAssertTrue(text.contains("HTTP 500"), text)
            XCTAssertTrue(text.contains("after 2 attempts"), text)
        }
    }

    func testNotFoundIsNotRetried() throws {
        XCTAssertThrowsError(
            try InputFetcher.fetch(
                server.base + "/missing.json", options: FetchOptions(timeout: 5, retries: 3, backoff: 0.01))
        ) { error in
            XCTAssertTrue(String(describing: error).contains("HTTP 404"))
        }
        let stats = try server.stats()
        XCTAssertEqual((stats["requests"] as? [String: Int])?["/missing.json"], 1)
    }

    func testRetriesWithBackoffThenSucceeds() throws {
        let fetched = try InputFetcher.fetch(
            server.base + "/flaky/2/tds.json", options: FetchOptions(timeout: 5, retries: 3, backoff: 0.01))
        XCTAssertEqual(String(decoding: fetched.bytes, as: UTF8.self), "{\"trackers\":{}}")
    }

    func testTimeoutIsAClearError() {
        let started = Date()
        XCTAssertThrowsError(
            try InputFetcher.fetch(server.base + "/slow/10", options: FetchOptions(timeout: 1, retries: 0))
        ) { error in
            XCTAssertTrue(String(describing: error).contains("timed out"), String(describing: error))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 9, "the client timeout must cut the request short")
    }

    func testLocalFilesAreHashed() throws {
        let fetched = try InputFetcher.fetch(served + "/tds.json")
        XCTAssertEqual(fetched.sha256.count, 64)
        XCTAssertNil(fetched.etag)
    }

    // Issue 16, C3: an endless body used to grow until the machine died, whatever --timeout said.
    func testAnEndlessBodyStopsAtTheSizeCap() throws {
        let started = Date()
        XCTAssertThrowsError(
            try InputFetcher.fetch(
                server.base + "/endless", options: FetchOptions(timeout: 20, retries: 3, maxBytes: 8 << 20))
        ) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains(server.base + "/endless"), text)
            XCTAssertTrue(text.contains("exceeds the download size cap of 8388608 bytes"), text)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the cap, not the timeout, must end the download")
        let stats = try server.stats()
        XCTAssertEqual((stats["requests"] as? [String: Int])?["/endless"], 1, "a body over the cap is not retried")
    }

    func testTheTimeoutCoversTheWholeBody() {
        let started = Date()
        XCTAssertThrowsError(
            try InputFetcher.fetch(server.base + "/trickle/30", options: FetchOptions(timeout: 2, retries: 0))
        ) { error in
            XCTAssertTrue(String(describing: error).contains("timed out"), String(describing: error))
        }
        XCTAssertLessThan(
            Date().timeIntervalSince(started), 6, "a server that keeps sending must not outlast the timeout")
    }

    func testADeclaredLengthOverTheCapIsRefused() {
        XCTAssertThrowsError(
            try InputFetcher.fetch(
                server.base + "/big/2000000", options: FetchOptions(timeout: 5, retries: 0, maxBytes: 1_000_000))
        ) { error in
            XCTAssertTrue(
                String(describing: error).contains("download size cap of 1000000 bytes"), String(describing: error))
        }
        XCTAssertEqual(
            try InputFetcher.fetch(
                server.base + "/big/1000000", options: FetchOptions(timeout: 5, retries: 0, maxBytes: 1_000_000)
            ).bytes.count,
            1_000_000, "a body exactly at the cap is accepted")
    }

    func testAGzipBombIsCappedAfterDecoding() {
        // About 40 KB on the wire, 40 MB decoded.
        XCTAssertThrowsError(
            try InputFetcher.fetch(
                server.base + "/gzipbomb/40", options: FetchOptions(timeout: 20, retries: 0, maxBytes: 2 << 20))
        ) { error in
            XCTAssertTrue(String(describing: error).contains("download size cap"), String(describing: error))
        }
    }
}
