// Hostile TDS / config strings cannot break out of the bundle: they are JSON data (scriptSafe), checked
// under node (valid script, no side effects, exact round trip). Real WebKit repeats it (scripts in Tests/js).

import XCTest
import StrictJSON
@testable import Surrogates
import TrackerData

final class HostileInputTests: XCTestCase {
    static let payloads = [
        "\"];globalThis.PWNED=1;//",
        "</script><script>globalThis.PWNED=2</script>",
        "x\u{2028}globalThis.PWNED=3\u{2029}",
        "\\\";globalThis.PWNED=4;//\\",
        "*/globalThis.PWNED=5;/*",
        "'`${globalThis.PWNED=6}`",
        "<!--<script>",
        "__proto__",
    ]

    static func hostileInputs() throws -> (TrackerDataSet, PrivacyConfig, [SurrogateScript]) {
        var trackers: [String: Tracker] = [:]
        var entities: [String: Entity] = [:]
        var cnames: [String: String] = [:]
        for (i, p) in payloads.enumerated() {
            let domain = "\(p).hostile.test"
            // The report names the category and display name: the payload too (Tests/js/hostile.test.js).
            trackers[domain] = Tracker(
                domain: domain, owner: Owner(name: p), categories: [p], defaultAction: .block,
                rules: [
                    TrackerRule(
                        rule: p, surrogate: "s.js", options: RuleMatcher(domains: [p], types: [p]),
                        exceptions: RuleMatcher(domains: [p]))
                ])
            entities[p] = Entity(displayName: p, domains: [p, domain])
            cnames["\(i).alias.\(p)"] = "x.\(domain)"
        }
        trackers["ok.hostile.test"] = Tracker(
            domain: "ok.hostile.test", defaultAction: .block,
            rules: [TrackerRule(rule: "ok\\.hostile\\.test/s\\.js", surrogate: "s.js")])
        let config = PrivacyConfig(
            contentBlockingExceptions: payloads,
            trackerAllowlist: TrackerAllowlist(
                enabled: true,
                entries: payloads.map {
                    AllowlistEntry(
                        trackerDomain: "ok.hostile.test", rule: "ok.hostile.test/\($0)", sites: .domains([$0]))
                }))
        let scripts = try SurrogatesFile.parse(
            "hostile.test/s.js application/javascript\nwindow.hostileSurrogate = '</script>';", source: "s.txt")
        return (TrackerDataSet(trackers: trackers, entities: entities, domains: [:], cnames: cnames), config, scripts)
    }

    func testHostileDataIsInertData() throws {
        try checkInert(report: true, checks: "hostile (tracker report): 40 checks passed")
        try checkInert(report: false, checks: "hostile: 39 checks passed")
    }

    func checkInert(report: Bool, checks: String) throws {
        let (tds, config, scripts) = try Self.hostileInputs()
        let bundle = try SurrogateBundleBuilder.build(
            tds: tds, scripts: scripts, config: config,
            options: SurrogateBundleOptions(reportTrackers: report))
        XCTAssertNil(bundle.script.range(of: "</script", options: .caseInsensitive))
        XCTAssertFalse(bundle.script.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 })

        let node = try Support.node()
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Support.write(bundle.script, dir + "/hostile.js")
        let expected: JSONValue = .object(
            JSONObject([
                ("trackers", .array(Self.payloads.map { .string("\($0).hostile.test") })),
                ("entities", .array(Self.payloads.map { .string($0) })),
                ("rules", .array(Self.payloads.map { .string($0) })),
                (
                    "cnames",
                    .array(
                        Self.payloads.enumerated().map { i, p in
                            [.string("\(i).alias.\(p)"), .string("x.\(p).hostile.test")]
                        })
                ),
                (
                    "decisions",
                    [
                        // "__proto__" is an ordinary tracker key (a Map key), not an object's prototype.
                        [
                            "url": "https://__proto__.hostile.test/x.js", "page": "https://site.example/",
                            "tracker": "__proto__.hostile.test", "surrogate": nil,
                        ],
                        [
                            "url": "https://ok.hostile.test/s.js", "page": "https://site.example/",
                            "tracker": "ok.hostile.test", "surrogate": "s.js",
                        ],
                    ]
                ),
            ]))
        try Support.write(JSONWriter.string(expected), dir + "/expected.json")
        let (check, _, checkErr) = try Support.run(node, ["--check", dir + "/hostile.js"])
        XCTAssertEqual(check, 0, checkErr)
        let (status, out, err) = try Support.run(
            node,
            [
                Support.packageRoot + "/Tests/js/hostile.test.js",
                dir + "/hostile.js", dir + "/expected.json",
            ])
        XCTAssertEqual(status, 0, out + err)
        XCTAssertTrue(out.contains(checks), out + err)
    }

    func testPathLikeSurrogateNameInTDSIsNeverLoaded() throws {
        let tds = TrackerDataSet(trackers: [
            "t.com": Tracker(
                domain: "t.com", defaultAction: .block,
                rules: [
                    TrackerRule(rule: "t\\.com/a", surrogate: "../../etc/passwd")
                ])
        ])
        XCTAssertThrowsError(
            try SurrogateBundleBuilder.build(
                tds: tds, tdsSource: "t.json", scripts: [],
                options: SurrogateBundleOptions(strict: true))
        ) { e in
            XCTAssertEqual(
                (e as? SurrogateBundleError)?.description,
                "t.json: $.trackers[\"t.com\"].rules[0].surrogate: surrogate \"../../etc/passwd\" is not in "
                    + "surrogates.txt (only letters, digits, '.', '_' and '-' are allowed in a surrogate name)"
            )
        }
    }
}
