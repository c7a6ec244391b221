// A strict RFC 8259 parser over UTF-8 bytes for datasets (TDS, config, radar files, requests): no
// comments, no trailing commas, only whitespace after the value, a nesting limit, and every error with a
// byte offset, line and column so that users can find the problem. It is deliberately NOT WebKit's JSON
// dialect (which accepts raw control characters, \v and \xHH, and rejects a byte-order mark): rule lists
// are read with ContentRules' RuleListJSONReader, which reproduces WebKit exactly.

public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public let line: Int
    public let column: Int
    public var description: String { "line \(line), column \(column): \(message)" }

    public init(message: String, offset: Int, line: Int, column: Int) {
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The error at byte `offset` of `bytes` (clamped to its end), with the line and column found there.
    /// Columns count characters, not bytes: UTF-8 continuation bytes are skipped.
    public init(_ message: String, at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        let end = min(offset, bytes.count)
        var line = 1, lineStart = 0
        var i = 0
        while i < end {
            if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        var column = 1
        i = lineStart
        while i < end {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        self.init(message: message, offset: end, line: line, column: column)
    }
}

/// A key that appears twice in one object. The later value is the one kept (as in JavaScript's JSON.parse).
public struct JSONDuplicateKey: Sendable, Equatable {
    /// The path of the duplicated member, e.g. `$.trackers`.
    public let path: JSONPath
    /// Where the later occurrence starts.
    public let line: Int
    public let column: Int
}

public struct JSONParser {
    /// At most this many duplicates are listed; `duplicateCount` counts them all.
    public static let duplicateListLimit = 100

    /// Parses and also reports every duplicated object key (the first `duplicateListLimit`, and how many in all).
    public static func parseReportingDuplicates(_ bytes: [UInt8], maximumDepth: Int = webKitMaximumDepth) throws
        -> (value: JSONValue, duplicates: [JSONDuplicateKey], duplicateCount: Int)
    {
        try bytes.withUnsafeBytes { raw in
            var p = Cursor(bytes: raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth)
            p.duplicates = []
            let value = try p.parseDocument()
            return (value, p.duplicates ?? [], p.duplicateCount)
        }
    }

    /// WebKit's parser rejects documents nested deeper than this.
    public static let webKitMaximumDepth = 1000

    public static func parse(_ text: String, maximumDepth: Int = webKitMaximumDepth) throws -> JSONValue {
        var copy = text
        return try copy.withUTF8 { try parse(bytes: UnsafeRawBufferPointer($0), maximumDepth: maximumDepth) }
    }

    public static func parse(_ bytes: [UInt8], maximumDepth: Int = webKitMaximumDepth) throws -> JSONValue {
        try bytes.withUnsafeBytes { try parse(bytes: $0, maximumDepth: maximumDepth) }
    }

    public static func parse(bytes: UnsafeRawBufferPointer, maximumDepth: Int = webKitMaximumDepth) throws -> JSONValue
    {
        var p = Cursor(bytes: bytes.bindMemory(to: UInt8.self), maximumDepth: maximumDepth)
        return try p.parseDocument()
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0
    var scratch: [UInt8] = []
    /// Non-nil when duplicate keys are reported; then `path` follows the value being parsed.
    var duplicates: [JSONDuplicateKey]?
    var duplicateCount = 0
    var path: [JSONPath.Component] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        let end = min(offset ?? index, bytes.count)
        let what = end >= bytes.count ? "\(message) (the file ends here: truncated?)" : message
        return JSONParseError(what, at: end, in: bytes)
    }

    mutating func parseDocument() throws -> JSONValue {
        skipByteOrderMark()
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if index < bytes.count { throw error("unexpected data after the JSON value") }
        return value
    }

    mutating func noteDuplicate(_ key: String, at offset: Int) {
        duplicateCount += 1
        guard duplicates!.count < JSONParser.duplicateListLimit else { return }
        let position = error("", at: offset)
        duplicates!.append(
            JSONDuplicateKey(path: JSONPath(path + [.key(key)]), line: position.line, column: position.column))
    }

    mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws -> JSONValue {
        guard index < bytes.count else { throw error("expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character \(describe(bytes[index]))")
        }
    }

    func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
    }

    mutating func expectLiteral(_ word: StaticString) throws {
        let start = index
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw error("invalid literal", at: bytes.count) }
        let w = word.utf8Start
        for i in 0..<n where bytes[index + i] != w[i] { throw error("invalid literal", at: start) }
        index += n
    }

    mutating func parseObject(depth: Int) throws -> JSONValue {
        if depth > maximumDepth { throw error("nesting deeper than \(maximumDepth) levels") }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("expected a key string") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a key string, found \(describe(bytes[index]))")
            }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after an object key")
            }
            index += 1
            skipWhitespace()
            if duplicates != nil {
                if object.contains(key) { noteDuplicate(key, at: keyStart) }
                path.append(.key(key))
                object[key] = try parseValue(depth: depth)
                path.removeLast()
            } else {
                object[key] = try parseValue(depth: depth)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
            throw error("expected ',' or '}', found \(describe(bytes[index]))")
        }
    }

    mutating func parseArray(depth: Int) throws -> JSONValue {
        if depth > maximumDepth { throw error("nesting deeper than \(maximumDepth) levels") }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
        while true {
            skipWhitespace()
            if duplicates != nil {
                path.append(.index(array.count))
                array.append(try parseValue(depth: depth))
                path.removeLast()
            } else {
                array.append(try parseValue(depth: depth))
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
            throw error("expected ',' or ']', found \(describe(bytes[index]))")
        }
    }

    mutating func parseNumber() throws -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: digits expected after '.'", at: start)
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: exponent digits expected", at: start)
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw error("invalid number", at: start) }
        return value
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    mutating func parseString() throws -> String {
        let start = index
        index += 1
        let contentStart = index
        // Fast path: no escapes.
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[contentStart..<index])
                index += 1
                return try makeString(slice, at: contentStart)
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("control character in a string (must be escaped)") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string", at: bytes.count) }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                let s = scratch
                return try s.withUnsafeBufferPointer { try makeString($0, at: contentStart) }
            }
            if b < 0x20 { throw error("control character in a string (must be escaped)") }
            if b != UInt8(ascii: "\\") { scratch.append(b); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
                    bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                {
                    let save = index
                    index += 2
                    let low = try hex4()
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = save
                    }
                }
                // Lone surrogates cannot live in a Swift String; they become U+FFFD.
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                scratch.append(contentsOf: Array(String(u).utf8))
            default:
                throw error("invalid escape sequence '\\\(Character(Unicode.Scalar(e)))'", at: index - 2)
            }
        }
        throw error("unterminated string", at: start)
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape", at: bytes.count) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }

    func makeString(_ slice: UnsafeBufferPointer<UInt8>, at offset: Int) throws -> String {
        var ascii = true
        for b in slice where b >= 0x80 { ascii = false; break }
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let s = String(validating: slice, as: UTF8.self) else {
            throw error("invalid UTF-8 in a string", at: offset)
        }
        return s
    }
}
