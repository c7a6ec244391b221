// The release `build --previous` names, checked before it is used: a damaged one (a file cut short, a manifest
// that does not parse) must not stop every later night, so it is reported and the build goes on without it.

import Digest
import FileIO
import Release

enum PreviousRelease {
    /// The previous release's manifest when the release is whole. Otherwise `previous` becomes nil, a warning
    /// says why and what is skipped (changes, the gates, --if-changed), and the new release is built as a first one.
    static func check(_ previous: inout String?, warnings: inout [String]) -> Manifest? {
        guard let dir = previous else { return nil }
        let damage: String
        do {
            let manifest = try Manifest.parse(try FileIO.read(dir + "/" + ReleaseFiles.manifest))
            guard let found = self.damage(dir, manifest: manifest) else { return manifest }
            damage = found
        } catch {
            damage = "\(dir)/\(ReleaseFiles.manifest): \(error)"
        }
        warnings.append(
            "previous: the release \(dir) is damaged (\(damage)): no changes against it, the compile-cost and "
                + "content gates and --if-changed skipped; the new release publishes in its place")
        previous = nil
        return nil
    }

    /// What is wrong with the files the manifest lists (size, then sha256), nil when nothing.
    static func damage(_ dir: String, manifest: Manifest) -> String? {
        for output in manifest.outputs {
            let path = dir + "/" + output.name
            guard let bytes = try? FileIO.read(path) else { return "\(path) cannot be read" }
            guard bytes.count == output.bytes else {
                return "\(path) has \(bytes.count) bytes, the manifest says \(output.bytes)"
            }
            guard Digest.hex(.sha256, bytes) == output.sha256 else {
                return "\(path): sha256 differs from the manifest's"
            }
        }
        return nil
    }
}
