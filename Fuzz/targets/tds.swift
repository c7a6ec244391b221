// TDS decoder (lenient and strict) and the conversion: every conversion output validates, before and after the
// optimization stage, and the stage keeps provenance parallel to the rules and only ever removes rules.

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
        let (optimized, report) = RuleListOptimizer.optimize(built)
        invariant(
            optimized.rules.count == optimized.provenance.count, "the optimizer broke the provenance of a \(mode) list")
        invariant(
            optimized.rules.count == built.rules.count - (report.rulesIn - report.rulesOut), "the optimizer miscounted")
        invariant(optimized.rules.count <= built.rules.count, "the optimizer added rules")
        for (stage, rules) in [("conversion", built.rules), ("optimized conversion", optimized.rules)] {
            let json = CanonicalRuleWriter.bytes(rules)
            do { _ = try RuleListParser.validate(bytes: json) } catch {
                invariant(false, "a \(mode) \(stage) does not validate: \(error)")
            }
        }
    }
    return 0
}
