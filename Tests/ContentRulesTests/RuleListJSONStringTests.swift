// Strings in rule-list JSON decode as WTF's parser decodes them: escapes give UTF-16 code units (lone
// surrogates included, which a Swift String then holds as U+FFFD). RuleListJSONReader writes the one-byte
// escapes straight as UTF-8 and reads a string with \u or \x through UTF-16: both must give these strings.

import ContentRules
import StrictJSON
import TestSupport
import XCTest

final class RuleListJSONStringTests: XCTestCase {
    /// A piece of a string literal: its JSON text and the UTF-16 code units it stands for.
    static let pieces: [(json: String, units: [UInt16])] = [
        ("a", [0x61]), ("é", Array("é".utf16)), ("😀", Array("😀".utf16)), (".", [0x2E]), ("\u{1}", [0x01]),
        (#"\\"#, [0x5C]), (#"\""#, [0x22]), (#"\/"#, [0x2F]), (#"\b"#, [0x08]), (#"\f"#, [0x0C]), (#"\n"#, [0x0A]),
        (#"\r"#, [0x0D]), (#"\t"#, [0x09]), (#"\v"#, [0x0B]), (#"\u00e9"#, [0xE9]), (#"\x41"#, [0x41]),
        (#"\ud83d\ude00"#, [0xD83D, 0xDE00]), (#"\ud800"#, [0xD800]), (#"\udc00x"#, [0xDC00, 0x78]),
    ]

    func testEscapesDecodeToWTFsCodeUnits() throws {
        var rng = SplitMix64(seed: 20261202)
        for _ in 0..<3000 {
            let n = Int.random(in: 0...8, using: &rng)
            var json = "", units: [UInt16] = []
            for _ in 0..<n {
                let p = Self.pieces.randomElement(using: &rng)!
                json += p.json
                units += p.units
            }
            let value = try RuleListJSONReader.parse(Array(("[\"" + json + "\"]").utf8))
            XCTAssertEqual(value, .array([.string(String(decoding: units, as: UTF16.self))]), json)
        }
    }

    func testBadEscapesAreErrorsAtTheEscape() {
        let cases = [
            (#"["ab\q"]"#, #"column 5: invalid escape sequence '\q'"#),
            (#"["a\\.b\u12"]"#, "column 8: invalid escape sequence"),
            (#"["\u0041\z"]"#, #"column 9: invalid escape sequence '\z'"#),
            (#"["a\\.\"#, "column 2: unterminated string"),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try RuleListJSONReader.parse(Array(json.utf8)), json) { error in
                XCTAssertEqual(String(describing: error), "line 1, " + message, json)
            }
        }
    }
}
