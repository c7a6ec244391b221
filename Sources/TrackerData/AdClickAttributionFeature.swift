// `features.adClickAttribution`: after a click on a search ad, the advertiser's site may load the conversion
// tracker hosts of `settings.allowlist` for a while. DuckDuckGo's apps move the trackers the allowlist names
// (`blocklistEntry`) into a list of their own, which a tab swaps for an "attributed" variant while an
// attribution is active (docs/ad-click-attribution.md). The timers and the ad-link detection are the app's.

import Domains
import StrictJSON

public struct AdClickAttribution: Sendable, Hashable {
    /// `state == "enabled"`.
    public var enabled: Bool
    /// Valid allowlist entries, in file order (invalid ones are reported and skipped by the decoder).
    public var allowlist: [AdClickAttributionEntry]
    /// `settings.linkFormats`: ad links the app recognises, with the query parameter naming the advertiser.
    public var linkFormats: [AdClickLinkFormat]
    /// Seconds an attribution survives navigations away from the vendor, and in total.
    public var navigationExpiration: Double?
    public var totalExpiration: Double?

    public init(
        enabled: Bool = false, allowlist: [AdClickAttributionEntry] = [], linkFormats: [AdClickLinkFormat] = [],
        navigationExpiration: Double? = nil, totalExpiration: Double? = nil
    ) {
        self.enabled = enabled
        self.allowlist = allowlist
        self.linkFormats = linkFormats
        self.navigationExpiration = navigationExpiration
        self.totalExpiration = totalExpiration
    }
}

public struct AdClickAttributionEntry: Sendable, Hashable {
    /// The TDS tracker the entry moves into the attribution list (a tracker key).
    public var blocklistEntry: String
    /// The conversion host, `blocklistEntry` or under it, allowed on the vendor's site while attributed.
    public var host: String
    /// Index in `settings.allowlist` (for issues).
    public var index: Int

    public init(blocklistEntry: String, host: String, index: Int) {
        self.blocklistEntry = blocklistEntry
        self.host = host
        self.index = index
    }

    public var path: JSONPath { JSONPath.root / "features" / "adClickAttribution" / "settings" / "allowlist" / index }
}

public struct AdClickLinkFormat: Sendable, Hashable {
    public var url: String
    public var adDomainParameterName: String?
}

extension PrivacyConfig {
    static func decodeAdClickAttribution(_ feature: JSONObject, at path: JSONPath, log: inout IssueLog) throws
        -> AdClickAttribution
    {
        var out = AdClickAttribution()
        out.enabled = try log.optional(feature, "state", at: path, expected: "a string", Typed.string) == "enabled"
        guard let sv = feature.member("settings") else { return out }
        guard case .object(let settings) = sv else {
            try log.report(path / "settings", "expected an object, found \(sv.aTypeName); ad-click attribution ignored")
            return out
        }
        let spath = path / "settings"
        out.navigationExpiration = try log.optional(
            settings, "navigationExpiration", at: spath, expected: "a number", Typed.double)
        out.totalExpiration = try log.optional(
            settings, "totalExpiration", at: spath, expected: "a number", Typed.double)
        if let lv = settings.member("linkFormats"), case .array(let formats) = lv {
            for f in formats {
                guard let url = f["url"]?.stringValue else { continue }
                out.linkFormats.append(
                    AdClickLinkFormat(url: url, adDomainParameterName: f["adDomainParameterName"]?.stringValue))
            }
        }
        guard let av = settings.member("allowlist") else { return out }
        guard case .array(let entries) = av else {
            try log.report(spath / "allowlist", "expected an array, found \(av.aTypeName); allowlist ignored")
            return out
        }
        for (i, e) in entries.enumerated() {
            if let entry = try decodeAttributionEntry(e, index: i, at: spath / "allowlist" / i, log: &log) {
                out.allowlist.append(entry)
            }
        }
        return out
    }

    /// One `{blocklistEntry, host}` pair, or nil (reported) when it is not usable: `host` must be the
    /// blocklist entry or a host under it, as the attribution rule is added to that tracker's rules.
    static func decodeAttributionEntry(_ value: JSONValue, index: Int, at path: JSONPath, log: inout IssueLog) throws
        -> AdClickAttributionEntry?
    {
        guard case .object(let o) = value, let rawEntry = o.member("blocklistEntry")?.stringValue,
            let rawHost = o.member("host")?.stringValue
        else {
            try log.report(path, "expected an object with string \"blocklistEntry\" and \"host\"; entry skipped")
            return nil
        }
        guard let entry = try log.domain(rawEntry, at: path / "blocklistEntry", consequence: "entry skipped"),
            let host = try log.domain(rawHost, at: path / "host", consequence: "entry skipped")
        else { return nil }
        guard Host.isSameOrSubdomain(host, of: entry) else {
            try log.report(path / "host", "the host \(host) is not under the blocklist entry \(entry); entry skipped")
            return nil
        }
        return AdClickAttributionEntry(blocklistEntry: entry, host: host, index: index)
    }
}
