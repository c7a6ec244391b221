// The cookie pop-up list (`cpm.filterList` of TDS v7/v8) as a WebKit content rule list of its own, `cpm.json`:
// css-display-none rules with ABP's element-hiding semantics (CosmeticFilters.swift), and what CSS cannot express
// handed to the script layer.
//
// Sites. A selector's sites (its filter's entries, most specific first, less the sites of its exceptions) become
// one top-URL condition, anchored at the URL's start like every site condition of faithful mode
// (TopSiteConditions.swift): `if-top-url` for the hosts where it is hidden, or `unless-top-url` when it is hidden
// everywhere but some sites. When an exception or a `~` entry lies under a positive site (`a.com,~b.a.com`, or
// `a.com##x` with `b.a.com#@#x`), the hosts where it is hidden are written as a union of anchored regexes: the site
// itself, its subdomains whose next label is none of the excluded ones (a label complement written with character
// classes, since url-filter regexes have no `|`), and the more specific sites below. The page judged is the top
// page, also in its frames (`document` loads: a frame's document gets the page's selectors).
//
// Cost. (CosmeticRules.swift writes the hiding rules, shared with filter lists' cosmetic filters.) Selectors with
// the same condition are joined into one rule (one selector list), in the order of their
// first line; the selectors hidden everywhere form the first rule, `url-filter` `.*` with no flag or condition,
// which WebKit compiles into no automaton at all: it becomes the list's global style sheet. WebKit groups
// css-display-none actions with identical triggers itself (WebKit's
// Source/WebCore/contentextensions/ContentExtensionCompiler.cpp), so joining changes no decision; it takes
// rule count, JSON size and compile work down (docs/cookie-popups.md has the figures).
//
// Quirks mode. Mixed-case ID and class selectors are written as attribute selectors (QuirksModeSelectors.swift),
// which WebKit also applies in pages without a doctype; the script layer's selectors are left as written.
//
// Off sites. The config's sites where the list is off (CookiePopupConfig.swift) end the list with one
// `ignore-previous-rules` rule on those top URLs: it drops every selector for their loads and the global style
// sheet with them.
//
// Selectors are checked with WebKit's own selector parser (CSSSelectorValidator) and the target's `:has()`
// support: WebKit skips a whole rule for one selector it rejects, so a rejected selector is left out (reported)
// and never joined.

import ContentRules
import Domains
import Provenance
import StrictJSON
import TrackerData

public struct CookiePopupList: Sendable {
    public var rules: [ContentRule] = []
    public var provenance: [RuleProvenance] = []
    /// Filters for the script layer (`:-abp-contains`).
    public var scripted: [CosmeticScriptHide] = []
    /// Sites (with subdomains) where the list is off.
    public var offSites: [String] = []
    /// Lines left out or dropped, selectors refused, with the line numbers of `cpm.filterList`.
    public var issues: [CosmeticLineIssue] = []
    /// Hiding filters in the list, selectors in css-display-none rules, extended filters written as `:has()`.
    public var counts: [String: Double] = [:]
}

public enum CookiePopupRules {
    /// nil when the TDS has no cookie pop-up list or the config turns it off (`autoconsent` or its `filterlist`
    /// sub-feature not enabled). Without a config the list applies everywhere.
    public static func build(
        tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
        target: EngineProfile
    ) -> CookiePopupList? {
        guard let text = tds.cookiePopupFilterList else { return nil }
        if let config, !config.cookiePopups.appliesAnywhere { return nil }
        let offSites = config?.cookiePopupOffSites(unprotected: unprotected) ?? unprotected?.hosts ?? []
        return build(filterList: text, offSites: offSites, target: target)
    }

    public static func build(filterList text: String, offSites: [String], target: EngineProfile) -> CookiePopupList {
        let parsed = CosmeticFilterList.parse(text)
        let (hides, notes) = parsed.hides()
        var out = CookiePopupList(offSites: offSites, issues: parsed.issues + notes)
        let hiding = CosmeticRules.build(
            hides, target: target, extendedCSS: .translated, origin: RuleProvenance(source: .cookiePopups, role: .hide))
        (out.rules, out.provenance, out.scripted) = (hiding.rules, hiding.provenance, hiding.scripted)
        out.issues += hiding.issues
        if hiding.hasSelectors > 0 { out.counts["hasSelectors"] = Double(hiding.hasSelectors) }
        if hiding.selectors > 0 { out.counts["selectors"] = Double(hiding.selectors) }
        if !offSites.isEmpty {
            let condition = TriggerCondition(.ifTopURL, offSites.map { TriggerCondition.anchoredDomainRegex("*" + $0) })
            out.rules.append(
                ContentRule(trigger: Trigger(urlFilter: ".*", condition: condition), action: .ignorePreviousRules))
            out.provenance.append(RuleProvenance(source: .cookiePopups, role: .offSites))
        }
        out.counts["filters"] = Double(parsed.filters.count)
        out.counts["scripted"] = Double(out.scripted.count)
        return out
    }
}

/// An ABP selector in the form WebKit or the script layer applies.
struct CookiePopupSelector {
    /// CSS for WebKit (`:-abp-has` written as `:has`), or the CSS part of a script-layer filter.
    var css: String
    /// The text of a final `:-abp-contains(text)`: the filter is the script layer's.
    var contains: String?

    struct Refusal: Error { var message: String }

    static func translate(_ selector: String, target: EngineProfile) -> Result<CookiePopupSelector, Refusal> {
        var css = ""
        var contains: String? = nil
        var rest = Substring(selector)
        while let start = abpPseudoClass(in: rest) {
            css += rest[..<start.lowerBound]
            let after = rest[start.upperBound...]
            guard let open = after.firstIndex(of: "("), let close = matchingParenthesis(after, open: open) else {
                return .failure(Refusal(message: "an ABP pseudo-class without its closing parenthesis"))
            }
            let name = after[..<open], argument = String(after[after.index(after: open)..<close])
            rest = after[after.index(after: close)...]
            switch name {
            case "has":
                if argument.contains(":-abp-") {
                    return .failure(Refusal(message: "ABP pseudo-classes inside :-abp-has() are not supported"))
                }
                css += ":has(" + argument + ")"
            case "contains":
                guard rest.allSatisfy({ $0 == " " }), !css.isEmpty, contains == nil else {
                    return .failure(
                        Refusal(
                            message: ":-abp-contains() is applied by the script layer only at the end of a selector"))
                }
                if argument.hasPrefix("/") && argument.count > 1 {
                    return .failure(Refusal(message: "a regular expression in :-abp-contains() is not supported"))
                }
                contains = argument
            default:
                return .failure(Refusal(message: ":-abp-\(name)() has no WebKit or script-layer form"))
            }
        }
        css += rest
        if hasABPMarker(css) {
            return .failure(Refusal(message: "an ABP pseudo-class without its closing parenthesis"))
        }
        if contains != nil, css.contains(",") {
            return .failure(Refusal(message: ":-abp-contains() after a selector list is not supported"))
        }
        if let problem = CSSSelectorValidator.problem(in: css) {
            return .failure(Refusal(message: "WebKit's selector parser rejects \(quoted(css)) (\(problem))"))
        }
        if !target.supportsHasPseudoClass, css.lowercased().contains(":has(") {
            return .failure(Refusal(message: "\(target.name) has no :has() (Safari 15.4 / WebKitGTK 2.36 on)"))
        }
        return .success(CookiePopupSelector(css: css, contains: contains))
    }

    /// Where `:-abp-` first is in `s`: the place Foundation's literal `range(of:)` finds, searched in the UTF-8
    /// bytes (range(of:) goes through NSString's UTF-16 for every selector).
    static func abpPseudoClass(in s: Substring) -> Range<Substring.Index>? {
        let utf8 = s.utf8
        var from = utf8.startIndex
        while let colon = utf8[from...].firstIndex(of: UInt8(ascii: ":")) {
            if utf8[colon...].starts(with: abpMarker) { return colon..<utf8.index(colon, offsetBy: abpMarker.count) }
            from = utf8.index(after: colon)
        }
        return nil
    }

    static let abpMarker = Array(":-abp-".utf8)

    /// Whether `s` contains `:-abp-` as Foundation's `contains` finds it: in the UTF-8 bytes when `s` is ASCII, where
    /// the two agree (every selector of EasyList: Foundation's, through NSString, was a thirtieth of `convert`'s
    /// CPU), else through Foundation, which finds no `:-abp-` whose last `-` a combining mark extends.
    static func hasABPMarker(_ s: String) -> Bool {
        s.utf8.allSatisfy { $0 < 0x80 } ? abpPseudoClass(in: Substring(s)) != nil : s.contains(":-abp-")
    }

    /// The `)` that closes the `(` at `open`, skipping quoted strings, escapes and nested parentheses.
    static func matchingParenthesis(_ s: Substring, open: Substring.Index) -> Substring.Index? {
        var depth = 0
        var quote: Character? = nil
        var i = open
        while i < s.endIndex {
            let c = s[i]
            if c == "\\" {
                i = s.index(after: i)
                if i < s.endIndex { i = s.index(after: i) }
                continue
            }
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "(" {
                depth += 1
            } else if c == ")" {
                depth -= 1
                if depth == 0 { return i }
            }
            i = s.index(after: i)
        }
        return nil
    }
}

/// A selector's sites as one top-URL condition (nil: every site); see the file comment. Filter lists' `$domain`
/// mixing sites and ~sites judges the frame with the same regexes (`inclusive: .ifFrameURL`).
public enum CosmeticSiteCondition {
    public static func make(
        _ sites: CosmeticSites, inclusive: TriggerCondition.Kind = .ifTopURL
    ) -> TriggerCondition? {
        let positives = sites.entries.filter(\.include)
        if positives.isEmpty {
            let excluded = minimal(sites.entries.map(\.domain) + sites.exceptions)
            return excluded.isEmpty
                ? nil : TriggerCondition(.unlessTopURL, excluded.map { TriggerCondition.anchoredDomainRegex("*" + $0) })
        }
        let root = SiteNode()
        for e in sites.entries where root.find(e.domain).value == nil { root.find(e.domain).value = e.include }
        for d in sites.exceptions { root.find(d).exception = true }
        var regexes: [String] = []
        root.walk(suffix: "", inherited: false, into: &regexes)
        return TriggerCondition(inclusive, regexes)
    }

    /// The domains that are not under another one of the list, in order.
    static func minimal(_ domains: [String]) -> [String] {
        var seen = Set<String>()
        let unique = domains.filter { seen.insert($0).inserted }
        return unique.filter { d in !Host.suffixes(of: d).dropFirst().contains(where: seen.contains) }
    }
}

/// A label tree of the site entries (most specific decides) and exception sites (nothing under them is hidden).
final class SiteNode {
    var value: Bool?
    var exception = false
    var children: [String: SiteNode] = [:]

    func find(_ domain: String) -> SiteNode {
        var node = self
        for label in domain.split(separator: ".").reversed() {
            let key = String(label)
            if let c = node.children[key] {
                node = c
            } else {
                let c = SiteNode()
                node.children[key] = c
                node = c
            }
        }
        return node
    }

    /// Everything under this node is decided `v`.
    func isUniform(_ v: Bool) -> Bool {
        !exception && (value ?? v) == v && children.values.allSatisfy { $0.isUniform(v) }
    }

    /// The anchored top-URL regexes of the hosts at or under `suffix` where the selector is hidden.
    func walk(suffix: String, inherited: Bool, into out: inout [String]) {
        if exception { return }
        let v = value ?? inherited
        let kids = children.filter { !$0.value.isUniform(v) }
        if !suffix.isEmpty && v {
            if kids.isEmpty {
                out.append(TriggerCondition.anchoredDomainRegex("*" + suffix))
            } else {
                out.append(TriggerCondition.anchoredDomainRegex(suffix))
                let escaped = suffix.replacingOccurrences(of: ".", with: "\\.")
                for label in SiteNode.labelsOutside(Set(kids.keys)) {
                    out.append("^[^:]+://([^/]*\\.)?" + label + "\\." + escaped + TriggerCondition.hostEnd)
                }
            }
        }
        for key in kids.keys.sorted(by: byteOrder) {
            kids[key]!.walk(suffix: suffix.isEmpty ? key : key + "." + suffix, inherited: v, into: &out)
        }
    }

    /// Regexes whose union is every host label (characters other than `.`, `/`, `:`) that is not in `excluded`.
    static func labelsOutside(_ excluded: Set<String>, prefix: String = "") -> [String] {
        var out: [String] = []
        let p = prefix.replacingOccurrences(of: "-", with: "\\-")
        if !prefix.isEmpty && !excluded.contains(prefix) { out.append(p) }
        let next = Set(
            excluded.compactMap { e -> Character? in
                e.count > prefix.count && e.hasPrefix(prefix) ? e[e.index(e.startIndex, offsetBy: prefix.count)] : nil
            }
        ).sorted()
        out.append(p + "[^./:" + next.map { $0 == "-" ? "\\-" : String($0) }.joined() + "][^./:]*")
        for c in next { out += labelsOutside(excluded, prefix: prefix + String(c)) }
        return out
    }
}
