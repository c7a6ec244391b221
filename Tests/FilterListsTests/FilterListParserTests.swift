// The filter-list parser: line kinds, options, and hostile input (non-UTF-8, a 10 MB line, a million filters).

import AdblockSyntax
import FilterLists
import TestSupport
import XCTest

final class FilterListParserTests: XCTestCase {
    func parse(_ text: String) throws -> FilterList {
        try FilterListParser.parse(Array(text.utf8), name: "test.txt")
    }

    func testLineKinds() throws {
        let list = try parse(
            """
            [Adblock Plus 2.0]
            ! Title: EasyTest
            ! a comment
            ||ads.example.com^$third-party
            @@||ads.example.com/ok.js$script,domain=a.com|~b.a.com
            example.com,~shop.example.com##.banner
            example.com#@#.banner
            example.com#?#div:has-text(Ad)

            /banner\\d+/$image
            """)
        XCTAssertEqual(list.lines, 10)
        XCTAssertEqual(list.comments, 1)
        XCTAssertEqual(list.headers.map(\.key), ["format", "Title"])
        XCTAssertEqual(list.network.map(\.line), [4, 5, 10])
        XCTAssertEqual(list.cosmetic.map(\.kind), [.hide, .hideException, .extended])
        XCTAssertEqual(
            list.cosmetic[0].domains,
            [
                DomainEntry(domain: "example.com", excluded: false),
                DomainEntry(domain: "shop.example.com", excluded: true),
            ])
        let block = list.network[0]
        XCTAssertFalse(block.isException)
        XCTAssertEqual(block.pattern, .plain(start: .host, body: "ads.example.com^", endAnchored: false))
        XCTAssertEqual(block.options.thirdParty, true)
        let exception = list.network[1]
        XCTAssertTrue(exception.isException)
        XCTAssertEqual(exception.options.types, [.script])
        XCTAssertEqual(exception.options.domains.map(\.excluded), [false, true])
        XCTAssertEqual(list.network[2].pattern, .regex("banner\\d+"))
        XCTAssertTrue(list.issues.isEmpty, "\(list.issues)")
    }

    func testOptions() throws {
        let list = try parse(
            """
            |https://x.com/a|$~script,~xhr,important,match-case
            ||a.com^$1p,css,frame
            ||a.com^$redirect=noop.js,script
            @@||a.com^$document
            @@||a.com^$ghide
            ||a.com^$badfilter
            ||a.com^$bogus
            ||a.com^$domain=
            """)
        let f = list.network
        XCTAssertEqual(f[0].pattern, .plain(start: .url, body: "https://x.com/a", endAnchored: true))
        XCTAssertEqual(f[0].options.excludedTypes, [.script, .xmlhttprequest])
        XCTAssertTrue(f[0].options.important && f[0].options.matchCase)
        XCTAssertEqual(f[1].options.thirdParty, false)
        XCTAssertEqual(f[1].options.types, [.stylesheet, .subdocument])
        XCTAssertEqual(f[2].options.unconvertible, ["redirect"])
        XCTAssertEqual(f[3].options.pageExceptions, [.document])
        XCTAssertEqual(f[4].options.pageExceptions, [.generichide])
        XCTAssertTrue(f[5].options.badfilter)
        XCTAssertEqual(list.issues.map(\.line), [7, 8])
        XCTAssertTrue(list.issues[0].reason.contains("unknown option \"bogus\""), list.issues[0].reason)
        XCTAssertEqual(list.issues.map(\.kind), [.malformed, .malformed])
    }

    func testNonUTF8LinesAreReportedAndTheRestRead() throws {
        let bytes = Array("||a.com^\n".utf8) + [0x7C, 0x7C, 0xFF, 0xFE, 0x0A] + Array("||b.com^\r\n".utf8)
        let list = try FilterListParser.parse(bytes, name: "bad.txt")
        XCTAssertEqual(list.network.map(\.line), [1, 3])
        XCTAssertEqual(list.network[1].text, "||b.com^")
        XCTAssertEqual(list.issues.map(\.line), [2])
        XCTAssertEqual(list.issues[0].reason, "the line is not UTF-8")
    }

    func testATenMegabyteLineIsReportedNotRead() throws {
        var bytes = Array("||a.com^\n".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 10 << 20)
        bytes += Array("\n||b.com^".utf8)
        let list = try FilterListParser.parse(bytes, name: "long.txt")
        XCTAssertEqual(list.network.map(\.line), [1, 3])
        XCTAssertEqual(list.issues.count, 1)
        XCTAssertTrue(list.issues[0].reason.hasPrefix("a line of 10485760 bytes"), list.issues[0].reason)
        XCTAssertLessThanOrEqual(list.issues[0].text.utf8.count, 83)
    }

    func testAMillionFilters() throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 << 20)
        for i in 0..<1_000_000 { bytes += Array("||h\(i).example^$script\n".utf8) }
        let list = try FilterListParser.parse(bytes, name: "million.txt")
        XCTAssertEqual(list.network.count, 1_000_000)
        XCTAssertEqual(list.network.last?.line, 1_000_000)
    }

    func testTooManyLinesIsAnErrorNamingTheList() {
        let bytes = [UInt8](repeating: 10, count: FilterListLimits.lines + 1)
        XCTAssertThrowsError(try FilterListParser.parse(bytes, name: "huge.txt")) {
            XCTAssertTrue("\($0)".hasPrefix("huge.txt: more than"), "\($0)")
        }
    }

    func testEasyListsParseWithoutMalformedLines() throws {
        for name in ["easyprivacy.txt", "easylist.txt"] {
            let path = try FilterListFiles.path(name)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let list = try FilterListParser.parse(bytes, name: name)
            XCTAssertGreaterThan(list.network.count, 40_000, name)
            XCTAssertEqual(list.issues.filter { $0.kind == .malformed }.map(\.description), [], name)
        }
    }
}
