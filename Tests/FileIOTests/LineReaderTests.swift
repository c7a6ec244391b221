import TestSupport
import XCTest
@testable import FileIO

final class LineReaderTests: XCTestCase {
    /// Small chunks and limits: lines cross chunk boundaries, and debug builds stay fast.
    private func lines(of bytes: [UInt8], chunk: Int = 4, maximum: Int = 64) throws -> [(String, Int, Bool)] {
        let path = NSTemporaryDirectory() + "linereader-\(UUID().uuidString).jsonl"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try LineReader(path: path, chunk: chunk, maximumLineLength: maximum)
        defer { reader.close() }
        var out: [(String, Int, Bool)] = []
        while let line = try reader.next() {
            out.append((String(decoding: line.bytes, as: UTF8.self), line.number, line.tooLong))
        }
        return out
    }

    func testLFCRLFAndAnUnterminatedLastLine() throws {
        let got = try lines(of: Array("a\r\n\nb\nlast".utf8))
        XCTAssertEqual(got.map(\.0), ["a", "", "b", "last"])
        XCTAssertEqual(got.map(\.1), [1, 2, 3, 4])
        XCTAssertFalse(got.contains { $0.2 })
        XCTAssertTrue(try lines(of: []).isEmpty)
    }

    func testLinesLongerThanTheReadChunkArriveWhole() throws {
        let long = String(repeating: "x", count: 50)
        XCTAssertEqual(try lines(of: Array("\(long)\nshort\n".utf8)).map(\.0), [long, "short"])
        XCTAssertEqual(try lines(of: Array("\(long)\r\nshort".utf8), chunk: 3).map(\.0), [long, "short"])
    }

    func testALineOverTheLimitIsReportedTooLongAndSkipped() throws {
        let huge = String(repeating: "y", count: 200)
        let got = try lines(of: Array("first\n\(huge)\nafter\n\(huge)".utf8))
        XCTAssertEqual(got.map(\.1), [1, 2, 3, 4])
        XCTAssertEqual(got.map(\.2), [false, true, false, true])
        XCTAssertEqual(got[0].0, "first")
        XCTAssertEqual(got[2].0, "after")
    }

    /// Lines are slices of the buffer they were read into; later reads go to new buffers, so every line kept
    /// (as `match` keeps a chunk of them) still holds its bytes at the end. Lines are terminated, so an empty
    /// last line is a line (an unterminated file's final newline ends its last line instead).
    func testLinesKeptAcrossReadsKeepTheirBytes() throws {
        var rng = SplitMix64(seed: 0x11E5)
        var expected = (0..<500).map { i in
            String(repeating: Character(Unicode.Scalar(UInt8(97 + i % 26))), count: Int.random(in: 0...40, using: &rng))
        }
        expected[0] = ""
        expected[499] = ""
        let path = NSTemporaryDirectory() + "linereader-\(UUID().uuidString).jsonl"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path, contents: Data(expected.map { $0 + "\n" }.joined().utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for chunk in [1, 5, 64, 1 << 16] {
            var reader = try LineReader(path: path, chunk: chunk, maximumLineLength: 1000)
            defer { reader.close() }
            var kept: [LineReader.Line] = []
            while let line = try reader.next() { kept.append(line) }
            XCTAssertEqual(kept.map { String(decoding: $0.bytes, as: UTF8.self) }, expected, "chunk \(chunk)")
            XCTAssertEqual(kept.map(\.number), Array(1...500))
        }
    }

    /// However long a line, the buffer stays within the longest line allowed plus a chunk.
    func testTheBufferIsBoundedByTheLineLimit() throws {
        let path = NSTemporaryDirectory() + "linereader-\(UUID().uuidString).jsonl"
        let text = "a\n" + String(repeating: "z", count: 5000) + "\n" + String(repeating: "y", count: 90) + "\nend"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try LineReader(path: path, chunk: 7, maximumLineLength: 100)
        defer { reader.close() }
        var got: [(Int, Bool)] = [], largest = 0
        while let line = try reader.next() {
            got.append((line.bytes.count, line.tooLong))
            largest = max(largest, reader.buffer.count)
        }
        XCTAssertEqual(got.map(\.1), [false, true, false, false])
        XCTAssertEqual(got[2].0, 90)
        XCTAssertLessThanOrEqual(largest, 100 + 7)
    }

    func testAMissingFileIsAnErrorNamingIt() {
        XCTAssertThrowsError(try LineReader(path: "/nonexistent/requests.jsonl")) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("/nonexistent/requests.jsonl: "), "\(error)")
        }
    }

    func testBufferedOutputWritesEverythingAndEmptiesItsBuffer() throws {
        let path = NSTemporaryDirectory() + "bufferedoutput-\(UUID().uuidString)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var output = BufferedOutput(fd: fd)
        output.buffer = Array(repeating: 0x41, count: 300_000)
        XCTAssertTrue(output.flush())
        XCTAssertTrue(output.buffer.isEmpty)
        close(fd)
        XCTAssertEqual(try FileIO.read(path).count, 300_000)
    }
}

/// A regular file's mapped lines are LineReader's lines of the same bytes.
final class MappedLinesTests: XCTestCase {
    private func file(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "mappedlines-\(UUID().uuidString).jsonl"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    private func mapped(_ path: String, maximum: Int) throws -> [(String, Int, Bool)] {
        var lines = try XCTUnwrap(try MappedLines.open(path: path, maximumLineLength: maximum))
        defer { lines.close() }
        var out: [(String, Int, Bool)] = []
        // The lines not released yet, with where each starts and its text when read.
        var kept: [(line: MappedLines.Line, start: Int, text: String)] = []
        while true {
            let start = lines.offset
            guard let line = lines.next() else { break }
            let text = String(decoding: line.bytes, as: UTF8.self)
            out.append((text, line.number, line.tooLong))
            kept.append((line, start, text))
            if line.number % 3 == 0 {
                // The pages before the line two back go (as `match` releases a chunk once the next is answered):
                // that line and the ones after it read the same, and releasing never changes a later line.
                kept = Array(kept.suffix(2))
                lines.release(before: kept[0].start)
                for k in kept { XCTAssertEqual(String(decoding: k.line.bytes, as: UTF8.self), k.text) }
            }
        }
        return out
    }

    private func read(_ path: String, maximum: Int) throws -> [(String, Int, Bool)] {
        var reader = try LineReader(path: path, chunk: 5, maximumLineLength: maximum)
        defer { reader.close() }
        var out: [(String, Int, Bool)] = []
        while let line = try reader.next() {
            out.append((line.tooLong ? "" : String(decoding: line.bytes, as: UTF8.self), line.number, line.tooLong))
        }
        return out
    }

    /// Random lines of "\n"- and "\r\n"-ended text, empty lines, stray CRs, an unterminated last line or not, and
    /// lines over the limit by any amount.
    func testMappedLinesAreLineReadersLines() throws {
        var rng = SplitMix64(seed: 0x3A99)
        let pieces = ["a", "bc", "\r", "\r\n", "\n", "\n", "{\"url\":\"x\"}", String(repeating: "z", count: 40)]
        for _ in 0..<300 {
            var text = ""
            for _ in 0..<Int.random(in: 0...30, using: &rng) { text += pieces.randomElement(using: &rng)! }
            let path = file(Array(text.utf8))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let a = try mapped(path, maximum: 20), b = try read(path, maximum: 20)
            XCTAssertEqual(a.map(\.0), b.map(\.0), text.debugDescription)
            XCTAssertEqual(a.map(\.1), b.map(\.1), text.debugDescription)
            XCTAssertEqual(a.map(\.2), b.map(\.2), text.debugDescription)
        }
    }

    func testAnEmptyFileHasNoLinesAndAPipeIsNotMapped() throws {
        let path = file([])
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(try mapped(path, maximum: 10).isEmpty)
        XCTAssertNil(try MappedLines.open(path: "-"))
        XCTAssertNil(try MappedLines.open(path: "/dev/null"), "a device is read, not mapped")
        XCTAssertThrowsError(try MappedLines.open(path: "/nonexistent/requests.jsonl")) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("/nonexistent/requests.jsonl: "), "\(error)")
        }
    }
}
