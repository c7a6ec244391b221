// Where the test targets find DuckDuckGo's shared data: ../shared next to the package (CC BY-NC-SA, read at
// run time and never copied into the repository). A test that needs a file that is absent skips, naming it;
// a file that is there but cannot be read fails the test (a damaged fixture is a failure, not a skip).

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
            throw XCTSkip(
                "shared DuckDuckGo data not available: \(path) is absent (expected ../shared next to the package)")
        }
        return path
    }

    /// The contents of a shared gzip file (through the system gzip; Foundation on Linux has no inflate).
    public static func gunzip(_ relative: String) throws -> [UInt8] {
        let path = try path(relative)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-dc", path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw MalformedFixture("\(path): gzip exited \(p.terminationStatus)") }
        return Array(data)
    }
}

/// A fixture that is present but does not read or parse as the test expects: thrown, it fails the test.
public struct MalformedFixture: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
