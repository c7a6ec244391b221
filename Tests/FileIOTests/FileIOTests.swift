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

    /// `diff` streams its report through an Output: the old file stays whole until the commit, and an
    /// output dropped without one leaves the old file and no temporary behind.
    func testOutputInPiecesReplacesOnlyAtTheCommit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("report.json").path
        try FileIO.write("old", to: path)
        do {
            let output = try FileIO.Output(path: path)
            try output.write(Array("half".utf8))
            XCTAssertEqual(try FileIO.readString(path), "old", "nothing is replaced before the commit")
        }
        XCTAssertEqual(try FileIO.readString(path), "old", "an output without a commit replaces nothing")
        let output = try FileIO.Output(path: path)
        for piece in ["a", "b", "c"] { try output.write(Array(piece.utf8)) }
        try output.commit()
        XCTAssertEqual(try FileIO.readString(path), "abc")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["report.json"])
    }

    /// `diff` writes its report behind: every piece arrives in order, large ones included (each few MiB are
    /// handed to the disk's writeback on the way), and a commit after `finish` replaces the file whole.
    func testWriteBehindWritesEveryPieceInOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("behind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("report.json").path
        let output = try FileIO.Output(path: path)
        var expected: [UInt8] = []
        try FileIO.writingBehind(output) { writer in
            for i in 0..<200 {
                let piece = [UInt8](repeating: UInt8(i % 251), count: i == 100 ? 9 << 20 : i * 37)
                expected += piece
                try writer.write(piece)
            }
        }
        try output.commit()
        XCTAssertEqual(try FileIO.read(path), expected)
    }

    /// A piece that cannot be written (a full disk) fails the run: the next write or the end throws, naming the file.
    func testWriteBehindReportsAFailedWrite() throws {
        let output = try FileIO.Output(path: "/dev/full")
        var message = "nothing thrown"
        do {
            try FileIO.writingBehind(output) { writer in
                for _ in 0..<100 { try writer.write([UInt8](repeating: 0x61, count: 1 << 16)) }
            }
        } catch {
            message = String(describing: error)
        }
        XCTAssertTrue(message.contains("/dev/full") && message.contains("write failed"), message)
    }

    /// When the maker of the pieces fails, its error comes out, the pieces still waiting are dropped, and the
    /// writer's thread has ended by then (it would otherwise wait for more pieces for ever).
    func testWriteBehindEndsItsThreadWhenTheBodyThrows() throws {
        struct Stop: Error {}
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("behind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = try FileIO.Output(path: dir.appendingPathComponent("report.json").path)
        var used: FileIO.WriteBehind? = nil
        XCTAssertThrowsError(
            try FileIO.writingBehind(output) { writer in
                used = writer
                for _ in 0..<50 { try writer.write([UInt8](repeating: 0x61, count: 1 << 16)) }
                XCTAssertFalse(writer.ended)
                throw Stop()
            }
        ) { XCTAssertTrue($0 is Stop, "\($0)") }
        XCTAssertEqual(used?.ended, true)
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

    // Issue 16: FIFOs and process substitutions used to fail with "Inappropriate ioctl".
    func testAFIFOIsReadToItsEnd() throws {
        let dir = NSTemporaryDirectory() + "fileio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let payload = [UInt8]((0..<300_000).map { UInt8($0 % 251) })
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            payload.withUnsafeBytes { buf in
                var offset = 0
                while offset < buf.count {
                    let n = Glibc.write(fd, buf.baseAddress! + offset, min(4096, buf.count - offset))
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(fd)
        }
        writer.start()
        XCTAssertEqual(try FileIO.read(fifo), payload)
    }

    /// A regular file is read into an array of its size at once; every size round the first array's end
    /// reads back whole, and a file whose size stat does not know (/proc) is read to its end too.
    func testRegularFilesOfEverySizeReadBackWhole() throws {
        let dir = NSTemporaryDirectory() + "fileio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for size in [0, 1, 2, 65_535, 65_536, 65_537, 3_000_001] {
            let bytes = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
            let path = dir + "/f\(size)"
            try FileIO.write(bytes, to: path)
            XCTAssertEqual(try FileIO.read(path), bytes, "size \(size)")
        }
        var info = stat()
        XCTAssertEqual(stat("/proc/self/status", &info), 0)
        XCTAssertEqual(info.st_size, 0, "procfs reports no size")
        let status = try FileIO.read("/proc/self/status")
        XCTAssertTrue(
            String(decoding: status, as: UTF8.self).contains("VmRSS:"), "read to its end although stat said 0 bytes")
        XCTAssertGreaterThan(status.count, 500)
    }

    /// `withContents` maps a regular file and reads anything else: every size and kind gives the file's bytes, and
    /// its errors are `read`'s.
    func testContentsAreTheFilesBytesWhateverItsKind() throws {
        let dir = NSTemporaryDirectory() + "fileio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for size in [0, 1, 4095, 4096, 4097, 3_000_001] {
            let bytes = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
            let path = dir + "/f\(size)"
            try FileIO.write(bytes, to: path)
            XCTAssertEqual(try FileIO.withContents(path) { Array($0) }, bytes, "size \(size)")
        }
        // procfs says 0 bytes: read to its end, as `read` does.
        let status = try FileIO.withContents("/proc/self/status") { String(decoding: $0, as: UTF8.self) }
        XCTAssertTrue(status.contains("VmRSS:"))
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let payload = [UInt8]((0..<100_000).map { UInt8($0 % 251) })
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            _ = payload.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
            close(fd)
        }
        writer.start()
        XCTAssertEqual(try FileIO.withContents(fifo) { Array($0) }, payload)
        XCTAssertThrowsError(try FileIO.withContents("/no/such/file.rbc") { _ in }) { error in
            XCTAssertEqual(String(describing: error), "/no/such/file.rbc: no such file")
        }
        XCTAssertThrowsError(try FileIO.withContents(dir) { _ in }) { error in
            XCTAssertTrue(String(describing: error).contains("is a directory"), "\(error)")
        }
    }

    // Issue 16: a 200 MB value used to be echoed whole into stderr and issues.txt.
    func testLongMessagesKeepTheirHeadAndTailOnly() {
        let value = String(repeating: "é", count: 3_000_000)
        let message = "tds.json: $.trackers[\"x\"].rules[0].rule: \"" + value + "\" is not a valid regex; rule dropped"
        let bounded = MessageText.bounded(message)
        XCTAssertLessThanOrEqual(bounded.utf8.count, MessageText.defaultLimit + 64)
        XCTAssertTrue(
            bounded.hasPrefix("tds.json: $.trackers[\"x\"].rules[0].rule: \"éé"), "the head names the place")
        XCTAssertTrue(bounded.hasSuffix("\" is not a valid regex; rule dropped"), "the tail says what is wrong")
        XCTAssertTrue(bounded.contains("bytes omitted]"))
        XCTAssertEqual(MessageText.bounded("short"), "short")
    }
}
