// compileRuleList (ContentExtensionCompiler.cpp): actions are serialized first (locations), then every
// rule's url-filter goes into the url automaton, and each condition regex into the top-URL or frame-URL
// automaton, with the same id. WebKit's id is (trigger flags << 32) | action location; ours is
// (trigger flags << 32) | rule index, so that the automaton names the rules that matched, not only
// their (shared) action locations: the engine maps a rule index to WebKit's id through the RULE table
// and de-duplicates by that id, which gives WebKit's answer and, when asked, the deciding rule.
// Patterns that match everything go to the family's universal set instead. The first unsupported
// pattern fails the whole list with JSONInvalidRegex, naming the rule. Automata are built under the
// options' CompileBudget.
//
// At the end we also derive what WebKit's ContentExtension computes when it loads the list: the
// universal actions in its order and the global display:none stylesheet (WebKit's
// Source/WebCore/contentextensions/ContentExtension.cpp), so that a
// loaded .rbc is ready to answer without any further analysis.

import ContentRules
import Digest

public enum RuleListCompiler {
    public struct Options: Sendable {
        /// Identifier name (see RuleListIdentifier).
        public var name: String
        public var dataset: String?
        public var toolVersion: String
        public var parser: RuleListParserOptions
        /// Keep the source JSON in the compiled list (lets `match --url` show the rules' triggers from an
        /// .rbc file; costs the size of the JSON).
        public var embedSource: Bool
        /// Limits of the automata (see CompileBudget); over them compile throws CompileBudgetErrors.
        public var budget: CompileBudget

        public init(
            name: String = "rules", dataset: String? = nil, toolVersion: String = ToolVersion.current,
            parser: RuleListParserOptions = .installedWebKit, embedSource: Bool = false,
            budget: CompileBudget = CompileBudget()
        ) {
            self.budget = budget
            self.name = name
            self.dataset = dataset
            self.toolVersion = toolVersion
            self.parser = parser
            self.embedSource = embedSource
        }
    }

    /// Parses (WebKit's validation, WebKit's errors) and compiles rule-list JSON.
    public static func compile(json: [UInt8], options: Options = Options()) throws -> CompiledRuleList {
        let list = try RuleListParser.parse(bytes: json, options: options.parser)
        return try compile(list, source: json, options: options)
    }

    /// Compiles an already-parsed list; `source` is the JSON it came from (its digest is always kept, the
    /// bytes only with `embedSource`).
    public static func compile(_ list: ParsedRuleList, source: [UInt8], options: Options = Options()) throws
        -> CompiledRuleList
    {
        let identifier = try RuleListIdentifier.make(
            name: options.name, dataset: options.dataset, formatVersion: RBCFile.formatVersion,
            toolVersion: options.toolVersion, source: source)
        let serialized = ActionSerializer.serialize(list.rules)

        let (builders, universalIDs, infos) = try families(
            list, locations: serialized.locations, budget: options.budget)

        let (universal, stylesheet) = try loadTimeUniversalActions(universalIDs: universalIDs, actions: serialized.blob)
        // The three families are independent: build them on the cores (same bytes as one after another).
        let matchers = try MatcherBuilder.buildAll(builders)
        return CompiledRuleList(
            identifier: identifier.string, name: options.name, dataset: options.dataset,
            toolVersion: options.toolVersion,
            sourceSHA256: Digest.hash(.sha256, source), source: options.embedSource ? source : [],
            sourceRuleCount: list.sourceRuleCount,
            skippedRuleCount: list.skipped.count, actions: serialized.blob, rules: infos, universalActions: universal,
            stylesheet: stylesheet, urlMatcher: matchers[0], topURLMatcher: matchers[1], frameURLMatcher: matchers[2])
    }

    /// The url, top-url and frame-url pattern families of a list, each id = (trigger flags << 32) | rule
    /// index; also WebKit's ids of url-filters that match everything and the rules' compiled info.
    static func families(_ list: ParsedRuleList, locations: [UInt32], budget: CompileBudget) throws
        -> ([MatcherBuilder], [UInt64], [CompiledRuleInfo])
    {
        var url = MatcherBuilder(family: "url-filter", budget: budget)
        var top = MatcherBuilder(family: "top-url", budget: budget)
        var frame = MatcherBuilder(family: "frame-url", budget: budget)
        var universalIDs: [UInt64] = []
        var filters = FilterCache()
        var infos: [CompiledRuleInfo] = []
        infos.reserveCapacity(list.rules.count)

        for (i, rule) in list.rules.enumerated() {
            let trigger = rule.trigger
            let flags = trigger.flags
            let location = locations[i]
            let info = CompiledRuleInfo(sourceIndex: UInt32(rule.sourceIndex), actionLocation: location, flags: flags)
            let id = CompiledRuleInfo.automatonID(flags: flags, rule: i)
            infos.append(info)

            let filter = filters.get(trigger.urlFilter, caseSensitive: trigger.urlFilterIsCaseSensitive)
            guard filter.status.isSupported else {
                throw RuleListValidationError(
                    .jsonInvalidRegex, ruleIndex: rule.sourceIndex,
                    detail: "url-filter \(abbreviated(trigger.urlFilter)): \(filter.status.message)")
            }
            if filter.status == .matchesEverything { universalIDs.append(info.actionID) }
            url.add(filter, id: id, rule: rule.sourceIndex)

            guard let condition = trigger.condition else { continue }
            let frameFamily = condition.kind.isFrameURL
            let caseSensitive =
                frameFamily ? trigger.frameURLFilterIsCaseSensitive : trigger.topURLFilterIsCaseSensitive
            for value in condition.values {
                // Domain lists repeat across rules (a tracker's entity domains): parse each domain once.
                let f =
                    condition.kind.isDomainList
                    ? filters.domain(value, caseSensitive: caseSensitive)
                    : filters.get(value, caseSensitive: caseSensitive)
                guard f.status.isSupported else {
                    let what =
                        condition.kind.isDomainList
                        ? "\(condition.kind.rawValue) entry \(abbreviated(value)) (as the regex "
                            + "\(abbreviated(f.pattern)))"
                        : "\(condition.kind.rawValue) entry \(abbreviated(value))"
                    throw RuleListValidationError(
                        .jsonInvalidRegex, ruleIndex: rule.sourceIndex, detail: "\(what): \(f.status.message)")
                }
                if frameFamily {
                    frame.add(f, id: id, rule: rule.sourceIndex)
                } else {
                    top.add(f, id: id, rule: rule.sourceIndex)
                }
            }
        }
        return ([url, top, frame], universalIDs, infos)
    }

    /// WebKit's own compiler would not finish this list in reasonable time or memory because of these
    /// patterns (see MatcherBuilder.webKitPain): a warning for `validate` and `build`.
    public static func webKitPain(
        _ list: ParsedRuleList, states: Int = WebKitPainThreshold.states,
        members: Int = WebKitPainThreshold.members
    ) throws -> [WebKitPainWarning] {
        let serialized = ActionSerializer.serialize(list.rules)
        let (builders, _, _) = try families(list, locations: serialized.locations, budget: .unlimited)
        return builders.flatMap { $0.webKitPain(states: states, members: members) }
    }

    /// ContentExtension's constructor: the flag-free universal actions in its order; those that are
    /// css-display-none and come before the first ignore-previous/following-rules action in the blob are
    /// joined into the global stylesheet `selectors{display:none !important;}` and removed.
    static func loadTimeUniversalActions(universalIDs: [UInt64], actions: [UInt8]) throws -> ([UInt32], String) {
        let ordered = WebKitHashOrder.universalActionOrder(universalIDs: universalIDs).map {
            UInt32(truncatingIfNeeded: $0)
        }
        let all = try actions.withUnsafeBytes { try ActionBlob.all($0) }
        let firstIgnore =
            all.first { $0.action.kind == .ignorePreviousRules || $0.action.kind == .ignoreFollowingRules }?.location
            ?? UInt32.max
        var byLocation: [UInt32: StoredAction] = [:]
        for (location, action) in all { byLocation[location] = action }

        var selectors: [String] = []
        var remaining: [UInt32] = []
        for location in ordered {
            if location < firstIgnore, let a = byLocation[location], a.kind == .cssDisplayNone {
                selectors.append(a.text)
            } else {
                remaining.append(location)
            }
        }
        let stylesheet = selectors.isEmpty ? "" : selectors.joined(separator: ",") + "{display:none !important;}"
        return (remaining, stylesheet)
    }

    static func abbreviated(_ s: String) -> String {
        let short = s.count > 80 ? String(s.prefix(77)) + "..." : s
        return "\"" + short + "\""
    }
}

/// Parsing a pattern is the costly part of adding it; lists repeat patterns (domain conditions above all).
private struct FilterCache {
    private var sensitive: [String: URLFilter] = [:]
    private var insensitive: [String: URLFilter] = [:]
    private var domains: [String: URLFilter] = [:]
    private var domainsSensitive: [String: URLFilter] = [:]

    /// The filter of an if/unless-domain entry (WebKit's domain-to-regex transformation, then parsed).
    mutating func domain(_ value: String, caseSensitive: Bool) -> URLFilter {
        if let f = caseSensitive ? domainsSensitive[value] : domains[value] { return f }
        let f = get(TriggerCondition.domainRegex(value), caseSensitive: caseSensitive)
        if caseSensitive { domainsSensitive[value] = f } else { domains[value] = f }
        return f
    }

    mutating func get(_ pattern: String, caseSensitive: Bool) -> URLFilter {
        if let f = caseSensitive ? sensitive[pattern] : insensitive[pattern] { return f }
        let f = URLFilter.parse(pattern, caseSensitive: caseSensitive)
        if caseSensitive { sensitive[pattern] = f } else { insensitive[pattern] = f }
        return f
    }
}
