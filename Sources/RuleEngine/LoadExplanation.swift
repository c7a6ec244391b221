// What `match --url --explain` shows of one load, as values: the load as the engine resolved it, each list's
// reported actions with the rules they come from, the matched rules that were not reported and why, and the
// engine's answer (Explain.report makes it, the CLI renders it).

import StrictJSON

/// The explanation of one request.
public enum LoadExplanation {
    /// The URL does not parse: WebKit applies no rules to it.
    case invalidURL(String)
    /// A data: URL, which WebKit never matches.
    case dataURL(String)
    case load(ExplainedLoad)
}

/// A load as the engine resolved it, and what each list did with it.
public struct ExplainedLoad {
    public var url: String
    /// WebKit's name of the resource type, when it has one.
    public var resourceType: String?
    public var thirdParty: Bool
    public var topFrame: Bool
    /// The request method; nil when the load has none.
    public var method: String?
    public var topURL: String
    public var frameURL: String
    public var lists: [ExplainedList]
    public var answer: MatchResult
}

/// One list's part in a load.
public struct ExplainedList {
    /// The list's position among the engine's lists (0-based).
    public var index: Int
    public var identifier: String
    /// Compiled with its source: the actions name the rules that matched; without it, only which rules share each
    /// action (`ExplainedAction.sharing`).
    public var hasSource: Bool
    /// The engine reported no action of this list.
    public var reportsNothing: Bool
    public var actions: [ExplainedAction] = []
    public var notReported: [UnreportedRule] = []
    public var stylesheet: String
    /// An ignore-previous-rules matched, so the list's global stylesheet does not apply.
    public var stylesheetWithheld: Bool
    /// The automaton's answer differs from the rule-by-rule one (a bug to report).
    public var automatonDiffers = false
}

/// A reported action.
public struct ExplainedAction {
    public var action: JSONValue
    /// The matching rules it comes from (lists with their source).
    public var rules: [ExplainedRule]
    /// The source indices of the rules that store this action (lists without their source).
    public var sharing: [Int] = []
}

public struct ExplainedRule {
    public var sourceIndex: Int
    public var rule: JSONValue
}

/// A matched rule whose action was not reported, and why.
public struct UnreportedRule {
    public enum Why {
        case inStylesheet
        case ignorePreviousRules
        case ignoreFollowingRules
        case cancelled
    }

    public var rule: ExplainedRule
    public var why: Why
}
