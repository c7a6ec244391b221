// Shared DuckDuckGo data (CC BY-NC-SA; read at run time from ../shared, never copied into the repository),
// decoding helpers and rule-list normalisation for the RuleBuilder tests.

import ContentRules
import Foundation
import RuleBuilder
import StrictJSON
import TrackerData
import TestSupport
import XCTest

enum Shared {
    static let packageRoot = SharedFiles.packageRoot
    static let ddg = SharedFiles.ddg

    /// The path of a shared DuckDuckGo file, or an XCTSkip naming what is missing.
    static func path(_ relative: String) throws -> String { try SharedFiles.path(relative) }

    static let referenceDir = "reference-tests/tracker-radar-tests/TR-domain-matching"
    static let iosTDS = "tds/ios-tds_v5_2025-06-17.json"
    static let embeddedTDS = "tds/ios-tds_embedded_2025-02-17.json"
    static let iosConfig = "privacy-config/ios-config_v4_embedded_2025-02-17.json"
    static let fixtureTDS = "tds/fixtures/trackerradarkit-mockTrackerData.json"

    static func tds(_ relative: String) throws -> TrackerDataSet {
        try TrackerDataSet.load(path: path(relative)).0
    }

    static func config(_ relative: String) throws -> PrivacyConfig {
        try PrivacyConfig.load(path: path(relative)).0
    }

    static func json(_ relative: String) throws -> JSONValue {
        try JSONParser.parse(Array(Data(contentsOf: URL(fileURLWithPath: path(relative)))))
    }

    static func gunzip(_ relative: String) throws -> [UInt8] { try SharedFiles.gunzip(relative) }
}

enum TDSFixture {
    /// Decodes a TDS written inline in a test; fails the test on decode problems unless `allowIssues`.
    static func decode(_ json: String, allowIssues: Bool = false, file: StaticString = #filePath, line: UInt = #line)
        -> TrackerDataSet
    {
        do {
            let (tds, issues) = try TrackerDataSet.decode(bytes: Array(json.utf8), source: "fixture")
            if !allowIssues { XCTAssertEqual(issues, [], file: file, line: line) }
            return tds
        } catch {
            XCTFail("fixture does not decode: \(error)", file: file, line: line)
            return TrackerDataSet()
        }
    }

    /// A TDS with the given trackers (JSON object members), entities and cnames.
    static func tds(trackers: String, entities: String = "{}", domains: String = "{}", cnames: String = "{}")
        -> TrackerDataSet
    {
        decode("{\"trackers\":{\(trackers)},\"entities\":\(entities),\"domains\":\(domains),\"cnames\":\(cnames)}")
    }
}

enum RuleListNormalizer {
    /// A rule as a canonical string in which every list inside the trigger is sorted (lists compared as sets).
    static func key(_ rule: JSONValue) -> String {
        JSONWriter.string(sortLists(rule), options: [.sortedKeys])
    }

    private static func sortLists(_ v: JSONValue) -> JSONValue {
        switch v {
        case .array(let a):
            let items = a.map(sortLists)
            return .array(
                items.sorted {
                    JSONWriter.string($0, options: [.sortedKeys]) < JSONWriter.string($1, options: [.sortedKeys])
                })
        case .object(let o):
            var out = JSONObject()
            for (k, x) in o { out[k] = sortLists(x) }
            return .object(out)
        default: return v
        }
    }

    static func multiset(_ rules: [JSONValue]) -> [String: Int] {
        var m: [String: Int] = [:]
        for r in rules { m[key(r), default: 0] += 1 }
        return m
    }

    static func multiset(_ rules: [ContentRule]) -> [String: Int] { multiset(rules.map(\.jsonValue)) }
}
