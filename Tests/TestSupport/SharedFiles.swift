// Where the test targets find DuckDuckGo's shared data: ../shared next to the package (CC BY-NC-SA, read at
// run time and never copied into the repository). A test that needs a file that is absent skips, naming it.

import Foundation
import XCTest

public enum SharedFiles {
    /// The package root, from this file's location (Tests/TestSupport/SharedFiles.swift).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static let ddg = packageRoot + "/../shared/data/ddg"

    /// The path of a shared DuckDuckGo file (relative to data/ddg), or an XCTSkip naming what is missing.
    public static func path(_ relative: String) throws -> String {
        let path = ddg + "/" + relative
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("shared DuckDuckGo data not available: \(path) is absent (expected ../shared next to the package)")
        }
        return path
    }
}
