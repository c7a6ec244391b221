// Canonical rule-list JSON: fixed key order, one rule per line, so that identical rule lists are
// identical bytes and releases diff well line by line in git.

import StrictJSON

extension ContentRule {
    public var jsonValue: JSONValue {
        .object(JSONObject([("trigger", trigger.jsonValue), ("action", action.jsonValue)]))
    }
}

extension Trigger {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["url-filter"] = .string(urlFilter)
        if urlFilterIsCaseSensitive { o["url-filter-is-case-sensitive"] = true }
        if topURLFilterIsCaseSensitive { o["top-url-filter-is-case-sensitive"] = true }
        if frameURLFilterIsCaseSensitive { o["frame-url-filter-is-case-sensitive"] = true }
        if let c = condition { o[c.kind.rawValue] = .array(c.values.map { .string($0) }) }
        if let r = resourceTypes { o["resource-type"] = .array(r.map { .string($0) }) }
        if let l = loadTypes { o["load-type"] = .array(l.map { .string($0) }) }
        if let l = loadContexts { o["load-context"] = .array(l.map { .string($0) }) }
        if let m = requestMethod { o["request-method"] = .string(m) }
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
        func key(_ k: String) {
            out.append(UInt8(ascii: ","))
            JSONWriter.writeString(k, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        func strings(_ values: [String]) {
            out.append(UInt8(ascii: "["))
            for (i, v) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: #"{"url-filter":"#.utf8)
        JSONWriter.writeString(urlFilter, into: &out)
        if urlFilterIsCaseSensitive { out.append(contentsOf: #","url-filter-is-case-sensitive":true"#.utf8) }
        if topURLFilterIsCaseSensitive { out.append(contentsOf: #","top-url-filter-is-case-sensitive":true"#.utf8) }
        if frameURLFilterIsCaseSensitive { out.append(contentsOf: #","frame-url-filter-is-case-sensitive":true"#.utf8) }
        if let c = condition { key(c.kind.rawValue); strings(c.values) }
        if let r = resourceTypes { key("resource-type"); strings(r) }
        if let l = loadTypes { key("load-type"); strings(l) }
        if let l = loadContexts { key("load-context"); strings(l) }
        if let m = requestMethod { key("request-method"); JSONWriter.writeString(m, into: &out) }
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
    public static func bytes(_ rules: [ContentRule]) -> [UInt8] {
        JSONWriter.linesArray(rules) { rule, out in rule.writeCanonicalJSON(into: &out) }
    }

    public static func string(_ rules: [ContentRule]) -> String { String(decoding: bytes(rules), as: UTF8.self) }
}
