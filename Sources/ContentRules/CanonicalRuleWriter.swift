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

public enum CanonicalRuleWriter {
    /// `[` newline, one rule per line separated by `,` newline, `]` newline.
    public static func bytes(_ rules: [ContentRule]) -> [UInt8] {
        JSONWriter.linesArray(rules) { $0.jsonValue }
    }

    public static func string(_ rules: [ContentRule]) -> String { String(decoding: bytes(rules), as: UTF8.self) }
}
