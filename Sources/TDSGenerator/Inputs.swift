// The generator's two human-curated inputs: tracker-surrogates' mapping.json (which rules serve a surrogate
// or a click-to-load action) and our overrides file (per-domain human decisions). Both are decoded strictly:
// a typo or a wrong type is an error naming the file and the JSON path.

import FileIO
import StrictJSON
import TrackerData

// MARK: - mapping.json

/// `{ "<domain>": [ { "regexRule": "...", "surrogate": "x.js", "action"?: "block-ctl-fb" } ] }`
public struct SurrogateMapping: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var domain: String
        public var regexRule: String
        public var surrogate: String
        public var action: String?
        public var path: JSONPath
    }
    /// In file order.
    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    public static func load(path: String) throws -> SurrogateMapping {
        try decode(bytes: FileIO.read(path), source: path)
    }

    public static func decode(bytes: [UInt8], source: String) throws -> SurrogateMapping {
        let r = StrictReader(source: source)
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch let e as JSONParseError {
            throw r.fail(.root, "invalid JSON at line \(e.line), column \(e.column): \(e.message)")
        }
        var entries: [Entry] = []
        for (domain, list) in try r.object(json, at: .root) {
            let dpath = JSONPath.root / domain
            let normalized = try normalizeDomain(domain, reader: r, at: dpath)
            for (i, item) in try r.array(list, at: dpath).enumerated() {
                let ipath = dpath / i
                let o = try r.object(item, at: ipath)
                for key in o.keys where !["regexRule", "surrogate", "action"].contains(key) {
                    throw r.fail(ipath / key, "unknown key (known: action, regexRule, surrogate)")
                }
                guard let rule = o["regexRule"] else { throw r.fail(ipath / "regexRule", "missing") }
                guard let surrogate = o["surrogate"] else { throw r.fail(ipath / "surrogate", "missing") }
                var action: String?
                if let a = o["action"] {
                    action = try r.string(a, at: ipath / "action")
                    if RuleAction(rawValue: action!) == nil {
                        throw r.fail(ipath / "action", "unknown action \"\(action!)\"")
                    }
                }
                entries.append(
                    Entry(
                        domain: normalized, regexRule: try r.string(rule, at: ipath / "regexRule"),
                        surrogate: try r.string(surrogate, at: ipath / "surrogate"), action: action, path: ipath))
            }
        }
        return SurrogateMapping(entries: entries)
    }
}

func normalizeDomain(_ raw: String, reader r: StrictReader, at path: JSONPath) throws -> String {
    switch DomainCheck.normalize(raw) {
    case .success(let d): return d
    case .failure(let problem): throw r.fail(path, problem.message)
    }
}

// MARK: - Overrides

/// Human decisions, applied after the policy and recorded in the generation report:
/// ```
/// { "trackers": { "<domain>": {
///     "reason": "why (required)",
///     "default": "block" | "ignore",          // force listing with this default (also lists a non-tracker)
///     "remove": true,                          // force "not a tracker"
///     "addRules": [ <TDS rule object> ],       // added, then everything is re-sorted by specificity
///     "dropRules": [ "<rule regex>" ],         // must name an existing rule
///     "exceptions": { "<rule regex>": { "domains": [..], "types": [..] } },   // merged into that rule
///     "options":    { "<rule regex>": { "domains": [..], "types": [..] } }
/// } } }
/// ```
public struct TDSOverrides: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var domain: String
        public var reason: String
        public var forceDefault: DefaultAction?
        public var remove: Bool
        public var addRules: [TrackerRule]
        public var dropRules: [String]
        public var exceptions: [(String, RuleMatcher)]
        public var options: [(String, RuleMatcher)]
        public var path: JSONPath

        public static func == (a: Entry, b: Entry) -> Bool {
            a.domain == b.domain && a.reason == b.reason && a.forceDefault == b.forceDefault && a.remove == b.remove
                && a.addRules == b.addRules && a.dropRules == b.dropRules
                && a.exceptions.map(\.0) == b.exceptions.map(\.0) && a.exceptions.map(\.1) == b.exceptions.map(\.1)
                && a.options.map(\.0) == b.options.map(\.0) && a.options.map(\.1) == b.options.map(\.1)
        }
        public func hash(into h: inout Hasher) { h.combine(domain); h.combine(reason) }
    }
    /// Sorted by domain.
    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    public static func load(path: String) throws -> TDSOverrides {
        try decode(bytes: FileIO.read(path), source: path)
    }

    static let entryKeys: Set<String> = [
        "reason", "default", "remove", "addRules", "dropRules", "exceptions", "options",
    ]

    public static func decode(bytes: [UInt8], source: String) throws -> TDSOverrides {
        let r = StrictReader(source: source)
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch let e as JSONParseError {
            throw r.fail(.root, "invalid JSON at line \(e.line), column \(e.column): \(e.message)")
        }
        let root = try r.object(json, at: .root)
        for key in root.keys where key != "trackers" && key != "$comment" {
            throw r.fail(.root / key, "unknown key (known: trackers)")
        }
        var entries: [Entry] = []
        var seen: Set<String> = []
        for (rawDomain, value) in try r.object(root["trackers"] ?? .object(JSONObject()), at: .root / "trackers") {
            let path = JSONPath.root / "trackers" / rawDomain
            let domain = try normalizeDomain(rawDomain, reader: r, at: path)
            guard seen.insert(domain).inserted else { throw r.fail(path, "\(domain) is listed twice") }
            let o = try r.object(value, at: path)
            for key in o.keys where !entryKeys.contains(key) {
                throw r.fail(path / key, "unknown key (known: \(entryKeys.sorted().joined(separator: ", ")))")
            }
            guard let reasonValue = o["reason"] else {
                throw r.fail(path / "reason", "missing: every override must say why")
            }
            let reason = try r.string(reasonValue, at: path / "reason")
            if reason.trimmingCharacters(in: .whitespaces).isEmpty {
                throw r.fail(path / "reason", "empty: every override must say why")
            }
            var e = Entry(
                domain: domain, reason: reason, forceDefault: nil, remove: false, addRules: [], dropRules: [],
                exceptions: [], options: [], path: path)
            if let v = o["default"] {
                let s = try r.string(v, at: path / "default")
                guard let d = DefaultAction(rawValue: s) else {
                    throw r.fail(path / "default", "expected \"block\" or \"ignore\", found \"\(s)\"")
                }
                e.forceDefault = d
            }
            if let v = o["remove"] { e.remove = try r.bool(v, at: path / "remove") }
            if e.remove, e.forceDefault != nil {
                throw r.fail(path, "\"remove\" and \"default\" contradict each other")
            }
            if let v = o["addRules"] {
                for (i, item) in try r.array(v, at: path / "addRules").enumerated() {
                    e.addRules.append(try decodeRule(item, reader: r, at: path / "addRules" / i))
                }
            }
            if let v = o["dropRules"] { e.dropRules = try r.strings(v, at: path / "dropRules") }
            for key in ["exceptions", "options"] {
                guard let v = o[key] else { continue }
                var list: [(String, RuleMatcher)] = []
                for (rule, m) in try r.object(v, at: path / key) {
                    list.append((rule, try decodeMatcher(m, reader: r, at: path / key / rule)))
                }
                if key == "exceptions" { e.exceptions = list } else { e.options = list }
            }
            entries.append(e)
        }
        return TDSOverrides(entries: entries.sorted { byteOrder($0.domain, $1.domain) })
    }

    // TDS rules are decoded by TrackerData's decoder; what is stricter here is the overrides file's own rule
    // (no unknown key, informational fields in range, no empty matcher), since a human writes it by hand.
    static func decodeRule(_ v: JSONValue, reader r: StrictReader, at path: JSONPath) throws -> TrackerRule {
        let o = try r.object(v, at: path)
        let known: Set<String> = [
            "rule", "surrogate", "action", "options", "exceptions", "comment", "fingerprinting", "cookies",
        ]
        for key in o.keys where !known.contains(key) {
            throw r.fail(path / key, "unknown rule key (known: \(known.sorted().joined(separator: ", ")))")
        }
        guard o["rule"] != nil else { throw r.fail(path / "rule", "missing") }
        if let f = o["fingerprinting"] { _ = try r.int(f, at: path / "fingerprinting", range: 0...3) }
        if let c = o["cookies"] { _ = try r.fraction(c, at: path / "cookies") }
        for key in ["options", "exceptions"] {
            if let m = o[key] { _ = try decodeMatcher(m, reader: r, at: path / key) }
        }
        return try strictly(r, path) { try TrackerRule.decodeStrict(v, source: r.source, at: path) }
    }

    static func decodeMatcher(_ v: JSONValue, reader r: StrictReader, at path: JSONPath) throws -> RuleMatcher {
        let o = try r.object(v, at: path)
        for key in o.keys where key != "domains" && key != "types" {
            throw r.fail(path / key, "unknown key (known: domains, types)")
        }
        if o["domains"] == nil, o["types"] == nil { throw r.fail(path, "needs \"domains\" or \"types\"") }
        return try strictly(r, path) { try RuleMatcher.decodeStrict(v, source: r.source, at: path) }
    }

    /// TrackerData's strict decoders throw DecodeIssues; this file's callers expect PolicyErrors.
    static func strictly<T>(_ r: StrictReader, _ path: JSONPath, _ decode: () throws -> T) throws -> T {
        do { return try decode() } catch TrackerDataError.invalid(let issue) {
            throw r.fail(issue.path ?? path, issue.message)
        }
    }
}

import Foundation
