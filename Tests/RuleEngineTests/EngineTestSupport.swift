import ContentRules
import RuleCompiler
import StrictJSON
import XCTest

@testable import RuleEngine

/// Builds an engine from JSON rule lists (compiled in memory through the .rbc path).
/// A list that does not compile fails the test at the caller's line, then the error is rethrown.
func makeEngine(_ lists: String..., file: StaticString = #filePath, line: UInt = #line) throws -> RuleEngine {
    do {
        return RuleEngine(lists: try lists.map { try LoadedRuleList.compiling(json: Array($0.utf8)) })
    } catch {
        XCTFail("the rule list does not compile: \(error)", file: file, line: line)
        throw error
    }
}

/// The answer line for one load.
func answer(
    _ engine: RuleEngine, url: String, top: String, frame: String? = nil, type: String = "script",
    context: String? = nil, method: String? = nil
) throws -> String {
    let r = try engine.match(
        MatchRequest(
            url: url, topURL: top, frameURL: frame, resourceType: type, loadContext: context, requestMethod: method))
    var out: [UInt8] = []
    r.writeJSONLine(into: &out)
    return String(decoding: out.dropLast(), as: UTF8.self)
}

/// Short form of the actions: "block", "css:.a,.b", "notify:x", "ignore-previous-rules", ...
func actions(
    _ engine: RuleEngine, url: String, top: String, frame: String? = nil, type: String = "script",
    context: String? = nil, method: String? = nil
) throws -> [String] {
    let r = try engine.match(
        MatchRequest(
            url: url, topURL: top, frameURL: frame, resourceType: type, loadContext: context, requestMethod: method))
    return r.actions.map { a in
        switch a.kind {
        case .cssDisplayNone: return "css:" + a.text
        case .notify: return "notify:" + a.text
        default: return a.kind.typeName
        }
    }
}

func stylesheet(_ engine: RuleEngine, url: String, top: String, type: String = "script") throws -> String {
    try engine.match(MatchRequest(url: url, topURL: top, resourceType: type)).stylesheet
}

/// A rule as JSON text.
func rule(_ filter: String, _ action: String, _ extra: String = "") -> String {
    let escaped = filter.replacingOccurrences(of: "\\", with: "\\\\")
    return "{\"trigger\":{\"url-filter\":\"\(escaped)\"\(extra.isEmpty ? "" : "," + extra)},\"action\":\(action)}"
}

let block = "{\"type\":\"block\"}"
let blockCookies = "{\"type\":\"block-cookies\"}"
let ignorePrevious = "{\"type\":\"ignore-previous-rules\"}"
let ignoreFollowing = "{\"type\":\"ignore-following-rules\"}"
let makeHTTPS = "{\"type\":\"make-https\"}"
func css(_ s: String) -> String { "{\"type\":\"css-display-none\",\"selector\":\"\(s)\"}" }
func notify(_ s: String) -> String { "{\"type\":\"notify\",\"notification\":\"\(s)\"}" }
func list(_ rules: String...) -> String { "[" + rules.joined(separator: ",") + "]" }
