@testable import ContentRules
import XCTest

/// The flag words against WebKit's ResourceLoadInfo.h.
final class ResourceFlagsTests: XCTestCase {
    func testAllResourceFlagsIsEveryFieldOfTheFlagsWord() {
        // Bits 0-24: types 0-13, load type 14-15, load context 16-17, condition 18-20, method 21-24.
        XCTAssertEqual(allResourceFlags, 0x1FF_FFFF)
        for mask in [
            ResourceTypeName.mask, LoadTypeName.mask, LoadContextName.mask, ConditionFlags.mask,
            RequestMethodName.mask,
        ] {
            XCTAssertEqual(allResourceFlags & mask, mask)
        }
    }

    func testMethodValuesAreWebKitsRequestMethodEnumeration() {
        XCTAssertEqual(RequestMethodName.get, 0x200000)
        XCTAssertEqual(RequestMethodName.post, 0xE00000)
        XCTAssertEqual(RequestMethodName.flags(of: "CONNECT"), 0x1200000)
        for (i, name) in RequestMethodName.all.enumerated() {
            XCTAssertEqual(RequestMethodName.flags(of: name), RequestMethodName.flags(at: i))
            XCTAssertEqual(RequestMethodName.flags(at: i) & ~RequestMethodName.mask, 0, name)
        }
    }

    func testRuleLimitIsWrittenOnce() {
        XCTAssertEqual(RuleListParser.maximumRuleCount, EngineProfile.webKitRuleLimit)
        XCTAssertEqual(EngineProfile.withThousandsSeparators(150_000), "150,000")
        XCTAssertEqual(EngineProfile.withThousandsSeparators(50_000), "50,000")
        XCTAssertEqual(EngineProfile.withThousandsSeparators(999), "999")
    }
}
