// The quirks-mode rewrite of mixed-case ID and class selectors (RuleBuilder/Cosmetic/QuirksModeSelectors.swift) and the
// cookie pop-up list's css-display-none rules written with it.

import ContentRules
import RuleBuilder
import XCTest

final class QuirksModeSelectorsTests: XCTestCase {
    func testMixedCaseNamesBecomeAttributeSelectors() {
        let cases: [(String, String)] = [
            ("#CookieBanner", "[id=\"CookieBanner\"]"),
            (".MixedClass", "[class~=\"MixedClass\"]"),
            ("div#Cx3 > .a.B", "div[id=\"Cx3\"] > .a[class~=\"B\"]"),
            ("#lowsel, .low-class_2", "#lowsel, .low-class_2"),
            (":not(.Foo) :has(#Bar)", ":not([class~=\"Foo\"]) :has([id=\"Bar\"])"),
            ("#a\\.B", "[id=\"a\\.B\"]"),
            ("#\\31 23X", "[id=\"\\31 23X\"]"),
            ("-Y", "-Y"),
        ]
        for (selector, expected) in cases {
            XCTAssertEqual(QuirksModeSelectors.rewrite(selector), expected, selector)
        }
    }

    func testNothingOutsideSelectorsIsTouched() {
        let unchanged = [
            "[href=\"a.B#C\"]", "a[title='#X .Y']", ":lang(x.Y)", "a[data-x=\"#Q\"] .z", "#-1", ".9A", "div.",
            "img[src*=\"Ad.Png\"]",
        ]
        for selector in unchanged {
            XCTAssertEqual(QuirksModeSelectors.rewrite(selector), selector, selector)
        }
        XCTAssertEqual(QuirksModeSelectors.rewrite("a[x=\"]\"] .Q"), "a[x=\"]\"] [class~=\"Q\"]")
    }

    func testCookiePopupListWritesTheRewrite() throws {
        let list = CookiePopupRules.build(
            filterList: "##.Banner\n##.plain\na.com###Consent\n", offSites: [], target: .default)
        let selectors = list.rules.compactMap { rule -> String? in
            if case .cssDisplayNone(let s) = rule.action { return s }
            return nil
        }
        XCTAssertEqual(selectors, ["[class~=\"Banner\"], .plain", "[id=\"Consent\"]"])
    }
}
