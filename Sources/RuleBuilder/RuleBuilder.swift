// RuleBuilder: tracker data (TDS + privacy config + user-unprotected sites) -> WebKit content rules.
//
// Two modes:
// - `.faithful` (default): WebKit does what the TDS means (README.md, Conversion modes): first matching TDS rule
//   wins, options fall through, exceptions apply only where their rule matched, ports are ignored, CNAME-cloaked
//   requests are checked against the real tracker's rules, same-entity requests are first party, the longest
//   tracker host wins, and the temp list / user-unprotected sites / tracker allowlist override everything.
//   See FaithfulBuilder.swift for the construction.
// - `.ddg`: DuckDuckGo's own converter (TrackerRadarKit), rule for rule, so that its known gaps can be
//   reproduced and compared. Only the order across trackers differs (TrackerRadarKit uses random dictionary order;
//   we sort). See DDGBuilder.swift.
//
// Both are pure functions of their inputs. Every emitted rule has a provenance entry, and anything that cannot be
// expressed in WebKit's rule language is reported as a ConversionIssue instead of being silently lost.

import ContentRules
import Provenance
import StrictJSON
import TrackerData

public enum RuleBuildMode: String, Sendable, CaseIterable {
    case faithful
    case ddg
}

public struct RuleBuildResult: Sendable {
    public var rules: [ContentRule]
    /// Parallel to `rules`: where each rule comes from.
    public var provenance: [RuleProvenance]
    public var issues: [ConversionIssue]
    /// One list per supported click-to-load rule action (config order), beside the main list: what the TDS
    /// blocks with that action. The main list does not block it, so dropping a list unblocks exactly that content.
    public var clickToLoadLists: [ClickToLoadList] = []
    /// The ad-click attribution list when the config's feature is enabled and names a tracker: the trackers it
    /// names, which the main list then leaves out (AdClickAttributionRules.swift).
    public var attributionList: AttributionList? = nil

    public init(rules: [ContentRule] = [], provenance: [RuleProvenance] = [], issues: [ConversionIssue] = []) {
        self.rules = rules
        self.provenance = provenance
        self.issues = issues
    }
}

public struct ClickToLoadList: Sendable {
    public var ruleAction: String
    /// The click-to-load entity (privacy-config settings key, a TDS entity name).
    public var entity: String
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]

    public init(ruleAction: String, entity: String, rules: [ContentRule], provenance: [RuleProvenance]) {
        self.ruleAction = ruleAction
        self.entity = entity
        self.rules = rules
        self.provenance = provenance
    }
}

public enum RuleBuilder {
    /// WebKit rejects a list with more rules than this ("Too many rules in JSON array"): the parser's limit.
    public static let maximumRuleCount = RuleListParser.maximumRuleCount

    /// Converts tracker data to WebKit content rules.
    /// - Parameters:
    ///   - config: privacy configuration: the temp list (contentBlocking exceptions + unprotectedTemporary) and,
    ///     when its state is enabled, the tracker allowlist.
    ///   - unprotectedSites: the user's unprotected sites (exact hosts).
    ///   - sameEntity: faithful mode's encoding of same-entity exemptions (SharedEntityExemption.swift).
    ///   - decodeIssues: the TDS decoder's issues. Rules it dropped shift the indices of the rules after them;
    ///     with the issues, provenance and conversion issues name each rule by its index in the TDS file.
    ///   - splitAttribution: a release's lists (`build`): the trackers the config's adClickAttribution names go into
    ///     `attributionList` and leave the main list. Otherwise (`convert`, one list) they stay in it.
    public static func build(
        tds: TrackerDataSet, config: PrivacyConfig? = nil, unprotectedSites: UnprotectedSites? = nil,
        mode: RuleBuildMode = .faithful, decodeIssues: [DecodeIssue] = [],
        sameEntity: SameEntityEncoding = .shared, splitAttribution: Bool = false
    ) -> RuleBuildResult {
        if let config, !config.contentBlockingEnabled { return blockingNothing(config) }
        let exceptions = ExceptionInputs(config: config, unprotectedSites: unprotectedSites, mode: mode)
        let split = splitAttribution ? AttributionSplit.make(tds: tds, config: config, mode: mode) : nil
        let moved = split?.moved ?? []
        var result: RuleBuildResult
        switch mode {
        case .faithful:
            var builder = FaithfulBuilder(tds: tds, exceptions: exceptions)
            builder.sameEntity = sameEntity
            builder.excluded = moved
            result = builder.build()
        case .ddg:
            result = DDGBuilder(
                tds: moved.isEmpty ? tds : AttributionSplit.mainTDS(tds, moved: moved), exceptions: exceptions
            ).build()
        }
        let indexMap = SourceIndexMap(decodeIssues: decodeIssues)
        OutputValidator.validate(&result, mode: mode)
        indexMap.apply(to: &result)
        if let split {
            result.issues += split.issues
            if !moved.isEmpty {
                let (list, issues) = attributionList(
                    split, config: config, unprotectedSites: unprotectedSites, mode: mode, indexMap: indexMap)
                result.attributionList = list
                result.issues += issues
            }
        }
        // Both modes build click-to-load lists the same way (TrackerRadarKit's macOS split keeps whole trackers,
        // which cannot unblock one action of a tracker that has two).
        for (action, entity) in exceptions.clickToLoadActions {
            var list = FaithfulBuilder(tds: tds, exceptions: exceptions).buildClickToLoad(
                ruleAction: action, entity: entity)
            OutputValidator.validate(&list, mode: .faithful)
            indexMap.apply(to: &list)
            result.issues += list.issues
            result.clickToLoadLists.append(
                ClickToLoadList(ruleAction: action, entity: entity, rules: list.rules, provenance: list.provenance))
        }
        return result
    }

    /// `contentBlocking.state` other than "enabled": the apps apply no protection at all. One rule that matches
    /// every load and blocks nothing (a list WebKit accepts and that says why it is empty); no click-to-load lists.
    static func blockingNothing(_ config: PrivacyConfig) -> RuleBuildResult {
        let state = config.contentBlockingState.map { "\"\($0)\"" } ?? "absent"
        return RuleBuildResult(
            rules: [ContentRule(trigger: Trigger(urlFilter: ".*"), action: .ignorePreviousRules)],
            provenance: [
                RuleProvenance(source: .featureState, role: .contentBlocking(state: config.contentBlockingState))
            ],
            issues: [
                ConversionIssue(
                    kind: .configNote, location: .config(JSONPath.root / "features" / "contentBlocking" / "state"),
                    message: "contentBlocking is \(state), not \"enabled\": the list blocks nothing")
            ])
    }
}

/// Decoded rule index -> index in the TDS file, from the rules the decoder reported as dropped
/// (`$.trackers[K].rules[i]…: …; rule dropped`).
struct SourceIndexMap {
    private var dropped: [String: [Int]] = [:]

    init(decodeIssues: [DecodeIssue]) {
        for issue in decodeIssues where issue.message.hasSuffix("rule dropped") {
            guard let c = issue.path?.components, c.count >= 4, c[0] == .key("trackers"), case .key(let tracker) = c[1],
                c[2] == .key("rules"), case .index(let i) = c[3]
            else { continue }
            dropped[tracker, default: []].append(i)
        }
        for k in dropped.keys { dropped[k] = Array(Set(dropped[k]!)).sorted() }
    }

    func original(_ tracker: String, _ decoded: Int) -> Int {
        guard let d = dropped[tracker] else { return decoded }
        var index = decoded
        for i in d where i <= index { index += 1 }
        return index
    }

    func apply(to result: inout RuleBuildResult) {
        guard !dropped.isEmpty else { return }
        for i in result.provenance.indices {
            if case .rule(let r)? = result.provenance[i].part, result.provenance[i].source == .tds,
                let t = result.provenance[i].tracker
            {
                result.provenance[i].part = .rule(original(t, r))
            }
        }
        for i in result.issues.indices {
            guard let t = result.issues[i].tracker, let r = result.issues[i].ruleIndex,
                case .tds(let path) = result.issues[i].location
            else { continue }
            let o = original(t, r)
            result.issues[i].ruleIndex = o
            var c = path.components
            if c.count >= 4, c[2] == .key("rules") { c[3] = .index(o) }
            result.issues[i].location = .tds(JSONPath(c))
        }
    }
}

/// The exception inputs both modes share, taken from the config and the user's list.
struct ExceptionInputs {
    /// Temp list: each domain covers itself and its subdomains.
    var tempList: [String]
    /// User-unprotected sites: each covers its subdomains (DuckDuckGo's reference tests; both modes).
    var userUnprotected: [String]
    /// Tracker allowlist entries with their index within their tracker (as in the config file).
    var allowlist: [(entry: AllowlistEntry, index: Int)]

    /// Sites (with subdomains) where the tracker allowlist does not apply (faithful mode only: TrackerRadarKit
    /// ignores the feature's exceptions, and ddg mode keeps its rules).
    var allowlistExceptions: [String]
    /// The request blocklist when its feature is enabled.
    var requestBlocklist: RequestBlocklist?
    /// Supported click-to-load rule actions with their entity, and the feature's site exceptions.
    var clickToLoadActions: [(ruleAction: String, entity: String)]
    var clickToLoadExceptions: [String]

    init(config: PrivacyConfig?, unprotectedSites: UnprotectedSites?, mode: RuleBuildMode = .faithful) {
        tempList = config?.tempUnprotected ?? []
        userUnprotected = unprotectedSites?.hosts ?? []
        allowlistExceptions =
            mode == .faithful && config?.trackerAllowlist.enabled == true ? config!.trackerAllowlist.exceptions : []
        requestBlocklist = config.flatMap { $0.requestBlocklist.enabled ? $0.requestBlocklist : nil }
        clickToLoadActions = config?.clickToLoad.supportedRuleActions ?? []
        clickToLoadExceptions = config?.clickToLoad.exceptions ?? []
        var entries: [(AllowlistEntry, Int)] = []
        if let allowlist = config?.trackerAllowlist, allowlist.enabled {
            var counters: [String: Int] = [:]
            for e in allowlist.entries {
                let i = counters[e.trackerDomain, default: 0]
                counters[e.trackerDomain] = i + 1
                entries.append((e, i))
            }
        }
        allowlist = entries
    }
}

// MARK: - Shared helpers

/// Emits rules with their provenance side by side.
struct RuleSink {
    var rules: [ContentRule] = []
    var provenance: [RuleProvenance] = []
    var issues: [ConversionIssue] = []

    mutating func emit(_ rule: ContentRule, _ origin: RuleProvenance) {
        rules.append(rule)
        provenance.append(origin)
    }

    var result: RuleBuildResult { RuleBuildResult(rules: rules, provenance: provenance, issues: issues) }
}

enum RegexText {
    /// Escapes every character that is special in a regex (for host names: only `.` occurs in practice).
    static func escapeHost(_ s: String) -> String { TDSConventions.regexLiteral(s) }
}

/// Tracker iteration order: parents before subdomain trackers (fewer labels first), then byte order. Faithful
/// mode relies on it (a subdomain tracker's rules come later and so override its parent's); ddg mode uses it
/// for determinism.
func sortedTrackerDomains(_ tds: TrackerDataSet) -> [String] {
    tds.trackers.keys.sorted { a, b in
        let la = a.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) }
        let lb = b.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) }
        return la != lb ? la < lb : byteOrder(a, b)
    }
}

extension Array where Element == String {
    /// WebKit's "this domain and its subdomains" form.
    var wildcards: [String] { map { "*" + $0 } }
}
