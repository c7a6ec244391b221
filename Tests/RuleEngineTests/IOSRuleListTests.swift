// The real iOS rule list (TrackerRadarKit's output for the iOS TDS, read at run time from ../shared):
// answers from the .rbc file equal answers from the JSON, and the automata agree with the rule-by-rule
// reference.

import Foundation
import RuleCompiler
import TestSupport
import XCTest

@testable import RuleEngine

final class IOSRuleListTests: XCTestCase {
    static let relativeListPath = "trackerradarkit-output/ios-tds_v5.noconfig.trk-rules.json.gz"

    static func loadJSON() throws -> [UInt8] {
        try SharedFiles.gunzip(relativeListPath)
    }

    /// Hosts named by the list's url-filters ("^[^:]+://+([^:/]+\.)?host\.tld[:/]"), plus non-tracker hosts.
    static func hosts(in json: [UInt8]) -> [String] {
        let text = String(decoding: json, as: UTF8.self)
        var hosts = Set<String>()
        var rest = Substring(text)
        let marker = "\\\\.)?"
        while let r = rest.range(of: marker) {
            rest = rest[r.upperBound...]
            guard let end = rest.range(of: "[:") else { break }
            let host = rest[..<end.lowerBound].replacingOccurrences(of: "\\\\.", with: ".")
            if host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) { hosts.insert(host) }
            if hosts.count >= 400 { break }
        }
        return hosts.sorted() + ["example.com", "news.example.co.uk", "cdn.example.net"]
    }

    func testRBCAnswersEqualJSONAnswersAndTheReference() throws {
        let json = try Self.loadJSON()
        // One compile (the list is large): the .rbc without the source, the JSON path's in-memory file with it.
        var compiled = try RuleListCompiler.compile(json: json, options: .init(name: "ios"))
        let bytes = RBCFile.bytes(compiled)
        let fromRBC = try LoadedRuleList(RBCFile.load(bytes))
        compiled.source = json
        let fromJSON = try LoadedRuleList(RBCFile.load(RBCFile.bytes(compiled)))
        let a = RuleEngine(lists: [fromJSON]), b = RuleEngine(lists: [fromRBC])

        let hosts = Self.hosts(in: json)
        XCTAssertGreaterThan(hosts.count, 100)
        var rng = SeededGenerator(seed: 42)
        let types = ["script", "image", "stylesheet", "xmlhttprequest", "sub_frame", "font", "media", "ping", "other"]
        var blocked = 0
        for i in 0..<2000 {
            let host = hosts.randomElement(using: &rng)!
            let sub = Bool.random(using: &rng) ? "www." : ""
            let request = MatchRequest(
                url: "https://\(sub)\(host)/p/\(i).js?q=\(i)", topURL: "https://\(hosts.randomElement(using: &rng)!)/",
                resourceType: types.randomElement(using: &rng)!)
            var x: [UInt8] = [], y: [UInt8] = []
            let ra = try a.match(request)
            ra.writeJSONLine(into: &x)
            try b.match(request).writeJSONLine(into: &y)
            XCTAssertEqual(x, y, "\(request)")
            if !ra.entries.isEmpty { blocked += 1 }
            if i % 50 == 0 {
                let load = try a.resolve(request)
                let reference = try Explain.explain(fromJSON, load)
                XCTAssertEqual(
                    ra.actions, reference.reportedLocations.map { fromJSON.actions[Int(fromJSON.actionAt[Int($0)])] },
                    "\(request)")
            }
        }
        XCTAssertGreaterThan(blocked, 200, "tracker hosts should be blocked as third parties")
        // A tracker loaded by its own site is first party: the iOS list does not block it.
        let ownSite = hosts.first { !$0.hasSuffix("example.com") }!
        XCTAssertEqual(
            try a.match(
                MatchRequest(url: "https://\(ownSite)/x.js", topURL: "https://\(ownSite)/", resourceType: "script")
            ).actions, [])
    }
}
