// Privacy config and user-unprotected sites: bad input and normalisation.

import StrictJSON
import TrackerData
import XCTest

final class ConfigTests: XCTestCase {
    private func config(_ json: String, strict: Bool = false) throws -> (PrivacyConfig, [DecodeIssue]) {
        try PrivacyConfig.decode(bytes: Array(json.utf8), source: "config.json", strict: strict)
    }

    func testTempListAndAllowlistAreNormalised() throws {
        let (c, issues) = try config(
            #"""
            {"version": 4, "unprotectedTemporary": [{"domain": "  "}, {"domain": "Temp.Example"}],
             "features": {"contentBlocking": {"state": "enabled", "exceptions": [{"domain": "BÜCHER.example",\#
             "reason": "x"}]},
                          "trackerAllowlist": {"state": "enabled", "settings": {"allowlistedTrackers": {
                              "Z.example": {"rules": [{"rule": "z.example/a.js", "domains": ["<all>"]}]},
                              "a.example": {"rules": [{"rule": "cdn.a.example/x/.*/y.js", "domains": ["Site.Example",\#
             "bücher.example"]},
                                                      {"rule": "a.example/b", "domains": ["x.example", "<all>"]}]}}}}}}
            """#)
        XCTAssertEqual(c.version, 4)
        XCTAssertEqual(c.tempUnprotected, ["temp.example", "xn--bcher-kva.example"])
        XCTAssertEqual(
            issues.map(\.description), [#"config.json: $.unprotectedTemporary[0].domain: empty domain; entry dropped"#])
        XCTAssertEqual(
            c.trackerAllowlist.entries,
            [
                AllowlistEntry(
                    trackerDomain: "a.example", rule: "cdn.a.example/x/.*/y.js",
                    sites: .domains(["site.example", "xn--bcher-kva.example"])),
                AllowlistEntry(trackerDomain: "a.example", rule: "a.example/b", sites: .all),
                AllowlistEntry(trackerDomain: "z.example", rule: "z.example/a.js", sites: .all),
            ])
        XCTAssertNil(c.trackerAllowlist.hash)
    }

    func testBadConfigInput() throws {
        XCTAssertThrowsError(try config("{\"features\": {")) { error in
            XCTAssertTrue("\(error)".hasPrefix("config.json: invalid JSON at line 1, column "), "\(error)")
        }
        XCTAssertThrowsError(try config("42")) {
            XCTAssertEqual("\($0)", "config.json: $: expected a privacy configuration object, found a number")
        }
        let (c, issues) = try config(
            #"""
            {"unprotectedTemporary": {"domain": "a.example"},
             "features": {"contentBlocking": {"state": "enabled", "exceptions": ["b.example", {"domain": 3}]},
                          "trackerAllowlist": {"state": "enabled", "hash": 12, "settings": {"allowlistedTrackers": {
                              "t.example": {"rules": [{"rule": "t.example/x"}, {"rule": "t.example/y", "domains": []},\#
             {"domains": ["<all>"]}]},
                              "u.example": []}}}}}
            """#)
        XCTAssertEqual(c.tempUnprotected, [])
        XCTAssertEqual(c.trackerAllowlist.entries, [])
        XCTAssertTrue(c.trackerAllowlist.enabled)
        XCTAssertEqual(
            issues.map(\.location),
            [
                "$.unprotectedTemporary",
                "$.features.contentBlocking.exceptions[0]",
                "$.features.contentBlocking.exceptions[1].domain",
                "$.features.trackerAllowlist.hash",
                "$.features.trackerAllowlist.settings.allowlistedTrackers[\"t.example\"].rules[0]",
                "$.features.trackerAllowlist.settings.allowlistedTrackers[\"t.example\"].rules[1].domains",
                "$.features.trackerAllowlist.settings.allowlistedTrackers[\"t.example\"].rules[2].rule",
                "$.features.trackerAllowlist.settings.allowlistedTrackers[\"u.example\"]",
            ])
        XCTAssertThrowsError(try config(#"{"unprotectedTemporary": {"domain": "a.example"}}"#, strict: true))
    }

    func testStaleAllowlistHashIsReported() throws {
        // The hash below is md5(JSON.stringify) of the feature with rule "t.example/x"; the rule was edited since.
        let feature =
            #"{"state":"enabled","settings":{"allowlistedTrackers":{"t.example":{"rules":[{"rule":"t.example/x","#
            + #""domains":["<all>"]}]}}}}"#
        let (good, _) = try config(#"{"features": {"trackerAllowlist": \#(feature)}}"#)
        let hash = try XCTUnwrap(good.computedFeatureHash("trackerAllowlist"))
        let withHash = feature.dropLast() + #","hash":"\#(hash)"}"#
        XCTAssertEqual(try config(#"{"features": {"trackerAllowlist": \#(withHash)}}"#, strict: true).1, [])
        let edited = withHash.replacingOccurrences(of: "t.example/x", with: "t.example/z")
        let (c, issues) = try config(#"{"features": {"trackerAllowlist": \#(edited)}}"#)
        XCTAssertEqual(c.trackerAllowlist.hash, hash, "the stated hash is kept (it is what the apps use)")
        XCTAssertEqual(issues.map(\.location), ["$.features.trackerAllowlist.hash"])
        XCTAssertTrue(issues[0].message.hasPrefix("does not match the feature's content"), issues[0].message)
    }

    func testFeatureHashUsesJavaScriptNumberAndStringFormatting() throws {
        // Expected value from Node: JSON.stringify of the parsed feature, then crypto md5 (UTF-8), which gives
        // {"a":0.0000137,"b":1e+21,"c":1.5e-7,"d":100,"e":"é\n<U+2028><"} -> fde6779cfce18088dd9e1e82458eb2dc.
        let (c, _) = try config(
            #"{"features": {"x": {"a": 0.0000137, "b": 1e21, "c": 1.5e-7, "d": 1E2, "e": "é\n\u2028<", "hash": "#
                + #""ignored"}}}"#
        )
        XCTAssertEqual(c.computedFeatureHash("x"), "fde6779cfce18088dd9e1e82458eb2dc")
        XCTAssertNil(c.computedFeatureHash("absent"))
    }

    func testUnprotectedSites() throws {
        let text =
            "# user list\r\nExample.COM\r\n\n  spaced.example  \nhttps:"
            + "//bad.example/path\nMÜNCHEN.example\nexample.com\nbad host\n"
        let (sites, issues) = try UnprotectedSites.parse(bytes: Array(text.utf8), source: "sites.txt")
        XCTAssertEqual(sites.hosts, ["example.com", "spaced.example", "xn--mnchen-3ya.example"])
        XCTAssertEqual(
            issues.map(\.description),
            [
                #"sites.txt: line 5: "https://bad.example/path" is not a host name; line skipped"#,
                #"sites.txt: line 8: cannot normalise domain "bad host": contains whitespace or control characters; "#
                    + #"line skipped"#,
            ])
        XCTAssertThrowsError(try UnprotectedSites.parse(bytes: Array(text.utf8), source: "sites.txt", strict: true)) {
            XCTAssertEqual("\($0)", #"sites.txt: line 5: "https://bad.example/path" is not a host name; line skipped"#)
        }
        XCTAssertThrowsError(
            try UnprotectedSites.parse(bytes: Array("ok.example\n".utf8) + [0xFF, 0x0A], source: "bin.txt")
        ) {
            XCTAssertEqual("\($0)", "bin.txt: line 2: not valid UTF-8 text")
        }
        XCTAssertEqual(try UnprotectedSites.parse(bytes: [], source: "empty").0.hosts, [])
    }

    /// A TDS, a config or an HTML page given as the sites list is an error, not 78,510 skipped lines.
    func testUnprotectedSitesThatAreNoList() throws {
        for (text, message) in [
            (
                "# mine\n{\"trackers\": {}}\n",
                "sites.txt: line 2: this is a JSON document, not a list of sites (one host per line)"
            ),
            (
                "[\"a.example\"]\n",
                "sites.txt: line 1: this is a JSON document, not a list of sites (one host per line)"
            ),
            (
                "<!doctype html>\n<p>a.example</p>\n",
                "sites.txt: line 1: this is an HTML or XML document, not a list of sites (one host per line)"
            ),
            (
                "\nnot a host\nhttps://x.example/\n",
                "sites.txt: line 2: not a list of sites: none of its 2 line(s) is a host name"
            ),
        ] {
            XCTAssertThrowsError(try UnprotectedSites.parse(bytes: Array(text.utf8), source: "sites.txt")) {
                XCTAssertEqual("\($0)", message)
            }
        }
    }

    /// A file without "features" is no config; a TDS given as one is named as a TDS.
    func testConfigWithoutFeaturesIsAnError() throws {
        XCTAssertThrowsError(try config(#"{"version": 4, "unprotectedTemporary": []}"#)) {
            XCTAssertEqual("\($0)", #"config.json: $: missing "features": not a privacy configuration"#)
        }
        XCTAssertThrowsError(try config(#"{"trackers": {}, "entities": {}, "domains": {}}"#)) {
            XCTAssertEqual(
                "\($0)",
                #"config.json: $: this is a tracker data set (it has "trackers"), not a privacy configuration: give "#
                    + #"it as --tds"#
            )
        }
    }
}
