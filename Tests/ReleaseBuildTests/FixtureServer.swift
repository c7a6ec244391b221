import Foundation
import TestSupport
import XCTest
@testable import ReleaseBuild

/// Runs scripts/testing/http_fixture_server.py on 127.0.0.1 for the duration of a test.
final class FixtureServer {
    let process = Process()
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    static var packageRoot: String { SharedFiles.packageRoot }

    init(serving directory: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", FixtureServer.packageRoot + "/scripts/testing/http_fixture_server.py", directory,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        guard let p = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw XCTSkip("could not start the loopback fixture server (python3 missing?)")
        }
        port = p
    }

    func stats() throws -> [String: Any] {
        // Through radarblock's own fetcher: Foundation's networking is not linked into the tests.
        let data = Data(try InputFetcher.fetch(base + "/__stats", options: FetchOptions(timeout: 5, retries: 0)).bytes)
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
