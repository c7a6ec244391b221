// Bad and unusual input: what is dropped, what is reported, what throws, and how domains are normalised.

import StrictJSON
import TrackerData
import XCTest

final class DecodingTests: XCTestCase {
    private func decode(_ json: String, strict: Bool = false) throws -> (TrackerDataSet, [DecodeIssue]) {
        try TrackerDataSet.decode(bytes: Array(json.utf8), source: "test.json", strict: strict)
    }

    private func tds(trackers: String, extra: String = "") -> String {
        #"{"trackers": {\#(trackers)}, "entities": {}, "domains": {}\#(extra)}"#
    }

    func testTruncatedJSONNamesFileLineAndColumn() {
        let json = "{\n  \"trackers\": {\n    \"a.com\": {\"domain\": \"a.com\""
        XCTAssertThrowsError(try decode(json)) { error in
            guard case TrackerDataError.invalidJSON(let source, let parseError) = error else {
                return XCTFail("expected invalidJSON, got \(error)")
            }
            XCTAssertEqual(source, "test.json")
            XCTAssertEqual(parseError.line, 3)
            XCTAssertTrue("\(error)".hasPrefix("test.json: invalid JSON at line 3, column "), "\(error)")
        }
        // Not JSON at all, and JSON that is not a TDS, throw even when lenient.
        XCTAssertThrowsError(try decode("<html>"))
        XCTAssertThrowsError(try decode("[]")) {
            XCTAssertEqual("\($0)", "test.json: $: expected a TDS object, found an array")
        }
        XCTAssertThrowsError(try decode(#"{"entities": {}}"#)) {
            XCTAssertEqual("\($0)", "test.json: $: missing \"trackers\": not a tracker data set")
        }
    }

    func testMalformedTrackerFieldsBecomeNilAndAreReported() throws {
        let (set, issues) = try decode(
            tds(
                trackers: #"""
                    "a.com": {"domain": "a.com", "owner": "Acme", "prevalence": "high", "fingerprinting": 1.5,
                              "cookies": 0.1, "categories": ["Ads", 3], "default": "allow",
                              "rules": [{"rule": "a\\.com\\/x"}]}
                    """#))
        let a = try XCTUnwrap(set.trackers["a.com"])
        XCTAssertNil(a.owner)
        XCTAssertNil(a.prevalence)
        XCTAssertNil(a.fingerprinting)
        XCTAssertEqual(a.cookies, 0.1)
        XCTAssertEqual(a.categories, ["Ads"])
        XCTAssertNil(a.defaultAction)
        XCTAssertEqual(a.rules.map(\.rule), ["a\\.com\\/x"])
        XCTAssertEqual(
            issues.map(\.location),
            [
                #"$.trackers["a.com"].owner"#,
                #"$.trackers["a.com"].prevalence"#,
                #"$.trackers["a.com"].fingerprinting"#,
                #"$.trackers["a.com"].categories[1]"#,
                #"$.trackers["a.com"].default"#,
            ])
        XCTAssertEqual(
            issues[4].message, #"unknown default action "allow" (expected "block" or "ignore"); field ignored"#)
        XCTAssertEqual(issues[0].message, "expected an object, found a string; field ignored")
    }

    func testMalformedRulesAreDroppedOneByOne() throws {
        let (set, issues) = try decode(
            tds(
                trackers: #"""
                    "a.com": {"domain": "a.com", "default": "block", "rules": [
                        {"rule": "a\\.com\\/0"},
                        {"surrogate": "x.js"},
                        {"rule": "a\\.com\\/2", "action": "unsupported-action"},
                        {"rule": 7},
                        {"rule": "a\\.com\\/4", "options": {"domains": "b.com"}},
                        {"rule": "a\\.com\\/5", "exceptions": {"types": ["script", null]}},
                        {"rule": "a\\.com\\/6", "surrogate": false},
                        "a\\.com\\/7",
                        {"rule": "a\\.com\\/8", "action": "block-ctl-yt", "cookies": "many"},
                        {"rule": "a\\.com\\/9", "action": "ignore", "surrogate": null}
                    ]}
                    """#))
        let rules = try XCTUnwrap(set.trackers["a.com"]).rules
        XCTAssertEqual(rules.map(\.rule), ["a\\.com\\/0", "a\\.com\\/8", "a\\.com\\/9"])
        XCTAssertEqual(rules[1].action, .blockCTL("yt"))
        XCTAssertEqual(rules[1].action?.rawValue, "block-ctl-yt")
        XCTAssertNil(rules[1].cookies, "a malformed informational field only loses the field")
        XCTAssertEqual(rules[2].action, .ignore)
        XCTAssertNil(rules[2].surrogate, "null counts as absent")
        XCTAssertEqual(
            issues.map(\.description),
            [
                #"test.json: $.trackers["a.com"].rules[1]: missing "rule"; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[2].action: unknown action "unsupported-action"; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[3].rule: expected a string, found a number; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[4].options.domains: expected an array of strings, found a "#
                    + #"string; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[5].exceptions.types: expected an array of strings, found an "#
                    + #"array with non-strings; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[6].surrogate: expected a string, found a boolean; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[7]: expected a rule object, found a string; rule dropped"#,
                #"test.json: $.trackers["a.com"].rules[8].cookies: expected a number, found a string; field ignored"#,
            ])
    }

    func testStrictThrowsTheFirstIssueLenientCollectsAll() throws {
        let json = tds(
            trackers: #"""
                "a.com": {"domain": "a.com", "default": "sometimes", "rules": [{"rule": "x", "action": "nope"}]}
                """#)
        XCTAssertEqual(try decode(json).1.count, 2)
        XCTAssertThrowsError(try decode(json, strict: true)) { error in
            guard case TrackerDataError.invalid(let issue) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(issue.location, #"$.trackers["a.com"].default"#)
        }
        // A clean file decodes the same either way.
        let clean = tds(trackers: #""a.com": {"domain": "a.com", "default": "block"}"#)
        XCTAssertEqual(try decode(clean, strict: true).0, try decode(clean).0)
    }

    func testDomainsAreLowercasedAndPunycoded() throws {
        let (set, issues) = try decode(
            #"""
            {"trackers": {"BÜCHER.example": {"domain": "bücher.EXAMPLE", "default": "block",
                           "rules": [{"rule": "x", "options": {"domains": ["Shop.Example",\#
             "bücher.example"], "types": ["Script"]},
                                      "exceptions": {"domains": ["MÜNCHEN.example."]}}]}},
             "entities": {"Bücher": {"domains": ["BÜCHER.example", "Buecher.example"]}},
             "domains": {"BÜCHER.example": "Bücher"},
             "cnames": {"Stats.Shop.Example": "Target.BÜCHER.example"}}
            """#)
        XCTAssertEqual(issues, [])
        let t = try XCTUnwrap(set.trackers["xn--bcher-kva.example"])
        XCTAssertEqual(t.domain, "xn--bcher-kva.example")
        XCTAssertEqual(t.rules[0].options?.domains, ["shop.example", "xn--bcher-kva.example"])
        XCTAssertEqual(t.rules[0].options?.types, ["Script"], "types are kept as given")
        XCTAssertEqual(t.rules[0].exceptions?.domains, ["xn--mnchen-3ya.example"])
        XCTAssertEqual(set.entities["Bücher"]?.domains, ["xn--bcher-kva.example", "buecher.example"])
        XCTAssertEqual(set.domains, ["xn--bcher-kva.example": "Bücher"])
        XCTAssertEqual(set.cnames, ["stats.shop.example": "target.xn--bcher-kva.example"])
        XCTAssertEqual(set.findTracker(forHost: "cdn.xn--bcher-kva.example")?.domain, "xn--bcher-kva.example")
        XCTAssertEqual(set.uncloak(host: "a.stats.shop.example"), "target.xn--bcher-kva.example")
    }

    func testUnnormalisableDomainsAreReported() throws {
        let (set, issues) = try decode(
            #"""
            {"trackers": {"bad host.com": {"domain": "bad host.com", "default": "block"},
                          "a.com": {"domain": "a.com", "rules": [
                              {"rule": "a", "options": {"domains": ["ok.com", "x/y.com"]}},
                              {"rule": "b", "exceptions": {"domains": [""]}}]}},
             "entities": {"E": {"domains": ["e.com", "e..com"]}},
             "domains": {"http://e.com": "E"},
             "cnames": {"x.com": "a b"}}
            """#)
        XCTAssertNil(set.trackers["bad host.com"])
        XCTAssertEqual(set.trackers.keys.sorted(), ["a.com"])
        XCTAssertEqual(set.trackers["a.com"]?.rules.map(\.rule), ["a"])
        XCTAssertEqual(set.trackers["a.com"]?.rules[0].options?.domains, ["ok.com"])
        XCTAssertEqual(set.entities["E"]?.domains, ["e.com"])
        XCTAssertEqual(set.domains, [:])
        XCTAssertEqual(set.cnames, [:])
        XCTAssertEqual(
            issues.map(\.description),
            [
                #"test.json: $.trackers["bad host.com"]: cannot normalise domain "bad host.com": contains whitespace "#
                    + #"or control characters; tracker dropped"#,
                #"test.json: $.trackers["a.com"].rules[0].options.domains[1]: "x/y.com" is not a host name; domain "#
                    + #"dropped"#,
                #"test.json: $.trackers["a.com"].rules[1].exceptions.domains[0]: empty domain; domain dropped"#,
                #"test.json: $.trackers["a.com"].rules[1].exceptions.domains: no usable domain left; rule dropped"#,
                #"test.json: $.entities.E.domains[1]: "e..com" is not a host name; domain dropped"#,
                #"test.json: $.domains["http://e.com"]: "http://e.com" is not a host name; entry dropped"#,
                #"test.json: $.cnames["x.com"]: cannot normalise domain "a b": contains whitespace or control "#
                    + #"characters; entry dropped"#,
            ])
    }

    func testTrackerKeyAndDomainMismatchAndDuplicates() throws {
        let (set, issues) = try decode(
            tds(
                trackers: #"""
                    "a.com": {"domain": "b.com", "default": "block"},
                    "A.COM": {"domain": "a.com", "default": "ignore"}
                    """#))
        XCTAssertEqual(set.trackers["a.com"]?.defaultAction, .ignore, "the later entry wins, like JSON duplicate keys")
        XCTAssertEqual(set.trackers["a.com"]?.domain, "a.com")
        XCTAssertEqual(
            issues.map(\.message),
            [
                #"domain "b.com" differs from its key "a.com"; using the key"#,
                #"tracker "a.com" appears twice after normalisation; the later entry replaces the earlier"#,
            ])
    }

    func testRuleActionsRoundTrip() {
        XCTAssertEqual(RuleAction(rawValue: "ignore"), .ignore)
        XCTAssertEqual(RuleAction(rawValue: "block-ctl-fb"), .blockCTLFB)
        XCTAssertEqual(RuleAction(rawValue: "block-ctl-fb2"), .blockCTL("fb2"))
        XCTAssertEqual(RuleAction.blockCTL("fb"), .blockCTLFB, "one action, one value")
        XCTAssertNil(RuleAction(rawValue: "block-ctl-"))
        XCTAssertNil(RuleAction(rawValue: "block"))
        XCTAssertNil(RuleAction(rawValue: "IGNORE"))
        for raw in ["ignore", "block-ctl-fb", "block-ctl-yt"] {
            XCTAssertEqual(RuleAction(rawValue: raw)?.rawValue, raw)
        }
    }

    func testEncoderOutputIsDeterministicAndDecodesBack() throws {
        var set = TrackerDataSet()
        set.trackers["b.com"] = Tracker(
            domain: "b.com", owner: Owner(name: "B", displayName: "B"), prevalence: 0.0000137,
            fingerprinting: 2, cookies: 0.5, categories: ["Analytics"], defaultAction: .ignore,
            rules: [
                TrackerRule(
                    rule: "b\\.com\\/x", surrogate: "s.js", action: .blockCTL("yt"),
                    options: RuleMatcher(domains: ["s.com"], types: ["script"]),
                    exceptions: RuleMatcher(domains: [], types: nil), comment: "c")
            ])
        set.trackers["a.com"] = Tracker(domain: "a.com", defaultAction: .block)
        set.entities["B"] = Entity(displayName: "B", domains: ["b.com", "bb.com"], prevalence: 0.1)
        set.domains = ["b.com": "B", "bb.com": "B"]
        set.cnames = ["x.s.com": "y.b.com"]
        let bytes = set.canonicalBytes
        XCTAssertEqual(try TrackerDataSet.decode(bytes: bytes, source: "enc", strict: true).0, set)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(
            text.hasPrefix(#"{"cnames":{"x.s.com":"y.b.com"},"domains":{"b.com":"B","bb.com":"B"},"entities":"#), text)
        XCTAssertTrue(text.contains(#""trackers":{"a.com":{"default":"block","domain":"a.com"},"b.com":"#), text)
        // Same content built in another insertion order gives the same bytes.
        var other = TrackerDataSet()
        other.cnames = set.cnames
        other.domains = ["bb.com": "B", "b.com": "B"]
        other.entities = set.entities
        other.trackers["a.com"] = set.trackers["a.com"]
        other.trackers["b.com"] = set.trackers["b.com"]
        XCTAssertEqual(other.canonicalBytes, bytes)
    }

    func testLookups() throws {
        let (set, _) = try decode(
            #"""
            {"trackers": {"a.com": {"domain": "a.com", "default": "block"}, "x.a.com": {"domain": "x.a.com",\#
             "default": "ignore"}},
             "entities": {"A": {"domains": ["a.com", "a-static.com"]}},
             "domains": {"a.com": "A", "a-static.com": "A", "orphan.com": "Nobody"},
             "cnames": {"m.site.com": "c.x.a.com"}}
            """#)
        XCTAssertEqual(set.findTracker(forHost: "y.x.a.com")?.domain, "x.a.com", "the longest suffix wins")
        XCTAssertEqual(set.findTracker(forHost: "y.a.com")?.domain, "a.com")
        XCTAssertNil(set.findTracker(forHost: "aa.com"), "suffixes are whole labels")
        XCTAssertEqual(set.entityName(ofHost: "img.a-static.com"), "A")
        XCTAssertEqual(set.entity(ofHost: "img.a-static.com")?.domains, ["a.com", "a-static.com"])
        XCTAssertEqual(set.entityName(ofHost: "orphan.com"), "Nobody")
        XCTAssertNil(set.entity(ofHost: "orphan.com"), "an owner without an entity record")
        XCTAssertEqual(set.cnameTarget(ofHost: "m.site.com"), "c.x.a.com")
        XCTAssertEqual(set.cnameTarget(ofHost: "deep.m.site.com"), "c.x.a.com", "a parent of the host may be the alias")
        XCTAssertNil(set.cnameTarget(ofHost: "site.com"))
        XCTAssertEqual(set.findTracker(forHost: set.uncloak(host: "m.site.com"))?.domain, "x.a.com")
    }

    // Issue 16, B5: a TDS ending in a second `"trackers": {}` silently lost every tracker, even under --strict.
    func testADuplicateKeyIsAnIssueAndAnErrorUnderStrict() throws {
        let json = tds(trackers: #""a.com": {"domain": "a.com", "default": "block"}"#, extra: #", "trackers": {}"#)
        let (set, issues) = try decode(json)
        XCTAssertTrue(set.trackers.isEmpty, "the later value is the one used, as JSON.parse does")
        XCTAssertEqual(
            issues.map(\.description),
            [#"test.json: $.trackers: duplicate key at line 1, column 97; this later value replaces the earlier one"#])
        XCTAssertThrowsError(try decode(json, strict: true)) { error in
            XCTAssertTrue("\(error)".hasPrefix("test.json: $.trackers: duplicate key at line 1"), "\(error)")
        }
        XCTAssertThrowsError(
            try PrivacyConfig.decode(
                bytes: Array(#"{"features": {}, "features": {}}"#.utf8), source: "c.json", strict: true)
        ) { error in
            XCTAssertTrue("\(error)".hasPrefix("c.json: $.features: duplicate key"), "\(error)")
        }
    }
    /// Issue 30: data the conversion leaves out (any key it does not know) is named, not dropped silently.
    func testAnUnconvertedTopLevelKeyIsNamedAndAnErrorUnderStrict() throws {
        let json = tds(trackers: "", extra: #", "readme": "x", "_builtWith": {}, "future": 1"#)
        let message =
            "unknown top-level key, not converted (radarblock converts trackers, entities, domains, cnames, cpm)"
        XCTAssertEqual(try decode(json).1.map(\.description), [#"test.json: $.future: "# + message])
        XCTAssertThrowsError(try decode(json, strict: true)) {
            XCTAssertEqual("\($0)", #"test.json: $.future: "# + message)
        }
        XCTAssertEqual(try decode(tds(trackers: "", extra: #", "cnames": {}, "readme": "x""#), strict: true).1, [])
    }

    func testAConfigGivenAsTheTDSIsNamed() {
        XCTAssertThrowsError(try decode(#"{"version": 4, "features": {}}"#)) {
            XCTAssertEqual(
                "\($0)",
                #"test.json: $: this is a privacy configuration (it has "features"), not a tracker data set: give it "#
                    + #"as --config"#
            )
        }
    }
}
