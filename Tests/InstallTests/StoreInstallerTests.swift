// radarblock install's bookkeeping with a stand-in compiler (the real-WebKit checks are in scripts/test-webkit.sh).

import Foundation
@testable import Install
import StrictJSON
import TestSupport
import WebKitBridge
import XCTest

final class StoreInstallerTests: XCTestCase {
    /// Writes a minimal release: a manifest whose `lists` name rule files with the given contents.
    func makeRelease(
        _ dir: String, identifier: String, lists: [(id: String, file: String, json: String)],
        extra: JSONObject = JSONObject()
    ) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var entries: [JSONValue] = []
        for l in lists {
            try Array(l.json.utf8).write(to: dir + "/" + l.file)
            var o = JSONObject([("identifier", .string(l.id)), ("rules", .string(l.file))])
            for (k, v) in extra { o[k] = v }
            entries.append(.object(o))
        }
        let manifest: JSONValue = ["identifier": .string(identifier), "mode": "faithful", "lists": .array(entries)]
        try JSONWriter.bytes(manifest).write(to: dir + "/manifest.json")
    }

    /// A compiler that writes WebKit's file name, counts its calls and rejects sources containing "reject".
    final class FakeCompiler: @unchecked Sendable {
        var calls: [String] = []
        var compile: StoreCompile {
            { json, id, store in
                self.calls.append(id)
                if String(decoding: json, as: UTF8.self).contains("reject") {
                    throw StoreInstallError("WebKit rejected the rule list: Invalid or unsupported regular expression.")
                }
                try json.write(to: store + "/" + WebKitFileName.encode(id))
                return (json.count, 0.5)
            }
        }
        /// The stand-in compile with WebKit's real file names.
        var store: WebKitStore {
            WebKitStore(compile: compile)
        }
    }

    func testFirstInstallCompilesTheSecondCompilesNothing() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try makeRelease(
            root + "/rel", identifier: "r1",
            lists: [
                ("a_v1_0.1.0_0000000000000001", "rules.json", "[1]"),
                ("b_v1_0.1.0_000000000000000b", "rules-2.json", "[2]"),
            ])
        let fake = FakeCompiler()
        let first = try StoreInstaller.install(
            release: root + "/rel", store: root + "/store", prune: false, webKit: fake.store)
        XCTAssertEqual(
            first.compiled.map(\.identifier), ["a_v1_0.1.0_0000000000000001", "b_v1_0.1.0_000000000000000b"])
        let stateAfterFirst = try Array(Data(contentsOf: URL(fileURLWithPath: root + "/store/" + StoreState.fileName)))
        let second = try StoreInstaller.install(
            release: root + "/rel", store: root + "/store", prune: false, webKit: fake.store)
        XCTAssertEqual(
            fake.calls, ["a_v1_0.1.0_0000000000000001", "b_v1_0.1.0_000000000000000b"],
            "the second install must not compile")
        XCTAssertEqual(
            second.alreadyInStore.map(\.identifier), ["a_v1_0.1.0_0000000000000001", "b_v1_0.1.0_000000000000000b"])
        XCTAssertEqual(
            second.alreadyInStore.map(\.compileSeconds), [0.5, 0.5], "the state keeps the first compile's time")
        XCTAssertEqual(
            try Array(Data(contentsOf: URL(fileURLWithPath: root + "/store/" + StoreState.fileName))), stateAfterFirst)
        XCTAssertEqual(try StoreState.load(store: root + "/store").releases.map(\.identifier), ["r1"])
    }

    func testARejectedListKeepsThePreviousReleaseAndIsNamed() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fake = FakeCompiler()
        try makeRelease(root + "/rel", identifier: "r1", lists: [("a_v1_0.1.0_0000000000000001", "rules.json", "[1]")])
        _ = try StoreInstaller.install(release: root + "/rel", store: root + "/store", prune: false, webKit: fake.store)
        try FileManager.default.removeItem(atPath: root + "/rel")
        try makeRelease(
            root + "/rel", identifier: "r2",
            lists: [
                ("a_v1_0.1.0_0000000000000002", "rules.json", "[3]"),
                ("b_v1_0.1.0_000000000000000c", "rules-2.json", "[\"reject\"]"),
            ])
        let report = try StoreInstaller.install(
            release: root + "/rel", store: root + "/store", prune: true, webKit: fake.store)
        XCTAssertEqual(report.failed.map(\.identifier), ["b_v1_0.1.0_000000000000000c"])
        XCTAssertEqual(report.failed.first?.rules, "rules-2.json")
        XCTAssertEqual(report.kept?.identifier, "r1")
        XCTAssertNil(report.release)
        XCTAssertEqual(try StoreState.load(store: root + "/store").releases.map(\.identifier), ["r1"])
        XCTAssertEqual(
            report.pruned, ["a_v1_0.1.0_0000000000000002"],
            "a list of the failed release is not needed by any installed release")
        XCTAssertEqual(
            StoreInstaller.storedIdentifiers(store: root + "/store"), ["a_v1_0.1.0_0000000000000001"],
            "the last good list stays")
    }

    func testPruneRemovesOnlyIdentifiersNoInstalledReleaseNeeds() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fake = FakeCompiler()
        try makeRelease(
            root + "/ctl", identifier: "c1", lists: [("ctl-yt_v1_0.1.0_0000000000000015", "ctl-yt.json", "[9]")],
            extra: JSONObject([("ruleAction", "youtube"), ("entity", "Google")]))
        try makeRelease(root + "/rel", identifier: "r1", lists: [("a_v1_0.1.0_0000000000000001", "rules.json", "[1]")])
        _ = try StoreInstaller.install(release: root + "/ctl", store: root + "/store", prune: false, webKit: fake.store)
        _ = try StoreInstaller.install(release: root + "/rel", store: root + "/store", prune: false, webKit: fake.store)
        try FileManager.default.removeItem(atPath: root + "/rel")
        try makeRelease(root + "/rel", identifier: "r2", lists: [("a_v1_0.1.0_0000000000000002", "rules.json", "[2]")])
        let report = try StoreInstaller.install(
            release: root + "/rel", store: root + "/store", prune: true, webKit: fake.store)
        XCTAssertEqual(report.pruned, ["a_v1_0.1.0_0000000000000001"])
        XCTAssertEqual(
            StoreInstaller.storedIdentifiers(store: root + "/store"),
            ["a_v1_0.1.0_0000000000000002", "ctl-yt_v1_0.1.0_0000000000000015"])
        let ctl = try StoreState.load(store: root + "/store").releases.first { $0.identifier == "c1" }?.lists.first
        XCTAssertEqual(ctl?.ruleAction, "youtube")
        XCTAssertEqual(ctl?.entity, "Google")
        XCTAssertEqual(
            try StoreInstaller.prune(
                store: root + "/store"), [])
        // A list some other program keeps in the same store (not a radarblock identifier) is never pruned.
        try Array("x".utf8).write(to: root + "/store/ContentRuleList-ephy-3f9a0c1b")
        XCTAssertEqual(
            try StoreInstaller.prune(
                store: root + "/store"), [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/store/ContentRuleList-ephy-3f9a0c1b"))
    }

    func testBadReleasesAreRefusedNamingTheField() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fake = FakeCompiler()
        try makeRelease(root + "/escape", identifier: "r", lists: [("a", "rules.json", "[1]")])
        let m: JSONValue = [
            "identifier": "r", "mode": "faithful", "lists": [["identifier": "a", "rules": "../../etc/passwd"]],
        ]
        try JSONWriter.bytes(m).write(to: root + "/escape/manifest.json")
        XCTAssertThrowsError(
            try StoreInstaller.install(
                release: root + "/escape", store: root + "/store", prune: false, webKit: fake.store)
        ) {
            XCTAssertTrue(String(describing: $0).contains("lists[0].rules"), String(describing: $0))
        }
        try makeRelease(
            root + "/dup", identifier: "r", lists: [("a", "rules.json", "[1]"), ("a", "rules-2.json", "[2]")])
        XCTAssertThrowsError(
            try StoreInstaller.install(release: root + "/dup", store: root + "/store", prune: false, webKit: fake.store)
        ) {
            XCTAssertTrue(String(describing: $0).contains("lists[1].identifier"), String(describing: $0))
        }
        XCTAssertThrowsError(
            try StoreInstaller.install(
                release: root + "/none", store: root + "/store", prune: false, webKit: fake.store)
        ) {
            XCTAssertTrue(String(describing: $0).contains("not a radarblock release"), String(describing: $0))
        }
        XCTAssertEqual(fake.calls, [])
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: root + "/store"), "a refused release leaves the store alone")
    }

    func testADamagedRulesFileIsRefused() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/rel", withIntermediateDirectories: true)
        try Array("[1]".utf8).write(to: root + "/rel/rules.json")
        let manifest: JSONValue = [
            "identifier": "r", "mode": "faithful", "lists": [["identifier": "a", "rules": "rules.json"]],
            "outputs": ["rules.json": ["sha256": "00", "bytes": 3]],
        ]
        try JSONWriter.bytes(manifest).write(to: root + "/rel/manifest.json")
        XCTAssertThrowsError(
            try StoreInstaller.install(
                release: root + "/rel", store: root + "/store", prune: false, webKit: FakeCompiler().store)
        ) {
            XCTAssertTrue(String(describing: $0).contains("differs from the manifest"), String(describing: $0))
        }
    }

}

private extension Array where Element == UInt8 {
    func write(to path: String) throws { try Data(self).write(to: URL(fileURLWithPath: path)) }
}
