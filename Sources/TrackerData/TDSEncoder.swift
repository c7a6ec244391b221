// Writing a TDS (v5) back out, e.g. from the TDS generator. The output decodes with our own decoder to an
// equal TrackerDataSet, and `canonicalBytes` is deterministic (sorted keys, no whitespace).

import StrictJSON

extension TrackerDataSet {
    /// The TDS as JSON: `trackers`, `entities`, `domains`, `cnames` (always present, possibly empty), and
    /// `cpm` when the set has a cookie pop-up list.
    public var jsonValue: JSONValue {
        var trackersObject = JSONObject()
        for domain in trackers.keys.sorted(by: byteOrder) { trackersObject[domain] = trackers[domain]!.jsonValue }
        var entitiesObject = JSONObject()
        for name in entities.keys.sorted(by: byteOrder) { entitiesObject[name] = entities[name]!.jsonValue }
        var domainsObject = JSONObject()
        for d in domains.keys.sorted(by: byteOrder) { domainsObject[d] = .string(domains[d]!) }
        var cnamesObject = JSONObject()
        for alias in cnames.keys.sorted(by: byteOrder) { cnamesObject[alias] = .string(cnames[alias]!) }
        var top = JSONObject([
            ("trackers", .object(trackersObject)),
            ("entities", .object(entitiesObject)),
            ("domains", .object(domainsObject)),
            ("cnames", .object(cnamesObject)),
        ])
        if let cookiePopupFilterList { top["cpm"] = ["filterList": .string(cookiePopupFilterList)] }
        return .object(top)
    }

    /// Deterministic bytes: same data set, same bytes (keys sorted; arrays in model order).
    public var canonicalBytes: [UInt8] { JSONWriter.bytes(jsonValue, options: [.sortedKeys]) }
}

extension Tracker {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["domain"] = .string(domain)
        if let owner { o["owner"] = owner.jsonValue }
        if let prevalence { o["prevalence"] = .number(prevalence) }
        if let fingerprinting { o["fingerprinting"] = .number(Double(fingerprinting)) }
        if let cookies { o["cookies"] = .number(cookies) }
        if let categories { o["categories"] = .array(categories.map { .string($0) }) }
        if let defaultAction { o["default"] = .string(defaultAction.rawValue) }
        if !rules.isEmpty { o["rules"] = .array(rules.map(\.jsonValue)) }
        return .object(o)
    }
}

extension Owner {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        if let name { o["name"] = .string(name) }
        if let displayName { o["displayName"] = .string(displayName) }
        if let localizedName { o["localizedName"] = .string(localizedName) }
        if let ownedBy { o["ownedBy"] = .string(ownedBy) }
        if let privacyPolicy { o["privacyPolicy"] = .string(privacyPolicy) }
        if let url { o["url"] = .string(url) }
        return .object(o)
    }
}

extension Entity {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["domains"] = .array(domains.map { .string($0) })
        if let displayName { o["displayName"] = .string(displayName) }
        if let prevalence { o["prevalence"] = .number(prevalence) }
        return .object(o)
    }
}

extension RuleMatcher {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        if let domains { o["domains"] = .array(domains.map { .string($0) }) }
        if let types { o["types"] = .array(types.map { .string($0) }) }
        return .object(o)
    }
}

extension TrackerRule {
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["rule"] = .string(rule)
        if let surrogate { o["surrogate"] = .string(surrogate) }
        if let action { o["action"] = .string(action.rawValue) }
        if let options { o["options"] = options.jsonValue }
        if let exceptions { o["exceptions"] = exceptions.jsonValue }
        if let fingerprinting { o["fingerprinting"] = .number(Double(fingerprinting)) }
        if let cookies { o["cookies"] = .number(cookies) }
        if let comment { o["comment"] = .string(comment) }
        return .object(o)
    }
}
