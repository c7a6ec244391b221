// The cookie pop-up list's site conditions, through the engine that answers as WebKit does: for random ABP site
// lists and exceptions over a small universe of hosts, a selector is hidden on a page exactly where ABP's rule
// (CosmeticSites.applies: the most specific entry decides, exceptions win) says, and shown everywhere on the
// config's off sites.

import ContentRules
import RuleBuilder
import RuleCompiler
import RuleEngine
import StrictJSON
import Surrogates
import TestSupport
import TrackerData
import XCTest
@testable import Release

final class CookiePopupListTests: XCTestCase {
    static let labels = ["a", "b", "ab", "ba", "www", "w"]
    static let bases = ["x.com", "y.org"]

    /// Every host of up to two labels under the bases.
    static let hosts: [String] = {
        var out = bases
        for b in bases {
            for l in labels {
                out.append(l + "." + b)
                for m in labels { out.append(m + "." + l + "." + b) }
            }
        }
        return out
    }()

    func randomSite<G: RandomNumberGenerator>(_ g: inout G) -> String { Self.hosts.randomElement(using: &g)! }

    func testSiteConditionsAgreeWithABPOnEveryHost() throws {
        var g = SplitMix64(seed: 33)
        for round in 0..<60 {
            var lines: [String] = []
            var expected: [(String, CosmeticSites)] = []
            for i in 0..<4 {
                var entries: [String] = []
                for _ in 0..<Int.random(in: 0...3, using: &g) {
                    entries.append((Bool.random(using: &g) ? "" : "~") + randomSite(&g))
                }
                let sel = ".s\(i)"
                lines.append(entries.joined(separator: ",") + "##" + sel)
                for _ in 0..<Int.random(in: 0...2, using: &g) { lines.append(randomSite(&g) + "#@#" + sel) }
            }
            let text = lines.joined(separator: "\n")
            for h in CosmeticFilterList.parse(text).hides().hides { expected.append((h.selector, h.sites)) }
            let off = Bool.random(using: &g) ? [randomSite(&g)] : []
            let list = CookiePopupRules.build(filterList: text, offSites: off, target: .default)
            let engine = try RuleEngine(lists: [
                LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(list.rules), options: .init(name: "cpm"))
            ])
            for host in Self.hosts {
                for i in 0..<4 {
                    let sel = ".s\(i)"
                    let abp =
                        expected.contains { $0.0 == sel && $0.1.applies(toHost: host) }
                        && !off.contains { host == $0 || host.hasSuffix("." + $0) }
                    let answer = try SelectorQuery.answer(
                        selector: sel, topURL: "https://\(host)/p", engine: engine, labels: ["cpm"], scripts: [])
                    XCTAssertEqual(answer.hidden, abp, "round \(round): \(sel) on \(host)\n\(text)\noff: \(off)")
                    if answer.hidden != abp { return }
                }
            }
        }
    }

    func testSelectorQueryAnswersForMixedCaseSelectorsAsTheListWritesThem() throws {
        // The rules hold the quirks-mode attribute form; the user asks with the filter's selector.
        let text = "##.cpm-Mixed-Case\n###Cpm-Id\n##div.A > .b\n##.lower"
        let list = CookiePopupRules.build(filterList: text, offSites: [], target: .default)
        let engine = try RuleEngine(lists: [
            LoadedRuleList.compiling(json: CanonicalRuleWriter.bytes(list.rules), options: .init(name: "cpm"))
        ])
        func hidden(_ selector: String) throws -> Bool {
            try SelectorQuery.answer(
                selector: selector, topURL: "https://a.example/", engine: engine, labels: ["cpm"], scripts: []
            ).hidden
        }
        for selector in [".cpm-Mixed-Case", "#Cpm-Id", "div.A > .b", ".lower"] {
            XCTAssertTrue(try hidden(selector), selector)
        }
        for selector in [".cpm-mixed-case", "#cpm-id", ".A"] { XCTAssertFalse(try hidden(selector), selector) }
    }

    func testSelectorsAreJoinedPerConditionAndCheckedByWebKitsParser() {
        let text =
            "##.a\n##.b\nq.com##.c\nq.com##.d\n##.e{}\nq.com#?#.f:-abp-has(.g)\n"
            + "q.com#?#.h:-abp-contains(Cookies)\nq.com#?#.i:-abp-properties(x)\n##.a"
        let list = CookiePopupRules.build(filterList: text, offSites: [], target: .default)
        XCTAssertEqual(
            list.rules.map { r -> String in if case .cssDisplayNone(let s) = r.action { return s } else { return "" } },
            [".a, .b", ".c, .d, .f:has(.g)"])
        XCTAssertNil(list.rules[0].trigger.condition)
        XCTAssertNil(list.rules[0].trigger.resourceTypes)
        XCTAssertEqual(list.scripted.map(\.css), [".h"])
        XCTAssertEqual(list.scripted.map(\.text), ["Cookies"])
        XCTAssertEqual(list.issues.map(\.line), [5, 8])
        let old = CookiePopupRules.build(filterList: text, offSites: [], target: EngineProfile.named("safari-15")!)
        XCTAssertEqual(old.issues.map(\.line), [5, 6, 8])
    }

    func testTheScriptCarriesDatasetStringsAsDataOnly() throws {
        let hostile = "q.com#?#.x:-abp-contains(</script><script>alert(1)</script>\u{2028})"
        let list = CookiePopupRules.build(filterList: hostile, offSites: [], target: .default)
        let piece = CookiePopupScript.piece(CookiePopupScriptData(filters: list.scripted, offSites: list.offSites))
        XCTAssertFalse(piece.contains("</script>"))
        XCTAssertFalse(piece.contains("\u{2028}"))
        let data = CookiePopupScriptData(filters: list.scripted, offSites: [])
        XCTAssertEqual(CookiePopupScriptData(json: data.jsonValue), data)
    }
}
