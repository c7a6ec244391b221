// A compiled rule list: everything WebKit's CompiledContentExtension holds (actions blob, url /
// top-url / frame-url automata) plus what ContentExtension derives at load time (universal actions
// in WebKit's order, the global display:none stylesheet), and what radarblock needs to explain an
// answer (every rule's action location and JSON index, the source).

public struct CompiledRuleList: Sendable, Equatable {
    public var identifier: String
    public var name: String
    public var dataset: String?
    public var toolVersion: String
    /// SHA-256 of `source`.
    public var sourceSHA256: [UInt8]
    /// The rule-list JSON exactly as given, when it was embedded (WebKit always keeps it); empty otherwise.
    public var source: [UInt8]
    /// Number of elements in the JSON array.
    public var sourceRuleCount: Int
    /// Rules WebKit drops silently (e.g. css-display-none with a selector its CSS parser rejects).
    public var skippedRuleCount: Int

    public var hasSource: Bool { !source.isEmpty }

    public var actions: [UInt8]
    /// One entry per compiled rule (WebKit's rule order, report-identifier rules after their rule).
    public var rules: [CompiledRuleInfo]
    /// Flag-free url-filter actions that match every URL, in ContentExtension::m_universalActions order,
    /// without those that went into the stylesheet.
    public var universalActions: [UInt32]
    /// The list's global display:none stylesheet ("" when there is none).
    public var stylesheet: String

    /// The automata, validated (a file's are validated once, by RBCFile.load).
    public var urlMatcher: Matcher
    public var topURLMatcher: Matcher
    public var frameURLMatcher: Matcher

    public init(
        identifier: String, name: String, dataset: String?, toolVersion: String, sourceSHA256: [UInt8], source: [UInt8],
        sourceRuleCount: Int, skippedRuleCount: Int, actions: [UInt8], rules: [CompiledRuleInfo],
        universalActions: [UInt32], stylesheet: String, urlMatcher: Matcher, topURLMatcher: Matcher,
        frameURLMatcher: Matcher
    ) {
        self.identifier = identifier
        self.name = name
        self.dataset = dataset
        self.toolVersion = toolVersion
        self.sourceSHA256 = sourceSHA256
        self.source = source
        self.sourceRuleCount = sourceRuleCount
        self.skippedRuleCount = skippedRuleCount
        self.actions = actions
        self.rules = rules
        self.universalActions = universalActions
        self.stylesheet = stylesheet
        self.urlMatcher = urlMatcher
        self.topURLMatcher = topURLMatcher
        self.frameURLMatcher = frameURLMatcher
    }
}

public struct CompiledRuleInfo: Sendable, Hashable {
    /// 0-based index of the rule in the JSON array.
    public var sourceIndex: UInt32
    public var actionLocation: UInt32
    /// WebKit's trigger flags word.
    public var flags: UInt32

    public init(sourceIndex: UInt32, actionLocation: UInt32, flags: UInt32) {
        self.sourceIndex = sourceIndex
        self.actionLocation = actionLocation
        self.flags = flags
    }

    /// WebKit's action id: what the engine de-duplicates and orders by.
    public var actionID: UInt64 { UInt64(flags) << 32 | UInt64(actionLocation) }

    /// The id the automata report for rule `rule` (its index in `rules`): the flags stay in the high
    /// word, where the matcher tests them.
    public static func automatonID(flags: UInt32, rule: Int) -> UInt64 { UInt64(flags) << 32 | UInt64(UInt32(rule)) }
}
