// Which part of the privacy config governs the cookie pop-up list. DuckDuckGo's apps apply `cpm.filterList`
// through their autoconsent user script (BrowserServicesKit's AutoconsentUserScript, macOS
// `isFilterListEnabled(for:)`): the list is used on a site when the `autoconsent` feature is enabled for that
// site (its `state`, its `exceptions`, the temp list and the user's unprotected sites), its `filterlist`
// sub-feature is enabled (a missing sub-feature is disabled), and the site is not in
// `autoconsent.settings.filterlistExceptions` (each entry covering its subdomains). The `cookie` feature is about
// cookie lifetimes (trackerCookie, firstPartyCookiePolicy), not pop-ups: it does not govern the list.

import Domains
import StrictJSON

/// `features.autoconsent`, as far as the cookie pop-up list is concerned.
public struct CookiePopupConfig: Sendable, Hashable {
    /// `features.autoconsent.state == "enabled"`.
    public var enabled: Bool
    /// `features.autoconsent.features.filterlist.state == "enabled"`.
    public var filterlistEnabled: Bool
    /// `features.autoconsent.exceptions[].domain`.
    public var exceptions: [String]
    /// `features.autoconsent.settings.filterlistExceptions[]`.
    public var filterlistExceptions: [String]

    public init(
        enabled: Bool = false, filterlistEnabled: Bool = false, exceptions: [String] = [],
        filterlistExceptions: [String] = []
    ) {
        self.enabled = enabled
        self.filterlistEnabled = filterlistEnabled
        self.exceptions = exceptions
        self.filterlistExceptions = filterlistExceptions
    }

    /// Whether the list is published at all.
    public var appliesAnywhere: Bool { enabled && filterlistEnabled }
}

extension PrivacyConfig {
    /// The sites where the cookie pop-up list is off: the temp list, autoconsent's exceptions and filter-list
    /// exceptions, and the user's unprotected sites (each covering its subdomains), in that order, once each.
    public func cookiePopupOffSites(unprotected: UnprotectedSites?) -> [String] {
        var seen = Set<String>()
        return
            (tempUnprotected + cookiePopups.exceptions + cookiePopups.filterlistExceptions + (unprotected?.hosts ?? []))
            .filter { seen.insert($0).inserted }
    }

    static func decodeCookiePopups(_ feature: JSONObject, at path: JSONPath, log: inout IssueLog) throws
        -> CookiePopupConfig
    {
        var out = CookiePopupConfig()
        out.enabled = try log.optional(feature, "state", at: path, expected: "a string", Typed.string) == "enabled"
        out.exceptions = try decodeDomainList(feature, "exceptions", at: path, log: &log)
        if let fv = feature.member("features") {
            if case .object(let subs) = fv, case .object(let fl)? = subs.member("filterlist") {
                out.filterlistEnabled =
                    try log.optional(
                        fl, "state", at: path / "features" / "filterlist", expected: "a string", Typed.string)
                    == "enabled"
            } else if fv.objectValue == nil {
                try log.report(path / "features", "expected an object, found \(fv.aTypeName); sub-features ignored")
            }
        }
        if case .object(let settings)? = feature.member("settings"), let lv = settings.member("filterlistExceptions") {
            let lpath = path / "settings" / "filterlistExceptions"
            guard let list = Typed.stringArray(lv) else {
                try log.report(lpath, "expected an array of strings, found \(lv.aTypeName); list ignored")
                return out
            }
            for (i, raw) in list.enumerated() where !raw.trimmingWhitespace().isEmpty {
                if let d = try log.domain(raw, at: lpath / i, consequence: "entry dropped") {
                    out.filterlistExceptions.append(d)
                }
            }
        }
        return out
    }
}
