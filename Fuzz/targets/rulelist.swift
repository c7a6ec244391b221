// Rule-list reader and validator: any bytes. What `validate` accepts, `compile` compiles (or names the
// budget it would exceed), and the JSON and the .rbc answer alike.

import ContentRules
import RuleCompiler
import RuleEngine

private let probes = [
    ("https://tracker.example/ads/pixel.gif?x=1", "https://news.example/", "image"),
    ("http://a.example/script.js", "http://a.example/", "script"),
    ("https://sub.cdn.example:8443/p/a/t/h", "https://shop.example/cart", "xmlhttprequest"),
    ("https://x.example/", "https://x.example/", "document"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let json = bytes(data, size)
    guard let list = try? RuleListParser.validate(bytes: json) else { return 0 }
    _ = try? RuleListCompiler.webKitPain(list, states: 5_000, members: 2_000_000)
    let compiled: CompiledRuleList
    do {
        compiled = try RuleListCompiler.compile(
            list, source: json, options: .init(embedSource: true, budget: fuzzBudget))
    } catch is CompileBudgetErrors {
        return 0
    } catch {
        invariant(false, "validate accepted a list that compile rejects: \(error)")
        return 0
    }
    let rbc = RBCFile.bytes(compiled)
    let loaded: CompiledRuleList
    do { loaded = try RBCFile.load(rbc) } catch {
        invariant(false, "compile wrote an .rbc its loader rejects: \(error)")
        return 0
    }
    invariant(RBCFile.bytes(loaded) == rbc, "an .rbc does not survive load and write")
    guard let fromRBC = try? LoadedRuleList(loaded), let fromJSON = try? LoadedRuleList(compiled) else {
        invariant(false, "a compiled list does not load into the engine")
        return 0
    }
    let a = RuleEngine(lists: [fromRBC]), b = RuleEngine(lists: [fromJSON])
    for (url, top, type) in probes {
        let request = MatchRequest(url: url, topURL: top, resourceType: type)
        var x: [UInt8] = [], y: [UInt8] = []
        (try? a.match(request))?.writeJSONLine(into: &x)
        (try? b.match(request))?.writeJSONLine(into: &y)
        invariant(x == y, "the .rbc and the compiled JSON answer \(url) differently")
    }
    return 0
}
