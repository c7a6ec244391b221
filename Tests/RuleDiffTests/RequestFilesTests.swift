// `diff --requests FILE`: requests in file order, blank lines skipped, and an error naming the first bad line.

import Foundation
import RuleEngine
import XCTest

@testable import RuleDiff

final class RequestFilesTests: XCTestCase {
    func file(_ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("requests-\(UUID().uuidString).jsonl")
            .path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func line(_ i: Int) -> String {
        #"{"url":"https://t\#(i).example/a.js","topURL":"https://s.example/","resourceType":"script"}"#
    }

    func testChunksKeepFileOrderAndSkipBlankLines() throws {
        var lines = (0..<5000).map(line)
        lines.insert("  ", at: 10)
        let path = try file(lines)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stream = try JSONLRequests(path: path)
        defer { stream.close() }
        var all: [MatchRequest] = []
        while try stream.next(1234, into: &all) {}
        XCTAssertEqual(all.map(\.url), (0..<5000).map { "https://t\($0).example/a.js" })
    }

    /// Two bad lines in one chunk: the error names the first in the file.
    func testTheFirstBadLineInTheFileIsTheError() throws {
        var lines = (0..<4000).map(line)
        lines[3000] = "{"
        lines[1500] = #"{"url":"https://a.example/","resourceType":"script"}"#
        let path = try file(lines)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stream = try JSONLRequests(path: path)
        defer { stream.close() }
        var chunk: [MatchRequest] = []
        XCTAssertThrowsError(try stream.next(10000, into: &chunk)) { error in
            XCTAssertTrue(
                String(describing: error).contains("line 1501: missing \"topURL\""), String(describing: error))
        }
    }
}
