// The lines of a regular file as views into its mapping, for `match --requests`: nothing is copied and nothing
// is written. Read into buffers (LineReader), every line is written once by the reading core, and the other core
// then reads half of them from that core's cache, which makes the copy cost more CPU on two cores than on one
// (docs/compile-cost.md, "Measurements behind code choices"). Mapped, each core reads its lines from the page
// cache, and a line is a pointer and a length, with no buffer whose reference count each line holds.
//
// A line here is what LineReader gives for the same bytes: "\n" or "\r\n" ends it, an unterminated last line is a
// line as it stands, and a line longer than the limit is reported too long, without its bytes.

import Foundation
#if canImport(Glibc)
    import Glibc
#endif

public struct MappedLines {
    public let path: String
    private let base: UnsafePointer<UInt8>?
    private let size: Int
    private let maximumLineLength: Int
    private var position = 0
    private var number = 0
    /// Bytes before this offset have left this process's memory (`release`).
    private var released = 0

    /// A line: its bytes (valid until `close`), its number from 1, and whether it was over the limit.
    public struct Line {
        public var bytes: UnsafeBufferPointer<UInt8>
        public var number: Int
        public var tooLong: Bool
    }

    /// Maps `path` when it is a regular file; nil when it is anything else (stdin, a pipe, a device), which
    /// LineReader reads instead. The error names the file. A file that shrinks while it is read ends the process
    /// with `shrinkStatus` (`diff` says trouble with 2, where 1 means "different").
    public static func open(
        path: String, maximumLineLength: Int = LineReader.defaultMaximumLineLength, shrinkStatus: Int32 = 1
    ) throws -> MappedLines? {
        guard path != "-" else { return nil }
        let fd = Glibc.open(path, O_RDONLY)
        if fd < 0 { throw FileError.system(path, "cannot read") }
        defer { _ = Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError.system(path, "cannot read") }
        guard st.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(st.st_size)
        guard size > 0 else { return MappedLines(path: path, base: nil, size: 0, maximumLineLength: maximumLineLength) }
        let p = try FileMapping.map(fd: fd, size: size, path: path, shrinkStatus: shrinkStatus)
        _ = madvise(UnsafeMutableRawPointer(mutating: p), size, MADV_SEQUENTIAL)
        return MappedLines(
            path: path, base: p.assumingMemoryBound(to: UInt8.self), size: size, maximumLineLength: maximumLineLength)
    }

    private init(path: String, base: UnsafePointer<UInt8>?, size: Int, maximumLineLength: Int) {
        self.path = path
        self.base = base
        self.size = size
        self.maximumLineLength = maximumLineLength
    }

    public mutating func next() -> Line? {
        guard let base, position < size else { return nil }
        let start = position
        let end: Int
        if let nl = memchr(base + start, 0x0A, size - start) {
            end = UnsafeRawPointer(nl).assumingMemoryBound(to: UInt8.self) - base
            position = end + 1
        } else {
            end = size
            position = size
        }
        number += 1
        // CR before LF ends a line too; an unterminated last line keeps what it has (as LineReader).
        var stop = end
        if end < size, stop > start, base[stop - 1] == 0x0D { stop -= 1 }
        if stop - start > maximumLineLength {
            return Line(bytes: UnsafeBufferPointer(start: base + start, count: 0), number: number, tooLong: true)
        }
        return Line(
            bytes: UnsafeBufferPointer(start: base + start, count: stop - start), number: number, tooLong: false)
    }

    /// Where the next line starts (the file's size once every line is read).
    public var offset: Int { position }

    /// The lines before `offset` (an `offset` read earlier) are no longer needed: their pages leave this process's
    /// memory (the kernel keeps them in its page cache), so memory stays bounded however large the file.
    public mutating func release(before offset: Int) {
        guard let base else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let upTo = min(offset, position) / page * page
        guard upTo > released else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + released), upTo - released, MADV_DONTNEED)
        released = upTo
    }

    /// Unmaps the file; no line may be used after.
    public func close() {
        if let base { _ = munmap(UnsafeMutableRawPointer(mutating: base), size) }
    }
}
