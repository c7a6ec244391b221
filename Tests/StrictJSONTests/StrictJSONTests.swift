import Foundation
import XCTest
@testable import StrictJSON
import TestSupport

final class JSONParserTests: XCTestCase {
    func testParsesAllValueKinds() throws {
        let v = try JSONParser.parse(#"{"a":[1,-2.5,1e3,true,false,null,"x\u00e9\n"],"b":{}}"#)
        XCTAssertEqual(v["a"], [1, -2.5, 1000, true, false, nil, "xé\n"])
        XCTAssertEqual(v["b"], .object(JSONObject()))
    }

    func testDuplicateKeysLastWinsAndKeepFirstPosition() throws {
        let v = try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#)
        XCTAssertEqual(v.objectValue?.keys, ["a", "b"])
        XCTAssertEqual(v["a"], 3)
    }

    func testSurrogatePairsAndLoneSurrogates() throws {
        XCTAssertEqual(try JSONParser.parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(try JSONParser.parse(#""\ud800x""#), .string("\u{FFFD}x"))
    }

    func testRejectsWhatStrictJSONRejects() {
        for bad in [
            "", "[1,]", "{\"a\":1,}", "[01]", "[1.]", "[.5]", "NaN", "'a'", "[1] x", "{a:1}", "\"\t\"", "[\"\\x\"]",
            "tru", "[1e]", "-",
        ] {
            XCTAssertThrowsError(try JSONParser.parse(bad), "should reject \(bad.debugDescription)")
        }
    }

    func testTruncatedInputReportsLineColumnAndTruncation() {
        let text = "{\n  \"trackers\": {\n    \"a.com\": {\"domain\": \"a.c"
        XCTAssertThrowsError(try JSONParser.parse(text)) { error in
            let e = error as! JSONParseError
            XCTAssertEqual(e.line, 3)
            XCTAssertTrue(e.message.contains("truncated"), e.message)
        }
    }

    func testErrorColumnCountsCharactersNotBytes() {
        XCTAssertThrowsError(try JSONParser.parse("[\"é\" x]")) { error in
            let e = error as! JSONParseError
            XCTAssertEqual(e.line, 1)
            XCTAssertEqual(e.column, 6)
        }
    }

    func testDepthLimitWithoutStackOverflow() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(deep)) { error in
            XCTAssertTrue((error as! JSONParseError).message.contains("nesting"))
        }
        let ok = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        XCTAssertNoThrow(try JSONParser.parse(ok))
        let tooDeep = String(repeating: "[", count: 1001) + String(repeating: "]", count: 1001)
        XCTAssertThrowsError(try JSONParser.parse(tooDeep))
    }

    func testInvalidUTF8IsRejected() {
        XCTAssertThrowsError(try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]))
    }

    func testByteOrderMarkIsAccepted() throws {
        XCTAssertEqual(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)), [1])
    }
}

final class JSONWriterTests: XCTestCase {
    func testCanonicalNumbersAndRoundTrip() throws {
        let v: JSONValue = ["i": 3, "f": 0.1, "big": 1e300, "neg": -0.5, "s": "a\"b\\c\u{1}"]
        let text = JSONWriter.string(v)
        XCTAssertEqual(text, #"{"i":3,"f":0.1,"big":1e+300,"neg":-0.5,"s":"a\"b\\c\u0001"}"#)
        XCTAssertEqual(try JSONParser.parse(text), v)
    }

    func testSortedKeysIsDeterministic() {
        let a: JSONValue = ["b": 1, "a": 2, "é": 3, "B": 4]
        XCTAssertEqual(JSONWriter.string(a, options: .sortedKeys), #"{"B":4,"a":2,"b":1,"é":3}"#)
    }

    func testScriptSafeEscapesEverythingThatCanBreakOutOfAScript() {
        let hostile = "</script><script>alert(1)</script>&\u{2028}\u{2029}\"\\"
        let out = JSONWriter.string(.string(hostile), options: .scriptSafe)
        for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            XCTAssertFalse(out.contains(forbidden), "\(forbidden.debugDescription) leaked into \(out)")
        }
        XCTAssertEqual(try JSONParser.parse(out), .string(hostile))
    }

    func testHTMLCharactersAreEscapedOnlyWhenScriptSafe() {
        XCTAssertEqual(JSONWriter.string(.string("a > b & <c>")), "\"a > b & <c>\"")
        XCTAssertEqual(
            JSONWriter.string(.string("a > b & <c>"), options: .scriptSafe), "\"a \\u003e b \\u0026 \\u003cc\\u003e\"")
    }

    func testLineSeparatorsAreEscapedEvenWithoutScriptSafe() {
        XCTAssertEqual(JSONWriter.string(.string("\u{2028}")), "\"\\u2028\"")
    }
}

final class JSONPathTests: XCTestCase {
    func testDescription() {
        let p = JSONPath.root / "trackers" / "a.com" / "rules" / 3 / "rule"
        XCTAssertEqual(p.description, #"$.trackers["a.com"].rules[3].rule"#)
    }

    // Issue 16, B5: duplicates are reported with their path and position when asked for.
    func testDuplicateKeysAreReportedWithPathAndPosition() throws {
        let text = "{\"trackers\": {\"a.com\": {\"x\": [1, {\"k\": 1, \"k\": 2}]}},\n \"trackers\": {}}"
        let parsed = try JSONParser.parseReportingDuplicates(Array(text.utf8))
        XCTAssertEqual(parsed.value["trackers"], .object(JSONObject()), "the later value is kept")
        XCTAssertEqual(parsed.duplicates.map(\.path.description), [#"$.trackers["a.com"].x[1].k"#, "$.trackers"])
        XCTAssertEqual(parsed.duplicates.last?.line, 2)
        XCTAssertEqual(parsed.duplicates.last?.column, 2)
        XCTAssertEqual(parsed.duplicateCount, 2)
        XCTAssertEqual(
            try JSONParser.parseReportingDuplicates(Array(#"{"a":{"b":1},"c":{"b":1}}"#.utf8)).duplicateCount, 0,
            "the same key in two objects is no duplicate")
    }

    func testManyDuplicatesAreCountedButListedOnlyUpToTheLimit() throws {
        let text = "{" + (0..<5000).map { _ in #""k":1"# }.joined(separator: ",") + "}"
        let parsed = try JSONParser.parseReportingDuplicates(Array(text.utf8))
        XCTAssertEqual(parsed.duplicates.count, JSONParser.duplicateListLimit)
        XCTAssertEqual(parsed.duplicateCount, 4999)
    }

    /// The escape of every scalar, one at a time: the definition the byte-run writer must equal.
    private func escapedScalarByScalar(_ s: String, scriptSafe: Bool) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x00..<0x20, 0x7F, 0x2028, 0x2029: out += String(format: "\\u%04x", scalar.value)
            case 0x3C, 0x3E, 0x26:
                if scriptSafe {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    func testStringsAreEscapedAsScalarByScalarWhateverTheirBytes() {
        // Every byte class the writer tells apart: plain runs, each escape, DEL, the HTML characters, the two line
        // separators and their neighbours (E2 80 A7/AA are not escaped), two-, three- and four-byte scalars.
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "/", " ", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}",
            "\u{7F}", "<", ">", "&", "\u{2027}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{E2}", "é",
            "\u{80}", "€", "\u{FFFD}", "😀",
        ]
        var random = SplitMix64(seed: 18)
        for _ in 0..<2000 {
            var s = ""
            for _ in 0..<Int.random(in: 0...24, using: &random) {
                s.unicodeScalars.append(alphabet.randomElement(using: &random)!)
            }
            for scriptSafe in [false, true] {
                let written = JSONWriter.string(.string(s), options: scriptSafe ? .scriptSafe : [])
                XCTAssertEqual(written, escapedScalarByScalar(s, scriptSafe: scriptSafe), "\(s.debugDescription)")
                XCTAssertEqual(try JSONParser.parse(written), .string(s))
            }
        }
        // Mostly plain runs, as URLs are, with one byte of each class at every offset of the eight-byte words the
        // writer skips whole.
        for _ in 0..<3000 {
            var s = ""
            for _ in 0..<Int.random(in: 0...70, using: &random) {
                let plain = Unicode.Scalar(UInt8.random(in: 0x2F...0x7A, using: &random))
                s.unicodeScalars.append(
                    Int.random(in: 0..<8, using: &random) == 0 ? alphabet.randomElement(using: &random)! : plain)
            }
            for scriptSafe in [false, true] {
                let written = JSONWriter.string(.string(s), options: scriptSafe ? .scriptSafe : [])
                XCTAssertEqual(written, escapedScalarByScalar(s, scriptSafe: scriptSafe), "\(s.debugDescription)")
            }
        }
    }
}

/// JSONObject searches small objects in order and indexes large ones: both must behave as the ordered
/// dictionary it models (keys in first-insertion order, last value wins, keys compared as Strings).
final class JSONObjectModelTests: XCTestCase {
    /// The model: a Dictionary for the values and an array for the order.
    struct Model {
        var keys: [String] = []
        var values: [String: JSONValue] = [:]
        mutating func set(_ k: String, _ v: JSONValue?) {
            if let v {
                if values.updateValue(v, forKey: k) == nil { keys.append(k) }
            } else if values.removeValue(forKey: k) != nil {
                keys.removeAll { $0 == k }
            }
        }
    }

    // Canonically equivalent spellings ("é" precomposed and decomposed) are one key, as for a Dictionary.
    static let keyPool = (0..<40).map { "k\($0)" } + ["é", "e\u{301}", "type", ""]

    func testRandomEditsAgreeWithTheModelAcrossTheIndexedSize() {
        var rng = SplitMix64(seed: 0x4A53_4F4E)
        for round in 0..<300 {
            var object = JSONObject(), model = Model()
            let pool = Self.keyPool.prefix(Int(rng.next() % UInt64(Self.keyPool.count)) + 1)
            for _ in 0..<Int(rng.next() % 120) {
                let k = pool.randomElement(using: &rng)!
                let v: JSONValue? = rng.next() % 5 == 0 ? nil : .number(Double(rng.next() % 1000))
                object[k] = v
                model.set(k, v)
            }
            XCTAssertEqual(object.keys, model.keys, "round \(round)")
            XCTAssertEqual(object.count, model.keys.count)
            for k in Self.keyPool {
                XCTAssertEqual(object[k], model.values[k], "round \(round), key \(k)")
                XCTAssertEqual(object.contains(k), model.values[k] != nil)
            }
            XCTAssertEqual(object.map(\.key), model.keys)
            XCTAssertEqual(object.map(\.value), model.keys.map { model.values[$0]! })
            XCTAssertEqual(object.values, model.keys.map { model.values[$0]! })
        }
    }

    func testEqualityAndHashIgnoreKeyOrderAtEverySize() {
        for n in [0, 1, 2, 8, 9, 30] {
            let pairs = (0..<n).map { ("k\($0)", JSONValue.number(Double($0))) }
            let a = JSONObject(pairs), b = JSONObject(pairs.reversed())
            XCTAssertEqual(a, b, "\(n) keys")
            XCTAssertEqual(a.hashValue, b.hashValue, "\(n) keys")
            XCTAssertEqual(Set([JSONValue.object(a), .object(b)]).count, 1)
            if n > 0 {
                var c = a
                c["k0"] = "changed"
                XCTAssertNotEqual(a, c)
                var d = a
                d["extra"] = 1
                XCTAssertNotEqual(a, d)
                var e = a
                e["k0"] = nil
                e["other"] = .number(0)
                XCTAssertNotEqual(a, e, "same count, another key")
            }
        }
    }

    func testLargeObjectsParseAndWriteInOrder() throws {
        let members = (0..<50).map { "\"m\($0)\":\($0)" }
        let text = "{" + members.joined(separator: ",") + ",\"m3\":\"again\"}"
        let v = try JSONParser.parse(text)
        XCTAssertEqual(v.objectValue?.keys, (0..<50).map { "m\($0)" })
        XCTAssertEqual(v["m3"], "again")
        XCTAssertEqual(v["m49"], 49)
        XCTAssertEqual(
            JSONWriter.string(v),
            "{" + members.enumerated().map { $0 == 3 ? "\"m3\":\"again\"" : $1 }.joined(separator: ",") + "}")
        let reversed = JSONValue.object(
            JSONObject((0..<12).reversed().map { ("s\($0 + 10)", JSONValue.number(Double($0))) }))
        XCTAssertEqual(
            JSONWriter.string(reversed, options: [.sortedKeys]),
            "{" + (0..<12).map { "\"s\($0 + 10)\":\($0)" }.joined(separator: ",") + "}")
    }
}
