import StrictJSON
import XCTest

@testable import ContentRules

/// A generated list checked in shares (`checkGeneratedShare`, joined by `checkGenerated(shares:)`) gives the
/// bytes of the whole list and refuses exactly what `checkGenerated` refuses of the whole, with the same error.
final class GeneratedListShareTests: XCTestCase {
    /// A check's error as it reads.
    struct Refused: Error, Equatable {
        let message: String
        init(_ error: any Error) { message = String(describing: error) }
    }

    func rule(_ urlFilter: String, _ action: Action = .block, condition: TriggerCondition? = nil) -> ContentRule {
        ContentRule(trigger: Trigger(urlFilter: urlFilter, condition: condition), action: action)
    }

    /// Ten rules that every profile accepts.
    var rules: [ContentRule] {
        (0..<10).map { i in
            i % 3 == 0
                ? rule("^https?://a\(i)\\.example/", condition: TriggerCondition(.ifDomain, ["*site\(i).example"]))
                : rule("track\(i)", i % 3 == 1 ? .block : .ignorePreviousRules)
        }
    }

    /// The whole list's check: its bytes, or its error as it reads.
    func whole(_ rules: [ContentRule], _ target: EngineProfile) -> Result<[UInt8], Refused> {
        let bytes = CanonicalRuleWriter.bytes(rules)
        do {
            try target.checkGenerated(bytes, ruleCount: rules.count)
            return .success(bytes)
        } catch {
            return .failure(Refused(error))
        }
    }

    /// The share-wise check of the same list, cut at `cuts` (share boundaries, ascending).
    func inShares(_ rules: [ContentRule], _ target: EngineProfile, cuts: [Int]) -> Result<[UInt8], Refused> {
        let bounds = [0] + cuts + [rules.count]
        let shares = zip(bounds, bounds.dropFirst()).map { target.checkGeneratedShare(rules[$0..<$1]) }
        do {
            return .success(try target.checkGenerated(shares: shares))
        } catch {
            return .failure(Refused(error))
        }
    }

    func assertSame(
        _ rules: [ContentRule], _ target: EngineProfile = .default, cuts: [Int], line: UInt = #line
    ) {
        XCTAssertEqual(inShares(rules, target, cuts: cuts), whole(rules, target), line: line)
    }

    func testTheSharesJoinIntoTheWholeListsBytes() throws {
        let bytes = try whole(rules, .default).get()
        for cuts in [[], [5], [1, 2, 9], [0, 10], [3, 3, 7], [0, 0, 10, 10]] {
            XCTAssertEqual(try inShares(rules, .default, cuts: cuts).get(), bytes, "\(cuts)")
        }
    }

    func testARuleRefusedInTheSecondShareIsNamedByItsIndexInTheWholeList() {
        var broken = rules
        broken[7] = rule("")
        guard case .failure(let refused) = inShares(broken, .default, cuts: [5]) else {
            return XCTFail("the broken rule was accepted")
        }
        XCTAssertTrue(refused.message.hasPrefix("rule 7: JSONInvalidURLFilterInTrigger"), refused.message)
        assertSame(broken, cuts: [5])
        // The first refused rule of the list wins, whichever share it is in.
        broken[2] = rule("a", .cssDisplayNone(selector: "a"), condition: TriggerCondition(.ifDomain, ["Upper.example"]))
        assertSame(broken, cuts: [5])
        assertSame(broken, cuts: [1, 3, 8])
    }

    func testAKeyTheTargetWouldIgnoreIsNamedByItsIndexInTheWholeList() {
        var frame = rules
        frame[6] = rule("ads", condition: TriggerCondition(.ifFrameURL, ["^https://frame\\.example/"]))
        frame[9] = frame[6]
        let safari15 = EngineProfile.named("safari-15")!
        guard case .failure(let refused) = inShares(frame, safari15, cuts: [4, 8]) else {
            return XCTFail("if-frame-url was accepted by Safari 15")
        }
        XCTAssertTrue(refused.message.hasPrefix("rule 6: trigger key \"if-frame-url\""), refused.message)
        XCTAssertTrue(refused.message.hasSuffix("(1 more such key)"), refused.message)
        assertSame(frame, safari15, cuts: [4, 8])
        // A rule refused anywhere wins over an ignored key before it, as in the whole check.
        frame[8] = rule("")
        assertSame(frame, safari15, cuts: [4, 8])
        XCTAssertEqual(inShares(frame, .default, cuts: [4, 8]), whole(frame, .default))
    }

    func testTheListLevelChecksAreTheWholeLists() {
        // No rules at all, in no share or in empty shares.
        assertSame([], cuts: [])
        assertSame([], cuts: [0, 0])
        guard case .failure(let empty) = inShares([], .default, cuts: [0]) else { return XCTFail("empty list") }
        XCTAssertTrue(empty.message.contains("the array is empty"), empty.message)
        // Every rule skipped by WebKit, though each share has rules.
        let skipped = (0..<6).map { rule("x\($0)", .cssDisplayNone(selector: "[")) }
        assertSame(skipped, cuts: [3])
        guard case .failure(let allSkipped) = inShares(skipped, .default, cuts: [3]) else {
            return XCTFail("all skipped")
        }
        XCTAssertTrue(allSkipped.message.contains("all 6 rules were skipped"), allSkipped.message)
        // Rules skipped in one share, kept in another: accepted.
        XCTAssertNoThrow(try inShares(skipped + rules, .default, cuts: [6]).get())
        // More rules than the target takes, though each share is within its limit.
        let small = EngineProfile(
            name: "small", family: .webKitGTK, version: EngineVersion(2, 50), maximumRuleCount: 4, source: "a test")
        guard case .failure(let tooMany) = inShares(rules, small, cuts: [3, 6, 9]) else {
            return XCTFail("the limit was not checked")
        }
        XCTAssertTrue(tooMany.message.hasPrefix("10 rules exceed small's limit of 4 rules"), tooMany.message)
        assertSame(rules, small, cuts: [3, 6, 9])
        assertSame(Array(rules[..<4]), small, cuts: [2])
    }

    func testASyntaxErrorIsPlacedInTheWholeList() {
        // Nesting deeper than WebKit's JSON reader takes, in a redirect action's object.
        var deep: JSONValue = 1
        for _ in 0..<RuleListJSONReader.maximumValueDepth { deep = [deep] }
        var nested = rules
        nested[8] = rule("r", .redirect(JSONObject([("x", deep)])))
        guard case .failure(let refused) = inShares(nested, .default, cuts: [5]) else {
            return XCTFail("the nesting was accepted")
        }
        XCTAssertTrue(refused.message.contains("JSONInvalid") && refused.message.contains("line 10,"), refused.message)
        assertSame(nested, cuts: [5])
        // A syntax error wins over a rule refused before it.
        nested[1] = rule("")
        assertSame(nested, cuts: [5])
    }
}
