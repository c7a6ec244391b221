// JSONL request reader and CanonicalURL: the fast flat-line scanner and the JSON path decode a line
// alike, and CanonicalURL parses any URL (the line itself, the request's URLs) without a crash.

import RuleEngine
import StrictJSON

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
    return 0
}
