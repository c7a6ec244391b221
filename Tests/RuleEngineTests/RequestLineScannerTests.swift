// The request-line fast path must give exactly what the general JSON path gives, or step aside.

import StrictJSON
import TestSupport
import XCTest

@testable import RuleEngine

final class RequestLineScannerTests: XCTestCase {
    /// The general path alone: JSONParser + MatchRequest.decode(JSONValue).
    func general(_ bytes: [UInt8]) -> Result<MatchRequest, RequestError> {
        do {
            let value = try bytes.withUnsafeBytes { try JSONParser.parse(bytes: $0, maximumDepth: 16) }
            return .success(try MatchRequest.decode(value))
        } catch let e as RequestError {
            return .failure(e)
        } catch {
            return .failure(RequestError("invalid JSON"))
        }
    }

    func check(_ line: String, fast expectFast: Bool, file: StaticString = #filePath, line l: UInt = #line) {
        let bytes = Array(line.utf8)
        let fast = bytes.withUnsafeBytes { RequestLineScanner.decode($0) }
        XCTAssertEqual(fast != nil, expectFast, "fast path taken: \(line)", file: file, line: l)
        if let fast {
            guard case .success(let expected) = general(bytes) else {
                return XCTFail("fast path accepted a line the general path rejects: \(line)", file: file, line: l)
            }
            XCTAssertEqual(fast, expected, line, file: file, line: l)
        }
        // Through the public entry point the answer (or error) is the general path's.
        let viaDecode: Result<MatchRequest, RequestError>
        do {
            viaDecode = .success(try bytes.withUnsafeBytes { try MatchRequest.decode(line: $0) })
        } catch let e as RequestError {
            viaDecode = .failure(e)
        } catch {
            return XCTFail("unexpected error \(error)", file: file, line: l)
        }
        switch (viaDecode, general(bytes)) {
        case (.success(let a), .success(let b)): XCTAssertEqual(a, b, line, file: file, line: l)
        case (.failure, .failure): break
        default: XCTFail("decode(line:) and the general path disagree on \(line)", file: file, line: l)
        }
    }

    func testFlatLinesTakeTheFastPathWithTheSameResult() {
        check(#"{"url":"https://a.com/x","topURL":"https://b.com/","resourceType":"image"}"#, fast: true)
        check(
            " { \"url\" : \"https://a.com/x\" ,\t\"topURL\":\"https://b.com/\",\r\n\"resourceType\":\"script\" , "
                + "\"frameURL\":\"https://c.com/\"} ",
            fast: true)
        check(
            #"{"resourceType":"image","requestMethod":"POST","loadContext":"child-frame","topURL":"t","url":"u"}"#,
            fast: true)
        check(#"{"url":"a","topURL":"b","resourceType":"image","frameURL":null,"requestMethod":null}"#, fast: true)
        check(#"{"url":"a","topURL":"b","resourceType":"image","unknown":"x","other":null}"#, fast: true)
        check(#"{"url":"first","url":"last","topURL":"b","resourceType":"image"}"#, fast: true)
        check(#"{"url":"a","topURL":"b","resourceType":"image","frameURL":"f","frameURL":null}"#, fast: true)
        check(#"{"url":"https://ü.example/é","topURL":"b","resourceType":"image"}"#, fast: true)
    }

    func testAnythingElseIsLeftToTheGeneralParser() {
        check(#"{"url":"a\/b","topURL":"b","resourceType":"image"}"#, fast: false) // escape
        check(#"{"url":"a","topURL":"b","resourceType":"image","n":1}"#, fast: false) // number
        check(#"{"url":"a","topURL":"b","resourceType":"image","o":{}}"#, fast: false) // nesting
        check(#"{"url":"a","topURL":"b"}"#, fast: false) // missing key
        check(#"{"url":null,"topURL":"b","resourceType":"image"}"#, fast: false) // null required
        check(#"{"url":"a","topURL":"b","resourceType":"image",}"#, fast: false) // trailing comma
        check(#"{"url":"a","topURL":"b","resourceType":"image"} x"#, fast: false) // trailing bytes
        check(#"{"url":"a","topURL":"b","resourceType":"image""#, fast: false) // unterminated
        check(#"{"url":"a","topURL":"b","resourceType":"image","x":nul}"#, fast: false) // bad literal
        check(#"{}"#, fast: false)
        check(#"[]"#, fast: false)
        check("", fast: false)
        check("\u{FEFF}{\"url\":\"a\",\"topURL\":\"b\",\"resourceType\":\"image\"}", fast: false) // byte-order mark
        check("{\"url\":\"a\tb\",\"topURL\":\"b\",\"resourceType\":\"image\"}", fast: false) // control character
        // Invalid UTF-8 in a value.
        var bytes = Array(#"{"url":"a","topURL":"b","resourceType":"image"}"#.utf8)
        bytes.insert(0xFF, at: 8)
        XCTAssertNil(bytes.withUnsafeBytes { RequestLineScanner.decode($0) })
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try MatchRequest.decode(line: $0) })
        // Invalid UTF-8 in an ignored key: still an invalid line.
        var key = Array(#"{"url":"a","topURL":"b","resourceType":"image","k":"v"}"#.utf8)
        key.insert(0xC3, at: key.count - 7)
        XCTAssertNil(key.withUnsafeBytes { RequestLineScanner.decode($0) })
        XCTAssertThrowsError(try key.withUnsafeBytes { try MatchRequest.decode(line: $0) })
    }

    /// Where a string ends, against its definition byte by byte, on runs built from the bytes that matter
    /// (both sides of 0x20, 0x80, '"' and '\\'), of every length around the sixteen bytes read at a time: the
    /// first stop, and whether a high byte comes before it.
    func testTheStringEndIsTheFirstQuoteBackslashOrControlByte() {
        let interesting: [UInt8] = [
            0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0x9F, 0xA0, 0xA2, 0xDC, 0xFF, 0x61,
        ]
        var rng = SplitMix64(seed: 0x22_5C)
        for round in 0..<100_000 {
            let count = Int(rng.next() % 40)
            var bytes = (0..<count).map { _ in interesting.randomElement(using: &rng)! }
            if round % 3 == 0 { bytes = bytes.map { $0 | 0x40 } } // mostly runs without a stop
            let first = bytes.firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } ?? count
            let (end, high) = bytes.withUnsafeBytes { RequestLineScanner.stringEnd($0) }
            XCTAssertEqual(end, first, "\(bytes)")
            XCTAssertEqual(high, bytes[..<first].contains { $0 >= 0x80 }, "\(bytes)")
        }
    }

    /// Lines whose strings put the quote, an escape, a control byte or a non-ASCII byte at every offset from a
    /// word boundary: the scanner reads eight bytes at a time until one of them is special.
    func testEveryOffsetOfASpecialByte() {
        for length in 0..<20 {
            for special in ["", "\\/", "\u{1}", "é", "\u{7F}"] {
                let url = String(repeating: "a", count: length) + special + "bcdefghij"
                let line = #"{"url":""# + url + #"","topURL":"https://b.com/","resourceType":"image"}"#
                check(line, fast: !(special.hasPrefix("\\") || special == "\u{1}"))
            }
        }
    }
}
