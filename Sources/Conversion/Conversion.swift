// The one conversion: a TDS with its privacy config and unprotected sites -> WebKit rule lists with their
// provenance (the main list, the click-to-load lists, the ad-click attribution list, the cookie pop-up list, the
// filter lists' list),
// optimized unless asked not to, and encoded for a target when one is given. `build`, `convert`, `diff` (a side
// given as a TDS) and `attribution` (the attributed variant) all convert here, so a list kind is added in one
// place: `lists` (and, for a release, the kind's definition in Release's ReleaseListKind).

import AdblockSyntax
import ContentRules
import FilterLists
import Provenance
import RuleBuilder
import TrackerData

/// How to convert.
public struct ConversionOptions: Sendable {
    public var mode: RuleBuildMode
    public var sameEntity: SameEntityEncoding
    /// The optimization stage between the builder and the writer (`--no-optimize` turns it off).
    public var optimize: Bool
    /// The attribution rules in a list of their own (a release's), instead of in the main list (`convert`).
    public var splitAttribution: Bool
    /// The engine the lists are encoded for; nil leaves them as the builder writes them (a build encodes each of
    /// its targets from them).
    public var target: EngineProfile?
    /// The engine the cookie pop-up list's selectors are written for; nil converts no cookie pop-up list.
    public var cookiePopups: EngineProfile?
    /// The filter lists (`build --filter-list`) converted together into a list of their own, and the engine it is
    /// written for; nil converts none.
    public var filterLists: (lists: [FilterList], target: EngineProfile)?

    public init(
        mode: RuleBuildMode = .faithful, sameEntity: SameEntityEncoding = .shared, optimize: Bool = true,
        splitAttribution: Bool = false, target: EngineProfile? = nil, cookiePopups: EngineProfile? = nil,
        filterLists: (lists: [FilterList], target: EngineProfile)? = nil
    ) {
        self.mode = mode
        self.sameEntity = sameEntity
        self.optimize = optimize
        self.splitAttribution = splitAttribution
        self.target = target
        self.cookiePopups = cookiePopups
        self.filterLists = filterLists
    }
}

/// What a filter lists' list holds: their network filters as block and ignore-previous-rules rules, or their
/// cosmetic filters as css-display-none rules. Apart, so that a network `@@` exception never shows a hidden element
/// (an ignore-previous-rules rule cancels every earlier rule of its list, hiding rules included).
public enum FilterListLayer: String, Sendable, CaseIterable {
    case network, cosmetic
}

/// The filter lists converted together into one list per layer (FilterListConverter: an exception of one list
/// applies to the filters of every list, so they are one WebKit list), each ending with the rules that switch it off
/// on the unprotected sites.
public struct FilterListsConversion: Sendable {
    public var layer: FilterListLayer
    /// The lists' names (their file names), in the order given.
    public var sources: [String]
    /// The layer's rules and their provenance, the unprotected sites' rules last.
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]
    /// The filters of the layer not converted, and what the target's encoding reported.
    public var issues: [FilterLineIssue]
    public var targetIssues: [ConversionIssue]

    /// The lists of `lists` as one list per layer (the cosmetic one when it has rules: else its issues are the
    /// network list's), switched off where `config` and `unprotected` say.
    public static func convert(
        _ lists: [FilterList], target: EngineProfile, config: PrivacyConfig?, unprotected: UnprotectedSites?
    ) -> [FilterListsConversion] {
        let conversion = FilterListConverter.convert(lists, target: target)
        let offSites = UnprotectedSiteRules.rules(config: config, unprotected: unprotected)
        let sources = lists.map(\.name)
        let network = FilterListsConversion(
            layer: .network, sources: sources, rules: conversion.rules + offSites.rules,
            provenance: conversion.provenance + offSites.provenance, issues: conversion.issues,
            targetIssues: conversion.targetIssues)
        let c = conversion.cosmetic
        guard !c.rules.isEmpty else {
            // No cosmetic list to carry them: its filters' issues go with the network list's, none lost.
            var only = network
            only.issues = FilterListConverter.inListOrder(network.issues + c.issues, lists)
            only.targetIssues += c.targetIssues
            return [only]
        }
        let cosmetic = FilterListsConversion(
            layer: .cosmetic, sources: sources, rules: c.rules + offSites.rules,
            provenance: c.provenance + offSites.provenance, issues: c.issues, targetIssues: c.targetIssues)
        return [network, cosmetic]
    }

    /// Every filter not converted, as `LIST: line N: FILTER: [kind] reason`.
    public var issueLines: [String] {
        issues.map { $0.named(or: sources.joined(separator: "+")) }
            + targetIssues.map { "\(sources.joined(separator: "+")): \($0)" }
    }
}

/// The kind of one converted list.
public enum ConvertedListKind: Sendable, Equatable {
    case main
    /// A click-to-load list, by its rule action.
    case clickToLoad(ruleAction: String)
    case adClickAttribution
    case cookiePopups
    /// The filter lists' list of a layer.
    case filterLists(FilterListLayer)
}

/// One list of a conversion, with the provenance of each rule.
public struct ConvertedList: Sendable {
    /// The builder's record of a list, with what a release writes beside its rules.
    public enum Record: Sendable {
        case main
        /// With the entity the list is for.
        case clickToLoad(ClickToLoadList)
        /// With the TDS it is built from and the allowlist entries it covers.
        case adClickAttribution(AttributionList)
        /// With the script layer's filters, the sites it is off on and its counts.
        case cookiePopups(CookiePopupList)
        /// With the lists it is made of and what was not converted.
        case filterLists(FilterListsConversion)
    }

    public var record: Record
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]

    public var kind: ConvertedListKind {
        switch record {
        case .main: return .main
        case .clickToLoad(let list): return .clickToLoad(ruleAction: list.ruleAction)
        case .adClickAttribution: return .adClickAttribution
        case .cookiePopups: return .cookiePopups
        case .filterLists(let lists): return .filterLists(lists.layer)
        }
    }
}

/// What a conversion gives.
public struct Conversion: Sendable {
    /// The builder's result: the main list, the click-to-load and attribution lists, the issues.
    public var result: RuleBuildResult
    /// What the optimization stage removed.
    public var optimization: OptimizationReport
    /// The cookie pop-up list when it was asked for (`ConversionOptions.cookiePopups`) and the TDS has one that
    /// the config leaves on; its script layer applies even when it has no rules.
    public var cookiePopups: CookiePopupList? = nil
    /// The filter lists' lists, one per layer, when filter lists were asked for (`ConversionOptions.filterLists`).
    public var filterLists: [FilterListsConversion] = []

    /// Every list, the main one first, then the click-to-load lists, the attribution list, the cookie pop-up
    /// list (when it has rules) and the filter lists' list.
    public var lists: [ConvertedList] {
        [ConvertedList(record: .main, rules: result.rules, provenance: result.provenance)]
            + result.clickToLoadLists.map {
                ConvertedList(record: .clickToLoad($0), rules: $0.rules, provenance: $0.provenance)
            }
            + (result.attributionList.map {
                [ConvertedList(record: .adClickAttribution($0), rules: $0.rules, provenance: $0.provenance)]
            } ?? [])
            + (cookiePopups.flatMap {
                $0.rules.isEmpty
                    ? nil : [ConvertedList(record: .cookiePopups($0), rules: $0.rules, provenance: $0.provenance)]
            } ?? [])
            + filterLists.map { ConvertedList(record: .filterLists($0), rules: $0.rules, provenance: $0.provenance) }
    }

    /// The conversion of `tds`; `decodeIssues` (the TDS decoder's) are reported with the builder's.
    public static func convert(
        tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
        decodeIssues: [DecodeIssue] = [], options: ConversionOptions
    ) -> Conversion {
        var conversion = finish(
            RuleBuilder.build(
                tds: tds, config: config, unprotectedSites: unprotected, mode: options.mode,
                decodeIssues: decodeIssues, sameEntity: options.sameEntity, splitAttribution: options.splitAttribution),
            options: options)
        conversion.cookiePopups = options.cookiePopups.flatMap {
            CookiePopupRules.build(tds: tds, config: config, unprotected: unprotected, target: $0)
        }
        conversion.filterLists =
            options.filterLists.map {
                FilterListsConversion.convert($0.lists, target: $0.target, config: config, unprotected: unprotected)
            } ?? []
        return conversion
    }

    /// The conversion of decoded inputs (their TDS issues reported with the builder's).
    public static func convert(_ inputs: ConversionInputs, options: ConversionOptions) -> Conversion {
        convert(
            tds: inputs.tds, config: inputs.config, unprotected: inputs.unprotected, decodeIssues: inputs.tdsIssues,
            options: options)
    }

    /// The attributed variant of the attribution list for the vendor site `vendor`.
    public static func attributed(
        tds: TrackerDataSet, config: PrivacyConfig, unprotected: UnprotectedSites?, vendor: String,
        options: ConversionOptions
    ) -> Conversion {
        finish(
            RuleBuilder.attributed(
                tds: tds, config: config, unprotectedSites: unprotected, mode: options.mode, vendor: vendor),
            options: options)
    }

    static func finish(_ built: RuleBuildResult, options: ConversionOptions) -> Conversion {
        let (optimized, report) = RuleListOptimizer.optimize(built, if: options.optimize, mode: options.mode)
        let encoded = options.target.map { TargetEncoding.adapt(optimized, for: $0) } ?? optimized
        return Conversion(result: encoded, optimization: report)
    }
}
