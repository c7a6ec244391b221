// A parsed filter list -> WebKit content rules, each exact or its filter reported (docs/filter-lists.md).
//
// Order. WebKit's ignore-previous-rules cancels every earlier rule that matched the load, which is what an ABP
// exception does to the blocks it matches: the list is the blocks, then the exceptions as ignore-previous-rules
// rules with the exception's own trigger, then the `$important` blocks, which no exception cancels, then one
// ignore-previous-rules rule for the page's own document and popups (Role.navigationReset), then the
// top-document part of `$document` blocks. A filter
// disabled by a `$badfilter` filter is left out (counted, not reported: the list means it so).
//
// `@@...$document` exceptions switch blocking off on the pages they match: ignore-previous-rules rules on the top
// and frame URL, after every block (pageWideException). `$genericblock` exceptions and cosmetic-only ones
// (`$elemhide`, `$generichide`, `$specifichide`) make no network rule: the cosmetic list (CosmeticConverter), kept
// apart, converts or reports them.

import AdblockSyntax
import ContentRules
import Parallel
import Provenance
import RuleBuilder

public struct FilterListConversion: Sendable {
    public var rules: [ContentRule] = []
    /// Parallel to `rules`.
    public var provenance: [RuleProvenance] = []
    /// Every filter not converted (with the parser's malformed lines), in line order.
    public var issues: [FilterLineIssue] = []
    /// Rules a target cannot express (TargetEncoding), with the provenance that names their filter.
    public var targetIssues: [ConversionIssue] = []
    public var blocks = 0
    public var exceptions = 0
    public var important = 0
    public var disabledByBadfilter = 0
    /// The cosmetic filters' list, apart from this one (CosmeticConverter).
    public var cosmetic = CosmeticConversion()
}

public enum FilterListConverter {
    public static func convert(_ list: FilterList, target: EngineProfile) -> FilterListConversion {
        convert([list], target: target)
    }

    /// Several lists converted as one, as adblock-rust loads them together: an exception or a `$badfilter` of one
    /// list applies to the filters of every list, which in WebKit only one rule list can say (its
    /// ignore-previous-rules rules cancel the earlier rules of their own list only). The blocks of every list come
    /// first, then the exceptions of every list, and so on; each rule's provenance names its own list and line,
    /// each issue its list (`FilterLineIssue.list`), the issues in list order, then line order. The cosmetic list
    /// owes nothing to the network one: made meanwhile.
    public static func convert(_ lists: [FilterList], target: EngineProfile) -> FilterListConversion {
        var (out, cosmetic) = convert(lists, target: target, network: { $0 }, cosmetic: { $0 })
        out.cosmetic = cosmetic
        return out
    }

    /// The same, each layer handed to its `finish` (its check, its encoding) as soon as it is converted: the
    /// cosmetic list, converted and finished on one core, beside the network filters' shares, which go to whichever
    /// core is free (Parallel.alongside), so that both cores are busy until the network list is joined.
    public static func convert<Network, Cosmetic>(
        _ lists: [FilterList], target: EngineProfile, network finishNetwork: (FilterListConversion) -> Network,
        cosmetic finishCosmetic: (CosmeticConversion) -> Cosmetic
    ) -> (Network, Cosmetic) {
        var out = FilterListConversion()
        out.issues = lists.flatMap { list in list.issues.map { $0.in(list.name) } }
        let disabled = Disabled(lists)
        // Without top-document or load-context a target cannot keep filters off the page's own document.
        guard target.accepts(resourceType: "top-document") || target.readsLoadContext else {
            notConverted(lists, disabled: disabled, target: target, into: &out)
            return (finishNetwork(out), finishCosmetic(CosmeticConverter.convert(lists, target: target)))
        }
        // Filters convert independently: in shares of consecutive filters of a list, each share's rules grouped
        // and encoded for the target there; the groups joined in list order, share after share. Shares of about
        // `shareFilters` filters, so that the core done with the cosmetic list first has some left to take.
        let ranges = lists.indices.flatMap { list in
            let count = lists[list].network.count
            return Parallel.shares(count, parts: count / shareFilters + 1).map { (list, $0) }
        }
        let (cosmetic, shares) = Parallel.alongside(
            { finishCosmetic(CosmeticConverter.convert(lists, target: target)) }, ranges.count
        ) { Share(lists[ranges[$0].0], ranges[$0].1, disabled: disabled, target: target) }
        joined(shares, lists: lists, target: target, into: &out)
        return (finishNetwork(out), cosmetic)
    }

    /// The filters in a network share.
    static let shareFilters = 2048

    /// The filters that `$badfilter` filters disable: their texts less that option (badfilterKey).
    struct Disabled: Sendable {
        let keys: Set<String>
        /// Only a filter as long as a disabled one can be it: the key is computed for those alone.
        let lengths: Set<Int>

        init(_ lists: [FilterList]) {
            var keys = Set<String>()
            for list in lists {
                for i in list.network.indices where list.network[i].options.badfilter {
                    keys.insert(badfilterKey(list.network[i]))
                }
            }
            self.keys = keys
            lengths = Set(keys.map(\.utf8.count))
        }

        /// Whether `filter`, not a `$badfilter` filter itself, is disabled.
        func contains(_ filter: NetworkFilter) -> Bool {
            lengths.contains(filter.text.utf8.count) && keys.contains(badfilterKey(filter))
        }
    }

    /// Every filter neither `$badfilter` nor disabled by one reported, for a target that cannot keep them off the
    /// page's own document.
    static func notConverted(
        _ lists: [FilterList], disabled: Disabled, target: EngineProfile, into out: inout FilterListConversion
    ) {
        for list in lists {
            for filter in list.network where !filter.options.badfilter {
                if disabled.contains(filter) {
                    out.disabledByBadfilter += 1
                    continue
                }
                out.issues.append(
                    FilterLineIssue(
                        line: filter.line, text: filter.text, kind: .notConverted,
                        reason: "\(target.name) cannot tell the page's own document from other loads (no"
                            + " top-document, no load-context)"
                    ).in(list.name))
            }
        }
        out.issues = inListOrder(out.issues, lists)
    }

    /// The shares' groups joined in list order, group by group, share after share, with their issues and counts:
    /// the rules on one core, their provenance on the other.
    static func joined(
        _ shares: [Share], lists: [FilterList], target: EngineProfile, into out: inout FilterListConversion
    ) {
        let reset = TargetEncoding.adapt(
            RuleBuildResult(rules: [navigationReset.0], provenance: [navigationReset.1]), for: target)
        let parts = Role.allCases.map(\.group).flatMap { group in
            group == Role.navigationReset.group ? [reset] : shares.map { $0.groups[group] }
        }
        let total = parts.reduce(0) { $0 + $1.rules.count }
        (out.rules, out.provenance) = Parallel.both(
            { joinedArrays(parts, total) { $0.rules } }, { joinedArrays(parts, total) { $0.provenance } })
        for part in parts { out.targetIssues += part.issues }
        for share in shares {
            out.issues += share.issues
            out.disabledByBadfilter += share.disabled
        }
        out.issues = inListOrder(out.issues, lists)
        let count = { (roles: [Role]) in shares.reduce(0) { n, s in roles.reduce(n) { $0 + s.built[$1.group] } } }
        (out.blocks, out.exceptions, out.important) = (
            count([.block, .navigationBlock]), count([.exception, .pageException]), count([.important])
        )
    }

    static func joinedArrays<T>(_ parts: [RuleBuildResult], _ total: Int, _ array: (RuleBuildResult) -> [T]) -> [T] {
        var out: [T] = []
        out.reserveCapacity(total)
        for part in parts { out += array(part) }
        return out
    }

    /// The rules of a share of consecutive filters, by group (Role), each group encoded for the target, and the
    /// filters not converted.
    struct Share {
        var groups: [RuleBuildResult] = []
        /// The rules of each group before the target's encoding.
        var built: [Int] = []
        var issues: [FilterLineIssue] = []
        /// The filters of the share that a `$badfilter` filter disables.
        var disabled = 0

        init(_ list: FilterList, _ range: Range<Int>, disabled: Disabled, target: EngineProfile) {
            var rules = [[ContentRule]](repeating: [], count: Role.allCases.count)
            var provenance = [[RuleProvenance]](repeating: [], count: Role.allCases.count)
            let listName = list.name
            for filter in list.network[range] where !filter.options.badfilter {
                if disabled.contains(filter) {
                    self.disabled += 1
                    continue
                }
                switch rule(for: filter, target: target) {
                case .failure(let why):
                    issues.append(
                        FilterLineIssue(line: filter.line, text: filter.text, kind: .notConverted, reason: why.message)
                            .in(listName))
                case .success(let made):
                    for (rule, role) in made {
                        var origin = RuleProvenance(
                            source: .filterList, role: role.provenanceRole, filterLines: [filter.line])
                        (origin.list, origin.filter) = (listName, filter.text)
                        rules[role.group].append(rule)
                        provenance[role.group].append(origin)
                    }
                }
            }
            built = rules.map(\.count)
            groups = zip(rules, provenance).map {
                TargetEncoding.adapt(RuleBuildResult(rules: $0, provenance: $1), for: target)
            }
        }
    }

    /// Issues by list (in `lists`' order), then by line.
    public static func inListOrder(_ issues: [FilterLineIssue], _ lists: [FilterList]) -> [FilterLineIssue] {
        let rank = Dictionary(lists.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        return issues.sorted { (rank[$0.list ?? ""] ?? 0, $0.line) < (rank[$1.list ?? ""] ?? 0, $1.line) }
    }

    /// Where a rule goes, in list order.
    enum Role: CaseIterable {
        case block, exception, important
        /// The one rule that keeps the page's own document and popups unblocked: every rule before it carries
        /// no `resource-type` when the filter names no type (a list of every other type would cost each rule its
        /// bytes in the compiled list's source), and this rule cancels them all for those two types.
        case navigationReset
        /// The top-document part of a `$document` block: after the reset. No exception converted can cancel it
        /// (a `@@...$document` exception is page-wide, reported).
        case navigationBlock
        /// A `@@...$document` exception: every load of a page the filter matches (the top page's or the load's
        /// frame's URL), after every block.
        case pageException
        var group: Int { Self.allCases.firstIndex(of: self)! }
        /// How the provenance file names the role.
        var provenanceRole: Provenance.Role {
            switch self {
            case .block: return .block
            case .exception: return .exception
            case .important: return .important
            case .navigationReset: return .navigations
            case .navigationBlock: return .documentBlock
            case .pageException: return .exception
            }
        }
    }

    static let navigationReset = (
        ContentRule(
            trigger: Trigger(urlFilter: ".*", resourceTypes: ["top-document", "popup"]), action: .ignorePreviousRules),
        RuleProvenance(source: .filterList, role: Role.navigationReset.provenanceRole)
    )

    static func rule(
        for filter: NetworkFilter, target: EngineProfile
    ) -> Result<[(ContentRule, Role)], FilterSyntaxError> {
        let o = filter.options
        if let name = o.unconvertible.first {
            return .failure(
                FilterSyntaxError(
                    message: "$\(name): not a block or an allow, which is all WebKit's"
                        + " block and ignore-previous-rules rules do"))
        }
        if filter.isException && o.pageExceptions == [.document] {
            return pageWideException(filter, target: target)
        }
        if filter.isException, !o.pageExceptions.isEmpty, o.pageExceptions.isSubset(of: CosmeticConverter.hidingOnly) {
            return .success([]) // no load: the cosmetic list converts or reports it
        }
        if let page = PageException.allCases.first(where: o.pageExceptions.contains) {
            let why =
                filter.isException
                ? (page == .genericblock
                    ? "it cancels generic blocks only, which needs the list ordered by genericity: not converted yet"
                    : page == .document
                        ? "a $document exception with a cosmetic-only option"
                        : "it switches off cosmetic filters only, which are not converted yet")
                : "it only has a meaning on an @@ exception"
            return .failure(FilterSyntaxError(message: "$\(page.rawValue): \(why)"))
        }
        if o.all {
            return .failure(
                FilterSyntaxError(
                    message: "$all also blocks inline scripts and fonts (uBO), which"
                        + " content rules cannot"))
        }
        if o.important && filter.isException {
            return .failure(FilterSyntaxError(message: "$important on an @@ exception"))
        }
        let urlFilter: (urlFilter: String, caseSensitive: Bool)
        let types: [String]?
        let condition: TriggerCondition?
        switch PatternURLFilter.ruleURLFilter(filter.pattern, matchCase: o.matchCase) {
        case .failure(let e): return .failure(e)
        case .success(let f): urlFilter = f
        }
        switch FilterTrigger.resourceTypes(o) {
        case .failure(let e): return .failure(e)
        case .success(let t): types = t
        }
        guard types?.isEmpty != true else {
            return .failure(FilterSyntaxError(message: "its type options leave no WebKit type: it never applies"))
        }
        switch FilterTrigger.condition(o.domains, target: target) {
        case .failure(let e): return .failure(e)
        case .success(let c): condition = c
        }
        let trigger = Trigger(
            urlFilter: urlFilter.urlFilter, urlFilterIsCaseSensitive: urlFilter.caseSensitive, resourceTypes: types,
            loadTypes: o.thirdParty.map { [$0 ? "third-party" : "first-party"] }, condition: condition)
        let rule = ContentRule(trigger: trigger, action: filter.isException ? .ignorePreviousRules : .block)
        let role: Role = filter.isException ? .exception : (o.important ? .important : .block)
        return FilterTrigger.framesOnTop(rule, target: target).map { $0.flatMap { splitNavigation($0, role) } }
    }

    /// `@@pattern$document`: ABP switches blocking off for every load of a page whose URL the pattern matches, and
    /// of its frames. WebKit: one ignore-previous-rules rule on the top page's URL and one on the load's frame's URL
    /// (the pattern's url-filter as the condition's regex), after every block; a frame nested in a matching frame
    /// that is not the top page is not covered (docs/filter-lists.md). Other types named on the same filter stay an
    /// ordinary exception for them.
    static func pageWideException(
        _ filter: NetworkFilter, target: EngineProfile
    ) -> Result<[(ContentRule, Role)], FilterSyntaxError> {
        let o = filter.options
        if !o.domains.isEmpty || o.thirdParty != nil || o.matchCase || !o.excludedTypes.isEmpty || o.all
            || o.important
        {
            return .failure(
                FilterSyntaxError(
                    message: "$document exception with $domain, a party, $match-case, $~type, $all or $important: not"
                        + " converted"))
        }
        if let why = FilterTrigger.unread(.ifFrameURL, by: target, for: "a $document exception") {
            return .failure(why)
        }
        let page: String
        switch PatternURLFilter.urlFilter(filter.pattern, caseSensitive: false) {
        case .failure(let e): return .failure(e)
        case .success(let f): page = f
        }
        var out: [(ContentRule, Role)] = []
        if !o.types.isEmpty {
            var typed = filter
            typed.options.pageExceptions = []
            switch rule(for: typed, target: target) {
            case .failure(let e): return .failure(e)
            case .success(let rules): out = rules
            }
        }
        for kind in [TriggerCondition.Kind.ifTopURL, .ifFrameURL] {
            let trigger = Trigger(urlFilter: ".*", condition: TriggerCondition(kind, [page]))
            out.append((ContentRule(trigger: trigger, action: .ignorePreviousRules), .pageException))
        }
        return .success(out)
    }

    /// A block's top-document part goes after the navigation reset, the rest stays in its group.
    static func splitNavigation(_ rule: ContentRule, _ role: Role) -> [(ContentRule, Role)] {
        guard role != .exception, let types = rule.trigger.resourceTypes, types.contains("top-document") else {
            return [(rule, role)]
        }
        var document = rule
        document.trigger.resourceTypes = ["top-document"]
        var rest = rule
        rest.trigger.resourceTypes = types.filter { $0 != "top-document" }
        return (rest.trigger.resourceTypes!.isEmpty ? [] : [(rest, role)]) + [(document, .navigationBlock)]
    }

    /// What a `$badfilter` filter and the filter it disables have in common: the text less that option.
    static func badfilterKey(_ filter: NetworkFilter) -> String {
        guard let (pattern, options) = NetworkFilterParser.splitOptions(Substring(filter.text)) else {
            return filter.text
        }
        let kept = options.split(separator: ",").filter { $0.lowercased() != "badfilter" }
        return String(pattern) + (kept.isEmpty ? "" : "$" + kept.joined(separator: ","))
    }

}
