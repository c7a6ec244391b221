import XCTest
@testable import Surrogates

final class SurrogatesFileTests: XCTestCase {
    func testParsesBlocksCommentsAndKeepsBodiesVerbatim() throws {
        let text = """
            # a comment
            # another
            a.com/one.js application/javascript
            (function () {
            # not a comment inside a body
                window.one = 1;
            })();

            \r
            # between blocks
            b.net/path/two.js text/javascript\r
            window.two = 2;\r
            """
        let scripts = try SurrogatesFile.parse(text, source: "s.txt")
        XCTAssertEqual(scripts.map(\.name), ["one.js", "two.js"])
        XCTAssertEqual(scripts[0].path, "a.com/one.js")
        XCTAssertEqual(scripts[0].line, 3)
        XCTAssertEqual(scripts[0].body, "(function () {\n# not a comment inside a body\n    window.one = 1;\n})();")
        XCTAssertEqual(scripts[1].path, "b.net/path/two.js")
        XCTAssertEqual(scripts[1].contentType, "text/javascript")
        XCTAssertEqual(scripts[1].line, 11)
        XCTAssertEqual(scripts[1].body, "window.two = 2;")
    }

    func testErrorsNameTheLine() {
        func error(_ text: String) -> SurrogatesFileError? {
            do { _ = try SurrogatesFile.parse(text, source: "s.txt"); return nil } catch {
                return error as? SurrogatesFileError
            }
        }
        XCTAssertEqual(error("# c\nnot-a-header\nx();")?.line, 2)
        XCTAssertEqual(
            error("a.com/x.js application/json\n{}")?.message,
            "surrogate \"x.js\" has content type \"application/json\"; only application/javascript can be run")
        XCTAssertEqual(
            error("a.com/x.js application/javascript\nx();\n\na.com/x.js application/javascript\ny();")?.description,
            "s.txt: line 4: duplicate surrogate \"x.js\" (first defined on line 1)")
        XCTAssertEqual(
            error("a.com/x.js application/javascript\n\nb.com/y.js application/javascript\ny();")?.description,
            "s.txt: line 1: surrogate \"x.js\" has no script")
        XCTAssertEqual(error("a.com/x.js application/javascript extra\nx();")?.line, 1)
        XCTAssertEqual(error("x.js application/javascript\nx();")?.line, 1) // no domain
    }

    func testNamesArePlainFileNames() {
        for bad in ["a.com/..", "a.com/.", "a.com/x\\y.js", "a.com/x%2fy", "a.com/", "a.com/x\"y"] {
            XCTAssertThrowsError(try SurrogatesFile.parse("\(bad) application/javascript\nx();", source: "s"), bad) {
                e in
                XCTAssertEqual((e as? SurrogatesFileError)?.line, 1)
            }
        }
        XCTAssertNil(SurrogatesFile.fileNameProblem("google-ima.js"))
        XCTAssertNil(SurrogatesFile.fileNameProblem("amzn_apstag.js"))
        XCTAssertNotNil(SurrogatesFile.fileNameProblem("../etc/passwd"))
        XCTAssertNotNil(SurrogatesFile.fileNameProblem("a b"))
    }

    func testSharedSurrogatesFile() throws {
        let path = try Support.shared("surrogates/surrogates.txt")
        let scripts = try SurrogatesFile.parse(
            String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self), source: path)
        XCTAssertEqual(scripts.count, 19)
        XCTAssertEqual(scripts.first?.name, "ad_status.js")
        XCTAssertTrue(scripts.contains { $0.name == "google-ima.js" && $0.body.contains("Mozilla Public") })
        // Each body is the js/ file without its blank lines (the format cannot hold blank lines).
        for s in scripts {
            let original = try String(contentsOfFile: Support.shared("surrogates/js/" + s.name), encoding: .utf8)
            let expected = original.split(separator: "\n", omittingEmptySubsequences: true)
                .filter { !$0.isEmpty }.joined(separator: "\n")
            XCTAssertEqual(s.body, expected, s.name)
        }
    }

    func testReferenceSurrogatesFile() throws {
        let scripts = try Support.referenceSurrogates()
        XCTAssertEqual(scripts.map(\.name), ["tracker", "script.js"])
        XCTAssertEqual(scripts[0].body, "(function() {window.surrogate1=true})();")
    }

    // Issue 16, B2: invalid UTF-8 is an error naming the line (build and surrogates both read through here).
    func testInvalidUTF8IsAnErrorNamingTheLine() {
        let bytes = Array("a.com/x.js application/javascript\nwindow.a = 1;\n".utf8) + [0x76, 0x61, 0x72, 0xFF, 0x0A]
        XCTAssertThrowsError(try SurrogatesFile.parse(bytes: bytes, source: "s.txt")) { error in
            XCTAssertEqual(String(describing: error), "s.txt: line 3: not valid UTF-8 text")
        }
        XCTAssertEqual(
            try SurrogatesFile.parse(
                bytes: Array("a.com/x.js application/javascript\nwindow.é = 1;\n".utf8), source: "s.txt"
            ).count, 1)
    }
}
