// Canonical rule-list JSON: fixed key order, one rule per line, so that identical rule lists are
// identical bytes and releases diff well line by line in git.

import StrictJSON

extension ContentRule {
    public var jsonValue: JSONValue {
        .object(JSONObject([("trigger", trigger.jsonValue), ("action", action.jsonValue)]))
    }
}

extension Trigger {
    /// A member's value: a string, `true`, or a list of strings.
    enum MemberValue {
        case string(String)
        case `true`
        case strings([String])

        var jsonValue: JSONValue {
            switch self {
            case .string(let s): return .string(s)
            case .true: return true
            case .strings(let values): return .array(values.map { .string($0) })
            }
        }
    }

    /// The trigger's members in canonical order, absent ones left out: the one list that both `jsonValue`
    /// and `writeCanonicalJSON` walk.
    func forEachMember(_ body: (String, MemberValue) -> Void) {
        body("url-filter", .string(urlFilter))
        if urlFilterIsCaseSensitive { body("url-filter-is-case-sensitive", .true) }
        if topURLFilterIsCaseSensitive { body("top-url-filter-is-case-sensitive", .true) }
        if frameURLFilterIsCaseSensitive { body("frame-url-filter-is-case-sensitive", .true) }
        if let c = condition { body(c.kind.rawValue, .strings(c.values)) }
        if let r = resourceTypes { body("resource-type", .strings(r)) }
        if let l = loadTypes { body("load-type", .strings(l)) }
        if let l = loadContexts { body("load-context", .strings(l)) }
        if let m = requestMethod { body("request-method", .string(m)) }
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        forEachMember { key, value in o[key] = value.jsonValue }
        return .object(o)
    }
}

extension Action {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["type"] = .string(typeName)
        switch self {
        case .cssDisplayNone(let selector): o["selector"] = .string(selector)
        case .notify(let n): o["notification"] = .string(n)
        case .redirect(let r): o["redirect"] = .object(r)
        case .modifyHeaders(let m): for (k, v) in m where k != "type" { o[k] = v }
        case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS: break
        }
        return .object(o)
    }
}

// The canonical JSON of a rule, written without building its `jsonValue` tree: the same bytes as
// `JSONWriter.write(rule.jsonValue)` (a test compares the two on every rule of the shared lists and on rules
// with every field). A build writes every rule, and a diff makes every rule of both sides its key; building
// the objects first was most of that time.
extension ContentRule {
    public func writeCanonicalJSON(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"trigger":"#.utf8)
        trigger.writeCanonicalJSON(into: &out)
        out.append(contentsOf: #","action":"#.utf8)
        action.writeCanonicalJSON(into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `JSONWriter.string(jsonValue)`.
    public var canonicalJSON: String {
        var out: [UInt8] = []
        writeCanonicalJSON(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension Trigger {
    func writeCanonicalJSON(into out: inout [UInt8]) {
        var first = true
        out.append(UInt8(ascii: "{"))
        forEachMember { key, value in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            switch value {
            case .string(let s): JSONWriter.writeString(s, into: &out)
            case .true: out.append(contentsOf: "true".utf8)
            case .strings(let values):
                out.append(UInt8(ascii: "["))
                for (i, v) in values.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    JSONWriter.writeString(v, into: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension Action {
    func writeCanonicalJSON(into out: inout [UInt8]) {
        switch self {
        case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS:
            out.append(contentsOf: #"{"type":"#.utf8)
            JSONWriter.writeString(typeName, into: &out)
            out.append(UInt8(ascii: "}"))
        default:
            // The rare actions with members of their own.
            JSONWriter.write(jsonValue, into: &out)
        }
    }
}

public enum CanonicalRuleWriter {
    /// `[` newline, one rule per line separated by `,` newline, `]` newline.
    public static func bytes(_ rules: [ContentRule]) -> [UInt8] { bytes(rules[...]) }

    public static func bytes(_ rules: ArraySlice<ContentRule>) -> [UInt8] {
        JSONWriter.linesArray(rules) { rule, out in rule.writeCanonicalJSON(into: &out) }
    }

    public static func string(_ rules: [ContentRule]) -> String { String(decoding: bytes(rules), as: UTF8.self) }
}
