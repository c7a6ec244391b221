// CompileBudget: the explicit limits every automaton of a pattern family is built under, so that no
// url-filter (one pathological pattern such as `[ab]*a[ab]{24}`, a 100,000-letter literal, or thousands
// of `.*x.*y.*z` that multiply when combined) can make the compiler eat the machine.
//
//  * states: DFA states of one automaton during subset construction. A batch of several patterns that
//    reaches it is split and retried (as for the combination limit); a single pattern that
//    reaches it is the offender.
//  * bytes: working memory of one subset construction (state sets, transitions, intern table), same rule.
//  * totalStates: DFA states built for one family, attempts that were split included (so that splitting
//    a combination that explodes cannot spin); reaching it fails the whole family (no single rule is to
//    blame).
//  * seconds: wall-clock time of one family (subset constructions and minimizations); same.
//
// The defaults are far above what real lists need and keep two families compiling at once within the
// machine (figures in docs/compile-cost.md, "Compile budgets"). Budgets only ever turn a compilation into
// an error: below them the output is unchanged.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

public struct CompileBudget: Sendable, Hashable {
    public var states: Int
    public var bytes: Int
    public var totalStates: Int
    public var seconds: Double

    public static let defaultStates = 500_000
    public static let defaultMegabytes = 192
    public static let defaultTotalStates = 3_000_000
    public static let defaultSeconds = 120.0

    public init(
        states: Int = CompileBudget.defaultStates, bytes: Int = CompileBudget.defaultMegabytes << 20,
        totalStates: Int = CompileBudget.defaultTotalStates, seconds: Double = CompileBudget.defaultSeconds
    ) {
        self.states = states
        self.bytes = bytes
        self.totalStates = totalStates
        self.seconds = seconds
    }

    /// No limits (tests and tools on trusted input).
    public static let unlimited = CompileBudget(
        states: Int.max, bytes: Int.max, totalStates: Int.max, seconds: .infinity)

    /// Which budget ran out, with the option that raises it.
    public enum Kind: String, Sendable, Hashable {
        case states, bytes, totalStates, seconds

        public var option: String {
            switch self {
            case .states: return "--max-dfa-states"
            case .bytes: return "--max-dfa-mb"
            case .totalStates: return "--max-total-dfa-states"
            case .seconds: return "--max-compile-seconds"
            }
        }

        func describe(limit: Double) -> String {
            switch self {
            case .states: return "more than \(Int(limit)) DFA states"
            case .bytes: return "more than \(Int(limit) >> 20) MB"
            case .totalStates: return "more than \(Int(limit)) DFA states built in all"
            case .seconds: return "more than \(Int(limit)) s"
            }
        }
    }

    func limit(_ kind: Kind) -> Double {
        switch kind {
        case .states: return Double(states)
        case .bytes: return Double(bytes)
        case .totalStates: return Double(totalStates)
        case .seconds: return seconds
        }
    }
}

/// A family's automata went over a budget. `rule` is the source index of the rule whose pattern is to
/// blame (for a family-wide budget: the first rule of the batch being built when it ran out).
public struct CompileBudgetExceeded: Error, Sendable, Hashable, CustomStringConvertible {
    public var family: String
    public var rule: Int
    public var pattern: String
    public var kind: CompileBudget.Kind
    public var limit: Double

    /// Only that rule's own pattern is too big: dropping the rule is enough.
    public var isRuleLevel: Bool { kind == .states || kind == .bytes }

    public var description: String {
        let short = pattern.count > 80 ? String(pattern.prefix(77)) + "..." : pattern
        let what =
            isRuleLevel
            ? "its \(family) automaton for \"\(short)\" needs"
            : "the \(family) automata (building the one for \"\(short)\") need"
        return "rule \(rule): \(what) \(kind.describe(limit: limit)) (automaton budget; raise it with \(kind.option))"
    }
}

/// Several rules over budget at once (every rule-level offender of every family, so that `build` can drop
/// them all in one go), or one family-wide failure.
public struct CompileBudgetErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public var exceeded: [CompileBudgetExceeded]
    public var isRuleLevel: Bool { exceeded.allSatisfy(\.isRuleLevel) }
    public var rules: [Int] { Array(Set(exceeded.map(\.rule))).sorted() }
    public var description: String { exceeded.map(\.description).joined(separator: "\n") }
}

/// Monotonic seconds, for the time budget.
func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// A WebKit NFA whose DFA WebKit's own compiler would not build in reasonable time or memory (see
/// MatcherBuilder.webKitPain); `rule` is the first rule of that NFA.
public struct WebKitPainWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case states(Int)
        case members(Int)
    }
    public var family: String
    public var rule: Int
    public var pattern: String
    public var patternsInAutomaton: Int
    public var nfaNodes: Int
    public var reason: Reason

    public var description: String {
        let short = pattern.count > 80 ? String(pattern.prefix(77)) + "..." : pattern
        let others =
            patternsInAutomaton > 1 ? " (with \(patternsInAutomaton - 1) other pattern(s) of the same prefix)" : ""
        let why: String
        switch reason {
        case .states(let n): why = "more than \(n) DFA states"
        case .members(let n): why = "state sets of more than \(n) NFA nodes in total"
        }
        return
            "rule \(rule): WebKit's compiler will not finish in reasonable time or memory: its \(family) automaton "
            + "for \"\(short)\"\(others) has \(nfaNodes) NFA nodes and needs \(why)"
    }
}

/// Where WebKit's compiler stops finishing in reasonable time or memory, measured with WebKitGTK 2.50.6
/// (scripts/testing/webkit_pain_check.py): the DFA of one of its NFAs with more states, or with more NFA
/// nodes summed over its states, than this.
public enum WebKitPainThreshold {
    public static let states = 100_000
    public static let members = 80_000_000
}
