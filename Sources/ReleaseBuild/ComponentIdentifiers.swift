// The component identifiers DuckDuckGo's apps use to tell what changed between two rule lists: TDS ETag, temp
// list, allowlist, user's unprotected sites. Ours join list items with a newline before hashing, so that
// ["ab","c"] and ["a","bc"] do not collide.

import Digest
import Release
import TrackerData

public enum ComponentIdentifiers {
    public static func compute(tds: InputRecord, config: PrivacyConfig?, unprotected: UnprotectedSites?) -> [String:
        String]
    {
        var out: [String: String] = [:]
        out["tdsEtag"] = tds.etag ?? ("sha256:" + tds.sha256)
        if let config {
            let temp = config.tempUnprotected
            if !temp.isEmpty { out["tempListId"] = Digest.hex(.sha1, temp.joined(separator: "\n")) }
            // The click-to-load lists' TDS component, as DuckDuckGo prefixes the ETag of its CTL split with "CTL_".
            if config.contentBlockingEnabled, !config.clickToLoad.supportedRuleActions.isEmpty {
                out["ctlTdsEtag"] = "CTL_" + out["tdsEtag"]!
                out["clickToLoadId"] = Digest.hex(
                    .sha1,
                    (config.clickToLoad.supportedRuleActions.map { "\($0.ruleAction) \($0.entity)" }
                        + config.clickToLoad.exceptions).joined(separator: "\n"))
            }
            if config.requestBlocklist.enabled, !config.requestBlocklist.rules.isEmpty {
                out["requestBlocklistId"] = Digest.hex(
                    .sha1,
                    (config.requestBlocklist.rules.map {
                        "\($0.provenanceName) \($0.host):\($0.port ?? "") \($0.path) \($0.sites)"
                    }
                        + config.requestBlocklist.exceptions).joined(separator: "\n"))
            }
            if config.trackerAllowlist.enabled, !config.trackerAllowlist.entries.isEmpty {
                out["allowListId"] =
                    config.trackerAllowlist.hash
                    ?? Digest.hex(
                        .sha1,
                        config.trackerAllowlist.entries.map { "\($0.trackerDomain) \($0.rule) \($0.sites)" }.joined(
                            separator: "\n"))
            }
        }
        if let unprotected, !unprotected.hosts.isEmpty {
            out["unprotectedSitesHash"] = Digest.hex(
                .sha1, unprotected.hosts.sorted(by: byteOrder).joined(separator: "\n"))
        }
        return out
    }
}
