// The regex conventions of the Tracker Data Set, in one place (TrackerRadarKit keeps them in its
// `Constants`-like helpers): every TDS rule and every domain-wide rule is anchored behind "any scheme, then
// any subdomain" (specs/ddg-tds-conversion.md §2.1), and a domain or allowlist string becomes a literal by
// escaping `\`, `.` and `/` only (§2.2; other regex characters stay as they are, §2.8 P6).

public enum TDSConventions {
    /// The TDS's top-level keys the conversion reads. A key that is neither here nor in `descriptiveTopLevelKeys`
    /// (today `cpm`, the cookie pop-up rules) is data radarblock leaves out: the decoder names it (a warning; an error
    /// under --strict), so a release never drops part of its input silently. Converting a key adds it here.
    public static let convertedTopLevelKeys: Set<String> = ["trackers", "entities", "domains", "cnames"]
    /// Top-level keys that describe the file and carry no rules.
    public static let descriptiveTopLevelKeys: Set<String> = ["readme", "_builtWith", "$comment"]
    /// What marks a privacy configuration (a config given as --tds is named as such).
    public static let configTopLevelKey = "features"

    /// Any scheme, one or more slashes: `^[^:]+://+`.
    public static let schemePrefix = "^[^:]+://+"
    /// `schemePrefix` then an optional run of subdomain labels: what TrackerRadarKit puts in front of a rule.
    public static let subdomainPrefix = schemePrefix + "([^:/]+\\.)?"

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
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for ch in s {
            if "\\^$.|?*+()[]{}/".contains(ch) { out.append("\\") }
            out.append(ch)
        }
        return out
    }

    /// A tracker-allowlist entry's url-filter (spec §2.2 allowlistFilter): a port-insensitive `(:[0-9]+)?` before
    /// the first "/", the literal escape, anchored like a tracker domain, then `.*`. Other regex characters of the
    /// entry keep their meaning (§2.8 P6), in the rule list and in the page alike.
    public static func allowlistFilter(_ rule: String) -> String {
        var rule = rule
        if let slash = rule.firstIndex(of: "/") { rule.insert(contentsOf: "(:[0-9]+)?", at: slash) }
        return subdomainPrefix + escapedDomain(rule) + ".*"
    }
}
