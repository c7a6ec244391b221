// RuleListOptimizer: the stage between RuleBuilder and the writer (issue 13). It rewrites a rule list into one
// that WebKit decides identically for every load, but that compiles with less work: fewer url-filters, each
// sharing more of its prefix with the others. It changes nothing else (order, conditions, actions).
//
// Each rewrite is a named transformation with its own equivalence argument, and keeps provenance: an output
// rule made of several input rules carries the provenance they share (they come from the same TDS rule or
// allowlist entry) with their roles joined by "+".
//
// Transformations:
// - `hostAndInURLUnion`: a TDS rule (or allowlist entry) becomes a host-form rule and, right after it, an
//   in-URL-form rule with the same action and conditions (HostFilters.swift). Two adjacent rules with the same
//   trigger conditions and the same action (block or ignore-previous-rules) act as one rule whose url-filter
//   matches the union of theirs: nothing sits between them, and the action of the pair is the same whichever
//   of the two matches. The union is written as one filter (see `union`), so WebKit parses, stores and walks
//   the shared prefix and the rule's path once instead of twice.

import ContentRules

public struct OptimizationReport: Sendable, Equatable {
    /// Rules in and out (main list and click-to-load lists together).
    public var rulesIn = 0
    public var rulesOut = 0
    /// How often each transformation applied, by name.
    public var rewrites: [String: Int] = [:]

    public init() {}
}

public enum RuleListOptimizer {
    public static let hostAndInURLUnion = "host-and-in-url-union"

    /// The commands' stage: `optimize(result)` when `enabled` (their default), else the result as it is.
    public static func optimize(_ result: RuleBuildResult, if enabled: Bool) -> (RuleBuildResult, OptimizationReport) {
        guard enabled else {
            var report = OptimizationReport()
            report.rulesIn = result.rules.count + result.clickToLoadLists.reduce(0) { $0 + $1.rules.count } + (result.attributionList?.rules.count ?? 0)
            report.rulesOut = report.rulesIn
            return (result, report)
        }
        return optimize(result)
    }

    /// The optimized result; `issues` and every list's order are kept.
    public static func optimize(_ result: RuleBuildResult) -> (RuleBuildResult, OptimizationReport) {
        var out = result
        var report = OptimizationReport()
        (out.rules, out.provenance) = optimize(rules: result.rules, provenance: result.provenance, report: &report)
        for i in out.clickToLoadLists.indices {
            let list = out.clickToLoadLists[i]
            (out.clickToLoadLists[i].rules, out.clickToLoadLists[i].provenance) =
                optimize(rules: list.rules, provenance: list.provenance, report: &report)
        }
        if let list = out.attributionList {
            (out.attributionList!.rules, out.attributionList!.provenance) = optimize(rules: list.rules, provenance: list.provenance, report: &report)
        }
        return (out, report)
    }

    static func optimize(rules: [ContentRule], provenance: [RuleProvenance],
                         report: inout OptimizationReport) -> ([ContentRule], [RuleProvenance]) {
        precondition(rules.count == provenance.count, "provenance is parallel to the rules")
        report.rulesIn += rules.count
        var outRules: [ContentRule] = []
        var outProvenance: [RuleProvenance] = []
        outRules.reserveCapacity(rules.count)
        outProvenance.reserveCapacity(rules.count)
        var i = 0
        while i < rules.count {
            if i + 1 < rules.count, let merged = InURLUnion.merge(rules[i], provenance[i], rules[i + 1], provenance[i + 1]) {
                outRules.append(merged.rule)
                outProvenance.append(merged.provenance)
                report.rewrites[hostAndInURLUnion, default: 0] += 1
                i += 2
                continue
            }
            outRules.append(rules[i])
            outProvenance.append(provenance[i])
            i += 1
        }
        report.rulesOut += outRules.count
        return (outRules, outProvenance)
    }
}

/// `hostAndInURLUnion` for one adjacent pair.
///
/// The host form is `X(:[0-9]+)?P` and the in-URL form `X[:/]SHP`, where X ends at the request host (a host in
/// the tracker's scope), P is the rule's path, H the rule's host part and S the gap (`.*` for TDS rules,
/// `[^?;#]*` for allowlist entries). The union is written `X(:[0-9]+)?([:/]SH)?P`. Its language:
///   X P and X:port P            = the host form
///   X [:/] S H P                = the in-URL form
///   X :port [:/] S H P          ⊆ the in-URL form, because ":" digits "[:/]" is one "[:/]" followed by a
///                                 string S accepts (S accepts digits, ":" and "/").
/// so it is exactly the union of the two. H is limited to host text (letters, digits, "-", "_", `\.`) and P may
/// not start with a quantifier, so each piece keeps the same terms in the joined filter.
enum InURLUnion {
    static let port = "(:[0-9]+)?"
    static let separator = "[:/]"
    static let gaps = [".*", "[^?;#]*"]

    static func merge(_ a: ContentRule, _ pa: RuleProvenance, _ b: ContentRule, _ pb: RuleProvenance)
        -> (rule: ContentRule, provenance: RuleProvenance)? {
        guard a.action == b.action, a.action == .block || a.action == .ignorePreviousRules else { return nil }
        var bTrigger = b.trigger
        bTrigger.urlFilter = a.trigger.urlFilter
        guard bTrigger == a.trigger, let provenance = joined(pa, pb),
              let filter = union(hostForm: a.trigger.urlFilter, inURLForm: b.trigger.urlFilter) else { return nil }
        var rule = a
        rule.trigger.urlFilter = filter
        return (rule, provenance)
    }

    /// The two rules' shared provenance, roles "… host" and "… in-url" joined as "… host+in-url".
    static func joined(_ pa: RuleProvenance, _ pb: RuleProvenance) -> RuleProvenance? {
        guard let ra = pa.role, let rb = pb.role, ra.hasSuffix("host"), rb.hasSuffix("in-url"),
              ra.dropLast("host".count) == rb.dropLast("in-url".count) else { return nil }
        var a = pa, b = pb
        a.role = nil
        b.role = nil
        guard a == b else { return nil }
        a.role = ra + "+in-url"
        return a
    }

    static func union(hostForm a: String, inURLForm b: String) -> String? {
        guard let portRange = a.range(of: port) else { return nil }
        let x = a[..<portRange.lowerBound], p = a[portRange.upperBound...]
        guard !x.isEmpty, !startsWithQuantifier(p), b.hasPrefix(x + separator) else { return nil }
        let afterSeparator = b.dropFirst(x.count + separator.count)
        for gap in gaps where afterSeparator.hasPrefix(gap) {
            let hp = afterSeparator.dropFirst(gap.count)
            guard hp.hasSuffix(p) else { continue }
            let h = hp.dropLast(p.count)
            guard isHostText(h) else { continue }
            return x + port + "(" + separator + gap + h + ")?" + p
        }
        return nil
    }

    static func startsWithQuantifier(_ s: Substring) -> Bool {
        guard let c = s.first else { return false }
        return "*+?{".contains(c)
    }

    /// Letters, digits, "-", "_" and escaped dots: each character is one term.
    static func isHostText(_ s: Substring) -> Bool {
        guard !s.isEmpty else { return false }
        var it = s.makeIterator()
        while let c = it.next() {
            if c == "\\" {
                guard it.next() == "." else { return false }
            } else if !(c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")) {
                return false
            }
        }
        return true
    }
}
