// One call from files on disk to a TDS: what `radarblock tds` runs, and what `build --radar` uses (the
// ReleaseBuild passes `generation.tds` on as if it had been read from a TDS file).

import FileIO
import TrackerData

public struct TDSGeneratorFiles: Sendable {
    public var radar: RadarIngest.Options
    /// nil: TDSPolicy.default (the same values as data/policy.json).
    public var policyPath: String?
    /// tracker-surrogates mapping.json; nil: no surrogate rules.
    public var mappingPath: String?
    public var overridesPath: String?
    public var webKit: RuleRegex.FilterCheck

    public init(
        radar: RadarIngest.Options, policyPath: String? = nil, mappingPath: String? = nil, overridesPath: String? = nil,
        webKit: @escaping RuleRegex.FilterCheck
    ) {
        self.radar = radar
        self.webKit = webKit
        self.policyPath = policyPath
        self.mappingPath = mappingPath
        self.overridesPath = overridesPath
    }
}

extension TDSGenerator {
    /// Loads every input (policy, mapping and overrides first, so that a typo there fails before the radar
    /// tree is read) and generates. Throws for unusable inputs; radar files that cannot be used are in `issues`
    /// unless `radar.strict`.
    public static func generate(files: TDSGeneratorFiles) throws -> (generation: TDSGeneration, policy: TDSPolicy) {
        let policy = try files.policyPath.map(TDSPolicy.load(path:)) ?? .default
        let mapping = try files.mappingPath.map(SurrogateMapping.load(path:))
        let overrides = try files.overridesPath.map(TDSOverrides.load(path:))
        let radar = try RadarIngest.load(files.radar)
        if radar.domains.isEmpty {
            throw TDSGeneratorError(
                description: "\(files.radar.directory): no usable domain files"
                    + (radar.issues.isEmpty ? "" : " (\(radar.issues.count) skipped)"))
        }
        let input = TDSGeneratorInput(
            radar: radar, policy: policy, mapping: mapping, overrides: overrides,
            mappingSource: files.mappingPath ?? "mapping.json",
            overridesSource: files.overridesPath ?? "overrides.json",
            webKit: files.webKit)
        return (try generate(input), policy)
    }
}
