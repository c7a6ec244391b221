// The filter-list parser: line kinds, options, and hostile input (non-UTF-8, a 10 MB line, a million filters).

@testable import AdblockSyntax
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

    /// Everything a parsed list holds, for comparing two.
    func summary(_ list: FilterList) -> String {
        "\(list.name) \(list.lines) lines, \(list.comments) comments, \(list.blank) blank\n"
            + "headers \(list.headers.map { "\($0.key)=\($0.value)" })\nnetwork \(list.network)\n"
            + "cosmetic \(list.cosmetic)\nissues \(list.issues)\nunread \(list.unreadNetwork)"
    }

    func testPiecesJoinedAreTheListParsedWhole() throws {
        let text =
            "[Adblock Plus 2.0]\r\n! Title: T\n\n||a.com^\r\n! c\n  \t\na.com##.x\n||b.com^$bogus\n"
            + "@@||c.com^$document\n##.y\r\n\n\n||d.com^\n~e.com#@#.z\n"
        let bad: [UInt8] = [0x7C, 0x7C, 0xFF, 0x0A]
        let inputs: [[UInt8]] = [
            Array(text.utf8), Array(text.utf8) + bad + Array("||last.com^".utf8), [], [10], [10, 10], Array("x".utf8),
        ]
        for bytes in inputs {
            for reading in [FilterListParser.Reading.all, .cosmeticOnly] {
                let whole = try FilterListParser.parse(bytes, name: "l.txt", reading: reading)
                for size in [1, 2, 7, 30, 1000, Int.max] {
                    let pieces = try FilterListParser.pieces(bytes, name: "l.txt", size: size)
                    XCTAssertEqual(pieces.map(\.bytes.lowerBound).first ?? 0, 0)
                    XCTAssertEqual(pieces.last?.bytes.upperBound ?? 0, bytes.count)
                    for (a, b) in zip(pieces, pieces.dropFirst()) {
                        XCTAssertEqual(a.bytes.upperBound, b.bytes.lowerBound)
                        XCTAssertEqual(bytes[a.bytes.upperBound - 1], 10, "a piece ends after a line end")
                        XCTAssertEqual(b.firstLine, a.firstLine + bytes[a.bytes].filter { $0 == 10 }.count)
                    }
                    if size >= bytes.count { XCTAssertLessThanOrEqual(pieces.count, 1) }
                    let parts = pieces.map { FilterListParser.parse(bytes, piece: $0, name: "l.txt", reading: reading) }
                    let joined = FilterList(joining: parts, name: "l.txt")
                    XCTAssertEqual(summary(joined), summary(whole), "size \(size), \(bytes.count) bytes")
                }
            }
        }
    }

    func testPiecesRefuseTooManyLinesAsTheWholeParse() {
        let bytes = [UInt8](repeating: 10, count: FilterListLimits.lines) + Array("x".utf8)
        XCTAssertThrowsError(try FilterListParser.pieces(bytes, name: "huge.txt", size: 1 << 20)) {
            XCTAssertEqual(
                "\($0)", "huge.txt: more than \(FilterListLimits.lines) lines: not a filter list this tool reads")
        }
        XCTAssertEqual(try FilterListParser.pieces(Array(bytes.dropLast()), name: "max.txt", size: .max).count, 1)
    }

    func testTheASCIISeparatorIsTheCharacterOne() {
        let lines = [
            "a.com##.x", "##.y", "a.com#@#.z", "a.com#?#div", "a.com#@?#div", "a.com#$#x", "a.com#@$#x", "a.com#%#x",
            "a.com#@%#x", "#", "# comment", "a#b##c", "/a##b/", "a|b##c", "a@b##c", "a\"b##c", "a!b##c", "a$b##c",
            "||a.com^", "a.com#", "a.com#@", "a.com##", "###x", "#@#x", "a.com\r##x", "x#?#", "a.com#@#",
        ]
        for line in lines {
            let fast = FilterListParser.asciiCosmeticSeparator(line)
            let slow = FilterListParser.characterCosmeticSeparator(line)
            XCTAssertEqual(fast?.0, slow?.0, line)
            XCTAssertEqual(fast.map { line[..<$0.1.lowerBound] }, slow.map { line[..<$0.1.lowerBound] }, line)
            XCTAssertEqual(fast.map { line[$0.1.upperBound...] }, slow.map { line[$0.1.upperBound...] }, line)
        }
        // Past ASCII the characters decide: `#` extended by a combining mark is no separator.
        XCTAssertNil(FilterListParser.cosmeticSeparator("a.com#\u{301}#.x"))
        XCTAssertEqual(FilterListParser.cosmeticSeparator("é.com##.x")?.0, .hide)
    }

    func testTrimmedIsTheCharacterTrim() {
        let lines = [
            "a", " a", "a ", "\ta\t", "  ", "", " ", "\u{600} ", " \u{301}a", "a\u{600} ", "\u{301} a", "a \u{301}",
            "é", " é ", "a\r", "\t",
        ]
        for line in lines {
            XCTAssertEqual(
                FilterListParser.trimmed(line), FilterListParser.characterTrimmed(line), line.debugDescription)
        }
        XCTAssertEqual(FilterListParser.trimmed(" \ta b\t "), "a b")
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
