// `install` of a release built for several targets: one target's lists (asked, or the installed WebKitGTK's), the
// target recorded in the store's state, and a clear refusal when none fits.

import Foundation
@testable import Install
import StrictJSON
import TestSupport
import WebKitBridge
import XCTest

final class InstallTargetTests: XCTestCase {
    /// Two targets' main lists and a click-to-load list that has no target.
    func makeTwoTargetRelease(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let lists: [(id: String, file: String, target: String?, role: String)] = [
            ("tds_v3_0.1.0_0000000000000001", "rules.json", "safari-17", "main"),
            ("tds.webkitgtk-2.50_v3_0.1.0_0000000000000002", "rules.webkitgtk-2.50.json", "webkitgtk-2.50", "main"),
            ("tds-ctl-block-ctl-fb_v3_0.1.0_0000000000000003", "ctl-block-ctl-fb.json", nil, "click-to-load"),
        ]
        var entries: [JSONValue] = []
        for l in lists {
            try Data("[]".utf8).write(to: URL(fileURLWithPath: dir + "/" + l.file))
            var o = JSONObject([("identifier", .string(l.id)), ("rules", .string(l.file)), ("role", .string(l.role))])
            if let t = l.target { o["target"] = .string(t) }
            entries.append(.object(o))
        }
        let manifest: JSONValue = [
            "identifier": "tds_v3_0.1.0_00000000000000ff", "mode": "faithful", "lists": .array(entries),
            "targets": ["safari-17", "webkitgtk-2.50"],
        ]
        try Data(JSONWriter.bytes(manifest)).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
    }

    func store(version: String) -> WebKitStore {
        WebKitStore(
            compile: { json, id, store in
                try Data(json).write(to: URL(fileURLWithPath: store + "/" + WebKitFileName.encode(id)))
                return (json.count, 0.1)
            }, version: { version })
    }

    func install(_ root: String, target: String?, version: String = "2.50.6") throws -> StoreInstallReport {
        try StoreInstaller.install(
            release: root + "/rel", store: root + "/store-\(target ?? "default")", prune: false, target: target,
            webKit: store(version: version))
    }

    func testTheTargetAskedForOrTheInstalledWebKitGTKsIsInstalledAndRecorded() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try makeTwoTargetRelease(root + "/rel")

        let safari = try install(root, target: "safari-17")
        XCTAssertEqual(safari.release?.target, "safari-17")
        XCTAssertEqual(
            safari.compiled.map(\.identifier),
            ["tds_v3_0.1.0_0000000000000001", "tds-ctl-block-ctl-fb_v3_0.1.0_0000000000000003"])

        let byDefault = try install(root, target: nil)
        XCTAssertEqual(byDefault.release?.target, "webkitgtk-2.50")
        XCTAssertEqual(
            byDefault.compiled.map(\.rules), ["rules.webkitgtk-2.50.json", "ctl-block-ctl-fb.json"])
        let state = try StoreState.load(store: root + "/store-default")
        XCTAssertEqual(state.releases.map(\.target), ["webkitgtk-2.50"])
        XCTAssertEqual(try StoreState.parse(state.bytes(), path: "s"), state)
    }

    func testATargetTheReleaseLacksIsRefusedNamingItsTargets() throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try makeTwoTargetRelease(root + "/rel")
        XCTAssertThrowsError(try install(root, target: "safari-18")) { error in
            XCTAssertTrue("\(error)".contains("--target safari-18"), "\(error)")
            XCTAssertTrue("\(error)".contains("safari-17, webkitgtk-2.50"), "\(error)")
        }
        XCTAssertThrowsError(try install(root, target: nil, version: "2.48.3")) { error in
            XCTAssertTrue("\(error)".contains("none for this WebKitGTK 2.48.3 (webkitgtk-2.48)"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/store-default/radarblock-install.json"))
    }
}
