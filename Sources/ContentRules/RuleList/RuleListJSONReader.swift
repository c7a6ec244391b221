// The JSON dialect WebKit reads rule lists with (WTF's JSON::Value::parseJSON on String::fromUTF8(bytes)).
// It is NOT plain RFC 8259, and StrictJSON (which is) would call some lists invalid that WebKit compiles:
//   * string literals may contain raw control characters (a literal TAB or newline inside "...");
//   * `\v` and `\xHH` escapes are accepted next to the standard ones; `\u` yields UTF-16 code units;
//   * nesting is limited by *value* depth: the top-level value has depth 0, and any value at depth > 1000
//     fails (so 1001 nested empty arrays are fine, 1001 arrays around a number are not);
//   * the whole input must be valid UTF-8 (else fromUTF8 gives a null string and parsing fails), and a
//     UTF-8 byte order mark is not whitespace;
//   * whitespace is space, TAB, LF and CR only.
// Everything else (numbers, literals, trailing commas rejected, duplicate keys: last wins) is standard.
// The reader is iterative, so hostile nesting cannot overflow the stack, and it stops at the first error.

import StrictJSON

public enum RuleListJSONReader {
    /// WTF's JSON stack limit: values deeper than this are rejected.
    public static let maximumValueDepth = 1000

    /// Throws a JSONParseError (StrictJSON's, so both readers say where alike); WebKit itself only says "JSONInvalid".
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            return try reader.parseDocument()
        }
    }

    /// JSON whitespace as WTF defines it (no form feed, no vertical tab).
    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var utf16Scratch: [UInt16] = []
    var utf8Scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Open containers, innermost last. Arrays and objects live in their own stacks and are mutated in
    /// place there (never copied out and back), so building stays linear in the input size.
    private enum Frame { case array, object }

    mutating func parseDocument() throws -> JSONValue {
        if bytes.isEmpty { throw error("the input is empty", at: 0) }
        if let bad = firstInvalidUTF8Offset() { throw error("invalid UTF-8", at: bad) }
        var frames: [Frame] = []
        var arrays: [[JSONValue]] = []
        var objects: [JSONObject] = []
        var keys: [String] = []
        outer: while true {
            // Parse one value at depth frames.count.
            if frames.count > RuleListJSONReader.maximumValueDepth {
                throw error("nesting deeper than \(RuleListJSONReader.maximumValueDepth) levels")
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("expected a value (the input ends here: truncated?)") }
            var value: JSONValue
            switch bytes[index] {
            case UInt8(ascii: "["):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    frames.append(.array)
                    arrays.append([])
                    continue outer
                }
            case UInt8(ascii: "{"):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object(JSONObject())
                } else {
                    keys.append(try parseKeyAndColon())
                    frames.append(.object)
                    objects.append(JSONObject())
                    continue outer
                }
            default: value = try parseScalar()
            }
            // Attach the finished value to its container; close containers that end here.
            while true {
                guard let frame = frames.last else {
                    skipWhitespace()
                    if index < bytes.count { throw error("unexpected \(describe(bytes[index])) after the JSON value") }
                    return value
                }
                switch frame {
                case .array:
                    arrays[arrays.count - 1].append(value)
                    if try anotherMember(closedBy: UInt8(ascii: "]")) { continue outer }
                    frames.removeLast()
                    value = .array(arrays.removeLast())
                case .object:
                    objects[objects.count - 1][keys.removeLast()] = value
                    if try anotherMember(closedBy: UInt8(ascii: "}")) {
                        keys.append(try parseKeyAndColon())
                        continue outer
                    }
                    frames.removeLast()
                    value = .object(objects.removeLast())
                }
            }
        }
    }

    /// A string, literal or number (not an array or object).
    @inline(__always) mutating func parseScalar() throws -> JSONValue {
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("expected a value, found \(describe(bytes[index]))")
        }
    }

    /// After a member of an array or object (`close` is its closing bracket): true when a comma says another
    /// member follows, false when the bracket closed the container (both consumed).
    @inline(__always) mutating func anotherMember(closedBy close: UInt8) throws -> Bool {
        // Only an error builds the message.
        func expected() -> String { "expected ',' or '\(Character(Unicode.Scalar(close)))'" }
        skipWhitespace()
        guard index < bytes.count else { throw error(expected() + " (the input ends here: truncated?)") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == close {
                throw error("trailing comma before '\(Character(Unicode.Scalar(close)))'")
            }
            return true
        }
        guard bytes[index] == close else { throw error(expected() + ", found \(describe(bytes[index]))") }
        index += 1
        return false
    }

    // MARK: tokens

    mutating func parseKeyAndColon() throws -> String {
        guard index < bytes.count else { throw error("expected a key string (the input ends here: truncated?)") }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw error("expected a key string, found \(describe(bytes[index]))")
        }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw error("expected ':' after an object key")
        }
        index += 1
        return key
    }

    mutating func skipWhitespace() {
        while index < bytes.count, RuleListJSONReader.isWhitespace(bytes[index]) { index += 1 }
    }

    mutating func expectLiteral(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        guard index + n <= bytes.count else { throw error("invalid literal") }
        for i in 0..<n where bytes[index + i] != w[i] { throw error("invalid literal") }
        index += n
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// `-`? int (`.` digits)? ([eE] [+-]? digits)?, int without leading zeros; the value as a double.
    mutating func parseNumber() throws -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        if index == intStart { throw error("invalid number", at: start) }
        if index - intStart > 1, bytes[intStart] == UInt8(ascii: "0") {
            throw error("invalid number: leading zero", at: start)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fracStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            if index == fracStart { throw error("invalid number: digits expected after '.'", at: start) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let expStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            if index == expStart { throw error("invalid number: exponent digits expected", at: start) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw error("invalid number", at: start) }
        return value
    }

    func hexValue(_ b: UInt8) -> UInt16? {
        switch b {
        case 0x30...0x39: return UInt16(b - 0x30)
        case 0x41...0x46: return UInt16(b - 0x41 + 10)
        case 0x61...0x66: return UInt16(b - 0x61 + 10)
        default: return nil
        }
    }

    /// A string literal; `index` is at the opening quote. Raw control characters are allowed (as in WTF).
    mutating func parseString() throws -> String {
        let open = index
        index += 1
        let contentStart = index
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string", at: open) }
        return try parseEscapedString(open: open, contentStart: contentStart)
    }

    /// A string with escapes, from its first backslash. The one-byte escapes (a regex's `\\.`, in every
    /// url-filter of a TDS list) are written as UTF-8; a `\u` or `\x` escape gives UTF-16 code units (WTF's,
    /// lone surrogates included), so the string is then read again through UTF-16. Invalid UTF-8 is repaired
    /// alike either way: an ASCII escape never splits an ill-formed sequence.
    private mutating func parseEscapedString(open: Int, contentStart: Int) throws -> String {
        utf8Scratch.removeAll(keepingCapacity: true)
        var runStart = contentStart
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                utf8Scratch.append(contentsOf: bytes[runStart..<index])
                index += 1
                return String(decoding: utf8Scratch, as: UTF8.self)
            }
            if b != UInt8(ascii: "\\") { index += 1; continue }
            utf8Scratch.append(contentsOf: bytes[runStart..<index])
            guard index + 1 < bytes.count else { throw error("unterminated string", at: open) }
            let e = bytes[index + 1]
            if let byte = Self.oneByteEscape(e) {
                utf8Scratch.append(byte)
                index += 2
                runStart = index
                continue
            }
            switch e {
            case UInt8(ascii: "x"), UInt8(ascii: "u"):
                index = contentStart
                while bytes[index] != UInt8(ascii: "\\") { index += 1 }
                return try parseStringThroughUTF16(open: open, contentStart: contentStart)
            default:
                throw error("invalid escape sequence '\\\(Character(Unicode.Scalar(e)))'", at: index)
            }
        }
        throw error("unterminated string", at: open)
    }

    /// What WTF's one-byte escapes stand for: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`.
    private static func oneByteEscape(_ e: UInt8) -> UInt8? {
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): e
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        case UInt8(ascii: "v"): 0x0B
        default: nil
        }
    }

    /// As `parseEscapedString`, decoding to UTF-16 code units, which is what WTF's escapes produce.
    private mutating func parseStringThroughUTF16(open: Int, contentStart: Int) throws -> String {
        utf16Scratch.removeAll(keepingCapacity: true)
        utf16Scratch.append(
            contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                .utf16)
        var runStart = index
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                flushRun(from: runStart)
                index += 1
                return String(decoding: utf16Scratch, as: UTF16.self)
            }
            if b != UInt8(ascii: "\\") { index += 1; continue }
            flushRun(from: runStart)
            guard index + 1 < bytes.count else { throw error("unterminated string", at: open) }
            let escapeStart = index
            let e = bytes[index + 1]
            index += 2
            if let byte = Self.oneByteEscape(e) {
                utf16Scratch.append(UInt16(byte))
                runStart = index
                continue
            }
            switch e {
            case UInt8(ascii: "x"), UInt8(ascii: "u"):
                let digits = e == UInt8(ascii: "x") ? 2 : 4
                guard index + digits <= bytes.count else { throw error("truncated escape sequence", at: escapeStart) }
                var unit: UInt16 = 0
                for i in 0..<digits {
                    guard let d = hexValue(bytes[index + i]) else {
                        throw error("invalid escape sequence", at: escapeStart)
                    }
                    unit = unit << 4 | d
                }
                index += digits
                utf16Scratch.append(unit)
            default:
                throw error("invalid escape sequence '\\\(Character(Unicode.Scalar(e)))'", at: escapeStart)
            }
            runStart = index
        }
        throw error("unterminated string", at: open)
    }

    private mutating func flushRun(from start: Int) {
        guard start < index else { return }
        utf16Scratch.append(
            contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self).utf16)
    }

    // MARK: UTF-8 and errors

    /// Offset of the first byte that is not part of well-formed UTF-8 (no overlongs, no surrogates, ≤ U+10FFFF).
    func firstInvalidUTF8Offset() -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            var length = 0
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let b1 = bytes[i + 1]
            if b1 < lower || b1 > upper { return i }
            for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(message, at: offset ?? index, in: bytes)
    }
}
