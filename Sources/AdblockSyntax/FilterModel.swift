// The typed model of an Adblock Plus / uBlock Origin filter list: network filters with their pattern and options,
// cosmetic filters, and what a line that is neither becomes (comment, header, issue). Every filter keeps its line
// number and its text, so that whatever is made of it can name where it came from.

/// A network filter: `[@@]pattern[$options]`.
public struct NetworkFilter: Sendable, Hashable {
    public var line: Int
    /// The line as written (trimmed of surrounding white space).
    public var text: String
    /// `@@`: an exception, which cancels the blocks it matches.
    public var isException: Bool
    public var pattern: FilterPattern
    public var options: NetworkOptions
}

/// What a network filter's URL part says.
public enum FilterPattern: Sendable, Hashable {
    /// `/regex/`: a JavaScript regular expression searched in the URL.
    case regex(String)
    /// A pattern of literal text, `*` wildcards and `^` separators, with its anchors.
    case plain(start: StartAnchor, body: String, endAnchored: Bool)

    public enum StartAnchor: Sendable, Hashable {
        /// Anywhere in the URL.
        case none
        /// `|`: at the start of the URL.
        case url
        /// `||`: at the start of the host or of one of its labels.
        case host
    }
}

/// ABP's request types, under their canonical names (uBO's aliases read as these).
public enum FilterRequestType: String, Sendable, Hashable, CaseIterable {
    case script, image, stylesheet, font, media, subdocument, xmlhttprequest, websocket, ping, other, object
    case document, popup, webrtc
    /// `object-subrequest`: a plugin's request, obsolete.
    case objectSubrequest = "object-subrequest"
}

/// `$domain=a.com|~b.com` entries: sites (with their subdomains) where the filter applies or not.
public struct DomainEntry: Sendable, Hashable {
    public var domain: String
    public var excluded: Bool

    public init(domain: String, excluded: Bool) {
        self.domain = domain
        self.excluded = excluded
    }
}

/// The exception kinds that switch a feature off on the pages a filter matches instead of cancelling one load.
public enum PageException: String, Sendable, Hashable, CaseIterable {
    case document, elemhide, generichide, genericblock, specifichide
}

public struct NetworkOptions: Sendable, Hashable {
    /// `$third-party` (true), `$~third-party`/`$first-party` (false); nil: any.
    public var thirdParty: Bool?
    /// Types named without `~`; empty: none named.
    public var types: Set<FilterRequestType> = []
    /// Types named with `~`.
    public var excludedTypes: Set<FilterRequestType> = []
    public var domains: [DomainEntry] = []
    public var important = false
    public var matchCase = false
    public var badfilter = false
    /// `$all`: every type, the page's own document and popups included.
    public var all = false
    public var pageExceptions: Set<PageException> = []
    /// Options the parser recognises that change what a filter does beyond block/allow (redirect, csp, removeparam,
    /// ...), by the name written: a filter with one is never converted as a plain block.
    public var unconvertible: [String] = []

    public init() {}
}

/// A cosmetic filter: `domains##selector` (hide), `domains#@#selector` (exception), and uBO's / AdGuard's
/// extended separators, kept with their kind.
public struct CosmeticFilter: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// `##`: element hiding.
        case hide = "##"
        case hideException = "#@#"
        /// `#?#`: extended (procedural) selectors.
        case extended = "#?#"
        case extendedException = "#@?#"
        /// `#$#`: CSS injection or snippets.
        case style = "#$#"
        case styleException = "#@$#"
        /// `#%#`: scripts.
        case script = "#%#"
        case scriptException = "#@%#"
    }
    public var line: Int
    public var text: String
    public var kind: Kind
    public var domains: [DomainEntry]
    /// The selector (or body) after the separator; `+js(...)` for uBO's scriptlets.
    public var body: String
}

/// A line the parser could not make a filter of, or one it keeps aside.
public struct FilterLineIssue: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The line cannot be a filter (unknown option, empty pattern, bad domain, not UTF-8, too long).
        case malformed
        /// A filter with a meaning this conversion does not give (a redirect, a cosmetic filter, a regex outside
        /// WebKit's subset, ...): reported, never approximated.
        case notConverted = "not-converted"
    }
    public var line: Int
    /// The line's text (cut to `FilterListLimits.quotedText` characters).
    public var text: String
    public var kind: Kind
    public var reason: String
    /// The list the line is in, when a conversion of several lists tells (not part of `description`).
    public var list: String? = nil

    public init(line: Int, text: String, kind: Kind, reason: String) {
        self.line = line
        self.text = FilterListLimits.quoted(text)
        self.kind = kind
        self.reason = reason
    }

    /// The issue of a line of the list `name`.
    public func `in`(_ name: String) -> FilterLineIssue {
        var issue = self
        issue.list = name
        return issue
    }

    /// `line 12: ||a.com^$csp=x: [not-converted] $csp: ...`
    public var description: String { "line \(line): \(text): [\(kind.rawValue)] \(reason)" }

    /// `LIST: line 12: ...`, the list its own or, when it has none, `lists` (the names of the lists converted as
    /// one).
    public func named(or lists: String) -> String { "\(list ?? lists): \(self)" }
}

/// The bounds that keep a hostile list from costing unbounded time or memory.
public enum FilterListLimits {
    /// A longer line is reported and skipped (EasyList's longest lines are a few KiB).
    public static let lineBytes = 65_536
    /// More lines than this is an error for the whole list.
    public static let lines = 4_000_000
    /// How much of a line's text an issue quotes.
    public static let quotedText = 300

    static func quoted(_ text: String) -> String {
        text.utf8.count <= quotedText ? text : String(decoding: text.utf8.prefix(quotedText), as: UTF8.self) + "..."
    }
}

/// A line as written, with its number.
public struct FilterLine: Sendable, Hashable {
    public var line: Int
    public var text: String
}

/// A parsed list.
public struct FilterList: Sendable {
    /// What the list is called in provenance and issues (its file name).
    public var name: String
    public var network: [NetworkFilter] = []
    public var cosmetic: [CosmeticFilter] = []
    public var issues: [FilterLineIssue] = []
    /// `! Title: ...` and the other `! Key: value` header lines, in order.
    public var headers: [(key: String, value: String)] = []
    public var comments = 0
    /// Empty lines (white space only).
    public var blank = 0
    /// Network lines left unread (`FilterListParser.Reading.cosmeticOnly`), in line order.
    public var unreadNetwork: [FilterLine] = []
    public var lines = 0

    public init(name: String) { self.name = name }

    /// The parts of a list parsed piece by piece (FilterListParser.pieces), in the list's order: what the list
    /// parsed whole is.
    public init(joining parts: [FilterList], name: String) {
        self.name = name
        network.reserveCapacity(parts.reduce(0) { $0 + $1.network.count })
        cosmetic.reserveCapacity(parts.reduce(0) { $0 + $1.cosmetic.count })
        for part in parts {
            network += part.network
            cosmetic += part.cosmetic
            issues += part.issues
            headers += part.headers
            comments += part.comments
            blank += part.blank
            unreadNetwork += part.unreadNetwork
            lines += part.lines
        }
    }
}
