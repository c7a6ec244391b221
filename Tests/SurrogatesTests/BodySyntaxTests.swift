// Issue 16, B3: a surrogate body with a syntax error but balanced brackets passed, and the whole bundle then
// failed to parse (every surrogate lost). Every body is now parsed with JavaScriptCore; a bad one is dropped
// with an error naming it, and the bundle parses (checked independently with node --check).

import XCTest
@testable import Surrogates
import TrackerData

final class BodySyntaxTests: XCTestCase {
    static let bad: [(name: String, body: String)] = [
        ("assign.js", "var = ;"),
        ("await.js", "await 1;"),
        ("const.js", "const a = 1;\nconst a = 2;"),
        ("operator.js", "window.x = (1 +);"),
    ]
    static let good: [(name: String, body: String)] = [
        ("ok.js", "window.ok = 1;"),
        (
            "html-comment.js",
            "var s = '<!--<script>'; <!-- an HTML-like comment\nwindow.h = s + `<!--` + /<!--/.test('<!--'); /* <!-- */"
        ),
        ("line-separators.js", "var t = 'a\u{2028}b\u{2029}c';\u{2028}window.ls = t + `\u{2028}`;"),
        ("script-end.js", "window.e = '</script>' + `</SCRIPT>`; // </script>"),
    ]

    static func inputs(_ scripts: [(name: String, body: String)]) throws -> (TrackerDataSet, [SurrogateScript]) {
        var rules: [TrackerRule] = []
        var text = ""
        for (name, body) in scripts {
            rules.append(TrackerRule(rule: "tracker\\.test/\(name)", surrogate: name))
            text += "tracker.test/\(name) application/javascript\n\(body)\n\n"
        }
        let tds = TrackerDataSet(
            trackers: ["tracker.test": Tracker(domain: "tracker.test", defaultAction: .block, rules: rules)],
            entities: [:], domains: [:], cnames: [:])
        return (tds, try SurrogatesFile.parse(text, source: "s.txt"))
    }

    func testBadBodiesAreDroppedWithAnErrorNamingThemAndTheBundleParses() throws {
        let (tds, scripts) = try Self.inputs(Self.good + Self.bad)
        let bundle = try SurrogateBundleBuilder.build(tds: tds, scripts: scripts, surrogatesSource: "s.txt")
        XCTAssertEqual(bundle.surrogateNames, Self.good.map(\.name).sorted())
        XCTAssertEqual(bundle.errors.count, Self.bad.count, bundle.errors.joined(separator: "\n"))
        for (name, _) in Self.bad {
            XCTAssertTrue(
                bundle.errors.contains {
                    $0.hasPrefix("s.txt: line ") && $0.contains("surrogate \"\(name)\": ")
                        && $0.hasSuffix("surrogate dropped, its rules stay plain blocks")
                },
                "\(name): \(bundle.errors)")
        }
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Support.write(bundle.script, dir + "/surrogates.js")
        let (status, _, err) = try Support.run(try Support.node(), ["--check", dir + "/surrogates.js"])
        XCTAssertEqual(status, 0, "node --check: \(err)")
    }

    func testEachBadBodyAloneIsCaughtByJavaScriptCoreAndByNode() throws {
        let node = try Support.node()
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, body) in Self.bad {
            // The bracket scanner alone lets these through: only a real parse catches them.
            XCTAssertNoThrow(try ScriptBodyCheck.prepare(body), name)
            XCTAssertThrowsError(
                try SurrogateBundleBuilder.checkedBody(
                    SurrogateScript(
                        name: name, path: "tracker.test/" + name,
                        contentType: "application/javascript", body: body, line: 1)), name)
            try Support.write("(function () {\n" + body + "\n})", dir + "/" + name)
            XCTAssertNotEqual(
                try Support.run(node, ["--check", dir + "/" + name]).0, 0, "node agrees that \(name) does not parse")
        }
    }

    func testStrictMakesABadBodyAnError() throws {
        let (tds, scripts) = try Self.inputs(Self.good + [Self.bad[0]])
        XCTAssertThrowsError(
            try SurrogateBundleBuilder.build(
                tds: tds, scripts: scripts, surrogatesSource: "s.txt",
                options: SurrogateBundleOptions(strict: true))
        ) { error in
            XCTAssertTrue(String(describing: error).contains("surrogate \"assign.js\""), String(describing: error))
        }
    }

    func testHTMLCommentScriptEndAndLineSeparatorsAreNeutralisedWithTheSameMeaning() throws {
        let (tds, scripts) = try Self.inputs(Self.good)
        let bundle = try SurrogateBundleBuilder.build(tds: tds, scripts: scripts, surrogatesSource: "s.txt")
        XCTAssertEqual(bundle.errors, [])
        XCTAssertFalse(bundle.script.contains("<!--"))
        XCTAssertNil(bundle.script.range(of: "</script", options: .caseInsensitive))
        XCTAssertFalse(bundle.script.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 })
        // The rewritten bodies mean what the originals meant.
        let node = try Support.node()
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, body) in Self.good {
            let prepared = try ScriptBodyCheck.prepare(body)
            let probe = "var window = {}; (function () {\n%@\n})(); console.log(JSON.stringify(window));"
            try Support.write(probe.replacingOccurrences(of: "%@", with: body), dir + "/original.js")
            try Support.write(probe.replacingOccurrences(of: "%@", with: prepared), dir + "/prepared.js")
            let original = try Support.run(node, [dir + "/original.js"])
            let rewritten = try Support.run(node, [dir + "/prepared.js"])
            XCTAssertEqual(original.0, 0, "\(name): \(original.2)")
            XCTAssertEqual(rewritten.1, original.1, name)
        }
    }
}
