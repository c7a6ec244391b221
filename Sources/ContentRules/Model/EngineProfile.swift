// Target-engine profiles: what each WebKit that radarblock ships to accepts, reads and ignores.
//
// The table below is the one home of these facts. Every gated feature and every profile carries the
// source it was taken from, in short (docs/targets.md keeps the research); a feature without a source that
// dates it is treated as present in every profile (it is present in the installed WebKitGTK 2.50.6 and in
// the WebKitGTK 2.52.6 source) and the row says so. Profiles differ only where a row says they do.
//
// An engine that does not know a trigger key ignores it silently (ContentExtensionParser reads only the
// keys it knows; measured in WebKitGTK 2.50.6 with an unknown key), so a rule written with a newer key
// matches more widely on an older engine. An engine that does not know an action type or a resource
// type name rejects the whole list (JSONInvalidActionType / JSONInvalidStringInTriggerFlagsArray).

/// A WebKit release line, compared by (major, minor).
public struct EngineVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public init(_ major: Int, _ minor: Int = 0) {
        self.major = major
        self.minor = minor
    }
    public static func < (a: EngineVersion, b: EngineVersion) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
    public var description: String { minor == 0 ? "\(major)" : "\(major).\(minor)" }
}

/// Safari (iOS/macOS, WKWebView) or WebKitGTK/WPE.
public enum EngineFamily: String, Sendable, Hashable {
    case safari
    case webKitGTK = "webkitgtk"

    public var displayName: String { self == .safari ? "Safari" : "WebKitGTK" }
}

/// A feature some engines lack: the keys it brings and from which release of each family it is read.
public struct GatedFeature: Sendable, Hashable {
    public let name: String
    /// Trigger keys (or rule keys, for `_identifier`) the feature brings; an engine without it ignores them.
    public let keys: [String]
    /// Action types and resource-type names the feature brings; an engine without it rejects them
    /// (JSONInvalidActionType / JSONInvalidStringInTriggerFlagsArray), unlike keys, which it ignores.
    public var actions: [String] = []
    public var resourceTypes: [String] = []
    /// First Safari / WebKitGTK release that reads the keys; nil: none of the profiled releases.
    public let safari: EngineVersion?
    public let webKitGTK: EngineVersion?
    /// "trigger" or "rule": where the keys are written.
    public let place: String
    /// True when an engine that ignores the keys matches the rule more widely than written (a condition or a
    /// restriction is lost); false when only a side effect is lost (identifier reports).
    public let widensMatching: Bool
    public let source: String

    func isPresent(in family: EngineFamily, _ version: EngineVersion) -> Bool {
        guard let since = family == .safari ? safari : webKitGTK else { return false }
        return version >= since
    }
}

public struct EngineProfile: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let family: EngineFamily
    public let version: EngineVersion
    /// The largest rule array the engine accepts (JSONTooManyRules beyond it).
    public let maximumRuleCount: Int
    /// WebKit's rule limit since Safari 15 (ContentExtensionParser.cpp): the one home of the figure.
    public static let webKitRuleLimit = 150_000
    /// The limit of the Safari 14 generation of the parser (maxRuleCount).
    public static let safari14RuleLimit = 50_000
    /// Where the profile's release mapping and rule limit come from.
    public let source: String

    public var description: String { name }
    public var displayName: String { "\(family.displayName) \(version)" }

    public func has(_ feature: GatedFeature) -> Bool { feature.isPresent(in: family, version) }

    /// if-frame-url and frame-url-filter-is-case-sensitive.
    public var readsFrameURLConditions: Bool { has(GatedFeature.frameURLConditions) }
    public var readsUnlessFrameURL: Bool { has(GatedFeature.unlessFrameURL) }
    /// False for a condition key this engine ignores (the rule then has no condition there).
    public func reads(_ condition: TriggerCondition.Kind) -> Bool {
        switch condition {
        case .ifFrameURL: return readsFrameURLConditions
        case .unlessFrameURL: return readsUnlessFrameURL
        case .ifDomain, .unlessDomain, .ifTopURL, .unlessTopURL: return true
        }
    }
    public var readsRequestMethod: Bool { has(GatedFeature.requestMethod) }
    /// `_identifier` / `_rulesetIdentifier` rules (ReportIdentifierAction).
    public var readsIdentifierRules: Bool { has(GatedFeature.identifierRules) }
    public var readsLoadContext: Bool { has(GatedFeature.loadContext) }
    /// The `:has()` pseudo-class in css-display-none selectors: Safari 15.4 and WebKitGTK 2.36 (docs/targets.md).
    /// An engine without it rejects the selector, and a rejected selector makes WebKit skip its whole rule.
    public var supportsHasPseudoClass: Bool {
        version >= (family == .safari ? EngineVersion(15, 4) : EngineVersion(2, 36))
    }

    /// False for an action type or resource-type name that a newer engine accepts and this one rejects.
    public func accepts(actionType name: String) -> Bool {
        GatedFeature.all.allSatisfy { !$0.actions.contains(name) || has($0) }
    }
    public func accepts(resourceType name: String) -> Bool {
        GatedFeature.all.allSatisfy { !$0.resourceTypes.contains(name) || has($0) }
    }

    /// Trigger keys this engine reads; any other trigger key is ignored by it.
    public var triggerKeys: Set<String> {
        var keys = GatedFeature.ungatedTriggerKeys
        for f in GatedFeature.all where has(f) && f.place == "trigger" { keys.formUnion(f.keys) }
        return keys
    }

    /// Keys that some WebKit reads but this one ignores, with the feature that brings them.
    public func missingFeature(forKey key: String) -> GatedFeature? {
        GatedFeature.all.first { $0.keys.contains(key) && !has($0) }
    }
}

extension GatedFeature {
    /// Trigger keys every profiled engine reads (docs/targets.md, "Ungated trigger keys").
    public static let ungatedTriggerKeys: Set<String> = [
        "url-filter", "url-filter-is-case-sensitive", "top-url-filter-is-case-sensitive", "resource-type", "load-type",
        "if-domain", "unless-domain", "if-top-url", "unless-top-url",
    ]

    /// The Safari 14 generation of the parser (docs/targets.md, "The Safari 14 parser").
    static let safari14Parser = "not read by WebKit's Safari 14 parser (ContentExtensionParser.cpp at cc5fb5e8cbfa)"

    public static let loadContext = GatedFeature(
        name: "load-context", keys: ["load-context"],
        safari: EngineVersion(15), webKitGTK: EngineVersion(2, 44), place: "trigger", widensMatching: true,
        source: safari14Parser + "; WebKit's ResourceLoadInfo.cpp reads it at 481f0d2c7f82 (2022-23)")

    public static let extensionActions = GatedFeature(
        name: "ignore-following-rules, redirect and modify-headers actions", keys: [],
        actions: ["ignore-following-rules", "redirect", "modify-headers"],
        safari: EngineVersion(15), webKitGTK: EngineVersion(2, 44), place: "action", widensMatching: false,
        source: safari14Parser + "; read by WebKitGTK 2.50.6; Safari 15 unverified")

    public static let documentTypes = GatedFeature(
        name: "top-document and child-document resource types", keys: [],
        resourceTypes: ["top-document", "child-document"],
        safari: EngineVersion(26), webKitGTK: EngineVersion(2, 50), place: "trigger", widensMatching: false,
        source: "read by WebKitGTK 2.50.6 and 2.52.6; WebKit's ResourceLoadInfo.cpp at 481f0d2c7f82 reads only "
            + "\"document\"; release placement inferred")

    /// docs/targets.md, "The WebKitGTK 2.42.2 source".
    static let gtk242Source =
        "WebKitGTK 2.42.2 source: ContentExtensionParser.cpp reads if-frame-url, not unless-frame-url"

    public static let frameURLConditions = GatedFeature(
        name: "if-frame-url conditions", keys: ["if-frame-url", "frame-url-filter-is-case-sensitive"],
        safari: EngineVersion(16), webKitGTK: EngineVersion(2, 44), place: "trigger", widensMatching: true,
        source: "Apple WWDC22 session 10049 (iOS 16 / Safari 16); " + gtk242Source)

    public static let unlessFrameURL = GatedFeature(
        name: "unless-frame-url conditions", keys: ["unless-frame-url"],
        safari: EngineVersion(26), webKitGTK: EngineVersion(2, 48), place: "trigger", widensMatching: true,
        source: "WebKit commit 6a812431046e (2024-11-07); " + gtk242Source + "; placement inferred from release dates")

    public static let requestMethod = GatedFeature(
        name: "request-method", keys: ["request-method"],
        safari: EngineVersion(26), webKitGTK: EngineVersion(2, 50), place: "trigger", widensMatching: true,
        source: "AdGuard SafariConverterLib (Safari 26); read by WebKitGTK 2.50.6; 2.48 and older assumed absent")

    public static let identifierRules = GatedFeature(
        name: "_identifier rules", keys: ["_identifier", "_rulesetIdentifier"],
        safari: nil, webKitGTK: EngineVersion(2, 52), place: "rule", widensMatching: false,
        source: "WebKitGTK 2.52.6 source (ContentExtensionParser.cpp loadRuleIdentifier); ignored by 2.50.6; "
            + "no Safari source")

    public static let all = [
        loadContext, extensionActions, documentTypes, frameURLConditions, unlessFrameURL, requestMethod,
        identifierRules,
    ]
}

extension EngineProfile {
    static let safariLimitSource =
        "AdGuard SafariConverterLib SafariVersion.rulesLimit; WebKit's parser before "
        + "Safari 15: 50,000"
    static let gtkLimitSource =
        "ContentExtensionParser.cpp maximum of 150,000 rules (WebKitGTK 2.52.6 source; "
        + "measured in 2.50.6)"

    static func safari(_ major: Int, _ minor: Int = 0, _ os: String) -> EngineProfile {
        let v = EngineVersion(major, minor)
        return EngineProfile(
            name: "safari-\(v)", family: .safari, version: v,
            maximumRuleCount: v < EngineVersion(15) ? safari14RuleLimit : webKitRuleLimit,
            source: "\(os) (SafariConverterLib SafariVersion.autodetect); " + safariLimitSource)
    }

    static func webKitGTK(_ minor: Int, _ note: String) -> EngineProfile {
        EngineProfile(
            name: "webkitgtk-2.\(minor)", family: .webKitGTK, version: EngineVersion(2, minor),
            maximumRuleCount: webKitRuleLimit, source: note + "; " + gtkLimitSource)
    }

    /// Every profile, oldest first within each family.
    public static let all: [EngineProfile] = [
        safari(14, 0, "iOS 14 / macOS 11"),
        safari(15, 0, "iOS 15 / macOS 12"),
        safari(16, 4, "iOS 16.4 / macOS 13.3"),
        safari(17, 0, "iOS 17 / macOS 14"),
        safari(18, 0, "iOS 18 / macOS 15"),
        safari(26, 0, "iOS 26 / macOS 26"),
        webKitGTK(44, "WebKitGTK 2.44 stable series"),
        webKitGTK(46, "WebKitGTK 2.46 stable series"),
        webKitGTK(48, "WebKitGTK 2.48 stable series"),
        webKitGTK(50, "WebKitGTK 2.50 stable series; 2.50.6 is the installed engine every real-WebKit check runs"),
        webKitGTK(52, "WebKitGTK 2.52 stable series; facts from the 2.52.6 source release"),
    ]

    /// The engine a list is read as when no `--target` is given (validate, compile, match): the one the project
    /// verifies against (never what happens to be installed).
    public static let `default` = named("webkitgtk-2.50")!

    /// What build and convert write for when no `--target` is given: a list every current engine reads the same
    /// way, so a team that never chose a target ships one that compiles everywhere. Its features are exactly
    /// those every profile of `portableReaders` has (EngineProfileTests checks it; docs/targets.md argues it).
    public static let portable = named("safari-15")!

    /// The engines the default output must work on: every Safari from 15 and every WebKitGTK.
    public static var portableReaders: [EngineProfile] {
        all.filter { $0.family == .webKitGTK || $0.version >= portable.version }
    }

    public static func named(_ name: String) -> EngineProfile? { all.first { $0.name == name } }

    /// `--target` values for help texts and errors.
    public static var names: String { all.map(\.name).joined(separator: ", ") }

    /// 150000 as "150,000".
    static func withThousandsSeparators(_ n: Int) -> String {
        var digits = String(n)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(Substring(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        return ([Substring(digits)] + groups).joined(separator: ",")
    }

    /// The help text's table: one line per profile.
    public static var helpTable: String {
        all.map { p in
            var features: [String] = []
            for f in GatedFeature.all where !p.has(f) {
                features.append(f.keys.first ?? f.actions.first ?? f.resourceTypes[0])
            }
            let limit = withThousandsSeparators(p.maximumRuleCount)
            let pad = String(repeating: " ", count: max(1, 16 - p.name.count))
            return "  \(p.name)\(pad)\(limit) rules"
                + (features.isEmpty ? "" : "; lacks " + features.joined(separator: ", "))
                + (p == .default ? "  (default when reading)" : "")
                + (p == .portable ? "  (default when writing)" : "")
        }.joined(separator: "\n")
    }
}

/// A key in a rule list that the target engine would silently ignore.
public struct IgnoredKey: Sendable, Hashable, CustomStringConvertible {
    public let ruleIndex: Int
    /// "trigger" or "rule" (a key of the rule object itself).
    public let place: String
    public let key: String
    /// The feature some newer engine reads the key for; nil when no WebKit reads it.
    public let feature: GatedFeature?
    public let target: String

    public var description: String {
        if let feature, !feature.widensMatching {
            return
                "rule \(ruleIndex): \(place) key \"\(key)\" is ignored by \(target) (\(feature.name) are not read "
                + "there)"
        }
        if let feature {
            return
                "rule \(ruleIndex): \(place) key \"\(key)\" is ignored by \(target) (\(feature.name) are not read "
                + "there), "
                + "so the rule matches more widely than written"
        }
        return "rule \(ruleIndex): \(place) key \"\(key)\" is not a WebKit key; \(target) ignores it"
    }
}

extension EngineProfile {
    /// Every trigger and rule key in `root` (a rule-list array) that this engine would ignore, in rule order;
    /// `root` holds the rules from index `base` of a list on (a share of it), which the keys name.
    public func ignoredKeys(in root: JSONValue, from base: Int = 0) -> [IgnoredKey] {
        guard case .array(let rules) = root else { return [] }
        let trigger = triggerKeys
        var out: [IgnoredKey] = []
        for (offset, rule) in rules.enumerated() {
            let i = base + offset
            guard case .object(let r) = rule else { continue }
            for key in unknownKeys(of: r, known: { $0 == "trigger" || $0 == "action" }) {
                let gated = GatedFeature.identifierRules.keys.contains(key)
                if gated && readsIdentifierRules { continue }
                out.append(
                    IgnoredKey(
                        ruleIndex: i, place: "rule", key: key, feature: gated ? .identifierRules : nil, target: name))
            }
            guard case .object(let t)? = r["trigger"] else { continue }
            for key in unknownKeys(of: t, known: trigger.contains) {
                out.append(
                    IgnoredKey(
                        ruleIndex: i, place: "trigger", key: key, feature: missingFeature(forKey: key), target: name))
            }
        }
        return out
    }

    /// The keys of `object` that `known` does not take, in byte order: sorted only when two or more are unknown, so
    /// that a rule whose keys are all known (nearly every rule of a large generated list) costs no sort.
    func unknownKeys(of object: JSONObject, known: (String) -> Bool) -> [String] {
        let keys = object.keys.filter { !known($0) }
        return keys.count > 1 ? keys.sorted() : keys
    }

    /// The ignored keys that some WebKit reads as a condition or restriction: on this target the rule would
    /// match more widely than written, so convert, compile and build refuse them.
    public func unsupportedKeys(in root: JSONValue, from base: Int = 0) -> [IgnoredKey] {
        ignoredKeys(in: root, from: base).filter { $0.feature?.widensMatching == true }
    }
}

import StrictJSON

/// Rules that need a feature the target lacks: it would ignore their keys and match more widely.
public struct UnsupportedOnTargetError: Error, Sendable, CustomStringConvertible {
    public let target: EngineProfile
    public let keys: [IgnoredKey]

    public var description: String {
        let first = keys[0]
        let since = [first.feature?.safari.map { "Safari \($0)" }, first.feature?.webKitGTK.map { "WebKitGTK \($0)" }]
            .compactMap { $0 }.joined(separator: " / ")
        var s =
            "rule \(first.ruleIndex): \(first.place) key \"\(first.key)\" is not supported by \(target.name) "
            + "(\(first.feature?.name ?? "") are read from \(since.isEmpty ? "no profiled release" : since) on): "
            + "\(target.name) would ignore it and the rule would match more widely than written"
        if keys.count > 1 { s += " (\(keys.count - 1) more such key\(keys.count == 2 ? "" : "s"))" }
        return s
    }
}

extension EngineProfile {
    /// Throws when a rule of `root` needs a feature this engine lacks (see `unsupportedKeys`).
    public func requireSupport(in root: JSONValue) throws { try requireSupport(unsupportedKeys(in: root)) }

    func requireSupport(_ keys: [IgnoredKey]) throws {
        if !keys.isEmpty { throw UnsupportedOnTargetError(target: self, keys: keys) }
    }
}

/// More rules than the target accepts in one list.
public struct TargetRuleLimitError: Error, Sendable, CustomStringConvertible {
    public let target: EngineProfile
    public let ruleCount: Int
    public var description: String {
        "\(ruleCount) rules exceed \(target.name)'s limit of \(target.maximumRuleCount) rules per list "
            + "(`radarblock build --target \(target.name)` splits the rules into lists that fit)"
    }
}

extension EngineProfile {
    /// A generated rule list must be one this engine accepts as meant: within its rule limit, accepted by
    /// its parser (action types, resource-type names) and without keys it would ignore. `bytes` is the JSON;
    /// returns the list as this engine parses it, so a caller compiles it without parsing it again.
    @discardableResult
    public func checkGenerated(_ bytes: [UInt8], ruleCount: Int) throws -> ParsedRuleList {
        try requireWithinLimit(ruleCount)
        // Read once: the parser and the keys check look at the same JSON value.
        let root = try RuleListParser.decode(bytes)
        let list = try RuleListParser.parse(root, options: RuleListParserOptions(target: self))
        try requireSupport(in: root)
        return list
    }
}

/// A share of consecutive rules of a generated list, encoded and checked on its own (on a core of its own:
/// `EngineProfile.checkGeneratedShare`); `EngineProfile.checkGenerated(shares:)` joins the shares of a list and
/// refuses it exactly as `checkGenerated` refuses the whole, with the same error.
public struct GeneratedListShare: Sendable {
    /// `CanonicalRuleWriter.bytes` of the share's rules.
    let bytes: [UInt8]
    let ruleCount: Int
    /// The parser's reading of the share, the share's own part of each check of the whole list.
    let outcome: Outcome

    enum Outcome: Sendable {
        /// A syntax error, where it is in the share's bytes.
        case invalidJSON(JSONParseError)
        /// The share's first rule the parser refuses, by its index in the whole list.
        case invalidRule(any Error)
        /// The rules WebKit keeps (report-identifier rules included) and the keys the target would ignore
        /// although some WebKit reads them, named by their index in the whole list.
        case parsed(rules: Int, unsupported: [IgnoredKey])
    }
}

extension EngineProfile {
    /// The list's own checks, before anything is read: its size.
    func requireWithinLimit(_ ruleCount: Int) throws {
        if ruleCount > maximumRuleCount { throw TargetRuleLimitError(target: self, ruleCount: ruleCount) }
    }

    /// The canonical JSON of `rules`, a share of a list (its indices are the list's), read back and checked as
    /// `checkGenerated` checks each rule of the whole list.
    public func checkGeneratedShare(_ rules: ArraySlice<ContentRule>) -> GeneratedListShare {
        let bytes = CanonicalRuleWriter.bytes(rules)
        let base = rules.startIndex
        let outcome: GeneratedListShare.Outcome
        do {
            let root = try RuleListJSONReader.parse(bytes)
            guard case .array(let elements) = root else { preconditionFailure("the writer writes an array") }
            let list = try RuleListParser.parseRules(elements, at: base, options: RuleListParserOptions(target: self))
            outcome = .parsed(rules: list.rules.count, unsupported: unsupportedKeys(in: root, from: base))
        } catch let e as JSONParseError {
            outcome = .invalidJSON(e)
        } catch {
            outcome = .invalidRule(error)
        }
        return GeneratedListShare(bytes: bytes, ruleCount: rules.count, outcome: outcome)
    }

    /// The generated list made of `shares` (consecutive, in order), with the checks of the whole list made once:
    /// its bytes, `CanonicalRuleWriter.bytes` of all its rules, or the error `checkGenerated` throws for them.
    public func checkGenerated(shares: [GeneratedListShare]) throws -> [UInt8] {
        try requireWithinLimit(shares.reduce(0) { $0 + $1.ruleCount })
        var parsed = 0
        var unsupported: [IgnoredKey] = []
        // The order of the whole check: a syntax error anywhere, then the first rule refused, then the list.
        var (base, start) = (0, 2)
        for share in shares {
            // Where the share's error is in the whole list: each rule a line, the share's elements from line
            // `base` + 2 and byte `start` on (after "[\n", as in the share's own bytes).
            if case .invalidJSON(let e) = share.outcome {
                throw RuleListParser.invalid(
                    JSONParseError(
                        message: e.message, offset: e.offset - 2 + start, line: e.line + base, column: e.column))
            }
            base += share.ruleCount
            start += share.ruleCount == 0 ? 0 : share.bytes.count - 5 + 2
        }
        for share in shares {
            switch share.outcome {
            case .invalidJSON: break
            case .invalidRule(let e): throw e
            case .parsed(let rules, let keys):
                parsed += rules
                unsupported += keys
            }
        }
        try RuleListParser.requireRules(parsed: parsed, of: shares.reduce(0) { $0 + $1.ruleCount })
        try requireSupport(unsupported)
        return JSONWriter.joinedLinesArrays(shares.map(\.bytes))
    }
}
