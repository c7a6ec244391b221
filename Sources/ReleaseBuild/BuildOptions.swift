// What `radarblock build` is asked to do, and what it answers.

import ContentRules
import Release
import RuleBuilder
import RuleCompiler

public struct BuildOptions: Sendable {
    public var tds: String?
    /// A TDS produced by the caller (e.g. generated from Tracker Radar files) instead of `tds`.
    public var generatedTDS: (bytes: [UInt8], source: String)?
    public var config: String?
    public var surrogates: String?
    public var unprotected: String?
    public var out: String
    public var previous: String?
    public var ifChanged = false
    public var fallback: String?
    public var maxRules = RuleBuilder.maximumRuleCount
    /// The engines the release is for, the first one primary (rules.json, ...); one list set per target,
    /// each split at min(maxRules, the target's rule limit).
    public var targets: [EngineProfile] = [.portable]
    public var mode: RuleBuildMode = .faithful
    /// Run the optimization stage (RuleListOptimizer); `--no-optimize` turns it off.
    public var optimize = true
    /// Faithful mode's same-entity exemptions: a list per large entity (split by RuleListSplitter);
    /// `--single-list` shares one entity's only, `--per-tracker-exemptions` none.
    public var sameEntity: SameEntityEncoding = .entityLists
    public var name = "tds"
    public var strict = false
    /// Compile every list with WebKitGTK too and fail the build if WebKit rejects one (`--verify-webkit`).
    public var webKitVerifier: WebKitVerifier? = nil
    /// With `previous`: WebKit's compile cost of the new release (and of the previous one when its manifest
    /// recorded none), recorded in the manifest and shown in changes.md. Nil, or a meter that cannot load
    /// WebKitGTK: nothing is measured.
    public var webKitCostMeter: WebKitCostMeter? = nil
    /// `--max-compile-regression PCT`: fail, publishing nothing, when the new release's WebKit compile time (CPU)
    /// or peak memory is more than PCT% above the previous release's.
    public var maxCompileRegression: Double? = nil
    /// With `previous`: the content gates (`--max-tracker-removal`, `--max-newly-allowed`); off unless given.
    public var contentGates = ContentGateLimits()
    /// Replace --out even when it is neither empty nor a radarblock release.
    public var force = false
    /// surrogates.js also reports every tracker request (`radarblock:tracker`, the default; --no-report-trackers
    /// leaves it out); manifest counts.trackerReport = 1.
    public var reportTrackers = true
    public var fetch = FetchOptions()
    /// Limits of the compiled automata; a rule whose own automaton is over them is dropped (and reported).
    public var budget = CompileBudget()

    public init(out: String) { self.out = out }
}

public enum BuildOutcome: Sendable {
    case built(Manifest, warnings: [String])
    /// `--if-changed` found every input unchanged since the previous release.
    case unchanged(identifier: String)
}
