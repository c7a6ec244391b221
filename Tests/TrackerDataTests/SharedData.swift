// Locating the shared DuckDuckGo data (CC BY-NC-SA; never copied into the repository) and the
// project's own sample data.

import Foundation
import XCTest

enum TestData {
    /// The package root, from this file's location (Tests/TrackerDataTests/SharedData.swift).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let ddg = packageRoot + "/../shared/data/ddg"
    static let sample = packageRoot + "/data"

    /// The path of a shared DuckDuckGo file, or an XCTSkip naming what is missing.
    static func shared(_ relative: String) throws -> String {
        let path = ddg + "/" + relative
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("shared DuckDuckGo data not available: \(path) is absent (expected ../shared next to the package)")
        }
        return path
    }

    static func sampleFile(_ relative: String) -> String { sample + "/" + relative }
}
