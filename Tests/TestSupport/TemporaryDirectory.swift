// A fresh directory under the system's temporary directory, for tests that write files.

import Foundation

public func makeTemporaryDirectory(_ name: String = "radarblock-test") throws -> String {
    let dir = NSTemporaryDirectory() + name + "-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}
