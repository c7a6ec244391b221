import XCTest
@testable import FileIO

final class FileIOTests: XCTestCase {
    func testAtomicWriteReplacesAndLeavesNoTemporaryFiles() throws {
        let dir = NSTemporaryDirectory() + "fileio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.json"
        try FileIO.write("old", to: path)
        try FileIO.write("new", to: path)
        XCTAssertEqual(try FileIO.readString(path), "new")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["out.json"])
    }

    func testWriteIntoMissingDirectoryFailsWithoutSideEffects() {
        XCTAssertThrowsError(try FileIO.write("x", to: "/nonexistent-\(UUID().uuidString)/a")) { error in
            XCTAssertTrue(String(describing: error).contains("does not exist"))
        }
    }

    func testReadErrorsNameTheFile() {
        XCTAssertThrowsError(try FileIO.read("/no/such/file.json")) { error in
            XCTAssertEqual(String(describing: error), "/no/such/file.json: no such file")
        }
        XCTAssertThrowsError(try FileIO.read("/tmp")) { error in
            XCTAssertTrue(String(describing: error).contains("is a directory"))
        }
    }

    func testDevicesAreWrittenInPlaceNotReplaced() throws {
        try FileIO.write("discarded", to: "/dev/null")
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null must still be a character device")
    }
}
