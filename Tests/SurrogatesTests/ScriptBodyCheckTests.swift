import XCTest
@testable import Surrogates

final class ScriptBodyCheckTests: XCTestCase {
    private func failure(_ body: String) -> ScriptBodyError? {
        do { _ = try ScriptBodyCheck.prepare(body); return nil } catch { return error as? ScriptBodyError }
    }

    func testBalancedBodiesPassUnchanged() throws {
        let bodies = [
            "(function() {window.surrogate1=true})();",
            "var re = /}/g; var s = '}' + \"{\" + `}${ {a: '}'}.a }`; // }\n/* { */ x(re, s);",
            "if (a) { b = c / d / e; } else { f = /[/}]/.test(g) ? 1 : 2 }",
            "var t = `a${ `b${ c }` }d`;",
            "x = a++ / 2; y = (b) / 3; z = [1] / 4;",
            "return /x/.test(y)",
            "class A { #p = 1; get() { return this.#p } }",
            "s = 'line \\\n continued';",
        ]
        for b in bodies {
            XCTAssertEqual(try ScriptBodyCheck.prepare(b), b, b)
        }
        // An HTML-like comment is the same one-line comment written as `//` (issue 16: no `<!--` in the bundle).
        XCTAssertEqual(
            try ScriptBodyCheck.prepare("<!-- html-like comment }\nx();\n--> another }\ny();"),
            "// html-like comment }\nx();\n--> another }\ny();")
    }

    func testUnbalancedBodiesAreRejectedWithTheLine() {
        XCTAssertEqual(
            failure("x();\n}); evil(); (function () {"),
            ScriptBodyError(line: 2, message: "\"}\" closes nothing (it would close the surrogate's wrapper function)"))
        XCTAssertEqual(failure("a();\nif (x) {\n b();")?.line, 2)
        XCTAssertEqual(failure("f(]")?.message, "\"]\" does not match \"(\" opened on line 1")
        XCTAssertEqual(failure("x = 'abc;\n}")?.line, 1)
        XCTAssertEqual(failure("x = `abc ${ y }")?.line, 1)
        XCTAssertEqual(failure("/* never closed }")?.line, 1)
        XCTAssertEqual(failure("x = /abc\n}")?.line, 1)
        XCTAssertEqual(failure("x = `${ y `")?.message, "template literal opened here is never closed")
    }

    func testScriptEndIsEscaped() throws {
        XCTAssertEqual(try ScriptBodyCheck.prepare("d.write('<script></script>')"), "d.write('<script><\\/script>')")
        XCTAssertEqual(try ScriptBodyCheck.prepare("d.write(\"</SCRIPT>\")"), "d.write(\"<\\/SCRIPT>\")")
        XCTAssertEqual(try ScriptBodyCheck.prepare("t = `</script>${x}</script>`"), "t = `<\\/script>${x}<\\/script>`")
        XCTAssertEqual(try ScriptBodyCheck.prepare("// </script>\nx()"), "// <\\/script>\nx()")
        XCTAssertEqual(try ScriptBodyCheck.prepare("/* </script> */"), "/* <\\/script> */")
        XCTAssertEqual(try ScriptBodyCheck.prepare("r = /<\\/script>|[</]script>/"), "r = /<\\/script>|[<\\/]script>/")
        XCTAssertEqual(try ScriptBodyCheck.prepare("b = a </script>/.test(c)"), "b = a < /script>/.test(c)")
        XCTAssertEqual(
            failure("r = /x\\</script")?.message, "contains \"</script\" in a place where it cannot be escaped")
    }

    func testSharedSurrogatesPass() throws {
        let path = try Support.shared("surrogates/surrogates.txt")
        let scripts = try SurrogatesFile.parse(
            String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self), source: path)
        for s in scripts {
            XCTAssertEqual(try ScriptBodyCheck.prepare(s.body), s.body, s.name)
        }
    }
}
