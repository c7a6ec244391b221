// Small typed accessors over JSONValue used by the lenient decoders. Each returns nil for an absent
// or null member and reports a wrong type through the IssueLog (null counts as absent, like Swift's
// Decodable does for optionals).

import StrictJSON

extension JSONValue {
    /// "a string", "a number", ... for messages.
    var aTypeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONObject {
    @inline(__always)
    func member(_ key: String) -> JSONValue? {
        guard let v = self[key] else { return nil }
        if case .null = v { return nil }
        return v
    }
}

/// Bounds on single values. Real TDS rules are regexes of a few hundred bytes; a megabyte-long one is hostile
/// or broken, and would cost the translator and compiler time and memory in proportion.
public enum DecodingLimits {
    /// Longest rule (TDS `rule`, tracker-allowlist `rule`) kept, in UTF-8 bytes.
    public static let ruleBytes = 1 << 20
    /// DNS's limit on a host name.
    public static let hostBytes = 253
}

/// Typed conversions; `nil` means "wrong type" (absence is handled by the caller).
enum Typed {
    static func string(_ v: JSONValue) -> String? { v.stringValue }
    static func double(_ v: JSONValue) -> Double? { v.numberValue }
    static func int(_ v: JSONValue) -> Int? {
        guard case .number(let d) = v, d == d.rounded(), abs(d) < 9_007_199_254_740_992 else { return nil }
        return Int(d)
    }
    static func stringArray(_ v: JSONValue) -> [String]? {
        guard case .array(let a) = v else { return nil }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for e in a {
            guard case .string(let s) = e else { return nil }
            out.append(s)
        }
        return out
    }
}

extension IssueLog {
    /// Reads an optional member with `convert`; a wrong type is reported (`expected`) and gives nil.
    mutating func optional<T>(
        _ object: JSONObject, _ key: String, at path: JSONPath, expected: String,
        _ convert: (JSONValue) -> T?
    ) throws -> T? {
        guard let v = object.member(key) else { return nil }
        if let t = convert(v) { return t }
        try report(path / key, "expected \(expected), found \(v.aTypeName); field ignored")
        return nil
    }

    /// A string array member where non-string elements are dropped one by one (and reported).
    mutating func stringList(_ object: JSONObject, _ key: String, at path: JSONPath) throws -> [String]? {
        guard let v = object.member(key) else { return nil }
        guard case .array(let a) = v else {
            try report(path / key, "expected an array of strings, found \(v.aTypeName); field ignored")
            return nil
        }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for (i, e) in a.enumerated() {
            if case .string(let s) = e {
                out.append(s)
            } else {
                try report(path / key / i, "expected a string, found \(e.aTypeName); element dropped")
            }
        }
        return out
    }

    /// Normalises a domain; a failure is reported with `consequence` and gives nil.
    mutating func domain(_ raw: String, at path: JSONPath, consequence: String) throws -> String? {
        switch DomainCheck.normalize(raw) {
        case .success(let d): return d
        case .failure(let problem):
            try report(path, "\(problem.message); \(consequence)")
            return nil
        }
    }
}

/// Parses bytes as JSON, turning a syntax error into an error that names the source. A duplicated key is an
/// issue (an error under --strict): the later value silently replacing the earlier, e.g. a second
/// `"trackers": {}` at the end of a TDS, would otherwise drop data unseen.
func parseJSON(_ bytes: [UInt8], source: String, log: inout IssueLog) throws -> JSONValue {
    let parsed: (value: JSONValue, duplicates: [JSONDuplicateKey], duplicateCount: Int)
    do {
        parsed = try JSONParser.parseReportingDuplicates(bytes)
    } catch let error as JSONParseError {
        throw TrackerDataError.invalidJSON(source: source, error: error)
    }
    for d in parsed.duplicates {
        try log.report(
            d.path, "duplicate key at line \(d.line), column \(d.column); this later value replaces the earlier one")
    }
    if parsed.duplicateCount > parsed.duplicates.count {
        try log.report(.root, "\(parsed.duplicateCount - parsed.duplicates.count) more duplicate keys not listed")
    }
    return parsed.value
}
