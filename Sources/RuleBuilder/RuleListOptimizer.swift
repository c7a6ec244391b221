// RuleListOptimizer: the stage between RuleBuilder and the writer. It rewrites a rule list into one
// that WebKit decides identically for every load, but that compiles with less work: fewer url-filters, each
// sharing more of its prefix with the others. It changes nothing else (conditions, actions; the order only as
// `blocksFirst` says).
//
// Each rewrite is a named transformation with its own equivalence argument, and keeps provenance: an output
// rule made of several input rules carries the provenance they share (they come from the same TDS rule or
// allowlist entry) with their forms joined (role "… host+in-url").
//
// Transformations:
// - `hostAndInURLUnion`: a TDS rule (or allowlist entry) becomes a host-form rule and, right after it, an
//   in-URL-form rule with the same action and conditions (HostFilters.swift). Two adjacent rules with the same
//   trigger conditions and the same action (block or ignore-previous-rules) act as one rule whose url-filter
//   matches the union of theirs: nothing sits between them, and the action of the pair is the same whichever
//   of the two matches. The union is written as one filter (see `union`), so WebKit parses, stores and walks
//   the shared prefix and the rule's path once instead of twice.
// - `blocksFirst` (faithful lists only: DuckDuckGo's own encoding is kept as it is, rule for rule): in a run of
//   tracker rules, the blocks move ahead of the other trackers' exceptions, so that WebKit gives them one action
//   (BlocksFirst.swift). This one changes the order, never which rules hold.

import ContentRules
import Provenance
import TrackerData

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
    public static let blocksFirst = "blocks-first"

    /// The commands' stage: `optimize(result)` when `enabled` (their default), else the result as it is.
    public static func optimize(_ result: RuleBuildResult, if enabled: Bool, mode: RuleBuildMode = .faithful) -> (
        RuleBuildResult, OptimizationReport
    ) {
        guard enabled else {
            var report = OptimizationReport()
            report.rulesIn =
                result.rules.count + result.clickToLoadLists.reduce(0) { $0 + $1.rules.count }
                + (result.attributionList?.rules.count ?? 0)
            report.rulesOut = report.rulesIn
            return (result, report)
        }
        return optimize(result, mode: mode)
    }

    /// The optimized result; `issues` are kept.
    public static func optimize(_ result: RuleBuildResult, mode: RuleBuildMode = .faithful) -> (
        RuleBuildResult, OptimizationReport
    ) {
        var out = result
        var report = OptimizationReport()
        let reorder = mode == .faithful
        (out.rules, out.provenance) = optimize(
            rules: result.rules, provenance: result.provenance, reorder: reorder, report: &report)
        for i in out.clickToLoadLists.indices {
            let list = out.clickToLoadLists[i]
            (out.clickToLoadLists[i].rules, out.clickToLoadLists[i].provenance) =
                optimize(rules: list.rules, provenance: list.provenance, reorder: reorder, report: &report)
        }
        if let list = out.attributionList {
            (out.attributionList!.rules, out.attributionList!.provenance) = optimize(
                rules: list.rules, provenance: list.provenance, reorder: reorder, report: &report)
        }
        return (out, report)
    }

    static func optimize(
        rules: [ContentRule], provenance: [RuleProvenance], reorder: Bool = true,
        report: inout OptimizationReport
    ) -> ([ContentRule], [RuleProvenance]) {
        precondition(rules.count == provenance.count, "provenance is parallel to the rules")
        report.rulesIn += rules.count
        var outRules: [ContentRule] = []
        var outProvenance: [RuleProvenance] = []
        outRules.reserveCapacity(rules.count)
        outProvenance.reserveCapacity(rules.count)
        var i = 0
        while i < rules.count {
            if i + 1 < rules.count,
                let merged = InURLUnion.merge(rules[i], provenance[i], rules[i + 1], provenance[i + 1])
            {
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
        guard reorder else { return (outRules, outProvenance) }
        let (ordered, orderedProvenance, moved) = BlocksFirst.reorder(outRules, outProvenance)
        if moved > 0 { report.rewrites[blocksFirst, default: 0] += moved }
        return (ordered, orderedProvenance)
    }
}

/// `hostAndInURLUnion` for one adjacent pair, read from the pieces the builder recorded in the provenance
/// (FilterForm.swift), never from the filter text.
///
/// Write `port` for TDSConventions.optionalPort and `end` for TriggerCondition.hostEnd. The host form is
/// `X port P` (`HostForm`: X its `hostPrefix`, P its `path`) and the in-URL form `X end G H P` (`InURLForm`: the
/// same X, its `gap` G, `hostPart` H, `path` P), where X ends at the request host (a host in the tracker's scope),
/// G is `.*` for TDS rules and TDSConventions.beforeQuery for allowlist entries. The union is written
/// `X port (end G H)? P`. Its language:
///   X P and X :port P           = the host form
///   X end G H P                 = the in-URL form
///   X :port end G H P           ⊆ the in-URL form, because ":" digits then `end` is one `end` followed by a
///                                 string G accepts (G accepts digits, ":" and "/").
/// so it is exactly the union of the two. The pair joins only when both forms have the same X and the same P, H is
/// host text (letters, digits, "-", "_", `\.`) and P does not start with a quantifier, so each piece keeps the same
/// terms in the joined filter.
enum InURLUnion {
    static func merge(_ a: ContentRule, _ pa: RuleProvenance, _ b: ContentRule, _ pb: RuleProvenance)
        -> (rule: ContentRule, provenance: RuleProvenance)?
    {
        guard a.action == b.action, a.action == .block || a.action == .ignorePreviousRules else { return nil }
        var bTrigger = b.trigger
        bTrigger.urlFilter = a.trigger.urlFilter
        guard bTrigger == a.trigger, let provenance = joined(pa, pb), let form = provenance.form?.pieces else {
            return nil
        }
        var rule = a
        rule.trigger.urlFilter = form.filter
        return (rule, provenance)
    }

    /// The two rules' shared provenance with the joined form, when the first is a host form and the second an
    /// in-URL form of the same role that can be joined.
    static func joined(_ pa: RuleProvenance, _ pb: RuleProvenance) -> RuleProvenance? {
        guard case .host(let h)? = pa.form?.pieces, case .inURL(let u)? = pb.form?.pieces, canJoin(h, u) else {
            return nil
        }
        var a = pa, b = pb
        a.form = nil
        b.form = nil
        guard a == b else { return nil }
        return a.with(.hostAndInURL(h, u))
    }

    static func canJoin(_ h: HostForm, _ u: InURLForm) -> Bool {
        guard let p = h.path, let hostPart = u.hostPart else { return false }
        return h.hostPrefix == u.hostPrefix && u.path == p && !startsWithQuantifier(p) && isHostText(hostPart)
    }

    /// `X port (end G H)? P`, the union's filter.
    static func filter(_ h: HostForm, _ u: InURLForm) -> String {
        h.hostPrefix + TDSConventions.optionalPort + "(" + TriggerCondition.hostEnd + u.gap.regex + (u.hostPart ?? "")
            + ")?"
            + (h.path ?? "")
    }

    static func startsWithQuantifier(_ s: String) -> Bool {
        guard let c = s.first else { return false }
        return "*+?{".contains(c)
    }

    /// Letters, digits, "-", "_" and escaped dots: each character is one term.
    static func isHostText(_ s: String) -> Bool {
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
