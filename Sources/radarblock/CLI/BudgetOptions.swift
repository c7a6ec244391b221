// The automaton budget options shared by `compile` and `build` (see RuleCompiler's CompileBudget).

import RuleCompiler

enum BudgetOptions {
    static let maxDFAStates = OptionSpec(
        "--max-dfa-states", value: "N",
        help: "DFA states of one automaton in subset construction\n(default \(CompileBudget.defaultStates))")
    static let maxDFAMB = OptionSpec(
        "--max-dfa-mb", value: "N",
        help: "memory to build one automaton, in MB (default \(CompileBudget.defaultMegabytes))")
    static let maxTotalDFAStates = OptionSpec(
        "--max-total-dfa-states", value: "N",
        help: """
            DFA states built for one family (url-filter, top-url, frame-url),
            attempts split for size included (default \(CompileBudget.defaultTotalStates))
            """)
    static let maxCompileSeconds = OptionSpec(
        "--max-compile-seconds", value: "S",
        help: "time to build one family's automata (default \(Int(CompileBudget.defaultSeconds)))")

    /// The budget options under their heading, for a command's grammar.
    static let part = CommandGrammar.Part.options(
        "Automaton budgets (a rule over them is an error naming the rule, the family and the budget)",
        [maxDFAStates, maxDFAMB, maxTotalDFAStates, maxCompileSeconds])

    static func parse(_ args: ParsedArguments) throws -> CompileBudget {
        var budget = CompileBudget()
        func positive(_ option: OptionSpec) throws -> Int? {
            guard let text = args.value(option) else { return nil }
            guard let v = Int(text), v > 0 else {
                throw UsageError("\(option.key) must be a positive whole number, not \"\(text)\"")
            }
            return v
        }
        if let v = try positive(maxDFAStates) { budget.states = v }
        if let v = try positive(maxDFAMB) { budget.bytes = v > Int.max >> 20 ? Int.max : v << 20 }
        if let v = try positive(maxTotalDFAStates) { budget.totalStates = v }
        if let v = try positive(maxCompileSeconds) { budget.seconds = Double(v) }
        return budget
    }
}
