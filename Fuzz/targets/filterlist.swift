// The filter-list parser and converter on arbitrary bytes: every line is a filter, a comment or an issue naming a
// line of the input; every rule converted has a url-filter WebKit's subset reads and a provenance naming a
// filter's line; the lists WebKit's parser would get (network and cosmetic) are accepted, and no rule's own automaton
// explodes (a regex that would is reported instead); the cookie pop-up list's reading of the same bytes
// (`cosmeticOnly`) sees the same lines.

import AdblockSyntax
import ContentRules
import FilterLists
import RuleCompiler

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let list = try? FilterListParser.parse(input, name: "fuzz.txt") else { return 0 }
    let lineCount = input.split(separator: 10, omittingEmptySubsequences: false).count
    invariant(list.lines <= lineCount, "more lines than the input has: \(list.lines) > \(lineCount)")
    let lines = list.network.map(\.line) + list.cosmetic.map(\.line) + list.issues.map(\.line)
    invariant(lines.allSatisfy { $0 >= 1 && $0 <= list.lines }, "a line number outside the input")
    invariant(Set(lines).count == lines.count, "a line read twice")
    let conversion = FilterListConverter.convert(list, target: .default)
    invariant(conversion.rules.count == conversion.provenance.count, "rules and provenance differ in length")
    for (rule, origin) in zip(conversion.rules, conversion.provenance) {
        let status = URLFilter.parse(rule.trigger.urlFilter, caseSensitive: rule.trigger.urlFilterIsCaseSensitive)
            .status
        invariant(status.isSupported, "url-filter \(rule.trigger.urlFilter) is \(status)")
        invariant(
            origin.filterLines?.count == 1 || origin.role == .navigations, "a rule without its filter's line")
    }
    let cosmetic = conversion.cosmetic
    invariant(cosmetic.rules.count == cosmetic.provenance.count, "cosmetic rules and provenance differ in length")
    invariant(cosmetic.provenance.allSatisfy { $0.filterLines?.isEmpty == false }, "a cosmetic rule without a line")
    for rules in [conversion.rules, cosmetic.rules] where !rules.isEmpty {
        let json = CanonicalRuleWriter.bytes(rules)
        do {
            try EngineProfile.default.checkGenerated(json, ruleCount: rules.count)
        } catch {
            invariant(false, "WebKit's parser rejects a converted list: \(error)")
        }
        let budget = CompileBudget(states: 100_000, bytes: 256 << 20, totalStates: 1_000_000, seconds: 60)
        do { _ = try RuleListCompiler.compile(json: json, options: .init(budget: budget)) } catch let e
            as CompileBudgetErrors where e.isRuleLevel
        {
            invariant(false, "a converted rule's automaton is over \(budget.states) DFA states: \(e)")
        } catch {}
    }
    if let cookie = try? FilterListParser.parse(input, name: "fuzz.txt", reading: .cosmeticOnly) {
        invariant(cookie.cosmetic == list.cosmetic, "the cosmetic-only reading sees other cosmetic filters")
        invariant(cookie.unreadNetwork.count + cookie.issues.count >= list.network.count, "a network line lost")
    }
    return 0
}
