// A release directory is replaced as a whole or not at all. Files are written into a temporary sibling
// directory, synced, and then swapped with the old directory in one atomic renameat2(RENAME_EXCHANGE);
// a build that fails or is killed at any point before the swap leaves the previous release exactly as it
// was, and one killed after it leaves the new release complete. Leftover temporary siblings from a
// killed run are removed by the next run.

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import FileIO
import CSystem

public struct ReleaseDirectoryError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

public enum ReleaseDirectory {
    static let stagingMarker = ".radarblock-staging-"

    /// Writes `files` (name → bytes) as the complete new contents of `path`.
    public static func publish(_ files: [(name: String, bytes: [UInt8])], to path: String) throws {
        let target = URL(fileURLWithPath: path).standardizedFileURL
        let parent = target.deletingLastPathComponent().path
        let base = target.lastPathComponent
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: target.path, isDirectory: &isDir), !isDir.boolValue {
            throw ReleaseDirectoryError(path: path, reason: "exists and is not a directory")
        }
        try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
        removeStaleStaging(parent: parent, base: base)

        let staging = parent + "/" + stagingMarker + base + "-\(getpid())"
        try? fm.removeItem(atPath: staging)
        guard mkdir(staging, 0o755) == 0 else {
            throw ReleaseDirectoryError(path: staging, reason: "cannot create: \(String(cString: strerror(errno)))")
        }
        do {
            for (name, bytes) in files {
                guard !name.contains("/"), !name.hasPrefix(".") else {
                    throw ReleaseDirectoryError(path: name, reason: "not a plain file name")
                }
                try FileIO.write(bytes, to: staging + "/" + name)
            }
            try syncDirectory(staging)
            if fm.fileExists(atPath: target.path) {
                guard rb_rename_exchange(staging, target.path) == 0 else {
                    throw ReleaseDirectoryError(path: path, reason: "cannot swap in the new release: \(String(cString: strerror(errno)))")
                }
                // `staging` now holds the previous release.
                try? fm.removeItem(atPath: staging)
            } else {
                guard rename(staging, target.path) == 0 else {
                    throw ReleaseDirectoryError(path: path, reason: "cannot move the new release into place: \(String(cString: strerror(errno)))")
                }
            }
            try? syncDirectory(parent)
        } catch {
            try? fm.removeItem(atPath: staging)
            throw error
        }
    }

    /// Staging directories of runs that were killed (their process no longer exists).
    static func removeStaleStaging(parent: String, base: String) {
        let prefix = stagingMarker + base + "-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            if let pid = Int32(entry.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) == 0 { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + entry)
        }
    }

    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw ReleaseDirectoryError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        fsync(fd)
    }
}
