// CookiePopupSelector.hasABPMarker: Foundation's `contains(":-abp-")`, in the UTF-8 bytes for ASCII selectors.

import Foundation
import XCTest

@testable import RuleBuilder

final class ABPMarkerTests: XCTestCase {
    func testTheMarkerIsFoundWhereFoundationFindsIt() {
        let selectors = [
            "div:-abp-has(.ad)", ".x", ":-abp-", ":-abp", "-abp-", "a:-ABP-has(b)", "a::-abp-contains(x)",
            "é:-abp-has(x)",
            ":-abp-\u{301}has(x)", ":-abp\u{301}-has(x)", "x:\u{301}-abp-has(y)", ":", "a:-ab:-abp-x", "",
        ]
        for s in selectors {
            XCTAssertEqual(CookiePopupSelector.hasABPMarker(s), s.contains(":-abp-"), s)
        }
    }
}
