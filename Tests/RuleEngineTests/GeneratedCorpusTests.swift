// Random rule lists inside WebKit's grammar and random loads: the automata-based engine must agree with
// the rule-by-rule reference (Explain), and answers from .rbc files must equal answers from JSON.

import ContentRules
import Foundation
import RuleCompiler
import StrictJSON
import TestSupport
import XCTest

@testable import RuleEngine

/// SplitMix64, so that failures reproduce from the seed.
typealias SeededGenerator = SplitMix64

struct CorpusGenerator {
    var rng: SeededGenerator
    let hosts = [
        "a.com", "www.a.com", "b.com", "cdn.b.com", "x.co.uk", "y.x.co.uk", "z.co.uk", "127.0.0.1", "localhost",
    ]
    let filters = [
        "a", "b\\\\.com", "^https?://", ".*", "track", "ad", "/p", "x$", "[a-c]+d", "^http:", "\\\\.js",
        "co\\\\.uk[:/]", "A", "q=1",
    ]
    let domains = ["a.com", "*a.com", "b.com", "*co.uk", "x.co.uk", "localhost"]
    let topFilters = ["a\\\\.com", "^https://", "co\\\\.uk", "www", ".*"]
    let types = [
        "document", "top-document", "child-document", "image", "style-sheet", "script", "font", "raw", "svg-document",
        "media", "popup", "ping", "fetch", "websocket", "other", "csp-report",
    ]
    let requestTypes = [
        "top-document", "child-document", "image", "style-sheet", "script", "font", "svg-document", "media", "popup",
        "ping", "fetch", "websocket", "csp-report", "other", "main_frame", "sub_frame", "xmlhttprequest", "beacon",
    ]

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func pick<T>(_ a: [T]) -> T { a.randomElement(using: &rng)! }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    mutating func quotedList(_ a: [String], max: Int) -> String {
        let n = Int.random(in: 1...max, using: &rng)
        return "[" + (0..<n).map { _ in "\"" + pick(a) + "\"" }.joined(separator: ",") + "]"
    }

    mutating func ruleList() -> String {
        let n = Int.random(in: 1...12, using: &rng)
        var rules: [String] = []
        for _ in 0..<n {
            var t = ["\"url-filter\":\"\(pick(filters))\""]
            if chance(0.2) { t.append("\"url-filter-is-case-sensitive\":true") }
            if chance(0.3) { t.append("\"resource-type\":" + quotedList(types, max: 3)) }
            if chance(0.3) { t.append("\"load-type\":" + quotedList(["first-party", "third-party"], max: 1)) }
            if chance(0.2) { t.append("\"load-context\":" + quotedList(["top-frame", "child-frame"], max: 1)) }
            if chance(0.1) { t.append("\"request-method\":\"\(pick(["get", "post"]))\"") }
            if chance(0.35) {
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: t.append("\"if-domain\":" + quotedList(domains, max: 2))
                case 1: t.append("\"unless-domain\":" + quotedList(domains, max: 2))
                case 2: t.append("\"if-top-url\":" + quotedList(topFilters, max: 2))
                case 3: t.append("\"unless-top-url\":" + quotedList(topFilters, max: 2))
                case 4: t.append("\"if-frame-url\":" + quotedList(topFilters, max: 2))
                default: t.append("\"unless-frame-url\":" + quotedList(topFilters, max: 2))
                }
                if chance(0.2) { t.append("\"top-url-filter-is-case-sensitive\":true") }
            }
            let action: String
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1, 2: action = #"{"type":"block"}"#
            case 3: action = #"{"type":"block-cookies"}"#
            case 4, 5: action = #"{"type":"css-display-none","selector":"\#(pick([".a", ".b", "#c", "div > p"]))"}"#
            case 6: action = #"{"type":"notify","notification":"\#(pick(["n1", "n2"]))"}"#
            case 7: action = #"{"type":"ignore-previous-rules"}"#
            case 8: action = #"{"type":"ignore-following-rules"}"#
            default: action = #"{"type":"make-https"}"#
            }
            rules.append("{\"trigger\":{" + t.joined(separator: ",") + "},\"action\":" + action + "}")
        }
        return "[" + rules.joined(separator: ",\n") + "]"
    }

    mutating func url() -> String {
        let scheme = pick(["https", "http", "HTTPS"])
        let port = chance(0.1) ? ":8080" : ""
        let path = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            pick(["p", "track", "ad.js", "A", "x", "q=1", "bcd"])
        }.joined(separator: "/")
        let query = chance(0.2) ? "?q=1" : ""
        return "\(scheme)://\(pick(hosts))\(port)/\(path)\(query)"
    }

    mutating func request() -> MatchRequest {
        let top = url()
        let frame: String? = chance(0.3) ? url() : nil
        return MatchRequest(
            url: chance(0.03) ? "data:text/plain,ad" : url(), topURL: top, frameURL: frame,
            resourceType: pick(requestTypes),
            loadContext: chance(0.1) ? pick(["top-frame", "child-frame"]) : nil,
            requestMethod: chance(0.3) ? pick(["get", "post", "GET"]) : nil)
    }
}

final class GeneratedCorpusTests: XCTestCase {
    /// Seed from RADARBLOCK_SEED (any seed by hand), fixed otherwise.
    var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["RADARBLOCK_SEED"] ?? "") ?? 20261130 }

    func testEngineAgreesWithTheRuleByRuleReference() throws {
        var g = CorpusGenerator(seed: seed)
        var checked = 0, nonEmpty = 0
        for listNumber in 0..<150 {
            let json = g.ruleList()
            let list: LoadedRuleList
            do {
                list = try LoadedRuleList.compiling(json: Array(json.utf8))
            } catch let e as RuleListValidationError {
                XCTAssertEqual(e.error, .jsonInvalidRegex, "\(e) in\n\(json)")
                continue
            }
            let engine = RuleEngine(lists: [list])
            for _ in 0..<40 {
                let request = g.request()
                let load = try engine.resolve(request)
                let result = engine.match(load)
                let reference = try Explain.explain(list, load)
                let got = result.actions
                let expected = reference.reportedLocations.map { list.actions[Int(list.actionAt[Int($0)])] }
                XCTAssertEqual(got, expected, "list \(listNumber) seed \(seed)\n\(json)\n\(request)")
                let expectedSheet =
                    (load.url == nil || load.isData || reference.sawIgnorePreviousRules) ? "" : list.stylesheet
                XCTAssertEqual(result.stylesheet, expectedSheet, "list \(listNumber)\n\(json)\n\(request)")
                checked += 1
                if !got.isEmpty { nonEmpty += 1 }
            }
        }
        XCTAssertGreaterThan(checked, 4000)
        XCTAssertGreaterThan(nonEmpty, checked / 5, "the corpus should exercise matches")
    }

    /// `match --requests` reads flat lines in place, answers a URL no rule can match without resolving its site,
    /// and keeps prefix caches across requests: every answer line must equal the engine's answer for the same
    /// request from fresh caches (one engine copy per request).
    func testBatchAnswersEqualFreshEngineAnswers() throws {
        var g = CorpusGenerator(seed: seed &+ 2)
        var compared = 0, empty = 0
        for _ in 0..<60 {
            guard let list = try? LoadedRuleList.compiling(json: Array(g.ruleList().utf8)) else { continue }
            var batch = MatchBatch(engine: RuleEngine(lists: [list]))
            for n in 0..<50 {
                let request = g.request()
                var line: [UInt8] = []
                JSONWriter.write(request.jsonValue, into: &line)
                var got: [UInt8] = [], want: [UInt8] = []
                batch.answer(line: line[...], lineNumber: n + 1, into: &got)
                do {
                    try RuleEngine(lists: [list.copy()]).match(request).writeJSONLine(into: &want)
                } catch let e as RequestError {
                    MatchResult.writeErrorLine("line \(n + 1): \(e.message)", into: &want)
                }
                XCTAssertEqual(
                    String(decoding: got, as: UTF8.self), String(decoding: want, as: UTF8.self), "\(request)")
                compared += 1
                if want.starts(with: Array(#"{"actions":[]}"#.utf8)) { empty += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 2000)
        XCTAssertGreaterThan(empty, compared / 10, "the corpus should exercise answers without actions")
        XCTAssertLessThan(empty, compared * 9 / 10, "the corpus should exercise matches")
    }

    /// Lists with a site allowlist (`.*` ignore-previous-rules with a top-URL condition, sometimes with load or
    /// resource types), tracker rules, and sometimes an action after the allowlist. A URL no other rule can match
    /// is answered without resolving its site unless the answer must name the deciding rule: every answer line
    /// must equal a fresh engine's answer, and with `--explain`'s text form the allowlist still decides.
    func testAllowlistedSitesAnswerLikeAFreshEngine() throws {
        var rng = SeededGenerator(seed: seed &+ 3)
        func pick<T>(_ a: [T]) -> T { a.randomElement(using: &rng)! }
        let hosts = ["t.example", "cdn.t.example", "other.example", "a.com", "www.a.com", "u.example"]
        let sites = [
            "https://site-a.example/", "https://www.site-a.example/p", "https://site-b.example/", "https://t.example/",
        ]
        var compared = 0, shortcut = 0, allowlistDecided = 0
        for _ in 0..<80 {
            var rules = [
                #"{"trigger":{"url-filter":"^https?://([^/]*\\.)?t\\.example[:/]","load-type":["third-party"]},"#
                    + #""action":{"type":"block"}}"#
            ]
            if Bool.random(using: &rng) {
                rules.append(
                    #"{"trigger":{"url-filter":"^https?://([^/]*\\.)?t\\.example/ok"},"action":{"type":"#
                        + #""ignore-previous-rules"}}"#
                )
            }
            var flags = ""
            if Bool.random(using: &rng) { flags += #","load-type":["third-party"]"# }
            if Bool.random(using: &rng) { flags += #","resource-type":["script","image"]"# }
            rules.append(
                #"{"trigger":{"url-filter":".*","if-top-url":["^[^:]+://([^/]*\\.)?site-a\\.example[:/]"]"# + flags
                    + #"},"action":{"type":"ignore-previous-rules"}}"#)
            if Bool.random(using: &rng) {
                rules.append(#"{"trigger":{"url-filter":"u\\.example"},"action":{"type":"block"}}"#)
            }
            if Bool.random(using: &rng) { rules.shuffle(using: &rng) }
            let list = try LoadedRuleList.compiling(json: Array(("[" + rules.joined(separator: ",") + "]").utf8))
            var json = MatchBatch(engine: RuleEngine(lists: [list]))
            var text = MatchBatch(engine: RuleEngine(lists: [list.copy()]), format: .text(DecidingRuleLines()))
            for n in 0..<40 {
                let request = MatchRequest(
                    url: "https://\(pick(hosts))/\(pick(["a.js", "ok/b.js", "p?q=1"]))", topURL: pick(sites),
                    resourceType: pick(["script", "image", "fetch", "top-document"]))
                var line: [UInt8] = []
                JSONWriter.write(request.jsonValue, into: &line)
                let fresh = RuleEngine(lists: [list.copy()])
                let url = CanonicalURL.parse(request.url)
                if fresh.reportsNothing(for: url, deciding: false) && !fresh.reportsNothing(for: url, deciding: true) {
                    shortcut += 1
                }
                var got: [UInt8] = [], want: [UInt8] = []
                json.answer(line: line[...], lineNumber: n + 1, into: &got)
                try fresh.match(request).writeJSONLine(into: &want)
                XCTAssertEqual(
                    String(decoding: got, as: UTF8.self), String(decoding: want, as: UTF8.self), "\(request)\n\(rules)")
                var result = MatchResult()
                RuleEngine(lists: [list.copy()]).match(try fresh.resolve(request), into: &result, deciding: .all)
                var explained: [UInt8] = []
                text.answer(line: line[...], lineNumber: n + 1, into: &explained)
                let by = String(decoding: explained, as: UTF8.self).components(separatedBy: "  by ").dropFirst().first
                XCTAssertEqual(
                    by?.hasPrefix(
                        "list 1 rule \(result.decidedBy.map { String(list.compiled.rules[$0.rule].sourceIndex) } ?? "")"
                    ),
                    result.decidedBy.map { _ in true }, "\(request)\n\(rules)")
                if let d = result.decidedBy,
                    list.kinds[Int(list.actionAt[Int(list.compiled.rules[d.rule].actionLocation)])]
                        == .ignorePreviousRules,
                    request.url.contains("other.example")
                {
                    allowlistDecided += 1
                }
                compared += 1
            }
        }
        XCTAssertGreaterThan(shortcut, compared / 10, "answers without resolving the site, despite the allowlist")
        XCTAssertGreaterThan(allowlistDecided, 10, "the allowlist decides on its sites, and --explain says so")
    }

    func testAnswersFromRBCEqualAnswersFromJSON() throws {
        var g = CorpusGenerator(seed: seed &+ 1)
        var compared = 0
        for _ in 0..<100 {
            let jsons = (0..<Int.random(in: 1...3, using: &g.rng)).map { _ in g.ruleList() }
            guard let fromJSON = try? jsons.map({ try LoadedRuleList.compiling(json: Array($0.utf8)) }) else {
                continue
            }
            let fromRBC = try jsons.map { json -> LoadedRuleList in
                let compiled = try RuleListCompiler.compile(json: Array(json.utf8))
                return try LoadedRuleList(RBCFile.load(RBCFile.bytes(compiled)))
            }
            let a = RuleEngine(lists: fromJSON), b = RuleEngine(lists: fromRBC)
            for _ in 0..<30 {
                let request = g.request()
                var x: [UInt8] = [], y: [UInt8] = []
                try a.match(request).writeJSONLine(into: &x)
                try b.match(request).writeJSONLine(into: &y)
                XCTAssertEqual(
                    String(decoding: x, as: UTF8.self), String(decoding: y, as: UTF8.self), "\(jsons)\n\(request)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 2000)
    }
}

/// A text form that says only which rule decided, as "list 1 rule K" (K: the rule's index in the list's JSON).
struct DecidingRuleLines: AnswerTextRenderer {
    func line(_ request: MatchRequest, _ outcome: PageOutcome, decidedBy: DecidingRuleDescription?) -> String {
        outcome.kind.rawValue + (decidedBy.map { "  by list 1 rule \($0.rule)" } ?? "")
    }

    func errorLine(_ message: String) -> String { "error: " + message }
}
