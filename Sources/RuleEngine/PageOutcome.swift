// What the page gets from a load (blocked, blocked and replaced by a surrogate, allowed, allowed with elements
// hidden) and the rule that decided it: the one answer `match` (--url and --requests) and `diff` give. The engine
// returns these values; the CLI and the diff reports render them.

import Provenance
import RuleCompiler

/// A TDS rule: its tracker and its index in the tracker's `rules` (what a surrogate is named for).
public struct TDSRuleID: Hashable, Sendable {
    public var tracker: String
    public var index: Int

    public init(tracker: String, index: Int) {
        self.tracker = tracker
        self.index = index
    }

    /// The TDS rule a provenance names, nil when it names none (a default, an exemption, a config entry).
    public init?(_ provenance: RuleProvenance) {
        guard let tracker = provenance.tracker, case .rule(let index)? = provenance.part else { return nil }
        self.init(tracker: tracker, index: index)
    }
}

/// What the page gets from one answer.
public struct PageOutcome: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case allowed, blocked, surrogate
    }

    public var kind: Kind
    /// The surrogate script that runs in the blocked load's place (kind `surrogate`).
    public var surrogate: String?
    /// The rule that decided (MatchResult.decidedBy).
    public var decidedBy: DecidingRule?
    /// The actions an allowed load still gets (css-display-none hides elements), in the answer's order; empty for
    /// a blocked load, and unless asked for (`DecisionSide.outcome(_:actions:)`).
    public var actions: [ActionKind] = []

    /// Allowed, with elements of the page hidden.
    public var isHidden: Bool { kind == .allowed && actions.contains(.cssDisplayNone) }
}

/// Rule lists as a page meets them: the engine, each list's provenance (parallel to its rules) and the surrogate
/// each rule's block is replaced by. One side of a diff; the lists `match` answers with.
public struct DecisionSide: @unchecked Sendable {
    public let engine: RuleEngine
    /// Per list: provenance for each rule (by source index); empty when unknown.
    public let provenance: [[RuleProvenance]]
    /// Surrogate names by TDS rule (empty: the lists' TDS is not known).
    public let surrogates: [TDSRuleID: String]
    /// Per list, per compiled rule: the surrogate its provenance names (nil for most rules).
    public let surrogateOfRule: [[String?]]
    /// Whether some rule's block is replaced by a surrogate: if not, every blocked load is `blocked`, whatever rule
    /// decided it.
    public let replacesBlocks: Bool

    public init(lists: [LoadedRuleList], provenance: [[RuleProvenance]] = [], surrogates: [TDSRuleID: String] = [:]) {
        engine = RuleEngine(lists: lists)
        self.provenance = provenance
        self.surrogates = surrogates
        surrogateOfRule = lists.enumerated().map { l, list in
            list.compiled.rules.map { info in
                guard !surrogates.isEmpty, l < provenance.count, Int(info.sourceIndex) < provenance[l].count,
                    let rule = TDSRuleID(provenance[l][Int(info.sourceIndex)])
                else { return nil }
                return surrogates[rule]
            }
        }
        replacesBlocks = surrogateOfRule.contains { $0.contains { $0 != nil } }
    }

    /// The provenance of a deciding rule, when known.
    public func provenance(of d: DecidingRule) -> RuleProvenance? {
        let source = Int(engine.lists[d.list].compiled.rules[d.rule].sourceIndex)
        return d.list < provenance.count && source < provenance[d.list].count ? provenance[d.list][source] : nil
    }

    /// What the page gets from an answer of this side's engine (matched with `deciding: .all`, or `.blocks` for a
    /// blocked load); with `actions`, also the actions an allowed load gets.
    public func outcome(_ result: MatchResult, actions: Bool = false) -> PageOutcome {
        Self.outcome(result, decidedBy: result.decidedBy, surrogateOfRule: surrogateOfRule, actions: actions)
    }

    /// `outcome` from the surrogates by rule alone, with the deciding rule found by whoever found it.
    static func outcome(
        _ result: MatchResult, decidedBy d: DecidingRule?, surrogateOfRule: [[String?]], actions: Bool = false
    ) -> PageOutcome {
        guard result.isBlocked else {
            return PageOutcome(kind: .allowed, decidedBy: d, actions: actions ? result.actions.map(\.kind) : [])
        }
        let surrogate = d.flatMap {
            $0.list < surrogateOfRule.count && $0.rule < surrogateOfRule[$0.list].count
                ? surrogateOfRule[$0.list][$0.rule] : nil
        }
        return PageOutcome(kind: surrogate == nil ? .blocked : .surrogate, surrogate: surrogate, decidedBy: d)
    }
}
