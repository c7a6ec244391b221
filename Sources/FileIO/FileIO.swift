// File input and output at the edges of the pipeline: errors that name the file, "-" for
// stdin/stdout, and atomic replacement (write a temporary sibling, fsync, rename) so that a failed
// or interrupted run never leaves a half-written file where a good one was.

import CSystem
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

public struct FileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }

    /// What a failed system call on `path` left in `errno`, after what was being done: "cannot read: Is a
    /// directory". One spelling for every such error of this module.
    static func system(_ path: String, _ doing: String) -> FileError {
        FileError(path: path, reason: "\(doing): \(String(cString: strerror(errno)))")
    }
}

public enum FileIO {
    /// Reads a whole file ("-" reads stdin). FIFOs and process substitutions (`<(...)`, /dev/fd/N) are read
    /// to their end like regular files: only plain read(2) calls, no size queries or mapping.
    public static func read(_ path: String) throws -> [UInt8] {
        if path == "-" { return try readToEnd(fd: 0, path: "stdin") }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw FileError(path: path, reason: "no such file") }
            throw FileError.system(path, "cannot read")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw FileError(path: path, reason: "is a directory, expected a file") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.system(path, "cannot read") }
        defer { close(fd) }
        return try readToEnd(fd: fd, path: path, sizeHint: Int(info.st_size))
    }

    /// Reads straight into the array when the size is known (a regular file), with no copy through a chunk; a
    /// file that grew, or a pipe, is read on in chunks.
    private static func readToEnd(fd: Int32, path: String, sizeHint: Int = 0) throws -> [UInt8] {
        var atEnd = false
        // One byte more than the hint, so that a file of the size given is known to end without a second array.
        var bytes = try [UInt8](unsafeUninitializedCapacity: max(sizeHint, 0) + 1) { buffer, count in
            while count < buffer.count {
                let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                if n == 0 { atEnd = true; return }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileError.system(path, "cannot read")
                }
                count += n
            }
        }
        if atEnd { return bytes }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.system(path, "cannot read")
            }
            // Larger chunks once the input is known to be big, so reading stays linear with few system calls.
            bytes.append(contentsOf: chunk[0..<n])
            if n == chunk.count && chunk.count < (1 << 22) { chunk = [UInt8](repeating: 0, count: chunk.count * 4) }
        }
    }

    public static func readString(_ path: String) throws -> String {
        let bytes = try read(path)
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw FileError(path: path, reason: "not valid UTF-8 text")
        }
        return s
    }

    /// Writes `bytes` to `path` atomically; "-" writes to stdout.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let output = try Output(path: path)
        try output.write(bytes)
        try output.commit()
    }

    /// Output written in pieces as `write(_:to:)` writes it whole: "-" is stdout; devices, pipes and the like
    /// (/dev/null, /dev/stdout, a FIFO) are written in place, since replacing them with a regular file by
    /// rename would break them for every other program; a file is replaced atomically by `commit()` (without
    /// it, nothing is replaced). A report of millions of lines never has to be held whole.
    public final class Output {
        private let path: String
        private var fd: Int32 = -1
        private var file: StreamWriter? = nil

        public init(path: String) throws {
            self.path = path
            if path == "-" {
                fd = 1
                return
            }
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    throw FileError(path: path, reason: "is a directory, expected a file")
                }
                fd = open(path, O_WRONLY)
                guard fd >= 0 else {
                    throw FileError.system(path, "cannot open")
                }
                return
            }
            let url = URL(fileURLWithPath: path)
            let dir = url.deletingLastPathComponent().path
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw FileError(path: path, reason: "directory \(dir) does not exist")
            }
            file = try StreamWriter(path: path)
        }

        public func write(_ bytes: [UInt8]) throws {
            if let file {
                try file.write(bytes)
            } else {
                try writeAll(bytes, to: fd, path: path == "-" ? "standard output" : path)
            }
        }

        public func commit() throws {
            try file?.commit()
            if fd > 1 { close(fd) }
            fd = -1
        }

        deinit { if fd > 1 { close(fd) } }
    }

    /// Runs `body` with a `WriteBehind` on `output` and returns once its thread has ended, whatever `body`
    /// does: every piece written, or, when `body` throws, its error rethrown with the pieces still waiting
    /// dropped (the output is then not committed). The first write error is thrown.
    public static func writingBehind(_ output: Output, depth: Int = 2, _ body: (WriteBehind) throws -> Void) throws {
        let writer = WriteBehind(output, depth: depth)
        do { try body(writer) } catch {
            writer.abandon()
            throw error
        }
        try writer.finish()
    }

    /// Writes to an `Output` on a thread of its own, so that the caller makes the next piece while the last
    /// one is copied into the file: write(2) of a diff report's 15 MB held a core for a seventh of the time it
    /// took to write the report. At most `depth` pieces wait. The first error is thrown by the next `write` or by
    /// `finish`, and nothing after it is written. Made by `writingBehind`, which always ends its thread.
    public final class WriteBehind: @unchecked Sendable {
        private let output: Output
        private let depth: Int
        private let condition = NSCondition()
        private var queue: [[UInt8]] = []
        private var closed = false
        private var failure: Error? = nil
        private let stopped = DispatchSemaphore(value: 0)

        init(_ output: Output, depth: Int = 2) {
            self.output = output
            self.depth = max(1, depth)
            let thread = Thread { [self] in run() }
            thread.start()
        }

        private func run() {
            while true {
                condition.lock()
                while queue.isEmpty && !closed { condition.wait() }
                if queue.isEmpty {
                    condition.unlock()
                    break
                }
                let piece = queue.removeFirst()
                let failed = failure != nil
                condition.broadcast()
                condition.unlock()
                if failed { continue }
                do { try output.write(piece) } catch {
                    condition.lock()
                    failure = error
                    condition.unlock()
                }
            }
            condition.lock()
            ended = true
            condition.unlock()
            stopped.signal()
        }

        /// The thread has ended (tests).
        private(set) var ended = false

        public func write(_ bytes: [UInt8]) throws {
            condition.lock()
            defer { condition.unlock() }
            while queue.count >= depth && failure == nil { condition.wait() }
            if let failure { throw failure }
            queue.append(bytes)
            condition.broadcast()
        }

        /// Waits until every piece is written.
        public func finish() throws {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
            stopped.wait()
            if let failure { throw failure }
        }

        /// Drops the pieces still waiting and waits for the thread to end.
        func abandon() {
            condition.lock()
            closed = true
            if failure == nil { failure = Abandoned() }
            condition.broadcast()
            condition.unlock()
            stopped.wait()
        }

        private struct Abandoned: Error {}
    }

    public static func write(_ string: String, to path: String) throws { try write(Array(string.utf8), to: path) }

    /// Every byte to `fd`, resuming after short writes and EINTR; `path` names the file in the error.
    static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        try bytes.withUnsafeBytes { buf in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileError.system(path, "write failed")
                }
                offset += n
            }
        }
    }
}

extension FileIO {
    /// A file written in pieces, with the atomicity of `write(_:to:)`: the pieces go into a temporary
    /// sibling, which `commit()` syncs and renames over `path`; without a commit it is removed.
    public final class StreamWriter {
        let path: String
        let temp: String
        private var fd: Int32
        private var committed = false

        public init(path: String) throws {
            self.path = path
            let url = URL(fileURLWithPath: path)
            temp =
                url.deletingLastPathComponent().path + "/." + url.lastPathComponent
                + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard fd >= 0 else {
                throw FileError.system(path, "cannot create \(temp)")
            }
        }

        /// Bytes written, and how many of them were handed to the disk's writeback.
        private var written: Int64 = 0, handedOver: Int64 = 0

        /// Each few MiB written start on their way to the disk at once, so that `commit`'s fsync waits only for
        /// the last of them, not for the whole file (docs/compile-cost.md, "Measurements behind code choices").
        public func write(_ bytes: [UInt8]) throws {
            try FileIO.writeAll(bytes, to: fd, path: path)
            written += Int64(bytes.count)
            if written - handedOver >= 4 << 20 {
                _ = rb_start_writeback(fd, handedOver, written - handedOver)
                handedOver = written
            }
        }

        public func commit() throws {
            guard fsync(fd) == 0 else {
                throw FileError.system(path, "write failed")
            }
            close(fd)
            fd = -1
            guard rename(temp, path) == 0 else {
                throw FileError.system(path, "cannot replace")
            }
            committed = true
        }

        deinit {
            if fd >= 0 { close(fd) }
            if !committed { unlink(temp) }
        }
    }
}

extension FileIO {
    /// Bytes set aside during a run and read back later: a temporary file in NSTemporaryDirectory() ($TMPDIR,
    /// else /tmp), unlinked as soon as it is created, so it is gone when the process ends however it ends, and
    /// no other program sees it. Appends go to the end; `read` gets any range written so far.
    public final class ScratchFile: @unchecked Sendable {
        private let fd: Int32
        /// Where the file was created (it has no name any more), for error messages.
        let directory: String
        public private(set) var size = 0

        public init() throws {
            let temporary = NSTemporaryDirectory()
            directory = temporary.hasSuffix("/") ? String(temporary.dropLast()) : temporary
            var template = Array((directory + "/radarblock-scratch-XXXXXX").utf8CString)
            fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else {
                throw FileError.system(directory, "cannot create a temporary file")
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }

        deinit { close(fd) }

        public func append(_ bytes: [UInt8]) throws {
            try FileIO.writeAll(bytes, to: fd, path: "temporary file in \(directory)")
            size += bytes.count
        }

        /// The bytes of `range`, which must lie within what was appended.
        public func read(_ range: Range<Int>) throws -> [UInt8] {
            precondition(range.lowerBound >= 0 && range.upperBound <= size, "read within what was written")
            var bytes = [UInt8](repeating: 0, count: range.count)
            var done = 0
            while done < range.count {
                let n = bytes.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw FileError(
                        path: "temporary file in \(directory)",
                        reason:
                            "cannot read back: "
                            + (n == 0 ? "it is shorter than written" : String(cString: strerror(errno)))
                    )
                }
                done += n
            }
            return bytes
        }
    }
}
