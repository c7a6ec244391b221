// Shared by every fuzz target (compiled into each one): the budget the automaton compiler runs under
// while fuzzing, and the invariant check that turns a broken promise into a crash libFuzzer reports.

import RuleCompiler

/// Small enough that one input can never take more than a fraction of a second or a few MB.
let fuzzBudget = CompileBudget(states: 20_000, bytes: 16 << 20, totalStates: 60_000, seconds: 5)

/// A violated invariant: print what was expected and abort (libFuzzer saves the input).
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        print("INVARIANT VIOLATED: \(message())")
        fatalError(message())
    }
}

/// The input's bytes as a Swift array.
func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}
