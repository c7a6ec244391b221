// manifest.json's `counts`: each count's name spelled once, here. The ones that record an option (trackerReport,
// optimized, perTrackerExemptions) are written and read as ManifestFlags.

/// The name of one count of a manifest.
public struct ManifestCount: Hashable, Sendable, Comparable {
    public let name: String

    init(_ name: String) { self.name = name }

    public static func < (a: ManifestCount, b: ManifestCount) -> Bool { a.name < b.name }

    public static let trackers = ManifestCount("trackers")
    public static let tdsRules = ManifestCount("tdsRules")
    public static let rules = ManifestCount("rules")
    public static let lists = ManifestCount("lists")
    public static let surrogates = ManifestCount("surrogates")
    public static let conversionIssues = ManifestCount("conversionIssues")
    /// 1 when surrogates.js reports every tracker request; absent otherwise.
    static let trackerReport = ManifestCount("trackerReport")
    /// 1 when the optimization stage ran; absent with `--no-optimize`.
    static let optimized = ManifestCount("optimized")
    public static let optimizedAwayRules = ManifestCount("optimizedAwayRules")
    /// 1 with `--per-tracker-exemptions`; absent otherwise.
    static let perTrackerExemptions = ManifestCount("perTrackerExemptions")
    public static let rulesOverAutomatonBudget = ManifestCount("rulesOverAutomatonBudget")
    public static let rbcBytes = ManifestCount("rbcBytes")
    public static let urlMatcherBytes = ManifestCount("urlMatcherBytes")
    public static let topURLMatcherBytes = ManifestCount("topURLMatcherBytes")
    public static let frameURLMatcherBytes = ManifestCount("frameURLMatcherBytes")
    public static let clickToLoadLists = ManifestCount("clickToLoadLists")
    public static let clickToLoadRules = ManifestCount("clickToLoadRules")
    public static let attributionRules = ManifestCount("attributionRules")
    public static let cookiePopupRules = ManifestCount("cookiePopupRules")
    /// The filter lists' list (every part), and its parts.
    public static let filterListRules = ManifestCount("filterListRules")
    public static let filterListParts = ManifestCount("filterListParts")
    /// The filters of the filter lists that were not converted (issues.txt names each).
    public static let filterListIssues = ManifestCount("filterListIssues")

    /// A count of the cookie pop-up rules (CookiePopupList.counts): `filters` -> `cookiePopupFilters`.
    public static func cookiePopup(_ key: String) -> ManifestCount {
        ManifestCount("cookiePopup" + key.prefix(1).uppercased() + key.dropFirst())
    }

    /// A count as a manifest names it (a manifest may hold counts this version does not write).
    public static func named(_ name: String) -> ManifestCount { ManifestCount(name) }
}
