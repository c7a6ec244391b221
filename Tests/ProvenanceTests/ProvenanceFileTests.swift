// The provenance file's one decoder: what the encoder writes reads back to the same bytes, and every way an entry
// can be malformed is an error naming the file, the entry and the field.

import Provenance
import StrictJSON
import XCTest

final class ProvenanceFileTests: XCTestCase {
    /// One provenance of every source and member the builders write.
    static let written: [RuleProvenance] = [
        RuleProvenance(source: .tds, tracker: "t.com", part: .rule(3), role: .exception, cnameAlias: "a.net"),
        RuleProvenance(source: .tds, tracker: "t.com", part: .rule(0), role: .block)
            .with(.host(HostForm("^https?://t\\.com", path: "/x"))),
        RuleProvenance(source: .tds, tracker: "t.com", part: .rule(1), role: .ignore)
            .with(.inURL(InURLForm(hostPrefix: "^https?://t\\.com", gap: .any, path: "x"))),
        RuleProvenance(source: .allowlist, tracker: "t.com", allowlistIndex: 2, allowlistRule: "t.com/a")
            .with(.hostAndInURL(HostForm("h", path: "/p"), InURLForm(hostPrefix: "h", gap: .beforeQuery, path: "/p"))),
        RuleProvenance(source: .tds, tracker: "t.com", part: .default, role: .block),
        RuleProvenance(source: .tds, part: .entity, role: .sameEntity, entity: "Big Co"),
        RuleProvenance(source: .tds, tracker: "t.com", part: .popup),
        RuleProvenance(source: .tempList),
        RuleProvenance(source: .tempList, role: .tempListAndUserUnprotected),
        RuleProvenance(source: .userUnprotected),
        RuleProvenance(source: .topLevel),
        RuleProvenance(source: .requestBlocklist, tracker: "r.com", role: .topLevel, allowlistIndex: 4),
        RuleProvenance(source: .featureState, role: .contentBlocking(state: "disabled")),
        RuleProvenance(source: .featureState, role: .contentBlocking(state: nil)),
        RuleProvenance(source: .clickToLoad, tracker: "Facebook", role: .firstParty),
        RuleProvenance(source: .adClickAttribution, tracker: "t.com", role: .vendor, allowlistRule: "ad.t.com"),
        RuleProvenance(source: .cookiePopups, role: .hide, filterLines: [3, 9]),
        RuleProvenance(source: .cookiePopups, role: .offSites),
    ]

    func testWhatIsWrittenReadsBackToTheSameBytes() throws {
        let bytes = RuleProvenance.listBytes(Self.written)
        let read = try RuleProvenance.decodeList(bytes, file: "p.json")
        XCTAssertEqual(RuleProvenance.listBytes(read), bytes)
        XCTAssertEqual(read.map(\.role), Self.written.map(\.role))
        XCTAssertEqual(read.map(\.form?.kind), Self.written.map(\.form?.kind))
        // The file records a form's kind, not the pieces the builder made it from.
        XCTAssertTrue(read.allSatisfy { $0.form?.pieces == nil })
        XCTAssertEqual(read[3].roleText, "host+in-url")
        XCTAssertEqual(read[11].requestBlocklistName, "requestBlocklist/r.com/4")
    }

    func testEveryRoleReadsBackFromItsText() {
        let roles: [Role] = [
            .block, .otherRule, .exception, .ignore, .reset, .vendor, .sameEntity, .firstParty, .topLevel, .hide,
            .offSites, .tempListAndUserUnprotected, .contentBlocking(state: "disabled"), .contentBlocking(state: nil),
        ]
        for role in roles { XCTAssertEqual(Role(text: role.text), role, role.text) }
        XCTAssertEqual(Set(roles.map(\.text)).count, roles.count)
        XCTAssertNil(Role(text: "blocked"))
        XCTAssertNil(Role(text: "contentBlocking disabled"))
    }

    func testAMalformedEntryNamesTheFileTheEntryAndTheField() {
        let cases: [(String, ProvenanceError)] = [
            (#"[{"source":"tds"},{"source":"tds","extra":1}]"#, error(1, "extra", "unknown field")),
            (#"[{"tracker":"t.com"}]"#, error(0, "source", "missing")),
            (#"[{"source":"nope"}]"#, error(0, "source", #"unknown source "nope""#)),
            (#"[{"source":"tds","tracker":3}]"#, error(0, "tracker", "must be a string, not number")),
            (#"[{"source":"tds","rule":1.5}]"#, error(0, "rule", "1.5 is not a rule index")),
            (#"[{"source":"tds","rule":"other"}]"#, error(0, "rule", "must be a rule index")),
            (#"[{"source":"tds","role":"block hosts"}]"#, error(0, "role", #"unknown role "block hosts""#)),
            (#"[{"source":"allowlist","index":-1}]"#, error(0, "index", "must be a whole number >= 0, not -1")),
            (#"[{"source":"cpm","lines":[1,"2"]}]"#, error(0, "lines", "must hold whole numbers >= 0")),
            (#"[{"source":"requestBlocklist","tracker":"r.com","index":1}]"#, error(0, "name", "must be")),
            (#"[{"source":"tds","name":"x"}]"#, error(0, "name", "only a requestBlocklist entry")),
            (#"[{"source":"tds"},7]"#, ProvenanceError(file: "p.json", entry: 1, field: nil, reason: "an object")),
            (
                #"{"source":"tds"}"#,
                ProvenanceError(file: "p.json", entry: nil, field: nil, reason: "provenance must be a JSON array")
            ),
            ("[{", ProvenanceError(file: "p.json", entry: nil, field: nil, reason: "invalid JSON at line 1")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try RuleProvenance.decodeList(Array(text.utf8), file: "p.json"), text) { e in
                guard let e = e as? ProvenanceError else { return XCTFail("\(text): \(e)") }
                XCTAssertEqual(e.file, expected.file, text)
                XCTAssertEqual(e.entry, expected.entry, text)
                XCTAssertEqual(e.field, expected.field, text)
                XCTAssertTrue(e.reason.hasPrefix(expected.reason), "\(text): \(e.reason)")
            }
        }
    }

    func testTheErrorSaysWhereInOneLine() {
        let e = ProvenanceError(file: "rel/provenance.json", entry: 12, field: "role", reason: "unknown role \"x\"")
        XCTAssertEqual(e.description, #"rel/provenance.json: entry 12, field "role": unknown role "x""#)
    }

    private func error(_ entry: Int, _ field: String, _ reason: String) -> ProvenanceError {
        ProvenanceError(file: "p.json", entry: entry, field: field, reason: reason)
    }
}
