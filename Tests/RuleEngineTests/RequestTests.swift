// The match request line: decoding, defaults, and what WebKit's ResourceLoadInfo becomes.

import ContentRules
import StrictJSON
import XCTest

@testable import RuleEngine

final class RequestTests: XCTestCase {
    func decode(_ s: String) throws -> MatchRequest {
        try Array(s.utf8).withUnsafeBytes { try MatchRequest.decode(line: $0) }
    }

    func testDecodeAndDefaults() throws {
        let r = try decode(#"{"url":"https://a.com/x","topURL":"https://b.com/","resourceType":"image"}"#)
        XCTAssertEqual(r, MatchRequest(url: "https://a.com/x", topURL: "https://b.com/", resourceType: "image"))
        let load = try ResourceLoad(r)
        XCTAssertEqual(load.flags, ResourceTypeName.image | LoadTypeName.thirdParty | LoadContextName.topFrame)
        XCTAssertEqual(String(decoding: load.frameURL, as: UTF8.self), "https://b.com/")
    }

    func testBadLinesAreErrorsNamingTheField() {
        XCTAssertThrowsError(try decode("[1]")) {
            XCTAssertEqual(($0 as? RequestError)?.message, "a request must be a JSON object, not array")
        }
        XCTAssertThrowsError(try decode(#"{"topURL":"x","resourceType":"image"}"#)) {
            XCTAssertEqual(($0 as? RequestError)?.message, "missing \"url\"")
        }
        XCTAssertThrowsError(try decode(#"{"url":5,"topURL":"x","resourceType":"image"}"#)) {
            XCTAssertEqual(($0 as? RequestError)?.message, "\"url\" must be a string, not number")
        }
        XCTAssertThrowsError(try decode(#"{"url":"#)) {
            XCTAssertTrue(($0 as? RequestError)?.message.hasPrefix("invalid JSON") ?? false)
        }
        XCTAssertThrowsError(
            try ResourceLoad(
                MatchRequest(
                    url: "https://a.com/", topURL: "https://a.com/", resourceType: "image", loadContext: "side-frame")))
    }

    func testMethodAndContextFlags() throws {
        let load = try ResourceLoad(
            MatchRequest(
                url: "https://a.com/", topURL: "https://www.a.com/", frameURL: "https://f.com/",
                resourceType: "fetch", requestMethod: "PATCH"))
        XCTAssertEqual(
            load.flags,
            ResourceTypeName.fetch | LoadTypeName.firstParty | LoadContextName.childFrame | RequestMethodName.flags(
                of: "patch")!)
        let unknown = try ResourceLoad(
            MatchRequest(
                url: "https://a.com/", topURL: "https://a.com/", resourceType: "fetch", requestMethod: "PROPFIND"))
        XCTAssertEqual(unknown.flags & RequestMethodName.mask, 0)
    }

    func testEveryMappedTypeIsOneWebKitType() {
        for (name, _, _) in ResourceTypeMapping.table {
            let bits = ResourceTypeMapping.resourceType(name, mainFrameContext: true)!
            XCTAssertEqual(bits.nonzeroBitCount, 1, name)
            XCTAssertEqual(bits & ~ResourceTypeName.mask, 0, name)
        }
        XCTAssertEqual(
            ResourceTypeMapping.resourceType("document", mainFrameContext: false), ResourceTypeName.childDocument)
        XCTAssertEqual(
            ResourceTypeMapping.resourceType("xmlhttprequest", mainFrameContext: true), ResourceTypeName.fetch)
        XCTAssertEqual(ResourceTypeMapping.resourceType("beacon", mainFrameContext: true), ResourceTypeName.other)
        XCTAssertNil(ResourceTypeMapping.resourceType("raw", mainFrameContext: true))
    }

    func testBatchAnswersEveryLineInOrder() throws {
        let engine = try makeEngine(list(rule("tracker", block)))
        var batch = MatchBatch(engine: engine)
        var out: [UInt8] = []
        let lines = [
            #"{"url":"https://tracker.com/","topURL":"https://a.com/","resourceType":"script"}"#, "", "{",
            #"{"url":"https://x.com/","topURL":"https://a.com/","resourceType":"script"}"#,
        ]
        for (i, l) in lines.enumerated() { batch.answer(line: ArraySlice(l.utf8), lineNumber: i + 1, into: &out) }
        let answers = String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(answers.count, 4)
        XCTAssertEqual(answers[0], #"{"actions":[{"type":"block"}]}"#)
        XCTAssertTrue(answers[1].hasPrefix(#"{"error":"line 2: invalid JSON"#), answers[1])
        XCTAssertTrue(answers[2].hasPrefix(#"{"error":"line 3: invalid JSON"#), answers[2])
        XCTAssertEqual(answers[3], #"{"actions":[]}"#)
        for a in answers { XCTAssertNoThrow(try JSONParser.parse(a)) }
    }

    func testStreamedAnswersAreTheLineByLineOnesInOrderAcrossChunks() throws {
        let engine = try makeEngine(
            list(rule("tracker", block), rule("^https://a\\.com/", css(".ad"), #""resource-type":["document"]"#)))
        let kinds = [
            #"{"url":"https://tracker.com/%d.js","topURL":"https://a.com/","resourceType":"script"}"#,
            #"{"url":"https://x.com/%d","topURL":"https://a.com/","resourceType":"image"}"#, "{", "",
            #"{"url":"https://a.com/%d","topURL":"https://a.com/","resourceType":"top-document"}"#,
        ]
        // Chunks of 7 lines, the last one short: each chunk's answers must follow the one before.
        let lines = (0..<40).map { kinds[$0 % kinds.count].replacingOccurrences(of: "%d", with: "\($0)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("matchstream-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("requests.jsonl").path,
            output = dir.appendingPathComponent("answers.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        var batch = MatchBatch(engine: engine)
        var expected: [UInt8] = []
        for (i, l) in lines.enumerated() { batch.answer(line: ArraySlice(l.utf8), lineNumber: i + 1, into: &expected) }
        // A regular file is mapped; the same file read through LineReader (as stdin or a pipe is) answers the same.
        for mapping in [true, false] {
            let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            try MatchBatch.answer(
                requestsFrom: input, with: MatchBatch(engine: engine), to: fd, chunk: (lines: 7, bytes: 1 << 20),
                mapping: mapping)
            close(fd)
            let streamed = try Array(Data(contentsOf: URL(fileURLWithPath: output)))
            XCTAssertEqual(streamed.count, expected.count, "mapping: \(mapping)")
            XCTAssertTrue(
                streamed == expected, "the streamed answers differ from the line-by-line ones (mapping: \(mapping))")
            XCTAssertEqual(streamed.filter { $0 == 0x0A }.count, lines.count, "one answer a line")
        }
    }
}
