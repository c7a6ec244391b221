// The cookie pop-up list of TDS v7/v8 (`cpm.filterList`): an Adblock Plus 2.0 cosmetic filter list, read with
// ABP's element-hiding semantics (https://help.adblockplus.org/hc/en-us/articles/360062733293, "Element hiding"):
//
//   ##sel              hide sel on every site
//   a.com,b.com##sel   hide sel on those sites and their subdomains
//   ~a.com##sel        hide sel everywhere but a.com (and its subdomains)
//   a.com#@#sel        an exception: sel, hidden by any filter with the same selector text, is shown on a.com
//   a.com#?#sel        extended CSS (:-abp-has, :-abp-contains, :-abp-properties); sites are required
//
// A filter's sites are decided by the most specific entry that covers the host (`a.com,~b.a.com,c.b.a.com`:
// hidden on a.com and c.b.a.com, shown on b.a.com); with no positive entry the default is "hidden". An exception
// shows its selector wherever it applies, whatever filter hides it. A line that is none of these is reported
// with its line number and left out; network filters (`@@||x^$script`), which a cosmetic list cannot use, and
// snippet filters (`#$#`) are reported as out of scope. The lines are read by the one Adblock Plus parser
// (AdblockSyntax); this file is the cookie pop-up list's view of what it reads, which filter lists' cosmetic
// filters share (FilterLists' CosmeticConverter).

import AdblockSyntax
import Domains
import StrictJSON

/// One element-hiding filter line of the list.
public struct CosmeticFilter: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case hide = "##"
        case exception = "#@#"
        case extended = "#?#"
    }
    /// 1-based line number in `cpm.filterList`.
    public var line: Int
    public var kind: Kind
    /// The site entries in file order, normalised: `include` true for `a.com`, false for `~a.com`.
    public var sites: [SiteEntry]
    /// The selector exactly as written (after the separator, surrounding white space trimmed).
    public var selector: String

    public struct SiteEntry: Sendable, Hashable {
        public var domain: String
        public var include: Bool
        public init(domain: String, include: Bool) {
            self.domain = domain
            self.include = include
        }
    }

    public init(line: Int, kind: Kind, sites: [SiteEntry], selector: String) {
        self.line = line
        self.kind = kind
        self.sites = sites
        self.selector = selector
    }
}

/// A line of the list that is not used, and why.
public struct CosmeticLineIssue: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Not a filter of any ABP kind: dropped.
        case malformed
        /// A valid ABP filter that element hiding cannot use (network filter, snippet): left out.
        case outOfScope = "out-of-scope"
    }
    public var line: Int
    public var kind: Kind
    public var message: String
    public init(line: Int, kind: Kind, message: String) {
        self.line = line
        self.kind = kind
        self.message = message
    }
    public var description: String { "cpm.filterList line \(line): \(message)" }
}

public struct CosmeticFilterList: Sendable, Hashable {
    public var filters: [CosmeticFilter]
    public var issues: [CosmeticLineIssue]
    /// Comment, header and blank lines.
    public var commentLines: Int
}

extension CosmeticFilterList {
    /// Reads the list with the one Adblock Plus parser (AdblockSyntax) and keeps what element hiding uses.
    public static func parse(_ text: String) -> CosmeticFilterList {
        let parsed: FilterList
        do {
            parsed = try FilterListParser.parse(Array(text.utf8), name: "cpm.filterList", reading: .cosmeticOnly)
        } catch {
            return CosmeticFilterList(
                filters: [], issues: [CosmeticLineIssue(line: 0, kind: .malformed, message: "\(error)")],
                commentLines: 0)
        }
        return CosmeticFilterList(parsed)
    }

    /// The cookie pop-up list's view of a parsed list: its `##`, `#@#` and `#?#` filters with their sites
    /// normalised (`DomainCheck`); network filters (`@@||x^$script`), which a cosmetic list cannot use, and
    /// snippets (`#$#`) reported as out of scope; the parser's issues reported as malformed. FilterLists reads
    /// filter lists' cosmetic filters through it too.
    public init(_ parsed: FilterList) {
        self.init(filters: [], issues: [], commentLines: parsed.comments + parsed.headers.count + parsed.blank)
        for issue in parsed.issues {
            issues.append(CosmeticLineIssue(line: issue.line, kind: .malformed, message: issue.reason + "; dropped"))
        }
        for network in parsed.unreadNetwork {
            if ["##", "#@#", "#?#"].contains(where: network.text.contains) {
                issues.append(
                    CosmeticLineIssue(
                        line: network.line, kind: .malformed,
                        message: "the sites before the separator contain one of / * | @ \" ! $; dropped"))
                continue
            }
            issues.append(
                CosmeticLineIssue(
                    line: network.line, kind: .outOfScope,
                    message:
                        "network filter \(quoted(String(network.text.prefix(80)))): a cosmetic list hides elements"
                        + " only; left out"))
        }
        for filter in parsed.cosmetic {
            switch Self.read(filter) {
            case .success(let f): filters.append(f)
            case .failure(let issue): issues.append(issue)
            }
        }
        // Each source is in line order, and a line is in one of them.
        issues.sort { $0.line < $1.line }
    }

    /// ABP's element-hiding kinds, sites normalised; `#?#` must name a site.
    static func read(_ filter: AdblockSyntax.CosmeticFilter) -> Result<CosmeticFilter, CosmeticLineIssue> {
        func issue(_ kind: CosmeticLineIssue.Kind, _ m: String) -> Result<CosmeticFilter, CosmeticLineIssue> {
            .failure(CosmeticLineIssue(line: filter.line, kind: kind, message: m))
        }
        let kind: CosmeticFilter.Kind
        switch filter.kind {
        case .hide: kind = .hide
        case .hideException: kind = .exception
        case .extended: kind = .extended
        case .style:
            return issue(
                .outOfScope, "snippet filter (#$#): code, which radarblock never runs from a dataset; left out")
        default: return issue(.outOfScope, "\(filter.kind.rawValue) filter: not element hiding; left out")
        }
        let selector = trimmed(filter.body)
        guard !selector.isEmpty else { return issue(.malformed, "empty selector; dropped") }
        var sites: [CosmeticFilter.SiteEntry] = []
        for entry in filter.domains {
            switch DomainCheck.normalize(entry.domain) {
            case .success(let d): sites.append(.init(domain: d, include: !entry.excluded))
            case .failure(let p): return issue(.malformed, "site \(quoted(entry.domain)): \(p.message); dropped")
            }
        }
        if kind == .extended, !sites.contains(where: \.include) {
            return issue(
                .malformed, "an extended-CSS filter (#?#) must name a site (ABP refuses generic ones); dropped")
        }
        return .success(CosmeticFilter(line: filter.line, kind: kind, sites: sites, selector: selector))
    }
}

/// Where a hiding selector applies: the most specific site entry covering the page's host decides (`entries`),
/// and none of the exception sites covers it (`exceptions`, each covering its subdomains).
public struct CosmeticSites: Sendable, Hashable {
    public var entries: [CosmeticFilter.SiteEntry]
    public var exceptions: [String]

    public init(entries: [CosmeticFilter.SiteEntry], exceptions: [String]) {
        self.entries = entries
        self.exceptions = exceptions
    }

    /// ABP's decision for a (normalised) host.
    public func applies(toHost host: String) -> Bool {
        for suffix in Host.suffixes(of: host) where exceptions.contains(suffix) { return false }
        for suffix in Host.suffixes(of: host) {
            if let e = entries.first(where: { $0.domain == suffix }) { return e.include }
        }
        return !entries.contains(where: \.include)
    }

    /// True when no host can be hidden (every positive site lies under an exception).
    public var isEmpty: Bool {
        let positives = entries.filter(\.include).map(\.domain)
        if positives.isEmpty { return false }
        let excepted = Set(exceptions)
        return positives.allSatisfy { Host.suffixes(of: $0).contains(where: excepted.contains) }
    }
}

/// A selector to hide, with where: what one or more filter lines of the list mean once exceptions are applied.
public struct CosmeticHide: Sendable, Hashable {
    /// As written in the list (ABP extended pseudo-classes included).
    public var selector: String
    public var sites: CosmeticSites
    /// The hiding line, then the exception lines that take sites out of it.
    public var lines: [Int]
    /// Written with #?# (ABP's extended CSS).
    public var extended: Bool
}

extension CosmeticFilterList {
    /// Every hiding filter with the exceptions of its selector applied. An exception that names no site shows
    /// its selector everywhere (the filters it cancels are reported in `cancelled`); an exception with `~`
    /// sites is ABP syntax radarblock does not model, reported and left out.
    public func hides() -> (hides: [CosmeticHide], notes: [CosmeticLineIssue]) {
        var exceptionSites: [String: [String]] = [:]
        var exceptionLines: [String: [Int]] = [:]
        var everywhere: Set<String> = []
        var notes: [CosmeticLineIssue] = []
        for f in filters where f.kind == .exception {
            if f.sites.contains(where: { !$0.include }) {
                notes.append(
                    CosmeticLineIssue(
                        line: f.line, kind: .malformed,
                        message: "an exception with excluded sites (~) is not modelled; dropped"))
                continue
            }
            exceptionLines[f.selector, default: []].append(f.line)
            if f.sites.isEmpty {
                everywhere.insert(f.selector)
            } else {
                exceptionSites[f.selector, default: []] += f.sites.map(\.domain)
            }
        }
        var out: [CosmeticHide] = []
        var indexes: [String: ExceptionIndex] = [:]
        for f in filters where f.kind != .exception {
            if everywhere.contains(f.selector) {
                notes.append(
                    CosmeticLineIssue(
                        line: f.line, kind: .outOfScope,
                        message:
                            "selector shown everywhere by a site-less exception (line "
                            + "\(exceptionLines[f.selector]![0])); left out"
                    ))
                continue
            }
            var exceptions: [String] = []
            if let all = exceptionSites[f.selector] {
                if indexes[f.selector] == nil { indexes[f.selector] = ExceptionIndex(uniqued(all)) }
                exceptions = indexes[f.selector]!.relevant(to: f.sites)
            }
            let sites = CosmeticSites(entries: f.sites, exceptions: exceptions)
            if sites.isEmpty {
                notes.append(
                    CosmeticLineIssue(
                        line: f.line, kind: .outOfScope,
                        message: "every site of the filter is under an exception of its selector; left out"))
                continue
            }
            let lines = [f.line] + (sites.exceptions.isEmpty ? [] : exceptionLines[f.selector] ?? [])
            out.append(CosmeticHide(selector: f.selector, sites: sites, lines: lines, extended: f.kind == .extended))
        }
        return (out, notes)
    }
}

/// The exception sites of one selector, indexed so that a filter takes only those that can matter to it: with
/// positive sites, the exceptions at, under or above one of them (a list of many exceptions would otherwise be
/// copied into every site-specific filter of the selector); without, all of them.
private struct ExceptionIndex {
    let all: [String]
    let set: Set<String>
    /// Domain -> the exceptions strictly under it.
    var under: [String: [String]] = [:]

    init(_ all: [String]) {
        self.all = all
        set = Set(all)
        for e in all { for s in Host.suffixes(of: e).dropFirst() { under[s, default: []].append(e) } }
    }

    func relevant(to sites: [CosmeticFilter.SiteEntry]) -> [String] {
        let positives = sites.filter(\.include).map(\.domain)
        if positives.isEmpty { return all }
        var keep = Set<String>()
        for p in positives {
            for s in Host.suffixes(of: p) where set.contains(s) { keep.insert(s) }
            for e in under[p] ?? [] { keep.insert(e) }
        }
        return all.filter(keep.contains)
    }
}

private func uniqued(_ list: [String]) -> [String] {
    var seen = Set<String>()
    return list.filter { seen.insert($0).inserted }
}

/// Without the spaces, tabs and carriage returns around it (what ABP trims).
private func trimmed<S: StringProtocol>(_ s: S) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = s.firstIndex(where: { !blank($0) }), let last = s.lastIndex(where: { !blank($0) }) else {
        return ""
    }
    return String(s[first...last])
}

/// A hiding filter only the script layer can apply: the elements matching `css` whose text contains `text`
/// (ABP's `:-abp-contains(text)` at the end of the selector).
public struct CosmeticScriptHide: Sendable, Hashable {
    /// The filter's selector as written in the list.
    public var selector: String
    /// The CSS part, checked with WebKit's selector parser.
    public var css: String
    public var text: String
    public var sites: CosmeticSites
    public var lines: [Int]

    public init(selector: String, css: String, text: String, sites: CosmeticSites, lines: [Int]) {
        self.selector = selector
        self.css = css
        self.text = text
        self.sites = sites
        self.lines = lines
    }
}
