// WebKit's rule-list front end (ContentExtensionParser.cpp, WebKitGTK 2.50.6), reproduced check by check:
// the same order of checks, the same first-error-wins behaviour, the same silently skipped rules.
// `parse` is WebKit's parseRuleList; `validate` adds the url-filter/condition regex checks that WebKit runs
// afterwards in compileRuleList, which is why a syntax error in rule 5 wins over a bad regex in rule 2.

import StrictJSON

/// What to accept, where WebKit versions or entry points differ.
public struct RuleListParserOptions: Sendable, Hashable {
    /// False reproduces the declarativeNetRequest path (CSSSelectorsAllowed::No): every css-display-none rule is
    /// skipped.
    public var cssSelectorsAllowed: Bool
    /// True reproduces WebKit 2.52+, which reads `_identifier` / `_rulesetIdentifier` and appends a report-identifier
    /// rule after each rule that has one. The installed WebKitGTK 2.50.6 ignores those keys (false, the default).
    public var identifierRules: Bool
    /// The engine whose parser to reproduce: its rule limit and the trigger keys it reads (others are ignored).
    public var target: EngineProfile

    /// `identifierRules` nil means: as the target does.
    public init(cssSelectorsAllowed: Bool = true, identifierRules: Bool? = nil, target: EngineProfile = .default) {
        self.cssSelectorsAllowed = cssSelectorsAllowed
        self.identifierRules = identifierRules ?? target.readsIdentifierRules
        self.target = target
    }

    /// What the installed WebKitGTK (2.50.6) does.
    public static let installedWebKit = RuleListParserOptions()
}

/// One rule as WebKit keeps it after parsing.
public struct ParsedRule: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case content(ContentRule)
        /// The extra rule WebKit 2.52+ appends for `_identifier` (ReportIdentifierAction): same trigger.
        case reportIdentifier(trigger: Trigger, identifier: Double, rulesetIdentifier: String)
    }
    public var kind: Kind
    /// 0-based index of the rule object in the JSON array it came from.
    public var sourceIndex: Int

    public var trigger: Trigger {
        switch kind {
        case .content(let rule): return rule.trigger
        case .reportIdentifier(let trigger, _, _): return trigger
        }
    }
}

/// A rule WebKit drops without an error.
public struct SkippedRule: Sendable, Hashable {
    public enum Reason: Sendable, Hashable {
        /// css-display-none whose selector WebKit's CSS parser rejects; `detail` says why we think so.
        case invalidSelector(selector: String, detail: String)
        /// css-display-none while CSS selectors are not allowed.
        case cssSelectorsNotAllowed
    }
    public var sourceIndex: Int
    public var reason: Reason

    public var description: String {
        switch reason {
        case .invalidSelector(let selector, let detail):
            return
                "rule \(sourceIndex): css-display-none selector \(quoted(selector)) is rejected by WebKit's CSS "
                + "parser (\(detail)); WebKit skips the rule"
        case .cssSelectorsNotAllowed:
            return "rule \(sourceIndex): css-display-none rules are skipped when CSS selectors are not allowed"
        }
    }
}

public struct ParsedRuleList: Sendable, Hashable {
    /// Rules in WebKit's order (report-identifier rules right after their rule).
    public var rules: [ParsedRule]
    public var skipped: [SkippedRule]
    /// Number of elements in the top-level JSON array.
    public var sourceRuleCount: Int

    /// The ordinary rules (without report-identifier rules), in order.
    public var contentRules: [ContentRule] {
        rules.compactMap { if case .content(let r) = $0.kind { return r } else { return nil } }
    }
}

public enum RuleListParser {
    /// WebKit's maximum number of elements in the top-level array (checked before any element is read).
    public static let maximumRuleCount = EngineProfile.webKitRuleLimit

    /// WebKit's parseRuleList: JSON and rule-by-rule validation, without the regex checks of the compile stage.
    public static func parse(bytes: [UInt8], options: RuleListParserOptions = .installedWebKit) throws -> ParsedRuleList
    {
        try parse(decode(bytes), options: options)
    }

    /// The JSON as WebKit reads it (RuleListJSONReader), a syntax error as WebKit names it (JSONInvalid).
    public static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try RuleListJSONReader.parse(bytes)
        } catch let e as JSONParseError {
            throw invalid(e)
        }
    }

    /// A syntax error as WebKit names it.
    static func invalid(_ e: JSONParseError) -> RuleListValidationError {
        RuleListValidationError(.jsonInvalid, detail: e.description)
    }

    /// The same checks on an already-decoded JSON value. Note that decoding with StrictJSON instead of
    /// `RuleListJSONReader` differs from WebKit for a few inputs (see RuleListJSONReader.swift).
    public static func parse(_ root: JSONValue, options: RuleListParserOptions = .installedWebKit) throws
        -> ParsedRuleList
    {
        guard case .array(let elements) = root else {
            throw RuleListValidationError(
                .jsonTopLevelStructureNotAnArray, detail: "the top-level value is \(describe(root))")
        }
        let limit = options.target.maximumRuleCount
        if elements.count > limit {
            throw RuleListValidationError(
                .jsonTooManyRules, detail: "\(elements.count) rules, at most \(limit) allowed by \(options.target.name)"
            )
        }
        let list = try parseRules(elements, at: 0, options: options)
        try requireRules(parsed: list.rules.count, of: elements.count)
        return list
    }

    /// The rule-by-rule part of `parse`, for `elements` that begin at index `base` of the whole list (a share of
    /// it, checked on a core of its own): the rules, the skipped rules and the first error name their index in the
    /// whole list. The checks of the whole list (its rule limit, a list without rules) are the caller's: `parse`,
    /// `EngineProfile.checkGenerated(shares:)`.
    public static func parseRules(_ elements: [JSONValue], at base: Int, options: RuleListParserOptions) throws
        -> ParsedRuleList
    {
        var rules: [ParsedRule] = []
        rules.reserveCapacity(elements.count)
        var skipped: [SkippedRule] = []
        for (offset, element) in elements.enumerated() {
            let index = base + offset
            guard case .object(let ruleObject) = element else {
                throw RuleListValidationError(
                    .jsonInvalidRule, ruleIndex: index, detail: "the rule is \(describe(element)), not an object")
            }
            do {
                switch try loadRule(ruleObject, options: options) {
                case .skipped(let reason):
                    skipped.append(SkippedRule(sourceIndex: index, reason: reason))
                case .rule(let rule, let identifier):
                    rules.append(ParsedRule(kind: .content(rule), sourceIndex: index))
                    if let identifier {
                        rules.append(
                            ParsedRule(
                                kind: .reportIdentifier(
                                    trigger: rule.trigger, identifier: identifier.0,
                                    rulesetIdentifier: identifier.1), sourceIndex: index))
                    }
                }
            } catch let failure as RuleFailure {
                throw RuleListValidationError(failure.error, ruleIndex: index, detail: failure.detail)
            }
        }
        return ParsedRuleList(rules: rules, skipped: skipped, sourceRuleCount: elements.count)
    }

    /// WebKit's last check of a whole list: `parsed` rules (report-identifier rules included) out of `elements`.
    static func requireRules(parsed: Int, of elements: Int) throws {
        if parsed == 0 {
            let detail = elements == 0 ? "the array is empty" : "all \(elements) rules were skipped"
            throw RuleListValidationError(.jsonContainsNoRules, detail: detail)
        }
    }

    /// Everything WebKit checks before it accepts a list: `parse`, then (like compileRuleList, only once parsing
    /// succeeded) every url-filter and every condition regex, rule by rule, url-filter first.
    /// `regexIsSupported(pattern, caseSensitive)` must say whether WebKit's URLFilterParser accepts the pattern
    /// (status Ok or MatchesEverything).
    public static func validate(
        bytes: [UInt8], options: RuleListParserOptions = .installedWebKit,
        regexIsSupported: (String, Bool) -> Bool
    ) throws -> ParsedRuleList {
        let list = try parse(bytes: bytes, options: options)
        try checkRegexes(list, regexIsSupported: regexIsSupported)
        return list
    }

    /// The compile-stage regex checks alone, in WebKit's order.
    public static func checkRegexes(_ list: ParsedRuleList, regexIsSupported: (String, Bool) -> Bool) throws {
        for rule in list.rules {
            let trigger = rule.trigger
            if !regexIsSupported(trigger.urlFilter, trigger.urlFilterIsCaseSensitive) {
                throw RuleListValidationError(
                    .jsonInvalidRegex, ruleIndex: rule.sourceIndex,
                    detail: "url-filter \(abbreviated(trigger.urlFilter))")
            }
            guard let condition = trigger.condition else { continue }
            let caseSensitive =
                condition.kind.isFrameURL ? trigger.frameURLFilterIsCaseSensitive : trigger.topURLFilterIsCaseSensitive
            for (value, regex) in zip(condition.values, condition.regexes) where !regexIsSupported(regex, caseSensitive)
            {
                let what =
                    condition.kind.isDomainList
                    ? "\(condition.kind.rawValue) entry \(abbreviated(value)) (as the regex \(abbreviated(regex)))"
                    : "\(condition.kind.rawValue) entry \(abbreviated(value))"
                throw RuleListValidationError(.jsonInvalidRegex, ruleIndex: rule.sourceIndex, detail: what)
            }
        }
    }

    // MARK: rules

    struct RuleFailure: Error {
        let error: ContentRuleListError
        let detail: String?
        init(_ error: ContentRuleListError, _ detail: String? = nil) {
            self.error = error
            self.detail = detail
        }
    }

    enum LoadedRule {
        case rule(ContentRule, identifier: (Double, String)?)
        case skipped(SkippedRule.Reason)
    }

    static func loadRule(_ rule: JSONObject, options: RuleListParserOptions) throws -> LoadedRule {
        let trigger = try loadTrigger(rule, target: options.target)
        let action: Action
        switch try loadAction(rule, options: options) {
        case .skip(let reason): return .skipped(reason)
        case .action(let a): action = a
        }
        var identifier: (Double, String)? = nil
        if options.identifierRules, let value = rule["_identifier"] {
            guard case .number(let id) = value else {
                throw RuleFailure(.jsonInvalidRuleIdentifier, "_identifier is \(describe(value)), not a number")
            }
            identifier = (id, rule["_rulesetIdentifier"]?.stringValue ?? "")
        }
        return .rule(ContentRule(trigger: trigger, action: action), identifier: identifier)
    }

    /// Keys the target does not read are skipped exactly as that engine skips them (silently).
    static func loadTrigger(_ rule: JSONObject, target: EngineProfile = .default) throws -> Trigger {
        guard case .object(let t)? = rule["trigger"] else {
            throw RuleFailure(
                .jsonInvalidTrigger, rule["trigger"].map { "trigger is \(describe($0))" } ?? "the rule has no trigger")
        }
        guard case .string(let urlFilter)? = t["url-filter"], !urlFilter.isEmpty else {
            throw RuleFailure(
                .jsonInvalidURLFilterInTrigger,
                t["url-filter"].map { "url-filter is \(describe($0))" } ?? "the trigger has no url-filter")
        }
        var trigger = Trigger(urlFilter: urlFilter)
        // Only JSON booleans count; any other value is ignored.
        if case .bool(let b)? = t["url-filter-is-case-sensitive"] { trigger.urlFilterIsCaseSensitive = b }
        if case .bool(let b)? = t["top-url-filter-is-case-sensitive"] { trigger.topURLFilterIsCaseSensitive = b }
        if target.readsFrameURLConditions, case .bool(let b)? = t["frame-url-filter-is-case-sensitive"] {
            trigger.frameURLFilterIsCaseSensitive = b
        }

        trigger.resourceTypes = try flagNames(t, "resource-type") {
            ResourceTypeName.flags(of: $0) != nil && target.accepts(resourceType: $0)
        }
        trigger.loadTypes = try flagNames(t, "load-type") { LoadTypeName.flags(of: $0) != nil }
        if target.readsLoadContext {
            trigger.loadContexts = try flagNames(t, "load-context") { LoadContextName.flags(of: $0) != nil }
        }

        if target.readsRequestMethod, let value = t["request-method"] {
            guard case .string(let method) = value, RequestMethodName.all.contains(WHATWGHost.lowercased(method)) else {
                throw RuleFailure(.jsonInvalidRequestMethod, "request-method is \(describe(value))")
            }
            trigger.requestMethod = WHATWGHost.lowercased(method)
        }

        // Conditions, in WebKit's key order. A second condition key is an error before its value is looked at.
        for kind in TriggerCondition.Kind.allCases where target.reads(kind) {
            guard let value = t[kind.rawValue] else { continue }
            if let existing = trigger.condition {
                throw RuleFailure(.jsonMultipleConditions, "\(kind.rawValue) after \(existing.kind.rawValue)")
            }
            guard case .array(let items) = value else {
                throw RuleFailure(.jsonInvalidConditionList, "\(kind.rawValue) is \(describe(value)), not an array")
            }
            var strings: [String] = []
            strings.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item, !s.isEmpty else {
                    throw RuleFailure(
                        .jsonInvalidConditionList, "\(kind.rawValue)[\(i)] is \(describe(item)), not a non-empty string"
                    )
                }
                strings.append(s)
            }
            if kind.isDomainList {
                for (i, domain) in strings.enumerated()
                where !domain.utf16.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) {
                    throw RuleFailure(.jsonDomainNotLowerCaseASCII, "\(kind.rawValue)[\(i)] is \(abbreviated(domain))")
                }
            }
            if strings.isEmpty { throw RuleFailure(.jsonInvalidConditionList, "\(kind.rawValue) is an empty array") }
            trigger.condition = TriggerCondition(kind, strings)
        }
        return trigger
    }

    /// resource-type / load-type / load-context: absent → nil; present → an array of known names.
    static func flagNames(_ t: JSONObject, _ key: String, isKnown: (String) -> Bool) throws -> [String]? {
        guard let value = t[key] else { return nil }
        guard case .array(let items) = value else {
            throw RuleFailure(.jsonInvalidTriggerFlagsArray, "\(key) is \(describe(value)), not an array")
        }
        var names: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let name) = item, isKnown(name) else {
                throw RuleFailure(.jsonInvalidStringInTriggerFlagsArray, "\(key)[\(i)] is \(describe(item))")
            }
            names.append(name)
        }
        return names
    }

    enum LoadedAction {
        case action(Action)
        case skip(SkippedRule.Reason)
    }

    static func loadAction(_ rule: JSONObject, options: RuleListParserOptions) throws -> LoadedAction {
        guard case .object(let a)? = rule["action"] else {
            throw RuleFailure(
                .jsonInvalidAction, rule["action"].map { "action is \(describe($0))" } ?? "the rule has no action")
        }
        let type = a["type"]?.stringValue ?? ""
        if !options.target.accepts(actionType: type) {
            throw RuleFailure(.jsonInvalidActionType, "type \"\(type)\" is not an action \(options.target.name) knows")
        }
        switch type {
        case "block": return .action(.block)
        case "ignore-previous-rules": return .action(.ignorePreviousRules)
        case "ignore-following-rules": return .action(.ignoreFollowingRules)
        case "block-cookies": return .action(.blockCookies)
        case "css-display-none":
            if !options.cssSelectorsAllowed { return .skip(.cssSelectorsNotAllowed) }
            guard case .string(let selector)? = a["selector"] else {
                throw RuleFailure(
                    .jsonInvalidCSSDisplayNoneActionType,
                    a["selector"].map { "selector is \(describe($0))" } ?? "the action has no selector")
            }
            if let problem = CSSSelectorValidator.problem(in: selector) {
                return .skip(.invalidSelector(selector: selector, detail: problem))
            }
            return .action(.cssDisplayNone(selector: selector))
        case "make-https": return .action(.makeHTTPS)
        case "notify":
            guard case .string(let notification)? = a["notification"] else {
                throw RuleFailure(
                    .jsonInvalidNotification,
                    a["notification"].map { "notification is \(describe($0))" } ?? "the action has no notification")
            }
            return .action(.notify(notification: notification))
        case "redirect":
            if let failure = RedirectValidation.check(action: a) { throw RuleFailure(failure.error, failure.detail) }
            return .action(.redirect(a["redirect"]?.objectValue ?? JSONObject()))
        case "modify-headers":
            if let failure = ModifyHeadersValidation.check(action: a) {
                throw RuleFailure(failure.error, failure.detail)
            }
            var rest = JSONObject()
            for (k, v) in a where k != "type" { rest[k] = v }
            return .action(.modifyHeaders(rest))
        default:
            throw RuleFailure(
                .jsonInvalidActionType, a["type"].map { "type is \(describe($0))" } ?? "the action has no type")
        }
    }

    // MARK: helpers

    static func abbreviated(_ s: String) -> String {
        let short = s.count > 100 ? String(s.prefix(97)) + "..." : s
        return "\"" + short + "\""
    }

    /// A short description of a JSON value for error details: `a string "x"`, `a number 5`, `null`, ...
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "the boolean \(b)"
        case .number(let n): return "the number \(n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n))"
        case .string(let s): return "the string \(abbreviated(s))"
        case .array(let a): return "an array of \(a.count)"
        case .object: return "an object"
        }
    }
}

/// A failed action-level check with our explanation.
struct ActionCheckFailure: Sendable, Equatable {
    let error: ContentRuleListError
    let detail: String?
    init(_ error: ContentRuleListError, _ detail: String? = nil) {
        self.error = error
        self.detail = detail
    }
}

extension RuleListParser {
    /// `validate` with WebKit's url-filter regex subset (URLFilter.parse) deciding the regex checks.
    public static func validate(bytes: [UInt8], options: RuleListParserOptions = .installedWebKit) throws
        -> ParsedRuleList
    {
        try validate(bytes: bytes, options: options) { pattern, caseSensitive in
            URLFilter.parse(pattern, caseSensitive: caseSensitive).status.isSupported
        }
    }
}
