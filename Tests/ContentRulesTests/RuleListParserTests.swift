import XCTest
import StrictJSON
@testable import ContentRules

/// One minimal input per WebKit error name reachable from JSON, asserting name, message and rule index,
/// plus WebKit's order of checks, limits, skipped rules and hostile input. The expected answers were checked
/// against WebKitGTK 2.50.6 (scripts/check-validate-vs-webkit.py; the fixture replay is in
/// RuleListParserWebKitFixtureTests).
final class RuleListParserTests: XCTestCase {
    let block = #"{"type":"block"}"#
    let trigger = #"{"url-filter":"a"}"#

    func rule(_ trigger: String? = #"{"url-filter":"a"}"#, _ action: String? = #"{"type":"block"}"#, extra: String = "")
        -> String
    {
        var parts: [String] = []
        if let trigger { parts.append(#""trigger":"# + trigger) }
        if let action { parts.append(#""action":"# + action) }
        if !extra.isEmpty { parts.append(extra) }
        return "{" + parts.joined(separator: ",") + "}"
    }

    func list(_ rules: String...) -> String { "[" + rules.joined(separator: ",") + "]" }

    func validationError(
        _ json: String, options: RuleListParserOptions = .installedWebKit,
        file: StaticString = #filePath, line: UInt = #line
    ) -> RuleListValidationError? {
        do {
            _ = try RuleListParser.validate(bytes: Array(json.utf8), options: options)
            XCTFail("expected an error for \(json.prefix(200))", file: file, line: line)
            return nil
        } catch let e as RuleListValidationError {
            return e
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
            return nil
        }
    }

    func assertError(
        _ json: String, _ expected: ContentRuleListError, rule: Int?, options: RuleListParserOptions = .installedWebKit,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let e = validationError(json, options: options, file: file, line: line) else { return }
        XCTAssertEqual(e.error, expected, "\(e)", file: file, line: line)
        XCTAssertEqual(e.message, expected.message, file: file, line: line)
        XCTAssertEqual(e.ruleIndex, rule, "\(e)", file: file, line: line)
    }

    @discardableResult
    func assertValid(
        _ json: String, rules: Int, skipped: Int = 0, options: RuleListParserOptions = .installedWebKit,
        file: StaticString = #filePath, line: UInt = #line
    ) -> ParsedRuleList? {
        do {
            let parsed = try RuleListParser.validate(bytes: Array(json.utf8), options: options)
            XCTAssertEqual(parsed.rules.count, rules, file: file, line: line)
            XCTAssertEqual(parsed.skipped.count, skipped, file: file, line: line)
            return parsed
        } catch {
            XCTFail("expected valid, got \(error)", file: file, line: line)
            return nil
        }
    }

    // MARK: messages

    func testMessagesAreWebKitsText() {
        XCTAssertEqual(ContentRuleListError.jsonInvalid.message, "Failed to parse the JSON String.")
        XCTAssertEqual(
            ContentRuleListError.jsonInvalidRequestMethod.message,
            #"The request-method string must be "get", "head", "options", "trace", "put", "delete", "post", "#
                + #""patch", or "connect"."#
        )
        XCTAssertEqual(
            ContentRuleListError.jsonMultipleConditions.message,
            "A trigger cannot have more than one condition (if-domain, unless-domain, if-top-url, or unless-top-url)")
        XCTAssertEqual(
            ContentRuleListError.jsonRedirectInvalidQuery.message,
            "A redirect query must either be empty or begin with '?'")
        XCTAssertEqual(
            ContentRuleListError(rawValue: "JSONModifyHeadersInvalidPriority"), .jsonModifyHeadersInvalidPriority)
        // Every name is distinct and every message is distinct (WebKitGTK reports only the message).
        XCTAssertEqual(Set(ContentRuleListError.allCases.map(\.message)).count, ContentRuleListError.allCases.count)
        for e in ContentRuleListError.allCases {
            XCTAssertTrue(e.name.hasPrefix("JSON") || e == .errorWritingSerializedNFA)
        }
    }

    // MARK: list level

    func testJSONErrorsAreListLevelWithOurPosition() {
        guard let e = validationError("[\n  {\"trigger\": }\n]") else { return }
        XCTAssertEqual(e.error, .jsonInvalid)
        XCTAssertNil(e.ruleIndex)
        XCTAssertEqual(e.message, "Failed to parse the JSON String.")
        XCTAssertTrue(e.detail?.hasPrefix("line 2, column 15") == true, e.detail ?? "")
        assertError("", .jsonInvalid, rule: nil)
        assertError(list(rule()) + " x", .jsonInvalid, rule: nil)
        assertError("[" + rule() + ",]", .jsonInvalid, rule: nil)
    }

    func testWebKitJSONDialect() {
        // Raw control characters, \v and \x escapes are accepted by WTF's JSON parser ...
        assertValid(
            "[{\"trigger\":{\"url-filter\":\"a\tb\"},\"action\":{\"type\":\"notify\",\"notification\":\"x\ny\\v\"}}]",
            rules: 1)
        assertValid(#"[{"trigger":{"url-filter":"\x61"},"action":{"type":"block"}}]"#, rules: 1)
        // ... a byte order mark, a form feed or a leading zero are not.
        assertError("\u{FEFF}" + list(rule()), .jsonInvalid, rule: nil)
        assertError("\u{0C}" + list(rule()), .jsonInvalid, rule: nil)
        assertError(list(rule(trigger, #"{"type":"modify-headers","priority":01}"#)), .jsonInvalid, rule: nil)
        assertError(#"[{"trigger":{"url-filter":"\q"},"action":{"type":"block"}}]"#, .jsonInvalid, rule: nil)
        // Invalid UTF-8 anywhere makes WebKit's String::fromUTF8 fail.
        var bytes = Array(list(rule(trigger, #"{"type":"notify","notification":"X"}"#)).utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "X"))!] = 0xFF
        XCTAssertThrowsError(try RuleListParser.parse(bytes: bytes)) {
            XCTAssertEqual(($0 as? RuleListValidationError)?.error, .jsonInvalid)
        }
        // Duplicate keys: the last one wins.
        assertValid(#"[{"trigger":{"url-filter":"a"},"action":{"type":"bogus","type":"block"}}]"#, rules: 1)
    }

    func testNestingLimitCountsValueDepth() {
        // The top-level array is depth 0; any value deeper than 1000 fails; empty containers add no depth below them.
        func nested(_ n: Int, _ inner: String) -> String {
            list(
                rule(
                    #"{"url-filter":"a","x":"# + String(repeating: "[", count: n) + inner
                        + String(repeating: "]", count: n) + "}"))
        }
        assertValid(nested(997, "1"), rules: 1) // the 1 is at depth 1000
        assertError(nested(998, "1"), .jsonInvalid, rule: nil)
        assertValid(nested(998, ""), rules: 1) // innermost empty array at depth 1000
        assertError(nested(999, ""), .jsonInvalid, rule: nil)
    }

    func testHostileNestingEndsInAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        assertError(deep, .jsonInvalid, rule: nil)
        let deepObjects = String(repeating: #"{"a":"#, count: 100_000)
        assertError("[" + deepObjects, .jsonInvalid, rule: nil)
    }

    func testTopLevel() {
        assertError("{}", .jsonTopLevelStructureNotAnArray, rule: nil)
        assertError("123", .jsonTopLevelStructureNotAnArray, rule: nil)
        assertError("[]", .jsonContainsNoRules, rule: nil)
        assertError("[5]", .jsonInvalidRule, rule: 0)
        assertError(list(rule(), "null"), .jsonInvalidRule, rule: 1)
    }

    func testRuleCountLimitIsCheckedBeforeAnyRule() {
        // 150,000 elements pass the limit (so the first element's own error is reported) ...
        let ok = "[" + Array(repeating: "5", count: 150_000).joined(separator: ",") + "]"
        assertError(ok, .jsonInvalidRule, rule: 0)
        // ... 150,001 do not, whatever the elements are.
        let tooMany = "[" + Array(repeating: "5", count: 150_001).joined(separator: ",") + "]"
        assertError(tooMany, .jsonTooManyRules, rule: nil)
        XCTAssertEqual(RuleListParser.maximumRuleCount, 150_000)
    }

    // MARK: triggers

    func testTriggerErrors() {
        assertError(list(rule(nil)), .jsonInvalidTrigger, rule: 0)
        assertError(list(rule(), rule("[]")), .jsonInvalidTrigger, rule: 1)
        assertError(list(rule("{}")), .jsonInvalidURLFilterInTrigger, rule: 0)
        assertError(list(rule(#"{"url-filter":""}"#)), .jsonInvalidURLFilterInTrigger, rule: 0)
        assertError(list(rule(#"{"url-filter":5}"#)), .jsonInvalidURLFilterInTrigger, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","resource-type":null}"#)), .jsonInvalidTriggerFlagsArray, rule: 0)
        assertError(
            list(rule(#"{"url-filter":"a","load-type":"first-party"}"#)), .jsonInvalidTriggerFlagsArray, rule: 0)
        assertError(
            list(rule(#"{"url-filter":"a","resource-type":["imagex"]}"#)), .jsonInvalidStringInTriggerFlagsArray,
            rule: 0)
        assertError(
            list(rule(#"{"url-filter":"a","load-context":[5]}"#)), .jsonInvalidStringInTriggerFlagsArray, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","request-method":"fetch"}"#)), .jsonInvalidRequestMethod, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","request-method":["get"]}"#)), .jsonInvalidRequestMethod, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","if-domain":[]}"#)), .jsonInvalidConditionList, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","if-domain":"a.com"}"#)), .jsonInvalidConditionList, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","if-top-url":[""]}"#)), .jsonInvalidConditionList, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","unless-domain":[1]}"#)), .jsonInvalidConditionList, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","if-domain":["A.com"]}"#)), .jsonDomainNotLowerCaseASCII, rule: 0)
        assertError(
            list(rule(#"{"url-filter":"a","unless-domain":["a.com","\u00DC"]}"#)), .jsonDomainNotLowerCaseASCII, rule: 0
        )
        assertError(
            list(rule(#"{"url-filter":"a","if-top-url":["a"],"unless-frame-url":["b"]}"#)), .jsonMultipleConditions,
            rule: 0)
    }

    func testTriggerIsReadIntoTheModel() throws {
        let json = list(
            rule(
                #"{"url-filter":"x","url-filter-is-case-sensitive":true,"top-url-filter-is-case-sensitive":"yes","#
                    + #""resource-type":["image","raw"],"load-type":["third-party"],"request-method":"PoSt","#
                    + #""unless-domain":["*a.com"]}"#
            ))
        let parsed = try RuleListParser.parse(bytes: Array(json.utf8))
        let t = parsed.contentRules[0].trigger
        XCTAssertTrue(t.urlFilterIsCaseSensitive)
        XCTAssertFalse(t.topURLFilterIsCaseSensitive, "non-boolean values are ignored")
        XCTAssertEqual(t.resourceTypes, ["image", "raw"])
        XCTAssertEqual(t.loadTypes, ["third-party"])
        XCTAssertEqual(t.requestMethod, "post")
        XCTAssertEqual(t.condition, TriggerCondition(.unlessDomain, ["*a.com"]))
        XCTAssertEqual(
            t.flags,
            ResourceTypeName.image | ResourceTypeName.fetch | ResourceTypeName.webSocket | ResourceTypeName.other
                | ResourceTypeName.ping | LoadTypeName.thirdParty | ConditionFlags.unlessTopURL | (7 << 21))
    }

    func testOrderOfConditionChecks() {
        // A second condition key fails before its value is looked at ...
        assertError(
            list(rule(#"{"url-filter":"a","unless-domain":["a"],"if-top-url":[]}"#)), .jsonMultipleConditions, rule: 0)
        // ... but a bad first condition fails first.
        assertError(
            list(rule(#"{"url-filter":"a","if-domain":[],"unless-domain":["a"]}"#)), .jsonInvalidConditionList, rule: 0)
        // Keys are checked in WebKit's order, not in the order written.
        assertError(
            list(rule(#"{"if-top-url":[],"url-filter":"a","if-domain":["A"]}"#)), .jsonDomainNotLowerCaseASCII, rule: 0)
        // Trigger before action; flags before conditions; request-method before conditions.
        assertError(list(rule(#"{"url-filter":""}"#, #"{"type":"x"}"#)), .jsonInvalidURLFilterInTrigger, rule: 0)
        assertError(
            list(rule(#"{"url-filter":"a","if-domain":[],"resource-type":"x"}"#)), .jsonInvalidTriggerFlagsArray,
            rule: 0)
        assertError(
            list(rule(#"{"url-filter":"a","if-domain":[],"request-method":"x"}"#)), .jsonInvalidRequestMethod, rule: 0)
    }

    func testUnknownKeysAreIgnored() {
        assertValid(
            list(
                rule(
                    #"{"url-filter":"a","unexpected-identifier-should-be-ignored":5}"#, block,
                    extra: #""unused":{"x":[1]}"#)), rules: 1)
        assertValid(list(rule(trigger, #"{"type":"block","selector":5}"#)), rules: 1)
    }

    // MARK: actions

    func testActionErrors() {
        assertError(list(rule(trigger, nil)), .jsonInvalidAction, rule: 0)
        assertError(list(rule(trigger, #""block""#)), .jsonInvalidAction, rule: 0)
        assertError(list(rule(trigger, "{}")), .jsonInvalidActionType, rule: 0)
        assertError(list(rule(trigger, #"{"type":""}"#)), .jsonInvalidActionType, rule: 0)
        assertError(list(rule(trigger, #"{"type":1}"#)), .jsonInvalidActionType, rule: 0)
        assertError(list(rule(trigger, #"{"type":"css-display-none"}"#)), .jsonInvalidCSSDisplayNoneActionType, rule: 0)
        assertError(
            list(rule(trigger, #"{"type":"css-display-none","selector":5}"#)), .jsonInvalidCSSDisplayNoneActionType,
            rule: 0)
        assertError(list(rule(trigger, #"{"type":"notify"}"#)), .jsonInvalidNotification, rule: 0)
        assertError(list(rule(trigger, #"{"type":"notify","notification":1}"#)), .jsonInvalidNotification, rule: 0)
        assertValid(list(rule(trigger, #"{"type":"notify","notification":""}"#)), rules: 1)
    }

    func testEverySimpleActionType() throws {
        let types = ["block", "block-cookies", "ignore-previous-rules", "ignore-following-rules", "make-https"]
        let json = "[" + types.map { rule(trigger, #"{"type":"\#($0)"}"#) }.joined(separator: ",") + "]"
        let parsed = try RuleListParser.parse(bytes: Array(json.utf8))
        XCTAssertEqual(
            parsed.contentRules.map(\.action),
            [.block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS])
        XCTAssertEqual(parsed.rules.map(\.sourceIndex), [0, 1, 2, 3, 4])
    }

    func testRedirectErrors() {
        func redirect(_ r: String) -> String { list(rule(trigger, #"{"type":"redirect","redirect":"# + r + "}")) }
        assertError(list(rule(trigger, #"{"type":"redirect"}"#)), .jsonRedirectMissing, rule: 0)
        assertError(redirect(#""https://a/""#), .jsonRedirectMissing, rule: 0)
        assertError(redirect("{}"), .jsonRedirectInvalidType, rule: 0)
        assertError(redirect(#"{"url":5}"#), .jsonRedirectInvalidType, rule: 0)
        assertError(redirect(#"{"extension-path":"a"}"#), .jsonRedirectExtensionPathDoesNotStartWithSlash, rule: 0)
        assertError(redirect(#"{"extension-path":""}"#), .jsonRedirectExtensionPathDoesNotStartWithSlash, rule: 0)
        assertError(
            redirect(#"{"extension-path":"x","url":"https://a/"}"#), .jsonRedirectExtensionPathDoesNotStartWithSlash,
            rule: 0)
        assertValid(redirect(#"{"regex-substitution":"\\1","url":"not a url"}"#), rules: 1)
        assertError(redirect(#"{"url":"https://127..1/"}"#), .jsonRedirectURLInvalid, rule: 0)
        assertError(redirect(#"{"url":"/relative"}"#), .jsonRedirectURLInvalid, rule: 0)
        assertError(redirect(#"{"url":"JaVaScRiPt:dostuff"}"#), .jsonRedirectToJavaScriptURL, rule: 0)
        assertError(redirect(#"{"transform":{"fragment":"x"}}"#), .jsonRedirectInvalidFragment, rule: 0)
        assertError(redirect(#"{"transform":{"port":"65536"}}"#), .jsonRedirectInvalidPort, rule: 0)
        assertError(redirect(#"{"transform":{"port":"not a number"}}"#), .jsonRedirectInvalidPort, rule: 0)
        assertError(redirect(#"{"transform":{"scheme":"!@#$%"}}"#), .jsonRedirectURLSchemeInvalid, rule: 0)
        assertError(redirect(#"{"transform":{"scheme":"JavaScript"}}"#), .jsonRedirectToJavaScriptURL, rule: 0)
        assertError(redirect(#"{"transform":{"query":"a=b"}}"#), .jsonRedirectInvalidQuery, rule: 0)
        assertError(
            redirect(#"{"transform":{"query-transform":{"remove-parameters":"a"}}}"#),
            .jsonRemoveParametersNotStringArray, rule: 0)
        assertError(
            redirect(#"{"transform":{"query-transform":{"remove-parameters":["a",1]}}}"#),
            .jsonRemoveParametersNotStringArray, rule: 0)
        assertError(
            redirect(#"{"transform":{"query-transform":{"add-or-replace-parameters":{}}}}"#),
            .jsonAddOrReplaceParametersNotArray, rule: 0)
        assertError(
            redirect(#"{"transform":{"query-transform":{"add-or-replace-parameters":["a"]}}}"#),
            .jsonAddOrReplaceParametersKeyValueNotADictionary, rule: 0)
        assertError(
            redirect(#"{"transform":{"query-transform":{"add-or-replace-parameters":[{"value":"v"}]}}}"#),
            .jsonAddOrReplaceParametersKeyValueMissingKeyString, rule: 0)
        assertError(
            redirect(#"{"transform":{"query-transform":{"add-or-replace-parameters":[{"key":"k"}]}}}"#),
            .jsonAddOrReplaceParametersKeyValueMissingValueString, rule: 0)
        // query-transform takes precedence over query; transform fields are checked fragment, port, scheme, query.
        assertValid(redirect(#"{"transform":{"query":"bad","query-transform":{}}}"#), rules: 1)
        assertError(redirect(#"{"transform":{"fragment":"x","port":"x"}}"#), .jsonRedirectInvalidFragment, rule: 0)
        assertError(redirect(#"{"transform":{"scheme":"!","port":"x"}}"#), .jsonRedirectInvalidPort, rule: 0)
        assertError(redirect(#"{"transform":{"scheme":"!","query":"x"}}"#), .jsonRedirectURLSchemeInvalid, rule: 0)
    }

    func testModifyHeadersErrors() {
        func mh(_ body: String) -> String { list(rule(trigger, #"{"type":"modify-headers""# + body + "}")) }
        assertError(mh(""), .jsonModifyHeadersInvalidPriority, rule: 0)
        assertError(mh(#","priority":"1""#), .jsonModifyHeadersInvalidPriority, rule: 0)
        assertError(mh(#","priority":-1"#), .jsonModifyHeadersInvalidPriority, rule: 0)
        assertError(mh(#","priority":1,"request-headers":{}"#), .jsonModifyHeadersNotArray, rule: 0)
        assertError(mh(#","priority":1,"response-headers":null"#), .jsonModifyHeadersNotArray, rule: 0)
        assertError(mh(#","priority":1,"request-headers":["x"]"#), .jsonModifyHeadersInfoNotADictionary, rule: 0)
        assertError(
            mh(#","priority":1,"request-headers":[{"header":"h"}]"#), .jsonModifyHeadersMissingOperation, rule: 0)
        assertError(
            mh(#","priority":1,"request-headers":[{"operation":"set"}]"#), .jsonModifyHeadersMissingHeader, rule: 0)
        assertError(
            mh(#","priority":1,"request-headers":[{"operation":"delete","header":"h"}]"#),
            .jsonModifyHeadersInvalidOperation, rule: 0)
        assertError(
            mh(#","priority":1,"request-headers":[{"operation":"append","header":"h"}]"#),
            .jsonModifyHeadersMissingValue, rule: 0)
        // Header presence is checked before the operation's name; headers before priority.
        assertError(
            mh(#","priority":1,"request-headers":[{"operation":"bogus"}]"#), .jsonModifyHeadersMissingHeader, rule: 0)
        assertError(mh(#","request-headers":[1]"#), .jsonModifyHeadersInfoNotADictionary, rule: 0)
        assertValid(
            mh(
                #","priority":0,"request-headers":[{"operation":"remove","header":"h"}],"response-headers":"#
                    + #"[{"operation":"set","header":"h","value":""}]"#
            ), rules: 1)
    }

    func testPriorityIsReadLikeStaticCastToInt() {
        func mh(_ p: String) -> String { list(rule(trigger, #"{"type":"modify-headers","priority":"# + p + "}")) }
        assertValid(mh("2.5"), rules: 1)
        assertValid(mh("-0.5"), rules: 1)
        assertValid(mh("2147483647"), rules: 1)
        // Out of Int32 range is INT_MIN on x86-64 (cvttsd2si), hence negative: refused (checked in WebKit, also
        // 2^32+5).
        assertError(mh("2147483648"), .jsonModifyHeadersInvalidPriority, rule: 0)
        assertError(mh("4294967301"), .jsonModifyHeadersInvalidPriority, rule: 0)
        assertError(mh("1e300"), .jsonModifyHeadersInvalidPriority, rule: 0)
    }

    // MARK: skipped rules

    func testInvalidSelectorsAreSkippedSilently() throws {
        let bad = rule(trigger, #"{"type":"css-display-none","selector":"a[]"}"#)
        let good = rule(trigger, #"{"type":"css-display-none","selector":".ad:not(.x) > div[data-a^=\"b\" i]"}"#)
        assertError(list(bad), .jsonContainsNoRules, rule: nil)
        assertError(list(rule(trigger, #"{"type":"css-display-none","selector":""}"#)), .jsonContainsNoRules, rule: nil)
        let parsed = try RuleListParser.parse(bytes: Array(list(bad, good, rule()).utf8))
        XCTAssertEqual(parsed.rules.map(\.sourceIndex), [1, 2])
        XCTAssertEqual(parsed.skipped.map(\.sourceIndex), [0])
        guard case .invalidSelector(let selector, _) = parsed.skipped[0].reason else { return XCTFail() }
        XCTAssertEqual(selector, "a[]")
        XCTAssertEqual(parsed.sourceRuleCount, 3)
        // The trigger of a skipped rule is still checked.
        assertError(
            list(rule(#"{"url-filter":""}"#, #"{"type":"css-display-none","selector":"!!"}"#)),
            .jsonInvalidURLFilterInTrigger, rule: 0)
    }

    func testCSSSelectorsNotAllowedSkipsEveryCSSRule() throws {
        let options = RuleListParserOptions(cssSelectorsAllowed: false)
        let json = list(rule(trigger, #"{"type":"css-display-none","selector":".a"}"#), rule())
        let parsed = try RuleListParser.parse(bytes: Array(json.utf8), options: options)
        XCTAssertEqual(parsed.rules.count, 1)
        XCTAssertEqual(parsed.skipped, [SkippedRule(sourceIndex: 0, reason: .cssSelectorsNotAllowed)])
        // Even a css rule without a selector is skipped, not an error, on that path.
        assertError(
            list(rule(trigger, #"{"type":"css-display-none"}"#)), .jsonContainsNoRules, rule: nil, options: options)
    }

    // MARK: _identifier (WebKit 2.52+; ignored by the installed 2.50.6)

    func testIdentifierIsIgnoredByInstalledWebKit() {
        assertValid(list(rule(trigger, block, extra: #""_identifier":"x""#)), rules: 1)
    }

    func testIdentifierRulesLikeNewerWebKit() throws {
        let options = RuleListParserOptions(identifierRules: true)
        let json = list(
            rule(), rule(#"{"url-filter":"b"}"#, block, extra: #""_identifier":7.5,"_rulesetIdentifier":"set""#),
            rule(#"{"url-filter":"c"}"#, block, extra: #""_identifier":3,"_rulesetIdentifier":5"#))
        let parsed = try RuleListParser.parse(bytes: Array(json.utf8), options: options)
        XCTAssertEqual(parsed.rules.count, 5)
        XCTAssertEqual(parsed.rules.map(\.sourceIndex), [0, 1, 1, 2, 2])
        XCTAssertEqual(
            parsed.rules[2].kind,
            .reportIdentifier(trigger: Trigger(urlFilter: "b"), identifier: 7.5, rulesetIdentifier: "set"))
        XCTAssertEqual(
            parsed.rules[4].kind,
            .reportIdentifier(trigger: Trigger(urlFilter: "c"), identifier: 3, rulesetIdentifier: ""))
        XCTAssertEqual(parsed.contentRules.count, 3)
        for bad in [#""x""#, "null", "true", "[]", "{}"] {
            assertError(
                list(rule(), rule(trigger, block, extra: #""_identifier":"# + bad)), .jsonInvalidRuleIdentifier,
                rule: 1, options: options)
        }
        // A skipped rule drops its _identifier unchecked; action errors come before identifier errors.
        assertError(
            list(rule(trigger, #"{"type":"css-display-none","selector":"["}"#, extra: #""_identifier":"x""#)),
            .jsonContainsNoRules, rule: nil, options: options)
        assertError(
            list(rule(trigger, "{}", extra: #""_identifier":"x""#)), .jsonInvalidActionType, rule: 0, options: options)
    }

    // MARK: compile-stage regex checks

    func testRegexErrorsComeAfterAllParseErrors() {
        // A bad regex in rule 0 and a parse error in rule 1: WebKit compiles only after parsing succeeded.
        assertError(
            list(rule(#"{"url-filter":"a|b"}"#), rule(trigger, #"{"type":"nope"}"#)), .jsonInvalidActionType, rule: 1)
        assertError(list(rule(), rule(), rule(#"{"url-filter":"a{2}"}"#)), .jsonInvalidRegex, rule: 2)
        // The index is the rule's position in the JSON array, also after skipped rules.
        assertError(
            list(rule(trigger, #"{"type":"css-display-none","selector":"::"}"#), rule(#"{"url-filter":"\\d"}"#)),
            .jsonInvalidRegex, rule: 1)
        assertValid(list(rule(#"{"url-filter":".*"}"#)), rules: 1)
    }

    func testConditionRegexesAreChecked() {
        assertError(list(rule(#"{"url-filter":"a","if-top-url":["a|b"]}"#)), .jsonInvalidRegex, rule: 0)
        assertError(list(rule(#"{"url-filter":"a","unless-frame-url":["\\b"]}"#)), .jsonInvalidRegex, rule: 0)
        // if-domain values become regexes; '(' is not escaped by WebKit's transformation.
        assertError(list(rule(#"{"url-filter":"a","if-domain":["a(b"]}"#)), .jsonInvalidRegex, rule: 0)
        assertValid(list(rule(#"{"url-filter":"a","if-domain":["a.com","*b.org"]}"#)), rules: 1)
        guard let e = validationError(list(rule(#"{"url-filter":"a|b","if-top-url":["(?=x)"]}"#))) else { return }
        XCTAssertTrue(e.detail?.hasPrefix("url-filter") == true, "url-filter is checked before conditions: \(e)")
    }

    func testOneMegabyteRegexGetsAnAnswer() {
        let big = String(repeating: "a", count: 1_000_000)
        assertValid(list(rule(#"{"url-filter":""# + big + #""}"#)), rules: 1)
        assertError(list(rule(#"{"url-filter":""# + big + #"|"}"#)), .jsonInvalidRegex, rule: 0)
    }
}
