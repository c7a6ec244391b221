// What the lenient decoders report instead of failing, and the errors they throw.

import StrictJSON

/// Something the decoder dropped, replaced or could not normalise. `path` locates it in a JSON file;
/// `line` (1-based) in a line-based text file.
public struct DecodeIssue: Sendable, Hashable, CustomStringConvertible {
    /// The file (or other source name) the issue is in.
    public var source: String
    public var path: JSONPath?
    public var line: Int?
    public var message: String

    public init(source: String, path: JSONPath, message: String) {
        self.source = source
        self.path = path
        self.line = nil
        self.message = message
    }

    public init(source: String, line: Int, message: String) {
        self.source = source
        self.path = nil
        self.line = line
        self.message = message
    }

    /// Without the source: `$.trackers["a.com"].rules[2].action: unknown action "x"; rule dropped`.
    public var location: String {
        if let path { return path.description }
        if let line { return "line \(line)" }
        return ""
    }

    public var description: String {
        let loc = location
        return loc.isEmpty ? "\(source): \(message)" : "\(source): \(loc): \(message)"
    }
}

public enum TrackerDataError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The bytes are not JSON (truncated, syntax error, too deep).
    case invalidJSON(source: String, error: JSONParseError)
    /// A problem that a strict decode does not tolerate, or a structural problem nothing can recover from.
    case invalid(DecodeIssue)

    public var description: String {
        switch self {
        case .invalidJSON(let source, let error):
            return "\(source): invalid JSON at line \(error.line), column \(error.column): \(error.message)"
        case .invalid(let issue):
            return issue.description
        }
    }
}

/// Collects issues; in strict mode the first one is thrown.
struct IssueLog {
    let source: String
    let strict: Bool
    var issues: [DecodeIssue] = []

    init(source: String, strict: Bool) {
        self.source = source
        self.strict = strict
    }

    mutating func report(_ path: JSONPath, _ message: String) throws {
        let issue = DecodeIssue(source: source, path: path, message: message)
        if strict { throw TrackerDataError.invalid(issue) }
        issues.append(issue)
    }

    mutating func report(line: Int, _ message: String) throws {
        let issue = DecodeIssue(source: source, line: line, message: message)
        if strict { throw TrackerDataError.invalid(issue) }
        issues.append(issue)
    }

    /// A problem that makes the whole input unusable, strict or not.
    func fatal(_ path: JSONPath, _ message: String) -> TrackerDataError {
        .invalid(DecodeIssue(source: source, path: path, message: message))
    }
}
