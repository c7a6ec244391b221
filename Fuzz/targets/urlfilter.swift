// url-filter parser and the automaton compiler under its budgets: the input's first line is a pattern,
// the rest are URLs. A supported pattern compiles within the budget or names the budget; a compiled
// matcher survives serialization and answers the same afterwards.

import ContentRules
import RuleCompiler

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lines = String(decoding: bytes(data, size), as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false)
    guard let first = lines.first else { return 0 }
    for caseSensitive in [false, true] {
        let filter = URLFilter.parse(String(first), caseSensitive: caseSensitive)
        guard filter.status == .ok else { continue }
        var builder = MatcherBuilder(family: "url-filter", budget: fuzzBudget)
        builder.add(filter, id: 7, rule: 0)
        builder.add(URLFilter.parse("tracker", caseSensitive: false), id: 9, rule: 1)
        let matcher: Matcher
        do { matcher = try builder.buildWithinBudget() } catch let e as CompileBudgetErrors {
            invariant(e.exceeded.allSatisfy { $0.rule == 0 }, "the budget blamed the wrong rule: \(e)")
            continue
        } catch {
            invariant(false, "unexpected error \(error)")
            continue
        }
        guard let reloaded = matcher.serialized().withUnsafeBytes({ try? Matcher(serialized: $0) }) else {
            invariant(false, "a built matcher does not validate")
            continue
        }
        for url in lines.dropFirst().prefix(8) {
            let u = Array(url.utf8)
            invariant(
                matcher.match(u, requestFlags: 0).sorted() == reloaded.match(u, requestFlags: 0).sorted(),
                "reloaded matcher differs")
        }
    }
    return 0
}
