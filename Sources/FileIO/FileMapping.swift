// A regular file's bytes mapped read-only: a compiled rule list is tens of megabytes, and reading it into memory
// first cost a copy and a fresh page per page, where the mapping reads the page cache.

import CSystem
#if canImport(Glibc)
    import Glibc
#endif

enum FileMapping {
    /// `size` bytes of the open regular file `fd` mapped read-only (size > 0). Another process that truncates the
    /// file makes the pages past its new end unreadable: the read is then a bus error, reported as an error about
    /// this file rather than a crash, with the exit status `shrinkStatus`.
    static func map(fd: Int32, size: Int, path: String, shrinkStatus: Int32) throws -> UnsafeRawPointer {
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw FileError.system(path, "cannot read")
        }
        rb_exit_on_sigbus("radarblock: error: \(path): the file shrank while it was being read", shrinkStatus)
        return UnsafeRawPointer(p)
    }
}

extension FileIO {
    /// `body` of the whole file's bytes, valid only during the call: a regular file is mapped, anything else
    /// (stdin as "-", a pipe, a process substitution) read as `read` reads it. Errors as `read`'s.
    public static func withContents<T>(_ path: String, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        // A stat before the open: opening a FIFO would wait for a writer, and a FIFO is read, not mapped. The fstat
        // after it checks the file that was opened, which may no longer be the one the stat saw.
        var info = stat()
        guard path != "-", stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else {
            return try read(path).withUnsafeBytes(body)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.system(path, "cannot read") }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_size > 0 else {
            return try read(path).withUnsafeBytes(body)
        }
        let size = Int(opened.st_size)
        let base = try FileMapping.map(fd: fd, size: size, path: path, shrinkStatus: 1)
        defer { munmap(UnsafeMutableRawPointer(mutating: base), size) }
        return try body(UnsafeRawBufferPointer(start: base, count: size))
    }
}
