// Action serialization (location sharing), universal actions, the global stylesheet, compile errors
// and identifiers (WebKit's Source/WebCore/contentextensions/ContentExtensionCompiler.cpp and
// ContentExtension.cpp).

import ContentRules
import StrictJSON
import XCTest

@testable import RuleCompiler

func compileList(_ json: String, _ options: RuleListCompiler.Options = .init()) throws -> CompiledRuleList {
    try RuleListCompiler.compile(json: Array(json.utf8), options: options)
}

private func r(_ filter: String, _ action: String, _ extra: String = "") -> String {
    "{\"trigger\":{\"url-filter\":\"\(filter)\"\(extra.isEmpty ? "" : "," + extra)},\"action\":\(action)}"
}

private let block = #"{"type":"block"}"#
private let ignorePrevious = #"{"type":"ignore-previous-rules"}"#
private let ignoreFollowing = #"{"type":"ignore-following-rules"}"#
private func css(_ s: String) -> String { #"{"type":"css-display-none","selector":""# + s + #""}"# }
private func notify(_ s: String) -> String { #"{"type":"notify","notification":""# + s + #""}"# }

final class RuleListCompilerTests: XCTestCase {
    func locations(_ rules: String...) throws -> [UInt32] {
        try compileList("[" + rules.joined(separator: ",") + "]").rules.map(\.actionLocation)
    }

    func testBlockSharesByFlagsUntilAnIgnoreRule() throws {
        let l = try locations(
            r("a", block), r("b", block), r("c", block, #""load-type":["third-party"]"#), r("d", ignorePrevious),
            r("e", block))
        XCTAssertEqual(l[0], l[1])
        XCTAssertNotEqual(l[0], l[2])
        XCTAssertNotEqual(l[4], l[0], "an ignore rule clears the sharing maps")
        XCTAssertEqual(l, l.sorted(), "locations follow rule order")
    }

    func testConditionsAreNeverShared() throws {
        let l = try locations(
            r("a", block, #""if-domain":["x.com"]"#), r("b", block, #""if-domain":["x.com"]"#), r("c", block),
            r("d", block))
        XCTAssertNotEqual(l[0], l[1])
        XCTAssertEqual(l[2], l[3])
    }

    func testNotifySharedByTextAndFlags() throws {
        let l = try locations(
            r("a", notify("A")), r("b", notify("A")), r("c", notify("B")),
            r("d", notify("A"), #""resource-type":["image"]"#))
        XCTAssertEqual(l[0], l[1])
        XCTAssertNotEqual(l[0], l[2])
        XCTAssertNotEqual(l[0], l[3])
    }

    func testIgnorePreviousRulesShareOnlyWhenConsecutive() throws {
        let l = try locations(r("a", ignorePrevious), r("b", ignorePrevious), r("c", block), r("d", ignorePrevious))
        XCTAssertEqual(l[0], l[1])
        XCTAssertNotEqual(l[0], l[3])
    }

    func testRedirectAndModifyHeadersShareByWhatWebKitParses() throws {
        let redirect = #"{"type":"redirect","redirect":{"url":"https://e.com/x"}}"#
        let redirectExtra = #"{"type":"redirect","redirect":{"url":"https://e.com/x","unknown":1}}"#
        let regex = #"{"type":"redirect","redirect":{"regex-substitution":"\\1"}}"#
        let l = try locations(r("a", redirect), r("b", redirectExtra), r("(c)", regex), r("(d)", regex))
        XCTAssertEqual(l[0], l[1], "unknown keys do not make a different action")
        XCTAssertNotEqual(l[2], l[3], "a regex-substitution carries its rule's url-filter")
        let h1 =
            #"{"type":"modify-headers","priority":2.7,"request-headers":"#
            + #"[{"operation":"remove","header":"A","value":"ignored"}]}"#
        let h2 = #"{"type":"modify-headers","priority":2,"request-headers":[{"operation":"remove","header":"A"}]}"#
        let m = try locations(r("a", h1), r("b", h2))
        XCTAssertEqual(m[0], m[1])
        XCTAssertEqual(PayloadIdentity.toInt32(4_294_967_298), 2)
        XCTAssertEqual(PayloadIdentity.toInt32(-0.5), 0)
        XCTAssertEqual(PayloadIdentity.toInt32(2_147_483_648), Int32.min)
        XCTAssertEqual(PayloadIdentity.toInt32(1e300), 0)
    }

    func testIgnoreFollowingRulesAlwaysFresh() throws {
        let l = try locations(r("a", ignoreFollowing), r("b", ignoreFollowing))
        XCTAssertNotEqual(l[0], l[1])
    }

    func testCSSGroupedByTriggerAndWrittenAtTheFlushPoint() throws {
        let c = try compileList(
            "["
                + [r("x", css(".a")), r("x", block), r("x", css(".b")), r("y", ignorePrevious), r("x", css(".c"))]
                .joined(separator: ",") + "]")
        let l = c.rules.map(\.actionLocation)
        XCTAssertEqual(l[0], l[2])
        XCTAssertGreaterThan(l[0], l[1], "the merged action is written when the group is flushed")
        XCTAssertLessThan(l[0], l[3], "flushed before the ignore rule")
        let actions = try c.actions.withUnsafeBytes { try ActionBlob.all($0) }
        XCTAssertEqual(actions.first { $0.location == l[0] }?.action.text, ".a,.b")
        XCTAssertEqual(actions.first { $0.location == l[4] }?.action.text, ".c")
    }

    func testGlobalStylesheetAndUniversalActions() throws {
        let c = try compileList(
            "["
                + [
                    r(".*", css(".a")), r(".*", css(".b")), r(".*", block),
                    r(".*", css(".img"), #""resource-type":["image"]"#),
                    r("z", ignorePrevious), r(".*", css(".late")),
                ].joined(separator: ",") + "]")
        XCTAssertEqual(c.stylesheet, ".a,.b{display:none !important;}")
        let kinds = try c.actions.withUnsafeBytes { buf in
            try c.universalActions.map { try ActionBlob.decode(buf, at: Int($0)).0 }
        }
        XCTAssertEqual(Set(kinds.map(\.kind)), [.block, .cssDisplayNone])
        XCTAssertEqual(kinds.filter { $0.kind == .cssDisplayNone }.map(\.text), [".late"])
    }

    func testInvalidRegexNamesTheRule() throws {
        XCTAssertThrowsError(try compileList("[" + r("ok", block) + "," + r("a|b", block) + "]")) { error in
            let e = error as? RuleListValidationError
            XCTAssertEqual(e?.error, .jsonInvalidRegex)
            XCTAssertEqual(e?.ruleIndex, 1)
        }
        XCTAssertThrowsError(try compileList("[" + r("ok", block, #""if-domain":["a(b"]"#) + "]")) { error in
            XCTAssertEqual((error as? RuleListValidationError)?.error, .jsonInvalidRegex)
            XCTAssertEqual((error as? RuleListValidationError)?.ruleIndex, 0)
        }
        XCTAssertThrowsError(try compileList("[" + r("x", block, #""if-top-url":["(?=a)"]"#) + "]"))
    }

    func testRuleInfoCarriesFlagsAndSourceIndices() throws {
        let c = try compileList(
            "[" + r("a", block, #""resource-type":["image"],"load-type":["third-party"]"#) + "," + r("b", css("p"))
                + "]")
        XCTAssertEqual(c.rules.map(\.sourceIndex), [0, 1])
        XCTAssertEqual(c.rules[0].flags, ResourceTypeName.image | LoadTypeName.thirdParty)
        XCTAssertEqual(c.sourceRuleCount, 2)
    }

    func testReportIdentifierRulesRoundTrip() throws {
        let json =
            #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"},"_identifier":7,"_rulesetIdentifier":"set"}]"#
        let c = try compileList(json, .init(parser: RuleListParserOptions(identifierRules: true)))
        XCTAssertEqual(c.rules.count, 2)
        let a = try c.actions.withUnsafeBytes { try ActionBlob.decode($0, at: Int(c.rules[1].actionLocation)).0 }
        XCTAssertEqual(a, StoredAction(kind: .reportIdentifier, text: "set", identifier: 7))
        XCTAssertEqual(
            JSONWriter.string(a.jsonValue), #"{"type":"report-identifier","identifier":7,"rulesetIdentifier":"set"}"#)
    }

    func testHashOrderIsAPermutationAndDeterministic() {
        let values: [UInt64] = (0..<200).map { UInt64($0) * 37 | (UInt64($0 % 3) << 32) }
        let order = WebKitHashOrder.uint64SetOrder(values)
        XCTAssertEqual(Set(order), Set(values))
        XCTAssertEqual(order.count, values.count)
        XCTAssertEqual(order, WebKitHashOrder.uint64SetOrder(values))
        XCTAssertEqual(WebKitHashOrder.uint64SetOrder([5, 5, 5]), [5])
        // Thomas Wang's 64-bit mix truncated to 32 bits (values computed independently).
        XCTAssertEqual(WebKitHashOrder.intHash(0), 0x9C35_2659)
        XCTAssertEqual(WebKitHashOrder.intHash(1), 0xB09B_C659)
        XCTAssertEqual(WebKitHashOrder.intHash(0x1_0000_0005), 0x0BB6_9971)
        // Slots 1, 1+1 (probe), 0: iteration walks slot order.
        XCTAssertEqual(WebKitHashOrder.iterationOrder(hashes: [1, 9, 0]), [2, 0, 1])
    }
}

final class RuleListIdentifierTests: XCTestCase {
    let source = Array(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}]"#.utf8)

    func testSchemeAndDeterminism() throws {
        let id = try RuleListIdentifier.make(
            name: "ios-tds", dataset: "74c0900c783d6ad1c8217aaa3ae5aa87", formatVersion: 1, toolVersion: "0.1.0",
            source: source)
        XCTAssertTrue(id.string.hasPrefix("ios-tds@74c0900c783d6ad1c8217aaa3ae5aa87_v1_0.1.0_"), id.string)
        XCTAssertEqual(id.digest.count, 16)
        XCTAssertEqual(
            id,
            try RuleListIdentifier.make(
                name: "ios-tds", dataset: "74c0900c783d6ad1c8217aaa3ae5aa87", formatVersion: 1, toolVersion: "0.1.0",
                source: source))
        let parsed = RuleListIdentifier.parse(id.string)
        XCTAssertEqual(parsed?.name, "ios-tds")
        XCTAssertEqual(parsed?.dataset, "74c0900c783d6ad1c8217aaa3ae5aa87")
        XCTAssertEqual(parsed?.formatVersion, 1)
        XCTAssertEqual(parsed?.toolVersion, "0.1.0")
    }

    func testChangesWithEverythingThatAffectsBehaviour() throws {
        let base = try RuleListIdentifier.make(name: "x", formatVersion: 1, toolVersion: "0.1.0", source: source).digest
        XCTAssertNotEqual(
            base, try RuleListIdentifier.make(name: "x", formatVersion: 2, toolVersion: "0.1.0", source: source).digest)
        XCTAssertNotEqual(
            base, try RuleListIdentifier.make(name: "x", formatVersion: 1, toolVersion: "0.1.1", source: source).digest)
        XCTAssertNotEqual(
            base,
            try RuleListIdentifier.make(name: "x", formatVersion: 1, toolVersion: "0.1.0", source: source + [0x20])
                .digest)
        XCTAssertNotEqual(
            base,
            try RuleListIdentifier.make(
                name: "x", dataset: "e1", formatVersion: 1, toolVersion: "0.1.0", source: source
            ).digest)
        // Length-prefixed fields: moving a character between fields changes the digest.
        XCTAssertNotEqual(
            try RuleListIdentifier.make(
                name: "ab", dataset: "c", formatVersion: 1, toolVersion: "0.1.0", source: source
            ).digest,
            try RuleListIdentifier.make(
                name: "a", dataset: "bc", formatVersion: 1, toolVersion: "0.1.0", source: source
            ).digest)
    }

    func testSafeCharactersOnly() {
        XCTAssertThrowsError(
            try RuleListIdentifier.make(name: "a_b", formatVersion: 1, toolVersion: "0.1.0", source: source))
        XCTAssertThrowsError(
            try RuleListIdentifier.make(name: "a/b", formatVersion: 1, toolVersion: "0.1.0", source: source))
        XCTAssertThrowsError(
            try RuleListIdentifier.make(name: "", formatVersion: 1, toolVersion: "0.1.0", source: source))
        XCTAssertEqual(RuleListIdentifier.defaultName(forPath: "/x/ios tds_v5.json"), "ios-tds-v5")
        XCTAssertEqual(RuleListIdentifier.defaultName(forPath: "-"), "rules")
        XCTAssertEqual(RuleListIdentifier.datasetVersion(fromETag: #"W/"74c0900c""#), "74c0900c")
    }
}

/// Orders that WebKit takes from its hash tables, checked against a file compiled by the installed
/// WebKitGTK 2.50.6 (`scripts/webkit-check compile` of the list below; its actions blob and its url
/// bytecode's root actions were decoded by hand).
final class WebKitHashOrderTests: XCTestCase {
    static func list() -> String {
        var rules: [String] = []
        for i in 0..<12 {
            rules.append(
                #"{"trigger":{"url-filter":"f\#(i)"},"action":{"type":"css-display-none","selector":".s\#(i)"}}"#)
        }
        for i in 0..<20 {
            rules.append(#"{"trigger":{"url-filter":".*"},"action":{"type":"notify","notification":"u\#(i)"}}"#)
        }
        for i in 0..<6 {
            let type = i % 2 == 1 ? "image" : "script", load = i < 3 ? "third-party" : "first-party"
            rules.append(
                #"{"trigger":{"url-filter":".*","resource-type":["\#(type)"],"load-type":["\#(load)"]},"#
                    + #""action":{"type":"notify","notification":"g\#(i)"}}"#
            )
        }
        rules.append(#"{"trigger":{"url-filter":"x"},"action":{"type":"block"}}"#)
        return "[" + rules.joined(separator: ",") + "]"
    }

    func testCSSGroupsAreFlushedInWebKitsHashMapOrder() throws {
        let c = try compileList(Self.list())
        let css = try c.actions.withUnsafeBytes { try ActionBlob.all($0) }.filter { $0.action.kind == .cssDisplayNone }
            .map(\.action.text)
        XCTAssertEqual(css, [".s3", ".s5", ".s7", ".s0", ".s11", ".s4", ".s1", ".s10", ".s2", ".s9", ".s6", ".s8"])
    }

    func testUniversalActionsFollowWebKitsHashSetOrder() throws {
        let c = try compileList(Self.list())
        let actions = try c.actions.withUnsafeBytes { try ActionBlob.all($0) }
        let text = Dictionary(uniqueKeysWithValues: actions.map { ($0.location, $0.action.text) })
        let universalIDs = c.rules.filter { r in
            text[r.actionLocation].map { $0.hasPrefix("u") || $0.hasPrefix("g") } ?? false
        }.map(\.actionID)
        // The first DFA root's actions, in WebKit's bytecode order.
        let root = WebKitHashOrder.uint64SetOrder(universalIDs).map { text[UInt32(truncatingIfNeeded: $0)]! }
        XCTAssertEqual(
            root,
            [
                "u9", "u18", "u10", "g1", "u1", "u13", "u5", "u16", "g2", "u2", "u0", "u7", "u11", "u12", "u4", "u19",
                "u15", "u3", "u6", "u8", "u14", "g4", "u17", "g3", "g0", "g5",
            ])
    }
}
