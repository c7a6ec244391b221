// surrogates.txt (DuckDuckGo's tracker surrogates): `#` comment lines, blocks separated by blank lines,
// each block a header `<domain>/<name> <content-type>` followed by the script body. TDS rules refer to a
// surrogate by `<name>`.
//
// Choices where the format is loose (documented in the module notes):
// - A line starting with `#` is a comment only where a header is expected (before the first block and
//   between blocks). Inside a body it is kept: it is script text, and dropping it would change the code.
// - Only an empty line (after removing a trailing CR) separates blocks; a run of empty lines counts as one.
//   A line of spaces inside a body stays in the body.
// - The name must be a plain file name (letters, digits, `.`, `_`, `-`; not `.` or `..`), because it is a
//   key shared with the TDS and appears in reports; anything path-like is rejected.
// - Duplicate names are an error (which body the TDS means would be ambiguous).

import StrictJSON

public struct SurrogateScript: Sendable, Hashable {
    /// The key TDS rules use (`surrogate`), e.g. "analytics.js".
    public var name: String
    /// The first header token as written, e.g. "google-analytics.com/analytics.js".
    public var path: String
    /// The header's content type, e.g. "application/javascript".
    public var contentType: String
    /// The script text (the block's lines after the header, joined with "\n").
    public var body: String
    /// 1-based line of the header in the file.
    public var line: Int

    public init(name: String, path: String, contentType: String, body: String, line: Int) {
        self.name = name
        self.path = path
        self.contentType = contentType
        self.body = body
        self.line = line
    }
}

public struct SurrogatesFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or source name).
    public var source: String
    /// 1-based line the problem is on.
    public var line: Int
    public var message: String

    public init(source: String, line: Int, message: String) {
        self.source = source
        self.line = line
        self.message = message
    }

    public var description: String { "\(source): line \(line): \(message)" }
}

public enum SurrogatesFile {
    /// Content types accepted in a header: a surrogate is run as a JavaScript function.
    public static let javaScriptContentTypes: Set<String> = ["application/javascript", "text/javascript"]

    /// Parses surrogates.txt bytes: invalid UTF-8 is an error naming the line, never silently replaced (the
    /// surrogates command and build read the file through here, so they agree).
    public static func parse(bytes: [UInt8], source: String) throws -> [SurrogateScript] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SurrogatesFileError(source: source, line: lineOfInvalidUTF8(bytes), message: "not valid UTF-8 text")
        }
        return try parse(text, source: source)
    }

    /// 1-based line of the first byte sequence that is not UTF-8.
    static func lineOfInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var line = 1
        var lineStart = 0
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") {
            if String(validating: bytes[lineStart...i], as: UTF8.self) == nil { return line }
            line += 1
            lineStart = i + 1
        }
        return line
    }

    /// Parses surrogates.txt text. `source` names the file in errors.
    public static func parse(_ text: String, source: String) throws -> [SurrogateScript] {
        var scripts: [SurrogateScript] = []
        var seen: [String: Int] = [:]
        // Current block: header fields and body lines.
        var header: (name: String, path: String, type: String, line: Int)? = nil
        var body: [Substring] = []

        func finish() throws {
            guard let h = header else { return }
            if body.isEmpty {
                throw SurrogatesFileError(
                    source: source, line: h.line, message: "surrogate \(quoted(h.name)) has no script")
            }
            scripts.append(
                SurrogateScript(
                    name: h.name, path: h.path, contentType: h.type,
                    body: body.joined(separator: "\n"), line: h.line))
            header = nil
            body = []
        }

        var lineNumber = 0
        // Split on LF scalars: in Swift's Character view "\r\n" is one Character, not an "\n".
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let bytes = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            let line = Substring(String(decoding: bytes, as: UTF8.self))
            if line.isEmpty {
                try finish()
                continue
            }
            if header != nil {
                body.append(line)
                continue
            }
            if line.hasPrefix("#") { continue }
            let h = try parseHeader(line, line: lineNumber, source: source)
            if let first = seen[h.name] {
                throw SurrogatesFileError(
                    source: source, line: lineNumber,
                    message: "duplicate surrogate \(quoted(h.name)) (first defined on line \(first))")
            }
            seen[h.name] = lineNumber
            header = (h.name, h.path, h.type, lineNumber)
        }
        try finish()
        return scripts
    }

    private static func parseHeader(_ line: Substring, line number: Int, source: String) throws
        -> (name: String, path: String, type: String)
    {
        func fail(_ message: String) -> SurrogatesFileError {
            SurrogatesFileError(source: source, line: number, message: message)
        }
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard tokens.count == 2 else {
            throw fail(
                "expected a header \"<domain>/<name> application/javascript\", found \(quoted(String(line.prefix(80))))"
            )
        }
        let path = String(tokens[0])
        let type = String(tokens[1])
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
            throw fail("header \(quoted(path)) is not \"<domain>/<name>\"")
        }
        let name = String(path[path.index(after: slash)...])
        if let problem = fileNameProblem(name) { throw fail("surrogate name \(quoted(name)): \(problem)") }
        guard javaScriptContentTypes.contains(type) else {
            throw fail(
                "surrogate \(quoted(name)) has content type \(quoted(type)); only application/javascript can be run")
        }
        return (name, path, type)
    }

    /// Why `name` is not a plain file name, or nil when it is one.
    public static func fileNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "empty name" }
        if name == "." || name == ".." { return "not a file name" }
        if name.utf8.count > 255 { return "longer than 255 bytes" }
        for b in name.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return "only letters, digits, '.', '_' and '-' are allowed in a surrogate name"
            }
        }
        return nil
    }
}
