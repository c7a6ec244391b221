// Test support: the shared DuckDuckGo data (read at run time, never copied), node, temp files.

import Foundation
import TestSupport
import XCTest
import StrictJSON
@testable import Surrogates
import TrackerData

enum Support {
    static let packageRoot = SharedFiles.packageRoot
    static let ddg = SharedFiles.ddg
    static let referenceDir = "reference-tests/tracker-radar-tests/TR-domain-matching"

    /// A shared DuckDuckGo file, or an XCTSkip naming what is missing.
    static func shared(_ relative: String) throws -> String { try SharedFiles.path(relative) }

    /// Debian's nodejs, or an XCTSkip.
    static func node() throws -> String {
        for p in ["/usr/bin/node", "/usr/bin/nodejs", "/usr/local/bin/node"]
        where FileManager.default.isExecutableFile(atPath: p) {
            return p
        }
        throw XCTSkip("node is not installed (apt-get install -y nodejs); the JavaScript checks need it")
    }

    static func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "rb-surrogates-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Runs a program; returns (status, stdout, stderr).
    @discardableResult
    static func run(_ program: String, _ args: [String]) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    static func referenceTDS() throws -> TrackerDataSet {
        try TrackerDataSet.load(path: shared(referenceDir + "/tracker_radar_reference.json")).0
    }

    static func referenceSurrogates() throws -> [SurrogateScript] {
        let path = try shared(referenceDir + "/surrogates.txt")
        return try SurrogatesFile.parse(
            String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self), source: path)
    }
}
