// Action serialization with WebKit's location sharing (serializeActions in WebKit's
// Source/WebCore/contentextensions/ContentExtensionCompiler.cpp). A rule's *action location* is the offset of its
// action in the
// actions blob; WebKit reports actions in ascending location order and collapses rules that share a
// location, so the sharing rules below are what make our answers de-duplicate and order like WebKit's:
//
//   * ignore-previous-rules / ignore-following-rules flush the pending css-display-none groups and forget
//     the shared block, block-cookies, css, make-https and notify locations (not redirect/modify-headers);
//   * every action other than ignore-previous-rules forgets the shared ignore-previous-rules locations;
//   * rules with a condition, ignore-following-rules and report-identifier always get a fresh copy;
//   * block, block-cookies, make-https, ignore-previous-rules share by trigger flags; notify by
//     (text, flags); redirect and modify-headers by (payload, flags);
//   * css-display-none rules with an identical trigger are merged into one action whose selector is the
//     selectors joined with ",", written when the group is flushed (next ignore rule or end of list).
//
// The byte layout is our own (WebKit's is not observable); the order of locations is WebKit's.
//
//   action  := u8 kind, payload
//   kind    := WebKit's ActionData variant index (0 block ... 9 report-identifier)
//   payload := (none) for block, block-cookies, ignore-previous-rules, ignore-following-rules, make-https
//            | u32 length, UTF-8 text       for css-display-none (selector), notify (notification),
//                                             redirect (the "redirect" object as canonical JSON),
//                                             modify-headers (the action members minus "type", canonical JSON)
//            | f64 identifier, u32 length, UTF-8 ruleset identifier   for report-identifier

import ContentRules
import StrictJSON

public enum ActionKind: UInt8, Sendable, CaseIterable {
    case block = 0, blockCookies, cssDisplayNone, notify, ignorePreviousRules, ignoreFollowingRules, makeHTTPS,
        modifyHeaders, redirect, reportIdentifier

    public var typeName: String {
        switch self {
        case .block: return "block"
        case .blockCookies: return "block-cookies"
        case .cssDisplayNone: return "css-display-none"
        case .notify: return "notify"
        case .ignorePreviousRules: return "ignore-previous-rules"
        case .ignoreFollowingRules: return "ignore-following-rules"
        case .makeHTTPS: return "make-https"
        case .modifyHeaders: return "modify-headers"
        case .redirect: return "redirect"
        case .reportIdentifier: return "report-identifier"
        }
    }

    var hasTextPayload: Bool {
        switch self {
        case .cssDisplayNone, .notify, .modifyHeaders, .redirect: return true
        default: return false
        }
    }
}

/// One action as stored in the blob.
public struct StoredAction: Sendable, Hashable {
    public var kind: ActionKind
    /// Selector, notification, or canonical JSON (redirect, modify-headers); ruleset identifier for report-identifier.
    public var text: String
    /// report-identifier only.
    public var identifier: Double

    public init(kind: ActionKind, text: String = "", identifier: Double = 0) {
        self.kind = kind
        self.text = text
        self.identifier = identifier
    }

    /// The action as a JSON object (what `match` prints and what a rule list would say).
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["type"] = .string(kind.typeName)
        switch kind {
        case .cssDisplayNone: o["selector"] = .string(text)
        case .notify: o["notification"] = .string(text)
        case .redirect:
            o["redirect"] = (try? JSONParser.parse(text)) ?? .string(text)
        case .modifyHeaders:
            if case .object(let members)? = try? JSONParser.parse(text) { for (k, v) in members { o[k] = v } }
        case .reportIdentifier:
            o["identifier"] = .number(identifier)
            o["rulesetIdentifier"] = .string(text)
        case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS: break
        }
        return .object(o)
    }
}

public struct SerializedActions: Sendable, Equatable {
    public var blob: [UInt8]
    /// The action location of every rule, in rule order.
    public var locations: [UInt32]
}

public enum ActionSerializer {
    /// `rules` in WebKit's order (report-identifier rules right after their rule).
    public static func serialize(_ rules: [ParsedRule]) -> SerializedActions {
        var blob: [UInt8] = []
        var locations: [UInt32] = []
        locations.reserveCapacity(rules.count)

        var blockMap: [UInt32: UInt32] = [:]
        var blockCookiesMap: [UInt32: UInt32] = [:]
        var makeHTTPSMap: [UInt32: UInt32] = [:]
        var ignorePreviousMap: [UInt32: UInt32] = [:]
        var notifyMap: [TextKey: UInt32] = [:]
        var redirectMap: [TextKey: UInt32] = [:]
        var modifyHeadersMap: [TextKey: UInt32] = [:]
        var pendingCSS = PendingDisplayNoneGroups()

        func append(_ action: StoredAction) -> UInt32 {
            let location = UInt32(blob.count)
            write(action, into: &blob)
            return location
        }

        for rule in rules {
            let action = storedAction(rule)
            if action.kind == .ignorePreviousRules || action.kind == .ignoreFollowingRules {
                pendingCSS.flush(into: &blob, locations: &locations)
                blockMap.removeAll()
                blockCookiesMap.removeAll()
                makeHTTPSMap.removeAll()
                notifyMap.removeAll()
            }
            if action.kind != .ignorePreviousRules { ignorePreviousMap.removeAll() }

            let trigger = rule.trigger
            if trigger.condition != nil || action.kind == .ignoreFollowingRules || action.kind == .reportIdentifier {
                locations.append(append(action))
                continue
            }
            let flags = trigger.flags
            let location: UInt32
            switch action.kind {
            case .cssDisplayNone:
                pendingCSS.add(selector: action.text, trigger: TriggerKey(trigger), ruleSlot: locations.count)
                location = UInt32.max // filled in when the group is flushed
            case .block: location = shared(&blockMap, flags) { append(action) }
            case .blockCookies: location = shared(&blockCookiesMap, flags) { append(action) }
            case .makeHTTPS: location = shared(&makeHTTPSMap, flags) { append(action) }
            case .ignorePreviousRules: location = shared(&ignorePreviousMap, flags) { append(action) }
            case .notify: location = shared(&notifyMap, TextKey(action.text, flags)) { append(action) }
            case .redirect:
                location = shared(&redirectMap, TextKey(PayloadIdentity.redirect(rule), flags)) { append(action) }
            case .modifyHeaders:
                location = shared(&modifyHeadersMap, TextKey(PayloadIdentity.modifyHeaders(rule), flags)) {
                    append(action)
                }
            case .ignoreFollowingRules, .reportIdentifier: preconditionFailure("handled above")
            }
            locations.append(location)
        }
        pendingCSS.flush(into: &blob, locations: &locations)
        return SerializedActions(blob: blob, locations: locations)
    }

    private static func shared<K: Hashable>(_ map: inout [K: UInt32], _ key: K, make: () -> UInt32) -> UInt32 {
        if let existing = map[key] { return existing }
        let location = make()
        map[key] = location
        return location
    }

    static func storedAction(_ rule: ParsedRule) -> StoredAction {
        switch rule.kind {
        case .reportIdentifier(_, let identifier, let rulesetIdentifier):
            return StoredAction(kind: .reportIdentifier, text: rulesetIdentifier, identifier: identifier)
        case .content(let r):
            switch r.action {
            case .block: return StoredAction(kind: .block)
            case .blockCookies: return StoredAction(kind: .blockCookies)
            case .ignorePreviousRules: return StoredAction(kind: .ignorePreviousRules)
            case .ignoreFollowingRules: return StoredAction(kind: .ignoreFollowingRules)
            case .makeHTTPS: return StoredAction(kind: .makeHTTPS)
            case .cssDisplayNone(let selector): return StoredAction(kind: .cssDisplayNone, text: selector)
            case .notify(let n): return StoredAction(kind: .notify, text: n)
            case .redirect(let o):
                return StoredAction(kind: .redirect, text: JSONWriter.string(.object(o), options: [.sortedKeys]))
            case .modifyHeaders(let o):
                var members = o
                members["type"] = nil
                return StoredAction(
                    kind: .modifyHeaders, text: JSONWriter.string(.object(members), options: [.sortedKeys]))
            }
        }
    }

    static func write(_ action: StoredAction, into blob: inout [UInt8]) {
        blob.append(action.kind.rawValue)
        if action.kind == .reportIdentifier {
            let bits = action.identifier.bitPattern
            for i in 0..<8 { blob.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        }
        if action.kind.hasTextPayload || action.kind == .reportIdentifier {
            let utf8 = Array(action.text.utf8)
            let n = UInt32(utf8.count)
            for i in 0..<4 { blob.append(UInt8(truncatingIfNeeded: n >> (8 * UInt32(i)))) }
            blob.append(contentsOf: utf8)
        }
    }
}

private struct TextKey: Hashable {
    let text: String
    let flags: UInt32
    init(_ text: String, _ flags: UInt32) {
        self.text = text
        self.flags = flags
    }
}

/// What makes two redirect or modify-headers actions equal for WebKit: its parsed RedirectAction /
/// ModifyHeadersAction, not the JSON text (unknown keys are ignored, only the member that wins the
/// redirect precedence counts, a regex-substitution carries the rule's url-filter, priority is an int).
enum PayloadIdentity {
    static func redirect(_ rule: ParsedRule) -> String {
        guard case .content(let r) = rule.kind, case .redirect(let o) = r.action else { return "" }
        var key = JSONObject()
        if case .string(let s)? = o["extension-path"] {
            key["extension-path"] = .string(s)
        } else if case .string(let s)? = o["regex-substitution"] {
            key["regex-substitution"] = .string(s)
            key["url-filter"] = .string(r.trigger.urlFilter)
        } else if case .object(let t)? = o["transform"] {
            var transform = JSONObject()
            for k in ["fragment", "host", "password", "path", "port", "username"] {
                if case .string(let v)? = t[k] { transform[k] = .string(v) }
            }
            if case .string(let v)? = t["scheme"] { transform["scheme"] = .string(WHATWGHost.lowercased(v)) }
            if case .object(let q)? = t["query-transform"] {
                var qt = JSONObject()
                if let remove = q["remove-parameters"] { qt["remove-parameters"] = remove }
                if case .array(let entries)? = q["add-or-replace-parameters"] {
                    qt["add-or-replace-parameters"] = .array(
                        entries.map { e in
                            var kv = JSONObject()
                            kv["key"] = e["key"] ?? .null
                            kv["value"] = e["value"] ?? .null
                            kv["replace-only"] = .bool(e["replace-only"]?.boolValue ?? false)
                            return .object(kv)
                        })
                }
                transform["query-transform"] = .object(qt)
            } else if case .string(let v)? = t["query"] {
                transform["query"] = .string(v)
            }
            key["transform"] = .object(transform)
        } else if case .string(let s)? = o["url"] {
            key["url"] = .string(s)
        }
        return JSONWriter.string(.object(key), options: [.sortedKeys])
    }

    static func modifyHeaders(_ rule: ParsedRule) -> String {
        guard case .content(let r) = rule.kind, case .modifyHeaders(let o) = r.action else { return "" }
        var key = JSONObject()
        for list in ["request-headers", "response-headers"] {
            guard case .array(let infos)? = o[list] else { key[list] = .array([]); continue }
            key[list] = .array(
                infos.map { info in
                    var i = JSONObject()
                    for k in ["operation", "header", "value"] {
                        if case .string(let v)? = info[k] { i[k] = .string(v) }
                    }
                    if i["operation"]?.stringValue == "remove" { i["value"] = nil }
                    return .object(i)
                })
        }
        // getInteger: JavaScript ToInt32 truncation.
        if case .number(let d)? = o["priority"] { key["priority"] = .number(Double(toInt32(d))) }
        return JSONWriter.string(.object(key), options: [.sortedKeys])
    }

    /// JavaScript ToInt32 (modulo 2^32, never traps).
    static func toInt32(_ d: Double) -> Int32 {
        guard d.isFinite else { return 0 }
        var m = d.rounded(.towardZero).truncatingRemainder(dividingBy: 4_294_967_296)
        if m < 0 { m += 4_294_967_296 }
        return Int32(bitPattern: UInt32(m))
    }
}

/// WebKit keys css-display-none groups by the entire Trigger (url-filter, its case flag, the flags word,
/// the top/frame case flags and conditions); rules that reach the grouping have no condition.
struct TriggerKey: Hashable {
    let urlFilter: String
    let urlFilterIsCaseSensitive: Bool
    let topURLFilterIsCaseSensitive: Bool
    let frameURLFilterIsCaseSensitive: Bool
    let flags: UInt32
    let conditions: [String]

    init(_ t: Trigger) {
        urlFilter = t.urlFilter
        urlFilterIsCaseSensitive = t.urlFilterIsCaseSensitive
        topURLFilterIsCaseSensitive = t.topURLFilterIsCaseSensitive
        frameURLFilterIsCaseSensitive = t.frameURLFilterIsCaseSensitive
        flags = t.flags
        conditions = t.condition?.regexes ?? []
    }
}

/// Pending css-display-none groups between two flush points.
struct PendingDisplayNoneGroups {
    private var groups: [TriggerKey: Int] = [:]
    private var order: [(key: TriggerKey, selectors: [String], slots: [Int])] = []

    mutating func add(selector: String, trigger: TriggerKey, ruleSlot: Int) {
        if let i = groups[trigger] {
            order[i].selectors.append(selector)
            order[i].slots.append(ruleSlot)
        } else {
            groups[trigger] = order.count
            order.append((trigger, [selector], [ruleSlot]))
        }
    }

    /// Writes one combined action per group, in WebKit's HashMap iteration order, and points the
    /// group's rules at it.
    mutating func flush(into blob: inout [UInt8], locations: inout [UInt32]) {
        guard !order.isEmpty else { return }
        for i in WebKitHashOrder.triggerMapOrder(order.map(\.key)) {
            let group = order[i]
            let location = UInt32(blob.count)
            ActionSerializer.write(
                StoredAction(kind: .cssDisplayNone, text: group.selectors.joined(separator: ",")), into: &blob)
            for slot in group.slots { locations[slot] = location }
        }
        groups.removeAll()
        order.removeAll()
    }
}

// MARK: - Reading the blob

public struct ActionBlobError: Error, Sendable, Equatable, CustomStringConvertible {
    public let location: Int
    public let reason: String
    public var description: String { "action at offset \(location): \(reason)" }
}

public enum ActionBlob {
    /// Decodes the action at `location`; returns it and the offset just after it.
    public static func decode(_ blob: UnsafeRawBufferPointer, at location: Int) throws -> (StoredAction, next: Int) {
        guard location >= 0, location < blob.count else {
            throw ActionBlobError(location: location, reason: "outside the actions section")
        }
        guard let kind = ActionKind(rawValue: blob[location]) else {
            throw ActionBlobError(location: location, reason: "unknown action kind \(blob[location])")
        }
        var p = location + 1
        var identifier = 0.0
        if kind == .reportIdentifier {
            guard p + 8 <= blob.count else { throw ActionBlobError(location: location, reason: "truncated") }
            var bits: UInt64 = 0
            for i in 0..<8 { bits |= UInt64(blob[p + i]) << (8 * UInt64(i)) }
            identifier = Double(bitPattern: bits)
            p += 8
        }
        var text = ""
        if kind.hasTextPayload || kind == .reportIdentifier {
            guard p + 4 <= blob.count else { throw ActionBlobError(location: location, reason: "truncated") }
            var n = 0
            for i in 0..<4 { n |= Int(blob[p + i]) << (8 * i) }
            p += 4
            guard n <= blob.count - p else {
                throw ActionBlobError(location: location, reason: "text runs past the end")
            }
            guard let s = String(validating: UnsafeRawBufferPointer(rebasing: blob[p..<p + n]), as: UTF8.self) else {
                throw ActionBlobError(location: location, reason: "text is not UTF-8")
            }
            text = s
            p += n
        }
        return (StoredAction(kind: kind, text: text, identifier: identifier), p)
    }

    /// Every action in the blob with its location, in order; throws on any malformed byte.
    public static func all(_ blob: UnsafeRawBufferPointer) throws -> [(location: UInt32, action: StoredAction)] {
        var result: [(UInt32, StoredAction)] = []
        var p = 0
        while p < blob.count {
            let (action, next) = try decode(blob, at: p)
            result.append((UInt32(p), action))
            p = next
        }
        return result
    }
}
