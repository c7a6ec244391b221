// JSONL request reader, CanonicalURL and `match --requests`: the fast flat-line scanner and the JSON path
// decode a line alike, CanonicalURL parses any URL (the line itself, the request's URLs) without a crash,
// and a batch answering lines in place (prefix caches, the "no rule can match" shortcut) answers every line
// as the general path does with fresh caches.

import RuleEngine
import StrictJSON

/// Rules of the kinds the shortcuts must respect: host-anchored blocks, conditions on the top URL, rules that
/// read past the host, a load-type rule and an exception.
private let rules = #"""
    [{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?a\\.com[:/]","load-type":["third-party"]},
       "action":{"type":"block"}},
     {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?b\\.com[:/].*ad",
                 "if-top-url":["^[^:]+://([^/]*\\.)?s\\.com[:/]"]},"action":{"type":"block"}},
     {"trigger":{"url-filter":"x\\.js","resource-type":["script"]},"action":{"type":"block"}},
     {"trigger":{"url-filter":"^https?://c\\.com/","unless-top-url":["c\\.com"]},
      "action":{"type":"css-display-none","selector":".ad"}},
     {"trigger":{"url-filter":".*","if-top-url":["^https://ok\\.com/"]},"action":{"type":"ignore-previous-rules"}}]
    """#

private let list = try! LoadedRuleList.compiling(json: Array(rules.utf8))
private var batch = MatchBatch(engine: RuleEngine(lists: [list]))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = bytes(data, size)
    let fast = line.withUnsafeBytes { try? MatchRequest.decode(line: $0) }
    let slow = (try? JSONParser.parse(line, maximumDepth: 16)).flatMap { try? MatchRequest.decode($0) }
    invariant(fast == slow, "the JSONL scanner and the JSON decoder disagree")
    _ = CanonicalURL.parse(utf8: line)
    if let r = fast {
        for s in [r.url, r.topURL] { _ = CanonicalURL.parse(s) }
    }
    if !line.contains(0x0A), let r = slow {
        var got: [UInt8] = [], want: [UInt8] = []
        batch.answer(line: line[...], lineNumber: 1, into: &got)
        do {
            try RuleEngine(lists: [list.copy()]).match(r).writeJSONLine(into: &want)
        } catch let e as RequestError {
            MatchResult.writeErrorLine("line 1: \(e.message)", into: &want)
        } catch {
            invariant(false, "an unexpected error: \(error)")
        }
        let answered = String(decoding: got, as: UTF8.self), expected = String(decoding: want, as: UTF8.self)
        invariant(got == want, "the batch answered \(answered), the engine \(expected)")
    }
    return 0
}
