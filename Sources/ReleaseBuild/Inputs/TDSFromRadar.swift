// `build --radar`: the TDS generated from Tracker Radar files, handed to the release builder as if it had
// been read from a TDS file (its canonical bytes are what the release records and copies).

import TDSGenerator
import TrackerData

public enum TDSFromRadar {
    public static func generate(
        directory: String, entities: String?, policy: String?, mapping: String?, overrides: String?,
        strict: Bool = false, warn: (String) -> Void
    ) throws -> (bytes: [UInt8], source: String) {
        let files = TDSGeneratorFiles(
            radar: RadarIngest.Options(directory: directory, entitiesDirectory: entities, strict: strict),
            policyPath: policy, mappingPath: mapping, overridesPath: overrides, webKit: RuleRegex.webKit)
        let (generation, _) = try TDSGenerator.generate(files: files)
        for issue in generation.issues { warn(issue.description) }
        return (generation.tds.canonicalBytes, "radar:" + directory)
    }
}
