// Line-oriented reading and buffered writing on file descriptors, for the JSONL streams of `match
// --requests` and `diff --requests`: large read(2)/write(2) calls, bounded memory per line.

import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from a file descriptor in large chunks; a line longer than `maximumLineLength` is
/// reported as too long (and skipped) instead of being held in memory. "\r\n" ends a line like "\n".
public struct LineReader {
    public let fd: Int32
    public let path: String
    var buffer: [UInt8] = []
    var start = 0
    var eof = false
    var number = 0
    let chunk: Int
    let maximumLineLength: Int

    /// The longest line kept by default; a longer one is reported too long.
    public static let defaultMaximumLineLength = 64 << 20

    /// Opens `path` ("-" is stdin); the error names the file.
    public init(path: String) throws {
        try self.init(path: path, chunk: 1 << 20, maximumLineLength: Self.defaultMaximumLineLength)
    }

    init(path: String, chunk: Int, maximumLineLength: Int) throws {
        self.path = path
        self.chunk = chunk
        self.maximumLineLength = maximumLineLength
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY)
            if fd < 0 { throw FileError.system(path, "cannot read") }
        }
    }

    /// Closes the file (never stdin).
    public func close() { if fd > 0 { _ = Glibc.close(fd) } }

    public struct Line {
        public var bytes: ArraySlice<UInt8>
        public var number: Int
        public var tooLong: Bool
    }

    public mutating func next() throws -> Line? {
        var skipping = false
        while true {
            if let line = nextBufferedLine(tooLong: skipping) { return line }
            if eof { return lastLine(tooLong: skipping) }
            var rest = buffer.count - start
            if rest > maximumLineLength {
                skipping = true
                rest = 0
            }
            try refill(keeping: rest)
        }
    }

    /// The next complete line already in the buffer.
    private mutating func nextBufferedLine(tooLong: Bool) -> Line? {
        let found: Int? = buffer.withUnsafeBytes { raw in
            guard start < raw.count, let p = memchr(raw.baseAddress! + start, 0x0A, raw.count - start) else {
                return nil
            }
            return raw.baseAddress!.distance(to: UnsafeRawPointer(p))
        }
        guard let nl = found else { return nil }
        var end = nl
        if end > start, buffer[end - 1] == 0x0D { end -= 1 }
        let line = buffer[start..<end]
        start = nl + 1
        number += 1
        // A line that arrived whole in one read can still be over the limit.
        return Line(bytes: line, number: number, tooLong: tooLong || line.count > maximumLineLength)
    }

    /// At the end of the file: the unterminated last line, if any.
    private mutating func lastLine(tooLong: Bool) -> Line? {
        if start < buffer.count {
            let line = buffer[start...]
            start = buffer.count
            number += 1
            return Line(bytes: line, number: number, tooLong: tooLong || line.count > maximumLineLength)
        }
        if tooLong {
            number += 1
            return Line(bytes: [], number: number, tooLong: true)
        }
        return nil
    }

    /// Reads the next chunk into a new buffer that starts with the last `rest` bytes of this one (the start of
    /// a line). Lines already returned share the old buffer's storage and keep it alive: nothing else is copied,
    /// and no byte is written twice. The read grows with `rest` (so a long line is read in linear time) up to
    /// where the buffer would exceed `maximumLineLength` plus a chunk (`rest` is at most `maximumLineLength`).
    private mutating func refill(keeping rest: Int) throws {
        let size = Swift.max(chunk, Swift.min(rest, maximumLineLength + chunk - rest))
        var n = 0
        let refilled = try [UInt8](unsafeUninitializedCapacity: rest + size) { dst, count in
            buffer.withUnsafeBufferPointer { src in
                if rest > 0 { dst.baseAddress!.update(from: src.baseAddress! + (src.count - rest), count: rest) }
            }
            count = rest
            while true {
                n = read(fd, dst.baseAddress! + rest, size)
                if n >= 0 { break }
                if errno != EINTR { throw FileError.system(path, "cannot read") }
            }
            count = rest + n
        }
        buffer = refilled
        start = 0
        if n == 0 { eof = true }
    }
}

/// Collects output and writes it with write(2); a closed pipe ends the run quietly.
public struct BufferedOutput {
    public let fd: Int32
    public var buffer: [UInt8] = []

    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 17)
    }

    /// False when the reader went away.
    public mutating func flush() -> Bool {
        var offset = 0
        let ok = buffer.withUnsafeBytes { raw -> Bool in
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
        buffer.removeAll(keepingCapacity: true)
        return ok
    }
}
