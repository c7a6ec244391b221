// A release directory is replaced as a whole or not at all. Files are written into a temporary sibling
// directory, synced, and then swapped with the old directory in one atomic renameat2(RENAME_EXCHANGE);
// a build that fails or is killed at any point before the swap leaves the previous release exactly as it
// was, and one killed after it leaves the new release complete. Leftover temporary siblings from a
// killed run are removed by the next run.
//
// Only what radarblock made is ever replaced: the target must be absent, empty, or a release (its
// manifest.json says radarblock wrote it), unless the caller forces it. A target that is a symbolic link
// (`current -> releases/<id>`) stays one: the new release is published beside the link's target, named
// after its identifier, and the link is swapped to it in one rename; the old release is left in place.
// A lock file beside the target makes a second concurrent publisher of the same path fail at once.

import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import FileIO
import StrictJSON
import CSystem

public struct ReleaseDirectoryError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Held for the whole of a build; released (and its file removed) when the value goes away.
public final class ReleaseLock {
    let fd: Int32
    let path: String
    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }
    deinit {
        unlink(path)
        close(fd)
    }
}

public enum ReleaseDirectory {
    static let stagingMarker = ".radarblock-staging-"
    static let lockMarker = ".radarblock-lock-"

    /// Where a publish to `path` writes: a directory replaced in place, or a link swapped to a new sibling
    /// of its target.
    enum Place: Equatable {
        case directory(String)
        case link(link: String, text: String, target: String)
    }

    /// Checks, before any work is done, that `path` may be replaced (see `publish`).
    public static func preflight(_ path: String, force: Bool) throws {
        switch try place(of: path) {
        case .directory(let dir):
            try checkReplaceable(dir, shownAs: path, force: force)
        case .link(_, _, let target):
            try checkReplaceable(target, shownAs: path + " (-> " + target + ")", force: force)
        }
    }

    /// Takes the lock of `path` (`.radarblock-lock-<name>` beside it) or fails at once when another process
    /// holds it.
    public static func lock(_ path: String) throws -> ReleaseLock {
        let target = absolute(path)
        let parent = (target as NSString).deletingLastPathComponent
        try makeDirectories(parent, for: path)
        let lockPath = parent + "/" + lockMarker + (target as NSString).lastPathComponent
        while true {
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw ReleaseDirectoryError(
                    path: lockPath, reason: "cannot create the lock file: \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                close(fd)
                if busy {
                    throw ReleaseDirectoryError(
                        path: path,
                        reason:
                            "another radarblock build is writing this release (lock \(lockPath) is held); "
                            + "try again when it has finished"
                    )
                }
                throw ReleaseDirectoryError(path: lockPath, reason: "cannot lock: \(reason)")
            }
            // The holder before us removes the file when it finishes: a lock on a removed file is no lock.
            var held = stat(), named = stat()
            if fstat(fd, &held) == 0, stat(lockPath, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            {
                return ReleaseLock(fd: fd, path: lockPath)
            }
            close(fd)
        }
    }

    /// Writes `files` (name → bytes) as the complete new contents of `path`. `releaseName` names the new
    /// directory when `path` is a symbolic link; `force` replaces a directory that is not a release.
    public static func publish(
        _ files: [(name: String, bytes: [UInt8])], to path: String,
        releaseName: String? = nil, force: Bool = false
    ) throws {
        for (name, _) in files where name.contains("/") || name.hasPrefix(".") || name.isEmpty {
            throw ReleaseDirectoryError(path: name, reason: "not a plain file name")
        }
        switch try place(of: path) {
        case .directory(let dir):
            try checkReplaceable(dir, shownAs: path, force: force)
            try writeAndSwap(files, into: dir)
        case .link(let link, let text, let target):
            try checkReplaceable(target, shownAs: path + " (-> " + target + ")", force: force)
            let name = releaseName ?? (target as NSString).lastPathComponent
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw ReleaseDirectoryError(path: name, reason: "not a plain directory name")
            }
            let fresh = (target as NSString).deletingLastPathComponent + "/" + name
            if fresh != target { try checkReplaceable(fresh, shownAs: fresh, force: force) }
            try writeAndSwap(files, into: fresh)
            if fresh != target { try swapLink(link, from: text, toDirectoryNamed: name) }
        }
    }

    // MARK: steps

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    static func place(of path: String) throws -> Place {
        let target = absolute(path)
        var info = stat()
        guard lstat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return .directory(target) }
        guard let text = try? FileManager.default.destinationOfSymbolicLink(atPath: target) else {
            throw ReleaseDirectoryError(path: path, reason: "cannot read the symbolic link")
        }
        let parent = (target as NSString).deletingLastPathComponent
        let resolved = absolute(text.hasPrefix("/") ? text : parent + "/" + text)
        var resolvedInfo = stat()
        if lstat(resolved, &resolvedInfo) == 0, (resolvedInfo.st_mode & S_IFMT) == S_IFLNK {
            throw ReleaseDirectoryError(
                path: path,
                reason: "links to \(resolved), itself a symbolic link; link straight to the release directory")
        }
        return .link(link: target, text: text, target: resolved)
    }

    /// Absent, empty, or a radarblock release; anything else only with `force`.
    static func checkReplaceable(_ dir: String, shownAs shown: String, force: Bool) throws {
        var info = stat()
        guard lstat(dir, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ReleaseDirectoryError(path: shown, reason: "exists and is not a directory")
        }
        if dir == "/" {
            throw ReleaseDirectoryError(path: shown, reason: "is the root directory; refusing to replace it")
        }
        if force || isRelease(dir) { return }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw ReleaseDirectoryError(
                path: shown, reason: "cannot list the directory: \(String(cString: strerror(errno)))")
        }
        if entries.isEmpty { return }
        throw ReleaseDirectoryError(
            path: shown,
            reason:
                "is not empty and not a radarblock release (no \(ReleaseFiles.manifest) written by radarblock); "
                + "refusing to replace its \(entries.count) entr\(entries.count == 1 ? "y" : "ies"). "
                + "Give an empty or new directory, or --force to replace it anyway"
        )
    }

    /// A release is a directory whose manifest.json says radarblock wrote it.
    public static func isRelease(_ dir: String) -> Bool {
        guard let bytes = try? FileIO.read(dir + "/" + ReleaseFiles.manifest), bytes.count < 64 << 20,
            let value = try? JSONParser.parse(bytes), let object = value.objectValue
        else { return false }
        return object["tool"]?["name"]?.stringValue == "radarblock" && object["identifier"]?.stringValue != nil
    }

    /// mkdir -p with errors that name the component in the way (e.g. a file where a directory should be).
    static func makeDirectories(_ dir: String, for shown: String) throws {
        var prefix = ""
        for component in dir.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                if (info.st_mode & S_IFMT) != S_IFDIR {
                    throw ReleaseDirectoryError(path: shown, reason: "\(prefix) is not a directory")
                }
                continue
            }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw ReleaseDirectoryError(
                    path: shown, reason: "cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    static func writeAndSwap(_ files: [(name: String, bytes: [UInt8])], into target: String) throws {
        let parent = (target as NSString).deletingLastPathComponent
        let base = (target as NSString).lastPathComponent
        try makeDirectories(parent, for: target)
        removeStaleStaging(parent: parent, base: base)

        let staging = parent + "/" + stagingMarker + base + "-\(getpid())"
        try? FileManager.default.removeItem(atPath: staging)
        guard mkdir(staging, 0o755) == 0 else {
            throw ReleaseDirectoryError(path: staging, reason: "cannot create: \(String(cString: strerror(errno)))")
        }
        do {
            for (name, bytes) in files { try FileIO.write(bytes, to: staging + "/" + name) }
            try syncDirectory(staging)
            var info = stat()
            if lstat(target, &info) == 0 {
                guard rb_rename_exchange(staging, target) == 0 else {
                    throw ReleaseDirectoryError(
                        path: target, reason: "cannot swap in the new release: \(String(cString: strerror(errno)))")
                }
                // `staging` now holds the previous release.
                try? FileManager.default.removeItem(atPath: staging)
            } else {
                guard rename(staging, target) == 0 else {
                    throw ReleaseDirectoryError(
                        path: target,
                        reason: "cannot move the new release into place: \(String(cString: strerror(errno)))")
                }
            }
            try? syncDirectory(parent)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
    }

    /// Points `link` at the sibling `name` of its old target, keeping the link relative when it was.
    static func swapLink(_ link: String, from text: String, toDirectoryNamed name: String) throws {
        let textParent = (text as NSString).deletingLastPathComponent
        let newText = textParent.isEmpty ? name : textParent + "/" + name
        let parent = (link as NSString).deletingLastPathComponent
        let temp = parent + "/" + stagingMarker + "link-" + (link as NSString).lastPathComponent + "-\(getpid())"
        unlink(temp)
        guard symlink(newText, temp) == 0 else {
            throw ReleaseDirectoryError(
                path: link, reason: "cannot create the new link: \(String(cString: strerror(errno)))")
        }
        guard rename(temp, link) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw ReleaseDirectoryError(path: link, reason: "cannot swap the link: \(reason)")
        }
        try? syncDirectory(parent)
    }

    /// Staging directories (and links) of runs that were killed (their process no longer exists).
    static func removeStaleStaging(parent: String, base: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for prefix in [stagingMarker + base + "-", stagingMarker + "link-" + base + "-"] {
            for entry in entries where entry.hasPrefix(prefix) {
                if let pid = Int32(entry.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) == 0 { continue }
                try? FileManager.default.removeItem(atPath: parent + "/" + entry)
            }
        }
    }

    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else {
            throw ReleaseDirectoryError(path: path, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        fsync(fd)
    }
}
