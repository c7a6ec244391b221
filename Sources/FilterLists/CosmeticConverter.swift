// A parsed filter list's cosmetic filters -> a content rule list of their own (css-display-none rules), each filter
// exact or reported (docs/filter-lists.md, "Cosmetic filters").
//
// Apart from the network list. WebKit's ignore-previous-rules cancels every earlier rule of its list, hiding rules
// included: in one list with the network rules, an `@@` exception for a page's script would also show the page's
// hidden elements (SafariConverterLib #70). Here only the exceptions that switch element hiding off do.
//
// Reading. The filters go through the cookie pop-up list's reading (TrackerData's CosmeticFilterList: ABP's
// most-specific-site rule, `#@#` exceptions by selector text, sites normalised) and rules (RuleBuilder's
// CosmeticRules: one rule per site condition, the quirks-mode rewrite, WebKit's selector parser), with ABP's
// extended CSS reported instead of handed to a script layer: a filter list has none.
//
// Order. Generic hides (no positive site: the global style sheet first, then the `~site` ones), then the
// `$generichide` exceptions, then the site-specific hides, then the `$elemhide` and `$document` exceptions: each
// exception an ignore-previous-rules rule with the exception's pattern as an `if-top-url` regex, so it cancels the
// hides before it on the pages the pattern matches. `$specifichide` would have to cancel the specific hides but not
// the generic ones before them: reported.

import AdblockSyntax
import ContentRules
import Provenance
import RuleBuilder
import TrackerData

public struct CosmeticConversion: Sendable {
    public var rules: [ContentRule] = []
    /// Parallel to `rules`.
    public var provenance: [RuleProvenance] = []
    /// The cosmetic filters and cosmetic-only exceptions not converted, in line order.
    public var issues: [FilterLineIssue] = []
    /// Rules a target cannot express (TargetEncoding).
    public var targetIssues: [ConversionIssue] = []
    /// Selectors written into rules.
    public var selectors = 0
    /// `$generichide`, `$elemhide` and `$document` exceptions converted.
    public var pageExceptions = 0
}

public enum CosmeticConverter {
    /// The page-wide exceptions that concern element hiding only: the network list leaves them to this list.
    static let hidingOnly: Set<PageException> = [.elemhide, .generichide, .specifichide]

    public static func convert(_ list: FilterList, target: EngineProfile) -> CosmeticConversion {
        convert([list], target: target)
    }

    /// Several lists as one cosmetic list, as adblock-rust loads them together: a `#@#` exception of one list shows
    /// its selector against the hides of every list (each list is read with the others' exceptions, which make no
    /// rule of their own), and a page-wide exception of one list cancels the hides of every list (all generic hides
    /// come first, then every `$generichide` exception, and so on). Issues name their list when there are several.
    public static func convert(_ lists: [FilterList], target: EngineProfile) -> CosmeticConversion {
        var out = CosmeticConversion()
        let parts = lists.indices.map { i in
            part(
                lists[i], foreignExceptions: lists.indices.filter { $0 != i }.flatMap { exceptions(lists[$0]) },
                target: target)
        }
        let ordered =
            parts.flatMap(\.generic) + parts.flatMap(\.resets.generic) + parts.flatMap(\.specific)
            + parts.flatMap(\.resets.all)
        let adapted = TargetEncoding.adapt(
            RuleBuildResult(rules: ordered.map(\.0), provenance: ordered.map(\.1)), for: target)
        (out.rules, out.provenance, out.targetIssues) = (adapted.rules, adapted.provenance, adapted.issues)
        out.selectors = parts.reduce(0) { $0 + $1.selectors }
        out.pageExceptions = parts.reduce(0) { $0 + $1.resets.generic.count + $1.resets.all.count }
        for (list, part) in zip(lists, parts) {
            out.issues += part.issues.sorted { $0.line < $1.line }.map { lists.count > 1 ? $0.in(list.name) : $0 }
        }
        return out
    }

    /// A list's `#@#` exceptions as another list reads them: negative lines, so that nothing is reported twice.
    static func exceptions(_ list: FilterList) -> [AdblockSyntax.CosmeticFilter] {
        list.cosmetic.filter { $0.kind == .hideException && unconverted($0) == nil }.map {
            var foreign = $0
            foreign.line = -$0.line
            return foreign
        }
    }

    /// One list's hides (generic, then site-specific) and page-wide exceptions, its issues and selector count.
    static func part(
        _ list: FilterList, foreignExceptions: [AdblockSyntax.CosmeticFilter], target: EngineProfile
    ) -> (
        generic: [Placed], specific: [Placed], resets: (generic: [Placed], all: [Placed]),
        issues: [FilterLineIssue], selectors: Int
    ) {
        var issues: [FilterLineIssue] = []
        var hiding = FilterList(name: list.name)
        for filter in list.cosmetic {
            if let why = unconverted(filter) {
                issues.append(FilterLineIssue(line: filter.line, text: filter.text, kind: .notConverted, reason: why))
            } else {
                hiding.cosmetic.append(filter)
            }
        }
        let texts = Dictionary(hiding.cosmetic.map { ($0.line, $0.text) }, uniquingKeysWith: { a, _ in a })
        hiding.cosmetic += foreignExceptions
        let read = CosmeticFilterList(hiding)
        let (hides, notes) = read.hides()
        var origin = RuleProvenance(source: .filterList, role: .hide)
        origin.list = list.name
        let built = CosmeticRules.build(hides, target: target, extendedCSS: .reported, origin: origin)
        for issue in read.issues + notes + built.issues where issue.line >= 0 {
            issues.append(
                FilterLineIssue(
                    line: issue.line, text: texts[issue.line] ?? "", kind: .notConverted, reason: issue.message))
        }
        let resets = pageExceptions(list, target: target, issues: &issues)
        let isGeneric = { (rule: ContentRule) in rule.trigger.condition.map { $0.kind == .unlessTopURL } ?? true }
        // A rule's provenance names the lines of its own list: the other lists' exceptions are theirs.
        let provenance = built.provenance.map { p in
            var own = p
            own.filterLines = p.filterLines?.filter { $0 >= 0 }
            return own
        }
        let hidesInOrder = zip(built.rules, provenance)
        return (
            hidesInOrder.filter { isGeneric($0.0) }, hidesInOrder.filter { !isGeneric($0.0) }, resets, issues,
            built.selectors
        )
    }

    /// Why a cosmetic filter is not element hiding WebKit can apply; nil for `##` and `#@#` CSS selectors.
    static func unconverted(_ filter: AdblockSyntax.CosmeticFilter) -> String? {
        switch filter.kind {
        case .hide, .hideException:
            if filter.body.hasPrefix("+js(") { return "uBO scriptlet (+js): runs code, which content rules cannot" }
            if filter.body.hasPrefix("^") { return "HTML filter (##^): removes elements from the source" }
            return nil
        case .extended, .extendedException:
            return "procedural filter (\(filter.kind.rawValue)): extended CSS, no WebKit selector"
        case .style, .styleException:
            return "CSS injection or snippet (\(filter.kind.rawValue)): not element hiding"
        case .script, .scriptException:
            return "script filter (\(filter.kind.rawValue)): runs code, which content rules cannot"
        }
    }

    typealias Placed = (ContentRule, RuleProvenance)

    /// The `@@` exceptions that switch element hiding off on the pages their pattern matches, as
    /// ignore-previous-rules rules: `generic` (`$generichide`) and `all` (`$elemhide`, `$document`).
    static func pageExceptions(
        _ list: FilterList, target: EngineProfile, issues: inout [FilterLineIssue]
    ) -> (generic: [Placed], all: [Placed]) {
        var generic: [Placed] = [], all: [Placed] = []
        for filter in list.network where filter.isException && !filter.options.pageExceptions.isEmpty {
            let kinds = filter.options.pageExceptions
            let hidingOnly = kinds.isSubset(of: hidingOnly)
            guard hidingOnly || kinds == [.document] else { continue }
            switch pageException(filter, target: target) {
            case .failure(let why):
                // A `$document` exception the network list reports is reported there.
                if hidingOnly {
                    issues.append(
                        FilterLineIssue(line: filter.line, text: filter.text, kind: .notConverted, reason: why.message))
                }
            case .success(let rule):
                var provenance = RuleProvenance(source: .filterList, role: .exception, filterLines: [filter.line])
                (provenance.list, provenance.filter) = (list.name, filter.text)
                if kinds.contains(.generichide) && !kinds.contains(.elemhide) {
                    generic.append((rule, provenance))
                } else {
                    all.append((rule, provenance))
                }
            }
        }
        return (generic, all)
    }

    static func pageException(_ filter: NetworkFilter, target: EngineProfile) -> Result<ContentRule, FilterSyntaxError>
    {
        let o = filter.options
        if o.pageExceptions.contains(.specifichide) {
            return .failure(
                FilterSyntaxError(
                    message: "$specifichide: it would cancel the site-specific hides and not the generic ones before"
                        + " them: not converted"))
        }
        let typed = o.pageExceptions == [.document] ? !o.excludedTypes.isEmpty : !o.types.union(o.excludedTypes).isEmpty
        if !o.domains.isEmpty || o.thirdParty != nil || o.matchCase || typed || o.all || o.important
            || !o.unconvertible.isEmpty
        {
            return .failure(
                FilterSyntaxError(
                    message: "a page-wide exception with $domain, a party, $match-case, a type, $all or another"
                        + " option: not converted"))
        }
        if !target.reads(.ifTopURL) {
            return .failure(FilterSyntaxError(message: "\(target.name) does not read if-top-url"))
        }
        return PatternURLFilter.urlFilter(filter.pattern, caseSensitive: false).map { page in
            ContentRule(
                trigger: Trigger(urlFilter: ".*", condition: TriggerCondition(.ifTopURL, [page])),
                action: .ignorePreviousRules)
        }
    }
}
