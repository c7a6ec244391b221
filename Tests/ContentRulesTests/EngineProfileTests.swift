import StrictJSON
import XCTest

@testable import ContentRules

/// Target profiles: the same list is read as each engine's parser reads it.
final class EngineProfileTests: XCTestCase {
    func profile(_ name: String) -> EngineProfile { EngineProfile.named(name)! }

    func parse(_ json: String, _ target: String) throws -> ParsedRuleList {
        try RuleListParser.parse(bytes: Array(json.utf8), options: RuleListParserOptions(target: profile(target)))
    }

    func error(_ json: String, _ target: String) -> ContentRuleListError? {
        do {
            _ = try parse(json, target)
            return nil
        } catch let e as RuleListValidationError {
            return e.error
        } catch {
            return nil
        }
    }

    let frameRule =
        #"[{"trigger":{"url-filter":"ads","if-frame-url":["^https://frame\\.example/"]},"action":{"type":"block"}}]"#
    let methodRule =
        #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}},{"trigger":{"url-filter":"ads","#
        + #""request-method":"post"},"action":{"type":"block"}}]"#

    func testTheIssueTargetsExistAndTheDefaultIsFixed() {
        for name in [
            "safari-14", "safari-15", "safari-16.4", "safari-17", "safari-18", "safari-26",
            "webkitgtk-2.44", "webkitgtk-2.46", "webkitgtk-2.48", "webkitgtk-2.50", "webkitgtk-2.52",
        ] {
            XCTAssertNotNil(EngineProfile.named(name), name)
        }
        XCTAssertEqual(EngineProfile.default.name, "webkitgtk-2.50")
        XCTAssertEqual(RuleListParserOptions.installedWebKit.target, EngineProfile.default)
        XCTAssertNil(EngineProfile.named("safari-99"))
        for p in EngineProfile.all { XCTAssertFalse(p.source.isEmpty, p.name) }
        for f in GatedFeature.all { XCTAssertTrue(f.source.contains("WebKit") || f.source.contains("WWDC"), f.name) }
    }

    /// The default output is the profile whose features are exactly those every engine it must work on has,
    /// so a list written for it is read the same way by each of them (docs/targets.md, "The default output").
    func testTheDefaultOutputIsTheIntersectionOfItsReaders() {
        let portable = EngineProfile.portable
        let readers = EngineProfile.portableReaders
        XCTAssertEqual(
            Set(readers.map(\.name)),
            [
                "safari-15", "safari-16.4", "safari-17", "safari-18", "safari-26",
                "webkitgtk-2.44", "webkitgtk-2.46", "webkitgtk-2.48", "webkitgtk-2.50", "webkitgtk-2.52",
            ])
        for f in GatedFeature.all {
            XCTAssertEqual(portable.has(f), readers.allSatisfy { $0.has(f) }, f.name)
        }
        XCTAssertEqual(portable.supportsHasPseudoClass, readers.allSatisfy(\.supportsHasPseudoClass))
        XCTAssertEqual(portable.maximumRuleCount, readers.map(\.maximumRuleCount).min())
        XCTAssertEqual(
            portable.triggerKeys, readers.map(\.triggerKeys).reduce(readers[0].triggerKeys) { $0.intersection($1) })
        // Every reader reads every key the default writes: none would be ignored.
        for r in readers { XCTAssertTrue(portable.triggerKeys.isSubset(of: r.triggerKeys), r.name) }
    }

    func testRuleLimitIs50000BeforeSafari15() throws {
        let one = #"{"trigger":{"url-filter":"a"},"action":{"type":"block"}}"#
        let json = "[" + Array(repeating: one, count: 50_001).joined(separator: ",") + "]"
        XCTAssertEqual(error(json, "safari-14"), .jsonTooManyRules)
        for name in ["safari-15", "webkitgtk-2.50"] {
            XCTAssertEqual(try parse(json, name).rules.count, 50_001, name)
        }
    }

    func testIfFrameURLIsIgnoredBySafari15AndReadFromSafari16() throws {
        // Safari 15 ignores the key silently: the rule has no condition and blocks in every frame.
        XCTAssertNil(try parse(frameRule, "safari-15").rules[0].trigger.condition)
        for name in ["safari-16.4", "safari-17", "safari-26", "webkitgtk-2.44", "webkitgtk-2.50", "webkitgtk-2.52"] {
            XCTAssertEqual(try parse(frameRule, name).rules[0].trigger.condition?.kind, .ifFrameURL, name)
        }
        let root = try RuleListJSONReader.parse(Array(frameRule.utf8))
        let ignored = profile("safari-15").ignoredKeys(in: root)
        XCTAssertEqual(ignored.map(\.ruleIndex), [0])
        XCTAssertEqual(ignored.map(\.key), ["if-frame-url"])
        XCTAssertThrowsError(try profile("safari-15").requireSupport(in: root)) { e in
            let text = String(describing: e)
            XCTAssertTrue(
                text.contains("rule 0") && text.contains("\"if-frame-url\"") && text.contains("safari-15"), text)
        }
        // Read by Safari 17: WebKitGTK 2.42.2's parser (the 2023 engine) reads if-frame-url (EngineProfile source).
        for name in ["safari-17", "safari-26", "webkitgtk-2.50"] {
            XCTAssertNoThrow(try profile(name).requireSupport(in: root), name)
        }
    }

    /// unless-frame-url came a year after if-frame-url's engines shipped (WebKit PR #36341, 2024-11-07), and
    /// WebKitGTK 2.42.2's parser reads if-frame-url but not unless-frame-url.
    func testUnlessFrameURLIsReadFromSafari26AndWebKitGTK248() throws {
        let json =
            #"[{"trigger":{"url-filter":"ads","unless-frame-url":["^https://frame\\.example/"]},"action":{"type":"#
            + #""block"}}]"#
        let root = try RuleListJSONReader.parse(Array(json.utf8))
        for name in ["safari-16.4", "safari-17", "safari-18", "webkitgtk-2.44", "webkitgtk-2.46"] {
            XCTAssertNil(try parse(json, name).rules[0].trigger.condition, name)
            XCTAssertEqual(
                profile(name).unsupportedKeys(in: root).map { "\($0.ruleIndex):\($0.key)" }, ["0:unless-frame-url"],
                name)
            XCTAssertThrowsError(try profile(name).requireSupport(in: root), name) { e in
                let text = String(describing: e)
                XCTAssertTrue(
                    text.contains("unless-frame-url conditions are read from Safari 26 / WebKitGTK 2.48 on"), text)
            }
            XCTAssertTrue(profile(name).readsFrameURLConditions, name)
        }
        for name in ["safari-26", "webkitgtk-2.48", "webkitgtk-2.50", "webkitgtk-2.52"] {
            XCTAssertEqual(try parse(json, name).rules[0].trigger.condition?.kind, .unlessFrameURL, name)
            XCTAssertNoThrow(try profile(name).requireSupport(in: root), name)
        }
        // The case-sensitivity key belongs to if-frame-url's generation (2.42.2 reads it).
        let cased =
            #"[{"trigger":{"url-filter":"a","unless-frame-url":["X"],"frame-url-filter-is-case-sensitive":true},"#
            + #""action":{"type":"block"}}]"#
        XCTAssertTrue(try parse(cased, "safari-17").rules[0].trigger.frameURLFilterIsCaseSensitive)
        XCTAssertEqual(
            profile("safari-17").ignoredKeys(in: try RuleListJSONReader.parse(Array(cased.utf8))).map(\.key),
            ["unless-frame-url"])
    }

    func testRequestMethodIsASafari26Key() throws {
        let root = try RuleListJSONReader.parse(Array(methodRule.utf8))
        for name in ["safari-17", "safari-18", "webkitgtk-2.48"] {
            XCTAssertNil(try parse(methodRule, name).rules[1].trigger.requestMethod, name)
            XCTAssertEqual(
                profile(name).unsupportedKeys(in: root).map { "\($0.ruleIndex):\($0.key)" }, ["1:request-method"], name)
            XCTAssertThrowsError(try profile(name).requireSupport(in: root), name)
        }
        for name in ["safari-26", "webkitgtk-2.50", "webkitgtk-2.52"] {
            XCTAssertEqual(try parse(methodRule, name).rules[1].trigger.requestMethod, "post", name)
            XCTAssertTrue(profile(name).ignoredKeys(in: root).isEmpty, name)
        }
        // What the engine rejects depends on whether it reads the key at all.
        let bad = #"[{"trigger":{"url-filter":"a","request-method":"fetch"},"action":{"type":"block"}}]"#
        XCTAssertEqual(error(bad, "webkitgtk-2.50"), .jsonInvalidRequestMethod)
        XCTAssertNil(error(bad, "safari-18"))
        let badFrame = #"[{"trigger":{"url-filter":"a","if-frame-url":[]},"action":{"type":"block"}}]"#
        XCTAssertEqual(error(badFrame, "safari-16.4"), .jsonInvalidConditionList)
        XCTAssertNil(error(badFrame, "safari-15"))
    }

    func testNamesAnEngineDoesNotKnowAreRejectedWithItsError() {
        let topDocument =
            #"[{"trigger":{"url-filter":"a","resource-type":["top-document","popup"]},"action":{"type":"block"}}]"#
        for name in ["safari-14", "safari-17", "safari-18", "webkitgtk-2.48"] {
            XCTAssertEqual(error(topDocument, name), .jsonInvalidStringInTriggerFlagsArray, name)
        }
        for name in ["safari-26", "webkitgtk-2.50", "webkitgtk-2.52"] { XCTAssertNil(error(topDocument, name), name) }
        let following = #"[{"trigger":{"url-filter":"a"},"action":{"type":"ignore-following-rules"}}]"#
        XCTAssertEqual(error(following, "safari-14"), .jsonInvalidActionType)
        XCTAssertNil(error(following, "safari-15"))
    }

    func testLoadContextIsIgnoredBySafari14() throws {
        let json = #"[{"trigger":{"url-filter":"a","load-context":["child-frame"]},"action":{"type":"block"}}]"#
        XCTAssertNil(try parse(json, "safari-14").rules[0].trigger.loadContexts)
        XCTAssertEqual(try parse(json, "safari-15").rules[0].trigger.loadContexts, ["child-frame"])
        let root = try RuleListJSONReader.parse(Array(json.utf8))
        XCTAssertEqual(EngineProfile.named("safari-14")!.unsupportedKeys(in: root).map(\.key), ["load-context"])
    }

    func testKeysNoWebKitReadsAreReportedButNotRefused() throws {
        let json = #"[{"trigger":{"url-filter":"a","if-domian":["x.com"]},"action":{"type":"block"},"comment":"x"}]"#
        let root = try RuleListJSONReader.parse(Array(json.utf8))
        let ignored = EngineProfile.default.ignoredKeys(in: root)
        XCTAssertEqual(ignored.map { "\($0.place):\($0.key)" }, ["rule:comment", "trigger:if-domian"])
        XCTAssertTrue(ignored.allSatisfy { $0.feature == nil })
        XCTAssertTrue(EngineProfile.default.unsupportedKeys(in: root).isEmpty)
    }

    func testGeneratedListsAreCheckedAgainstTheLimit() throws {
        let bytes = Array(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}]"#.utf8)
        XCTAssertThrowsError(try profile("safari-14").checkGenerated(bytes, ruleCount: 50_001)) { e in
            XCTAssertTrue(String(describing: e).contains("50000"), String(describing: e))
        }
        XCTAssertNoThrow(try profile("safari-15").checkGenerated(bytes, ruleCount: 60_000))
    }
}

/// `_identifier` rules as WebKitGTK 2.52 reads them (ContentExtensionParser.cpp of 2.52.6): after
/// each rule whose `_identifier` is a number comes a rule with the same trigger and a report-identifier action.
final class IdentifierRulesByTargetTests: XCTestCase {
    let json =
        #"[{"trigger":{"url-filter":"a","resource-type":["script"]},"action":{"type":"block"},"_identifier":1,"#
        + #""_rulesetIdentifier":"Test Ruleset"},"#
        + #"{"trigger":{"url-filter":"b"},"action":{"type":"css-display-none","selector":"["},"_identifier":2},"#
        + #"{"trigger":{"url-filter":"c"},"action":{"type":"block-cookies"},"_identifier":3.5}]"#

    func parse(_ target: String, _ text: String? = nil) throws -> ParsedRuleList {
        try RuleListParser.parse(
            bytes: Array((text ?? json).utf8), options: RuleListParserOptions(target: EngineProfile.named(target)!))
    }

    func test252AppendsAReportIdentifierRuleAfterEachIdentifiedRule() throws {
        let list = try parse("webkitgtk-2.52")
        XCTAssertEqual(list.rules.map(\.sourceIndex), [0, 0, 2, 2])
        XCTAssertEqual(
            list.rules[1].kind,
            .reportIdentifier(
                trigger: Trigger(urlFilter: "a", resourceTypes: ["script"]), identifier: 1,
                rulesetIdentifier: "Test Ruleset"))
        // The skipped css rule takes its identifier with it; a missing _rulesetIdentifier is "".
        XCTAssertEqual(
            list.rules[3].kind,
            .reportIdentifier(trigger: Trigger(urlFilter: "c"), identifier: 3.5, rulesetIdentifier: ""))
        XCTAssertEqual(list.skipped.map(\.sourceIndex), [1])
    }

    func testEarlierEnginesIgnoreTheKeys() throws {
        for target in ["webkitgtk-2.50", "webkitgtk-2.44", "safari-26", "safari-17"] {
            XCTAssertEqual(try parse(target).rules.count, 2, target)
            XCTAssertNoThrow(
                try parse(target, #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"},"_identifier":"x"}]"#),
                target)
        }
    }

    /// The five _identifier cases of TEST_F(ContentExtensionTest, ParsingFailures) in WebKitGTK 2.52.6's
    /// ContentExtensions.cpp (lines 1626-1630), verbatim; the 2.50 profile reads no _identifier and accepts them.
    func testParsingFailuresOfWebKit252() throws {
        for value in [#""foo""#, "null", "false", "[]", "{}"] {
            let json = #"[{"action":{"type":"block"},"trigger":{"url-filter":".*"},"_identifier":"# + value + "}]"
            XCTAssertThrowsError(try parse("webkitgtk-2.52", json), value) { e in
                XCTAssertEqual((e as? RuleListValidationError)?.error, .jsonInvalidRuleIdentifier, value)
            }
            XCTAssertEqual(try parse("webkitgtk-2.50", json).rules.count, 1, value)
        }
        XCTAssertEqual(
            ContentRuleListError.jsonInvalidRuleIdentifier.message, "Invalid rule identifier, which must be an integer."
        )
    }

    func test252RejectsANonNumberIdentifier() {
        XCTAssertThrowsError(
            try parse(
                "webkitgtk-2.52", #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"},"_identifier":"x"}]"#)
        ) { e in
            XCTAssertEqual((e as? RuleListValidationError)?.error, .jsonInvalidRuleIdentifier)
            XCTAssertEqual((e as? RuleListValidationError)?.ruleIndex, 0)
        }
    }

    func testOnlyTheEnginesThatIgnoreThemReportTheKeys() throws {
        let root = try RuleListJSONReader.parse(Array(json.utf8))
        XCTAssertTrue(EngineProfile.named("webkitgtk-2.52")!.ignoredKeys(in: root).isEmpty)
        let ignored = EngineProfile.default.ignoredKeys(in: root)
        XCTAssertEqual(
            ignored.map { "\($0.ruleIndex):\($0.key)" },
            ["0:_identifier", "0:_rulesetIdentifier", "1:_identifier", "2:_identifier"])
        // Losing the identifier report does not widen the rule: not a reason to refuse the list.
        XCTAssertTrue(EngineProfile.default.unsupportedKeys(in: root).isEmpty)
    }
}
