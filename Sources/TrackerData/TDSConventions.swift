// The regex conventions of the Tracker Data Set, in one place (TrackerRadarKit keeps them in its
// `Constants`-like helpers): every TDS rule and every domain-wide rule is anchored behind "any scheme, then
// any subdomain", and a domain or allowlist string becomes a literal by
// escaping `\`, `.` and `/` only (other regex characters stay as they are).

public enum TDSConventions {
    /// What marks a privacy configuration (a config given as --tds is named as such).
    public static let configTopLevelKey = "features"

    /// Any scheme, one or more slashes: `^[^:]+://+`.
    public static let schemePrefix = "^[^:]+://+"
    /// `schemePrefix` then an optional run of subdomain labels: what TrackerRadarKit puts in front of a rule.
    public static let subdomainPrefix = schemePrefix + "([^:/]+\\.)?"

    /// An optional port, what TrackerRadarKit puts between a rule's host and its path.
    public static let optionalPort = "(:[0-9]+)?"
    /// What lies between the host and an allowlist entry's match: the URL cut at its query, parameters and
    /// fragment (`?`, `;`, `#`), as the reference implementation cuts it.
    public static let beforeQuery = "[^?;#]*"

    /// `a.b/c` -> `a\.b\/c` (and `\` -> `\\`): TrackerRadarKit's literal form of domains and allowlist entries.
    public static func escapedDomain(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for ch in s {
            switch ch {
            case "\\": out += "\\\\"
            case ".": out += "\\."
            case "/": out += "\\/"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Every regex metacharacter escaped (hosts of feature rules, tracker and alias hosts).
    public static func regexLiteral(_ s: String) -> String {
        // Byte by byte: every metacharacter is ASCII, and UTF-8 never uses ASCII bytes inside another character.
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 8)
        for b in s.utf8 {
            if isRegexMetacharacter(b) { out.append(UInt8(ascii: "\\")) }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `b` is one of `\^$.|?*+()[]{}/`: a bit of two words, not a Set (hashing each byte of each literal
    /// was a twentieth of `convert --filter-list`'s CPU).
    static func isRegexMetacharacter(_ b: UInt8) -> Bool {
        b < 64 ? regexMetacharacterBits.0 >> b & 1 != 0 : b < 128 && regexMetacharacterBits.1 >> (b - 64) & 1 != 0
    }

    /// Bit `b` of the first word for a byte b < 64, bit `b - 64` of the second for 64 <= b < 128.
    static let regexMetacharacterBits: (UInt64, UInt64) = "\\^$.|?*+()[]{}/".utf8.reduce((0, 0)) { bits, b in
        b < 64 ? (bits.0 | 1 << b, bits.1) : (bits.0, bits.1 | 1 << (b - 64))
    }

    /// A tracker-allowlist entry's url-filter (TrackerRadarKit's allowlistFilter): `optionalPort` before
    /// the first "/", the literal escape, anchored like a tracker domain, then `.*`. Other regex characters of the
    /// entry keep their meaning, in the rule list and in the page alike.
    public static func allowlistFilter(_ rule: String) -> String {
        var rule = rule
        if let slash = rule.firstIndex(of: "/") { rule.insert(contentsOf: optionalPort, at: slash) }
        return subdomainPrefix + escapedDomain(rule) + ".*"
    }
}

/// A top-level key of a TDS and what radarblock does with it. `TDSConventions.topLevelKeys` is the one list: the
/// decoder names every other key in a warning (an error under --strict), and the README's table follows it.
public struct TDSTopLevelKey: Sendable, Hashable {
    public let name: String
    /// False for keys documented as ignored (metadata), which raise no warning.
    public let converted: Bool
    /// The TDS versions that carry it and what becomes of it.
    public let use: String
}

extension TDSConventions {
    /// Every top-level key of DuckDuckGo's TDS formats: the old `apple-tds` (v2/v3: trackers, entities, domains),
    /// v4 to v6 (+ cnames), v7 and v8 (+ cpm), and the build metadata they all carry.
    public static let topLevelKeys: [TDSTopLevelKey] = [
        TDSTopLevelKey(
            name: "trackers", converted: true,
            use: "all versions: tracker rules, the main list and the click-to-load lists"),
        TDSTopLevelKey(
            name: "entities", converted: true, use: "all versions: same-entity exemptions, entity names in reports"),
        TDSTopLevelKey(
            name: "domains", converted: true, use: "all versions: the entity owning a site (first or third party)"),
        TDSTopLevelKey(
            name: "cnames", converted: true, use: "v4 on: CNAME-cloaked aliases, judged by their tracker's rules"),
        TDSTopLevelKey(
            name: "cpm", converted: true,
            use: "v7, v8: `cpm.filterList`, the cookie pop-up list: `cpm.json` (+ the script layer)"),
        TDSTopLevelKey(
            name: "_builtWith", converted: false,
            use: "build metadata (Tracker Radar and surrogates commits): "
                + "ignored"),
        TDSTopLevelKey(name: "readme", converted: false, use: "a link to the blocklists' README: ignored"),
    ]

    public static func topLevelKey(_ name: String) -> TDSTopLevelKey? { topLevelKeys.first { $0.name == name } }

    /// The keys of the `cpm` object radarblock reads.
    public static let cookiePopupKeys: Set<String> = ["filterList"]
}
