import XCTest
import Surrogates
import WebKitBridge

/// A process that checks surrogate bodies with JavaScriptCore and then compiles with WebKitGTK (a library user
/// building a release, then verifying it; the test process itself) must not hang: JavaScriptCore entered from
/// the main thread kept WebKit's compile callback from ever arriving.
final class SurrogateCheckThenWebKitTests: XCTestCase {
    func testWebKitCompilesAfterJavaScriptCoreCheckedABody() throws {
        XCTAssertNil(try JavaScriptSyntax.check("(function () { return 1; })"))
        XCTAssertNotNil(try JavaScriptSyntax.check("(function () { var = ; })"))
        let webkit: WebKitContentRuleCompiler
        do {
            webkit = try WebKitContentRuleCompiler(timeout: 60)
        } catch let e as WebKitBridgeError {
            if case .libraryUnavailable = e {
                throw XCTSkip("WebKitGTK 6.0 is not installed (scripts/install-deps.sh test): \(e)")
            }
            throw e
        }
        let list = #"[{"action":{"type":"block"},"trigger":{"url-filter":"tracker\\.example"}}]"#
        let verdict = try webkit.verify(rulesJSON: Array(list.utf8))
        XCTAssertTrue(verdict.accepted, verdict.message ?? "")
        XCTAssertTrue(
            try JavaScriptSyntax.check("(function () { return 2; })") == nil,
            "JavaScriptCore still answers after WebKit ran")
    }
}
