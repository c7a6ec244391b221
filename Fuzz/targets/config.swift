// Privacy-config decoder (lenient and strict), then the conversion of the sample-shaped TDS with it:
// every conversion output validates.

import ContentRules
import RuleBuilder
import TrackerData

private let tds: TrackerDataSet? = {
    let json =
        #"{"trackers":{"tracker.example":{"domain":"tracker.example","owner":{"name":"T","displayName":"T"},"#
        + #""default":"block","rules":[{"rule":"tracker\\.example\\/a","#
        + #""exceptions":{"domains":["x.example"]}}]}},"entities":{"T":{"domains":["tracker.example"],"#
        + #""displayName":"T"}},"domains":{"tracker.example":"T"}}"#
    return try? TrackerDataSet.decode(bytes: Array(json.utf8), source: "seed-tds.json").0
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    _ = try? PrivacyConfig.decode(bytes: input, source: "fuzz-config.json", strict: true)
    _ = try? UnprotectedSites.parse(bytes: input, source: "fuzz-sites.txt")
    guard let (config, _) = try? PrivacyConfig.decode(bytes: input, source: "fuzz-config.json"), let tds else {
        return 0
    }
    let built = RuleBuilder.build(tds: tds, config: config, mode: .faithful)
    do { _ = try RuleListParser.validate(bytes: CanonicalRuleWriter.bytes(built.rules)) } catch {
        invariant(false, "a conversion with this config does not validate: \(error)")
    }
    return 0
}
