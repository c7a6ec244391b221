// The component identifiers DuckDuckGo's apps use to tell what changed between two rule lists
// (spec ddg-tds-conversion §3.1): TDS ETag, temp list, allowlist, user's unprotected sites. Ours join
// list items with a newline before hashing, so ["ab","c"] and ["a","bc"] no longer collide.

import Digest
import TrackerData

public enum ComponentIdentifiers {
    public static func compute(tds: InputRecord, config: PrivacyConfig?, unprotected: UnprotectedSites?) -> [String: String] {
        var out: [String: String] = [:]
        out["tdsEtag"] = tds.etag ?? ("sha256:" + tds.sha256)
        if let config {
            let temp = config.tempUnprotected
            if !temp.isEmpty { out["tempListId"] = Digest.hex(.sha1, temp.joined(separator: "\n")) }
            if config.trackerAllowlist.enabled, !config.trackerAllowlist.entries.isEmpty {
                out["allowListId"] = config.trackerAllowlist.hash
                    ?? Digest.hex(.sha1, config.trackerAllowlist.entries.map { "\($0.trackerDomain) \($0.rule) \($0.sites)" }.joined(separator: "\n"))
            }
        }
        if let unprotected, !unprotected.hosts.isEmpty {
            out["unprotectedSitesHash"] = Digest.hex(.sha1, unprotected.hosts.sorted(by: byteOrder).joined(separator: "\n"))
        }
        return out
    }
}
