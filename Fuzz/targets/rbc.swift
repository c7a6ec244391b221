// .rbc loader: the input is a mutation of a real .rbc; its checksum is resealed so that the loader's
// structural checks (not the checksum) are what is fuzzed. Whatever loads must answer without a crash.

import Digest
import RuleCompiler
import RuleEngine

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var file = bytes(data, size)
    if file.count >= 88 {
        // Checksum: SHA-256 of the whole file with bytes 56..<88 zero (RBCFile's layout).
        file.replaceSubrange(56..<88, with: [UInt8](repeating: 0, count: 32))
        file.replaceSubrange(56..<88, with: Digest.hash(.sha256, file))
    }
    guard let compiled = try? RBCFile.load(file), let list = try? LoadedRuleList(compiled) else { return 0 }
    let engine = RuleEngine(lists: [list])
    _ = try? engine.match(
        MatchRequest(url: "https://tracker.example/a.js", topURL: "https://news.example/", resourceType: "script"))
    _ = try? engine.match(MatchRequest(url: "http://b.example/", topURL: "http://b.example/", resourceType: "document"))
    return 0
}
