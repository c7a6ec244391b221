// Locating the shared DuckDuckGo data (CC BY-NC-SA; never copied into the repository) and the
// project's own sample data.

import Foundation
import TestSupport
import XCTest

enum TestData {
    static let packageRoot = SharedFiles.packageRoot
    static let ddg = SharedFiles.ddg
    static let sample = packageRoot + "/data"

    /// The path of a shared DuckDuckGo file, or an XCTSkip naming what is missing.
    static func shared(_ relative: String) throws -> String { try SharedFiles.path(relative) }

    static func sampleFile(_ relative: String) -> String { sample + "/" + relative }
}
