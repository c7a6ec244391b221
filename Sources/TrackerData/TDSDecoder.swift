// Lenient TDS decoding, modelled on what the apps tolerate: a malformed tracker field
// becomes nil, a malformed rule is dropped, and every such decision is reported as a DecodeIssue.
// In strict mode the first issue is thrown instead. Input that is not JSON, or whose top level is
// not a TDS object, always throws.

import FileIO
import StrictJSON

extension TrackerDataSet {
    /// Decodes a TDS (v5). `source` names the input in issues and errors (usually the file path).
    public static func decode(bytes: [UInt8], source: String, strict: Bool = false) throws
        -> (TrackerDataSet, [DecodeIssue])
    {
        var log = IssueLog(source: source, strict: strict)
        let json = try parseJSON(bytes, source: source, log: &log)
        let (set, issues) = try decode(json: json, source: source, strict: strict)
        return (set, log.issues + issues)
    }

    /// Reads and decodes a TDS file ("-" = stdin).
    public static func load(path: String, strict: Bool = false) throws -> (TrackerDataSet, [DecodeIssue]) {
        try decode(bytes: FileIO.read(path), source: path, strict: strict)
    }

    /// Decodes an already parsed TDS.
    public static func decode(json: JSONValue, source: String, strict: Bool = false) throws
        -> (TrackerDataSet, [DecodeIssue])
    {
        var decoder = TDSDecoder(log: IssueLog(source: source, strict: strict))
        let set = try decoder.decodeRoot(json)
        return (set, decoder.log.issues)
    }
}

extension TrackerRule {
    /// One TDS rule object with the first problem thrown, for inputs that carry TDS rules of their own (the
    /// generator's overrides): the same fields, types and domain normalisation as a TDS file's rules.
    public static func decodeStrict(_ value: JSONValue, source: String, at path: JSONPath) throws -> TrackerRule {
        var decoder = TDSDecoder(log: IssueLog(source: source, strict: true))
        guard let rule = try decoder.decodeRule(value, at: path) else { preconditionFailure("a strict log throws") }
        return rule
    }
}

extension RuleMatcher {
    /// One rule's `options`/`exceptions` object with the first problem thrown (see TrackerRule.decodeStrict).
    public static func decodeStrict(_ value: JSONValue, source: String, at path: JSONPath) throws -> RuleMatcher {
        var decoder = TDSDecoder(log: IssueLog(source: source, strict: true))
        guard let matcher = try decoder.decodeMatcher(value, at: path) else {
            preconditionFailure("a strict log throws")
        }
        return matcher
    }
}

struct TDSDecoder {
    var log: IssueLog

    mutating func decodeRoot(_ json: JSONValue) throws -> TrackerDataSet {
        let root = JSONPath.root
        guard case .object(let top) = json else {
            throw log.fatal(root, "expected a TDS object, found \(json.aTypeName)")
        }
        guard let trackersValue = top.member("trackers") else {
            if top.member(TDSConventions.configTopLevelKey) != nil {
                throw log.fatal(
                    root,
                    "this is a privacy configuration (it has \"features\"), not a tracker data set: give it as --config"
                )
            }
            throw log.fatal(root, "missing \"trackers\": not a tracker data set")
        }
        guard case .object(let trackersObject) = trackersValue else {
            throw log.fatal(root / "trackers", "expected an object, found \(trackersValue.aTypeName)")
        }
        var set = TrackerDataSet()
        set.trackers = try decodeTrackers(trackersObject, at: root / "trackers")
        set.entities = try decodeEntities(top, at: root)
        set.domains = try decodeDomainMap(top, "domains", at: root, required: true)
        set.cnames = try decodeCnames(top, at: root)
        set.cookiePopupFilterList = try decodeCookiePopups(top, at: root)
        for key in top.keys where TDSConventions.topLevelKey(key) == nil {
            let known = TDSConventions.topLevelKeys.filter(\.converted).map(\.name).joined(separator: ", ")
            try log.report(root / key, "unknown top-level key, not converted (radarblock converts \(known))")
        }
        return set
    }

    /// `cpm.filterList` (TDS v7/v8), kept as text; its filters are read by CosmeticFilterList.
    mutating func decodeCookiePopups(_ top: JSONObject, at root: JSONPath) throws -> String? {
        guard let v = top.member("cpm") else { return nil }
        let path = root / "cpm"
        guard case .object(let cpm) = v else {
            try log.report(path, "expected an object, found \(v.aTypeName); cookie pop-up list ignored")
            return nil
        }
        for key in cpm.keys where !TDSConventions.cookiePopupKeys.contains(key) {
            try log.report(path / key, "unknown key of \"cpm\", not converted (radarblock reads filterList)")
        }
        guard let lv = cpm.member("filterList") else {
            try log.report(path, "missing \"filterList\"; no cookie pop-up list")
            return nil
        }
        guard case .string(let text) = lv else {
            try log.report(path / "filterList", "expected a string, found \(lv.aTypeName); cookie pop-up list ignored")
            return nil
        }
        return text
    }

    // MARK: trackers

    mutating func decodeTrackers(_ object: JSONObject, at path: JSONPath) throws -> [String: Tracker] {
        var trackers: [String: Tracker] = [:]
        trackers.reserveCapacity(object.count)
        for key in object.keys {
            let tpath = path / key
            guard let domain = try log.domain(key, at: tpath, consequence: "tracker dropped") else { continue }
            let value = object[key]!
            guard case .object(let t) = value else {
                try log.report(tpath, "expected a tracker object, found \(value.aTypeName); tracker dropped")
                continue
            }
            let tracker = try decodeTracker(t, key: domain, at: tpath)
            if trackers[domain] != nil {
                try log.report(
                    tpath,
                    "tracker \(quoted(domain)) appears twice after normalisation; the later entry replaces the earlier")
            }
            trackers[domain] = tracker
        }
        return trackers
    }

    mutating func decodeTracker(_ t: JSONObject, key: String, at path: JSONPath) throws -> Tracker {
        var tracker = Tracker(domain: key)
        if let raw = try log.optional(t, "domain", at: path, expected: "a string", Typed.string) {
            if let d = try log.domain(raw, at: path / "domain", consequence: "using the key") {
                if d != key {
                    try log.report(
                        path / "domain", "domain \(quoted(raw)) differs from its key \(quoted(key)); using the key")
                }
            }
        } else if t.member("domain") == nil {
            try log.report(path, "missing \"domain\"; using the key")
        }
        tracker.owner = try decodeOwner(t, at: path)
        tracker.prevalence = try log.optional(t, "prevalence", at: path, expected: "a number", Typed.double)
        tracker.fingerprinting = try log.optional(t, "fingerprinting", at: path, expected: "an integer", Typed.int)
        tracker.cookies = try log.optional(t, "cookies", at: path, expected: "a number", Typed.double)
        tracker.categories = try log.stringList(t, "categories", at: path)
        if let raw = try log.optional(t, "default", at: path, expected: "a string", Typed.string) {
            if let action = DefaultAction(rawValue: raw) {
                tracker.defaultAction = action
            } else {
                try log.report(
                    path / "default",
                    "unknown default action \(quoted(raw)) (expected \"block\" or \"ignore\"); field ignored")
            }
        }
        if let rulesValue = t.member("rules") {
            if case .array(let rules) = rulesValue {
                tracker.rules.reserveCapacity(rules.count)
                for (i, r) in rules.enumerated() {
                    if let rule = try decodeRule(r, at: path / "rules" / i) { tracker.rules.append(rule) }
                }
            } else {
                try log.report(path / "rules", "expected an array, found \(rulesValue.aTypeName); rules ignored")
            }
        }
        return tracker
    }

    mutating func decodeOwner(_ t: JSONObject, at trackerPath: JSONPath) throws -> Owner? {
        guard let v = t.member("owner") else { return nil }
        let path = trackerPath / "owner"
        guard case .object(let o) = v else {
            try log.report(path, "expected an object, found \(v.aTypeName); field ignored")
            return nil
        }
        var owner = Owner()
        owner.name = try log.optional(o, "name", at: path, expected: "a string", Typed.string)
        owner.displayName = try log.optional(o, "displayName", at: path, expected: "a string", Typed.string)
        owner.ownedBy = try log.optional(o, "ownedBy", at: path, expected: "a string", Typed.string)
        owner.localizedName = try log.optional(o, "localizedName", at: path, expected: "a string", Typed.string)
        owner.privacyPolicy = try log.optional(o, "privacyPolicy", at: path, expected: "a string", Typed.string)
        owner.url = try log.optional(o, "url", at: path, expected: "a string", Typed.string)
        return owner
    }

    // MARK: rules

    /// A rule whose semantic fields (rule, surrogate, action, options, exceptions) are malformed is dropped,
    /// as in the apps. Informational fields (fingerprinting, cookies, comment) only lose the field.
    mutating func decodeRule(_ value: JSONValue, at path: JSONPath) throws -> TrackerRule? {
        guard case .object(let r) = value else {
            try log.report(path, "expected a rule object, found \(value.aTypeName); rule dropped")
            return nil
        }
        guard let ruleValue = r.member("rule") else {
            try log.report(path, "missing \"rule\"; rule dropped")
            return nil
        }
        guard case .string(let pattern) = ruleValue else {
            try log.report(path / "rule", "expected a string, found \(ruleValue.aTypeName); rule dropped")
            return nil
        }
        guard !pattern.isEmpty else {
            try log.report(path / "rule", "empty rule; rule dropped")
            return nil
        }
        guard pattern.utf8.count <= DecodingLimits.ruleBytes else {
            try log.report(
                path / "rule",
                "rule is \(pattern.utf8.count) bytes long, over the limit of \(DecodingLimits.ruleBytes); rule dropped")
            return nil
        }
        var rule = TrackerRule(rule: pattern)
        if let v = r.member("surrogate") {
            guard case .string(let s) = v else {
                try log.report(path / "surrogate", "expected a string, found \(v.aTypeName); rule dropped")
                return nil
            }
            rule.surrogate = s
        }
        if let v = r.member("action") {
            guard case .string(let s) = v else {
                try log.report(path / "action", "expected a string, found \(v.aTypeName); rule dropped")
                return nil
            }
            guard let action = RuleAction(rawValue: s) else {
                try log.report(path / "action", "unknown action \(quoted(s)); rule dropped")
                return nil
            }
            rule.action = action
        }
        for key in ["options", "exceptions"] {
            guard let v = r.member(key) else { continue }
            guard let matcher = try decodeMatcher(v, at: path / key) else { return nil }
            if key == "options" { rule.options = matcher } else { rule.exceptions = matcher }
        }
        rule.fingerprinting = try log.optional(r, "fingerprinting", at: path, expected: "an integer", Typed.int)
        rule.cookies = try log.optional(r, "cookies", at: path, expected: "a number", Typed.double)
        rule.comment = try log.optional(r, "comment", at: path, expected: "a string", Typed.string)
        return rule
    }

    /// nil = the rule must be dropped (already reported).
    mutating func decodeMatcher(_ value: JSONValue, at path: JSONPath) throws -> RuleMatcher? {
        guard case .object(let m) = value else {
            try log.report(path, "expected an object, found \(value.aTypeName); rule dropped")
            return nil
        }
        var matcher = RuleMatcher()
        if let v = m.member("domains") {
            guard let raw = Typed.stringArray(v) else {
                try log.report(
                    path / "domains",
                    "expected an array of strings, found "
                        + "\(v.aTypeName == "an array" ? "an array with non-strings" : v.aTypeName); rule dropped"
                )
                return nil
            }
            var domains: [String] = []
            domains.reserveCapacity(raw.count)
            for (i, d) in raw.enumerated() {
                if let n = try log.domain(d, at: path / "domains" / i, consequence: "domain dropped") {
                    domains.append(n)
                }
            }
            // An emptied list would change the rule's meaning (no site instead of the listed ones).
            if domains.isEmpty && !raw.isEmpty {
                try log.report(path / "domains", "no usable domain left; rule dropped")
                return nil
            }
            matcher.domains = domains
        }
        if let v = m.member("types") {
            guard let types = Typed.stringArray(v) else {
                try log.report(
                    path / "types",
                    "expected an array of strings, found "
                        + "\(v.aTypeName == "an array" ? "an array with non-strings" : v.aTypeName); rule dropped"
                )
                return nil
            }
            matcher.types = types
        }
        return matcher
    }

    // MARK: entities, domains, cnames

    mutating func decodeEntities(_ top: JSONObject, at root: JSONPath) throws -> [String: Entity] {
        let path = root / "entities"
        guard let v = top.member("entities") else {
            try log.report(root, "missing \"entities\"; no same-entity exemptions")
            return [:]
        }
        guard case .object(let object) = v else {
            try log.report(path, "expected an object, found \(v.aTypeName); entities ignored")
            return [:]
        }
        var entities: [String: Entity] = [:]
        entities.reserveCapacity(object.count)
        for name in object.keys {
            let epath = path / name
            let value = object[name]!
            guard case .object(let e) = value else {
                try log.report(epath, "expected an entity object, found \(value.aTypeName); entity dropped")
                continue
            }
            var entity = Entity()
            entity.displayName = try log.optional(e, "displayName", at: epath, expected: "a string", Typed.string)
            entity.prevalence = try log.optional(e, "prevalence", at: epath, expected: "a number", Typed.double)
            if let raw = try log.stringList(e, "domains", at: epath) {
                entity.domains.reserveCapacity(raw.count)
                for (i, d) in raw.enumerated() {
                    if let n = try log.domain(d, at: epath / "domains" / i, consequence: "domain dropped") {
                        entity.domains.append(n)
                    }
                }
            }
            entities[name] = entity
        }
        return entities
    }

    mutating func decodeDomainMap(_ top: JSONObject, _ key: String, at root: JSONPath, required: Bool) throws
        -> [String: String]
    {
        let path = root / key
        guard let v = top.member(key) else {
            if required { try log.report(root, "missing \"\(key)\"; no domain owners") }
            return [:]
        }
        guard case .object(let object) = v else {
            try log.report(path, "expected an object, found \(v.aTypeName); \(key) ignored")
            return [:]
        }
        var map: [String: String] = [:]
        map.reserveCapacity(object.count)
        for k in object.keys {
            let value = object[k]!
            guard case .string(let name) = value else {
                try log.report(path / k, "expected an entity name string, found \(value.aTypeName); entry dropped")
                continue
            }
            guard let d = try log.domain(k, at: path / k, consequence: "entry dropped") else { continue }
            if let previous = map[d], previous != name {
                try log.report(
                    path / k,
                    "domain \(quoted(d)) appears twice after normalisation; \(quoted(name)) replaces "
                        + "\(quoted(previous))"
                )
            }
            map[d] = name
        }
        return map
    }

    mutating func decodeCnames(_ top: JSONObject, at root: JSONPath) throws -> [String: String] {
        let path = root / "cnames"
        guard let v = top.member("cnames") else { return [:] }
        guard case .object(let object) = v else {
            try log.report(path, "expected an object, found \(v.aTypeName); cnames ignored")
            return [:]
        }
        var map: [String: String] = [:]
        map.reserveCapacity(object.count)
        for k in object.keys {
            let value = object[k]!
            guard case .string(let target) = value else {
                try log.report(path / k, "expected a target host string, found \(value.aTypeName); entry dropped")
                continue
            }
            guard let alias = try log.domain(k, at: path / k, consequence: "entry dropped"),
                let t = try log.domain(target, at: path / k, consequence: "entry dropped")
            else { continue }
            if let previous = map[alias], previous != t {
                try log.report(
                    path / k,
                    "alias \(quoted(alias)) appears twice after normalisation; \(quoted(t)) replaces "
                        + "\(quoted(previous))"
                )
            }
            map[alias] = t
        }
        return map
    }
}
