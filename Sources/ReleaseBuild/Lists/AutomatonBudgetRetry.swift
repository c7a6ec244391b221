// One bad rule must not take the release down: a rule whose own automaton is over the compile budget is
// dropped (every offender of a list is found in one compilation) and the target's lists are built again.

import ContentRules
import Provenance
import RuleBuilder
import RuleCompiler

extension TargetListSet {
    /// The target's lists, with every rule over the budget dropped (never with --strict).
    static func compileListSet(
        _ built: RuleBuildResult, target: EngineProfile, primary: Bool, dataset: String?,
        options: BuildOptions, progress: ReleaseBuilder.Progress
    ) throws -> TargetListSet {
        var set = try targetParts(built, target: target, options: options)
        for attempt in 0... {
            do {
                return try compileParts(
                    set, target: target, primary: primary, dataset: dataset, options: options, progress: progress)
            } catch let over as ListOverBudget where attempt <= set.parts.count {
                let part = set.parts[over.part - 1]
                set.issues += over.errors.exceeded.map {
                    "rules: list \(over.part): dropped \($0) [from \(part.provenance[$0.rule])]"
                }
                let offending = Set(
                    over.errors.rules.map { RuleAndProvenance(rule: part.rules[$0], provenance: part.provenance[$0]) })
                let kept = zip(set.rules, set.provenance).filter {
                    !offending.contains(RuleAndProvenance(rule: $0.0, provenance: $0.1))
                }
                guard !kept.isEmpty else {
                    throw BuildError(
                        component: .rules, reason: "list \(over.part): every rule is over the automaton budget")
                }
                set.droppedRules += set.rules.count - kept.count
                (set.rules, set.provenance) = (kept.map(\.0), kept.map(\.1))
                do {
                    set.parts = try RuleListSplitter.split(
                        rules: set.rules, provenance: set.provenance,
                        maxRules: min(options.maxRules, target.maximumRuleCount))
                } catch {
                    throw BuildError(component: .rules, reason: "\(target.name): " + String(describing: error))
                }
            } catch let over as ListOverBudget {
                throw BuildError(
                    component: .rules,
                    reason:
                        "list \(over.part): rules still over the automaton budget after \(attempt) rounds of dropping: "
                        + over.errors.exceeded.map { "\($0)" }.joined(separator: "; "))
            }
        }
        fatalError("unreachable: the retry loop returns or throws")
    }

    /// A list of the set whose rules have automata over the budget (rule-level, so they can be dropped).
    struct ListOverBudget: Error {
        var part: Int
        var errors: CompileBudgetErrors
    }

    private struct RuleAndProvenance: Hashable {
        var rule: ContentRule
        var provenance: RuleProvenance
    }
}
