// The one conversion: a TDS with its privacy config and unprotected sites -> WebKit rule lists with their
// provenance (the main list, the click-to-load lists, the ad-click attribution list), optimized unless asked not
// to, and encoded for a target when one is given. `build`, `convert`, `diff` (a side given as a TDS) and
// `attribution` (the attributed variant) all convert here, so a list kind is added in one place: `lists`.

import ContentRules
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

    public init(
        mode: RuleBuildMode = .faithful, sameEntity: SameEntityEncoding = .shared, optimize: Bool = true,
        splitAttribution: Bool = false, target: EngineProfile? = nil
    ) {
        self.mode = mode
        self.sameEntity = sameEntity
        self.optimize = optimize
        self.splitAttribution = splitAttribution
        self.target = target
    }
}

/// The kind of one converted list.
public enum ConvertedListKind: Sendable, Equatable {
    case main
    /// A click-to-load list, by its rule action.
    case clickToLoad(ruleAction: String)
    case adClickAttribution
}

/// One list of a conversion, with the provenance of each rule.
public struct ConvertedList: Sendable {
    public var kind: ConvertedListKind
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]
}

/// What a conversion gives.
public struct Conversion: Sendable {
    /// The builder's result: the main list, the click-to-load and attribution lists, the issues.
    public var result: RuleBuildResult
    /// What the optimization stage removed.
    public var optimization: OptimizationReport

    /// Every list, the main one first, then the click-to-load lists, then the attribution list.
    public var lists: [ConvertedList] {
        [ConvertedList(kind: .main, rules: result.rules, provenance: result.provenance)]
            + result.clickToLoadLists.map {
                ConvertedList(kind: .clickToLoad(ruleAction: $0.ruleAction), rules: $0.rules, provenance: $0.provenance)
            }
            + (result.attributionList.map {
                [ConvertedList(kind: .adClickAttribution, rules: $0.rules, provenance: $0.provenance)]
            } ?? [])
    }

    /// The conversion of `tds`; `decodeIssues` (the TDS decoder's) are reported with the builder's.
    public static func convert(
        tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
        decodeIssues: [DecodeIssue] = [], options: ConversionOptions
    ) -> Conversion {
        finish(
            RuleBuilder.build(
                tds: tds, config: config, unprotectedSites: unprotected, mode: options.mode,
                decodeIssues: decodeIssues, sameEntity: options.sameEntity, splitAttribution: options.splitAttribution),
            options: options)
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
        let (optimized, report) = RuleListOptimizer.optimize(built, if: options.optimize)
        let encoded = options.target.map { TargetEncoding.adapt(optimized, for: $0) } ?? optimized
        return Conversion(result: encoded, optimization: report)
    }
}
