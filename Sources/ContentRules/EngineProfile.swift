// Target-engine profiles: what each WebKit that radarblock ships to accepts, reads and ignores.
//
// The table below is the one home of these facts. Every gated feature and every profile carries the
// source it was taken from; a feature without a source that dates it is treated as present in every
// profile (it is present in the installed WebKitGTK 2.50.6 and in the WebKitGTK 2.52.6 source) and the
// row says so. Profiles differ only where a row says they do.
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
    /// The `:has()` pseudo-class in css-display-none selectors: Safari 15.4 (WebKit release notes, "Safari 15.4":
    /// ":has() pseudo-class") and WebKitGTK 2.36 (the 2.36.0 release notes list `:has()`), so every profiled
    /// WebKitGTK; measured in the installed 2.50.6 (Tests/webkit cookie pop-up cases). An engine without it rejects
    /// the selector, and a rejected selector makes WebKit skip its whole rule.
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
    /// Trigger keys every profiled engine reads. No source found that dates any of them after Safari 14;
    /// all are read by the installed WebKitGTK 2.50.6 (scripts/check-validate-vs-webkit.py) and by the
    /// WebKitGTK 2.52.6 parser (specs/webkit-content-rules.md §2.3).
    public static let ungatedTriggerKeys: Set<String> = [
        "url-filter", "url-filter-is-case-sensitive", "top-url-filter-is-case-sensitive", "resource-type", "load-type",
        "if-domain", "unless-domain", "if-top-url", "unless-top-url",
    ]

    /// The Safari 14 generation of the parser: WebKit's ContentExtensionParser.cpp at commit cc5fb5e8cbfa
    /// (JSGlobalObject/WTF::Optional era, 2020-21, maxRuleCount = 50000) reads no load-context, no frame-url or
    /// request-method keys, and knows only the actions block, block-cookies, css-display-none,
    /// ignore-previous-rules, make-https and notify.
    static let safari14Parser = "WebKit ContentExtensionParser.cpp at commit cc5fb5e8cbfa (the 50,000-rule parser of the "
        + "Safari 14 generation) does not read it"

    public static let loadContext = GatedFeature(
        name: "load-context", keys: ["load-context"],
        safari: EngineVersion(15), webKitGTK: EngineVersion(2, 44), place: "trigger", widensMatching: true,
        source: safari14Parser + "; ResourceLoadInfo.cpp readLoadContext exists in later sources (WebKit commit "
            + "481f0d2c7f82, 2022-23). Placing it at Safari 15 is inferred from those two revisions, not from release notes.")

    public static let extensionActions = GatedFeature(
        name: "ignore-following-rules, redirect and modify-headers actions", keys: [],
        actions: ["ignore-following-rules", "redirect", "modify-headers"],
        safari: EngineVersion(15), webKitGTK: EngineVersion(2, 44), place: "action", widensMatching: false,
        source: safari14Parser + " (unknown action types are rejected with JSONInvalidActionType). No source found that "
            + "dates them after Safari 14: treated as present from Safari 15 on (unverified); read by WebKitGTK 2.50.6.")

    public static let documentTypes = GatedFeature(
        name: "top-document and child-document resource types", keys: [], resourceTypes: ["top-document", "child-document"],
        safari: EngineVersion(26), webKitGTK: EngineVersion(2, 50), place: "trigger", widensMatching: false,
        source: "Read by the installed WebKitGTK 2.50.6 (every faithful conversion, which uses top-document, compiles there: "
            + "scripts/test-webkit.sh) and by 2.52.6 (specs §2.3). WebKit's ResourceLoadInfo.cpp at commit 481f0d2c7f82 "
            + "(2022-23) reads only \"document\", and its declarativeNetRequest translator still encoded sub_frame as "
            + "document + load-context child-frame in 2025 (rdar://154124673): placed at Safari 26 / WebKitGTK 2.50 "
            + "(inferred from those revisions). Earlier engines reject the names (JSONInvalidStringInTriggerFlagsArray).")

    /// Checked in the WebKitGTK 2.42.2 source (Debian bookworm's webkit2gtk 2.42.2-1~deb12u1, the release of the
    /// Safari 17 year): ContentExtensionParser.cpp reads "frame-url-filter-is-case-sensitive" (line 141) and
    /// "if-frame-url" (line 198) but not "unless-frame-url" or "request-method"; its ContentExtensions.cpp has
    /// TEST_F(ContentExtensionTest, IfFrameURL) (line 3088); CurrentContentRuleListFileVersion = 17.
    static let gtk242Source = "WebKitGTK 2.42.2 source (Debian webkit2gtk 2.42.2-1~deb12u1): ContentExtensionParser.cpp reads "
        + "\"frame-url-filter-is-case-sensitive\" (line 141) and \"if-frame-url\" (line 198), not \"unless-frame-url\"; "
        + "Tools/TestWebKitAPI/Tests/WebCore/ContentExtensions.cpp has TEST_F(ContentExtensionTest, IfFrameURL) (line 3088)"

    public static let frameURLConditions = GatedFeature(
        name: "if-frame-url conditions", keys: ["if-frame-url", "frame-url-filter-is-case-sensitive"],
        safari: EngineVersion(16), webKitGTK: EngineVersion(2, 44), place: "trigger", widensMatching: true,
        source: "Apple WWDC22 session 10049 \"What's new in WKWebView\" (5:46) introduces if-frame-url for iOS 16 / "
            + "Safari 16. " + gtk242Source + ", so the 2023 engine of Safari 17 reads it; every profiled WebKitGTK (2.44 on) "
            + "postdates 2.42. AdGuard SafariConverterLib PR #115 (2025) says \"Safari 26 adds if-frame-url / "
            + "unless-frame-url\" and emits them only from Safari 26: a converter's choice, contradicted for if-frame-url "
            + "by the engine source (its own issue #100 plans if-frame-url \"in Safari 18\" and asks to \"check if it "
            + "can be supported in Safari 17\").")

    public static let unlessFrameURL = GatedFeature(
        name: "unless-frame-url conditions", keys: ["unless-frame-url"],
        safari: EngineVersion(26), webKitGTK: EngineVersion(2, 48), place: "trigger", widensMatching: true,
        source: "WebKit pull request #36341 \"Add support for unless-frame-url to content blocker machinery\" (commit "
            + "6a812431046e, bug 282771, merged 2024-11-07: \"Similar to how we have if-frame-url, we should support "
            + "unless-frame-url\"). " + gtk242Source + ". Read by WebKitGTK 2.50.6 and 2.52.6 (ContentExtensionParser.cpp "
            + "line 210). Safari 18.0 and WebKitGTK 2.46 shipped in September 2024, before the commit: placed at Safari 26 "
            + "(the first profiled Safari after it) and WebKitGTK 2.48 (the first stable series branched after it; "
            + "inferred from release dates, 2.48 source not checked).")

    public static let requestMethod = GatedFeature(
        name: "request-method", keys: ["request-method"],
        safari: EngineVersion(26), webKitGTK: EngineVersion(2, 50), place: "trigger", widensMatching: true,
        source: "AdGuard SafariConverterLib SafariVersion.swift: \"Starting from Safari 26 content blockers add new "
            + "trigger fields like request-method\" ($method is refused below 26); WebKitGTK 2.50.6 (installed) reads it "
            + "(JSONInvalidRequestMethod cases of scripts/check-validate-vs-webkit.py). WebKitGTK 2.48 and older: "
            + "assumed absent because they branched before Safari 26 (inferred from release dates, not verified).")

    public static let identifierRules = GatedFeature(
        name: "_identifier rules", keys: ["_identifier", "_rulesetIdentifier"],
        safari: nil, webKitGTK: EngineVersion(2, 52), place: "rule", widensMatching: false,
        source: "WebKitGTK 2.52.6 release source (Debian webkit2gtk 2.52.6-1), Source/WebCore/contentextensions: "
            + "ContentExtensionParser.cpp loadRuleIdentifier reads _identifier with asDouble (any JSON number; any other "
            + "value is JSONInvalidRuleIdentifier, \"Invalid rule identifier, which must be an integer.\") and "
            + "_rulesetIdentifier with getString (absent or not a string: the empty string), and loadEncodedRules appends a "
            + "rule with the same trigger and a ReportIdentifierAction right after the rule, only when the rule itself was "
            + "kept (a skipped css-display-none rule takes its _identifier unchecked); ContentExtensionCompiler.cpp never "
            + "shares a ReportIdentifierAction's location. Expectations: Tools/TestWebKitAPI/Tests/WebCore/"
            + "ContentExtensions.cpp, TEST_F(ContentExtensionTest, ReportIdentifierAction) and the five _identifier cases "
            + "of ParsingFailures (lines 1626-1630). The 2.50.6 sources have none of this code; the installed "
            + "WebKitGTK 2.50.6 ignores the keys (547/547 validate cases with them ignored). No Safari release notes "
            + "found: not assumed for Safari.")

    public static let all = [loadContext, extensionActions, documentTypes, frameURLConditions, unlessFrameURL, requestMethod,
                             identifierRules]
}

extension EngineProfile {
    static let safariLimitSource = "AdGuard SafariConverterLib SafariVersion.rulesLimit: \"Starting from Safari 15 it allows "
        + "up to 150k rules in a single content blocker extension. Older Safari versions only allowed up to 50k rules\"; "
        + "WebKit's parser had maxRuleCount = 50000 before (ContentExtensionParser.cpp, 2018 revision)"
    static let gtkLimitSource = "ContentExtensionParser.cpp maximum of 150,000 rules (WebKitGTK 2.52.6 source, specs §2.1; "
        + "installed 2.50.6: 150,000 accepted, 150,001 rejected)"

    static func safari(_ major: Int, _ minor: Int = 0, _ os: String) -> EngineProfile {
        let v = EngineVersion(major, minor)
        return EngineProfile(name: "safari-\(v)", family: .safari, version: v,
                             maximumRuleCount: v < EngineVersion(15) ? 50_000 : 150_000,
                             source: "\(os) (SafariConverterLib SafariVersion.autodetect); " + safariLimitSource)
    }

    static func webKitGTK(_ minor: Int, _ note: String) -> EngineProfile {
        EngineProfile(name: "webkitgtk-2.\(minor)", family: .webKitGTK, version: EngineVersion(2, minor),
                      maximumRuleCount: 150_000, source: note + "; " + gtkLimitSource)
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
        webKitGTK(52, "WebKitGTK 2.52 stable series; facts from the 2.52.6 source release (Debian webkit2gtk 2.52.6-1), "
                  + "diffed against 2.50.6 in Source/WebCore/contentextensions: besides _identifier rules the only "
                  + "behaviour change is in ContentExtensionsBackend::processContentRuleListsForLoad (a block after a "
                  + "redirect and a redirect after a block are dropped; 2.50.6 kept both and reached the same block "
                  + "decision through redirectedPriorToBlock), which acts on the load, not on the action list `match` "
                  + "reports; "
                  + "CurrentContentRuleListFileVersion 21 (2.50.6: 20), so 2.52 recompiles a store written by 2.50"),
    ]

    /// The fixed default: the engine the project verifies against (never what happens to be installed).
    public static let `default` = named("webkitgtk-2.50")!

    public static func named(_ name: String) -> EngineProfile? { all.first { $0.name == name } }

    /// `--target` values for help texts and errors.
    public static var names: String { all.map(\.name).joined(separator: ", ") }

    /// The help text's table: one line per profile.
    public static var helpTable: String {
        all.map { p in
            var features: [String] = []
            for f in GatedFeature.all where !p.has(f) { features.append(f.keys.first ?? f.actions.first ?? f.resourceTypes[0]) }
            let limit = p.maximumRuleCount == 50_000 ? "50,000" : "150,000"
            let pad = String(repeating: " ", count: max(1, 16 - p.name.count))
            return "  \(p.name)\(pad)\(limit) rules" + (features.isEmpty ? "" : "; lacks " + features.joined(separator: ", "))
                + (p == .default ? "  (default)" : "")
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
            return "rule \(ruleIndex): \(place) key \"\(key)\" is ignored by \(target) (\(feature.name) are not read there)"
        }
        if let feature {
            return "rule \(ruleIndex): \(place) key \"\(key)\" is ignored by \(target) (\(feature.name) are not read there), "
                + "so the rule matches more widely than written"
        }
        return "rule \(ruleIndex): \(place) key \"\(key)\" is not a WebKit key; \(target) ignores it"
    }
}

extension EngineProfile {
    /// Every trigger and rule key in `root` (a rule-list array) that this engine would ignore, in rule order.
    public func ignoredKeys(in root: JSONValue) -> [IgnoredKey] {
        guard case .array(let rules) = root else { return [] }
        let trigger = triggerKeys
        var out: [IgnoredKey] = []
        for (i, rule) in rules.enumerated() {
            guard case .object(let r) = rule else { continue }
            for key in r.keys.sorted() where key != "trigger" && key != "action" {
                let gated = GatedFeature.identifierRules.keys.contains(key)
                if gated && readsIdentifierRules { continue }
                out.append(IgnoredKey(ruleIndex: i, place: "rule", key: key, feature: gated ? .identifierRules : nil, target: name))
            }
            guard case .object(let t)? = r["trigger"] else { continue }
            for key in t.keys.sorted() where !trigger.contains(key) {
                out.append(IgnoredKey(ruleIndex: i, place: "trigger", key: key, feature: missingFeature(forKey: key), target: name))
            }
        }
        return out
    }

    /// The ignored keys that some WebKit reads as a condition or restriction: on this target the rule would
    /// match more widely than written, so convert, compile and build refuse them.
    public func unsupportedKeys(in root: JSONValue) -> [IgnoredKey] {
        ignoredKeys(in: root).filter { $0.feature?.widensMatching == true }
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
        var s = "rule \(first.ruleIndex): \(first.place) key \"\(first.key)\" is not supported by \(target.name) "
            + "(\(first.feature?.name ?? "") are read from \(since.isEmpty ? "no profiled release" : since) on): "
            + "\(target.name) would ignore it and the rule would match more widely than written"
        if keys.count > 1 { s += " (\(keys.count - 1) more such key\(keys.count == 2 ? "" : "s"))" }
        return s
    }
}

extension EngineProfile {
    /// Throws when a rule of `root` needs a feature this engine lacks (see `unsupportedKeys`).
    public func requireSupport(in root: JSONValue) throws {
        let keys = unsupportedKeys(in: root)
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
    /// its parser (action types, resource-type names) and without keys it would ignore. `bytes` is the JSON.
    public func checkGenerated(_ bytes: [UInt8], ruleCount: Int) throws {
        if ruleCount > maximumRuleCount { throw TargetRuleLimitError(target: self, ruleCount: ruleCount) }
        _ = try RuleListParser.parse(bytes: bytes, options: RuleListParserOptions(target: self))
        try requireSupport(in: RuleListJSONReader.parse(bytes))
    }
}
