// The one conversion: its lists in their order with their kinds, and the options it is given honoured (the
// optimization stage, the attribution split, the target encoding).

import AdblockSyntax
import ContentRules
import Conversion
import RuleBuilder
import TrackerData
import XCTest

final class ConversionTests: XCTestCase {
    static let tds = #"""
        {"trackers":{"widgets.com":{"domain":"widgets.com","default":"ignore","owner":{"name":"Widget Co"},
          "rules":[{"rule":"widgets\\.com/like","action":"block-ctl-w"},
                   {"rule":"widgets\\.com/pixel"},{"rule":"widgets\\.com/pixel"}]}},
         "entities":{"Widget Co":{"domains":["widgets.com"]}},
         "domains":{"widgets.com":"Widget Co"}}
        """#
    static let config =
        #"{"features":{"contentBlocking":{"state":"enabled"},"#
        + #""clickToLoad":{"state":"enabled","#
        + #""settings":{"Widget Co":{"state":"enabled","ruleActions":["block-ctl-w"]}}},"#
        + #""adClickAttribution":{"state":"enabled","settings":{"allowlist":[{"blocklistEntry":"widgets.com","#
        + #""host":"bat.widgets.com"}]}}}}"#

    func convert(_ options: ConversionOptions) throws -> Conversion {
        let tds = try TrackerDataSet.decode(bytes: Array(Self.tds.utf8), source: "tds.json", strict: true).0
        let config = try PrivacyConfig.decode(bytes: Array(Self.config.utf8), source: "config.json", strict: true).0
        return Conversion.convert(tds: tds, config: config, unprotected: nil, options: options)
    }

    func testListsAreTheMainOneThenClickToLoadThenAttribution() throws {
        let conversion = try convert(ConversionOptions(splitAttribution: true))
        XCTAssertEqual(
            conversion.lists.map(\.kind), [.main, .clickToLoad(ruleAction: "block-ctl-w"), .adClickAttribution])
        for list in conversion.lists {
            XCTAssertEqual(list.rules.count, list.provenance.count, "\(list.kind): a provenance for every rule")
        }
        XCTAssertEqual(conversion.lists[0].rules, conversion.result.rules)
    }

    func testWithoutTheSplitTheAttributionRulesStayInTheMainList() throws {
        let conversion = try convert(ConversionOptions())
        XCTAssertFalse(conversion.lists.contains { $0.kind == .adClickAttribution })
    }

    func testTheOptimizationStageRunsOnlyWhenAsked() throws {
        let plain = try convert(ConversionOptions(optimize: false))
        XCTAssertEqual(plain.optimization.rulesIn, plain.optimization.rulesOut)
        let optimized = try convert(ConversionOptions())
        XCTAssertEqual(optimized.optimization.rulesIn, plain.optimization.rulesIn)
        XCTAssertLessThan(optimized.optimization.rulesOut, optimized.optimization.rulesIn, "the repeated rule goes")
    }

    func testATargetGetsItsEncoding() throws {
        let target = try XCTUnwrap(EngineProfile.named("safari-14"))
        let encoded = try convert(ConversionOptions(target: target)).result
        let plain = try convert(ConversionOptions()).result
        XCTAssertNotEqual(encoded.rules, plain.rules, "safari-14 has no top-document, if-frame-url, ...")
        XCTAssertEqual(encoded.rules, TargetEncoding.adapt(plain, for: target).rules)
    }

    func testACosmeticLayerWithoutRulesHandsItsIssuesToTheNetworkList() throws {
        let text = "||ads.test^\na.test#?#div:-abp-has(.x)\n||bad.test^$redirect=noop.js\n"
        let list = try FilterListParser.parse(Array(text.utf8), name: "t.txt")
        let layers = FilterListsConversion.convert([list], target: .default, config: nil, unprotected: nil)
        XCTAssertEqual(layers.map(\.layer), [.network], "no cosmetic rule: no cosmetic list")
        XCTAssertEqual(layers[0].issues.map(\.line), [2, 3], "the procedural filter's issue is kept, in line order")
    }
}
