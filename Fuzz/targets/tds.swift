// TDS decoder (lenient and strict) and the conversion: every conversion output validates.

import ContentRules
import RuleBuilder
import TrackerData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    _ = try? TrackerDataSet.decode(bytes: input, source: "fuzz.json", strict: true)
    guard let (tds, _) = try? TrackerDataSet.decode(bytes: input, source: "fuzz.json") else { return 0 }
    for mode in [RuleBuildMode.faithful, .ddg] {
        let built = RuleBuilder.build(tds: tds, mode: mode)
        // A ddg list is empty when no tracker blocks (TrackerRadarKit emits nothing then); the commands refuse it
        // with a clear error. A faithful list always carries its top-document rule.
        guard !built.rules.isEmpty else {
            invariant(mode == .ddg, "a faithful conversion is empty")
            continue
        }
        let json = CanonicalRuleWriter.bytes(built.rules)
        do { _ = try RuleListParser.validate(bytes: json) } catch {
            invariant(false, "a \(mode) conversion does not validate: \(error)")
        }
    }
    return 0
}
