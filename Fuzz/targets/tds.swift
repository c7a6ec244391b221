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
        let json = CanonicalRuleWriter.bytes(built.rules)
        do { _ = try RuleListParser.validate(bytes: json) } catch {
            invariant(false, "a \(mode) conversion does not validate: \(error)")
        }
    }
    return 0
}
