// The WebKit content rule model (Apple's Content Blocker JSON), as plain values.
// Names and flag bits follow WebKit's ContentExtensionRule / ResourceLoadInfo so that
// every stage (builder, compiler, engine) speaks WebKit's language.

import StrictJSON

public struct ContentRule: Sendable, Hashable {
    public var trigger: Trigger
    public var action: Action

    public init(trigger: Trigger, action: Action) {
        self.trigger = trigger
        self.action = action
    }
}

public struct Trigger: Sendable, Hashable {
    public var urlFilter: String
    public var urlFilterIsCaseSensitive = false
    /// Applies to if/unless-domain and if/unless-top-url conditions.
    public var topURLFilterIsCaseSensitive = false
    public var frameURLFilterIsCaseSensitive = false
    /// Names as written in the JSON (`nil`: the key is absent; `[]`: present and empty, which WebKit accepts as "no
    /// restriction").
    public var resourceTypes: [String]?
    public var loadTypes: [String]?
    public var loadContexts: [String]?
    /// Lowercased method name, e.g. "get".
    public var requestMethod: String?
    public var condition: TriggerCondition?

    public init(
        urlFilter: String, urlFilterIsCaseSensitive: Bool = false, resourceTypes: [String]? = nil,
        loadTypes: [String]? = nil, loadContexts: [String]? = nil, requestMethod: String? = nil,
        condition: TriggerCondition? = nil
    ) {
        self.urlFilter = urlFilter
        self.urlFilterIsCaseSensitive = urlFilterIsCaseSensitive
        self.resourceTypes = resourceTypes
        self.loadTypes = loadTypes
        self.loadContexts = loadContexts
        self.requestMethod = requestMethod
        self.condition = condition
    }

    /// WebKit's trigger flags word (ResourceFlags): resource types, load type, load context, condition kind, method.
    public var flags: UInt32 {
        var f: UInt32 = 0
        for name in resourceTypes ?? [] { f |= ResourceTypeName.flags(of: name) ?? 0 }
        for name in loadTypes ?? [] { f |= LoadTypeName.flags(of: name) ?? 0 }
        for name in loadContexts ?? [] { f |= LoadContextName.flags(of: name) ?? 0 }
        if let m = requestMethod { f |= RequestMethodName.flags(of: m) ?? 0 }
        if let c = condition { f |= c.kind.conditionFlags }
        return f
    }
}

public struct TriggerCondition: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        // Declaration order is WebKit's order of checks.
        case ifDomain = "if-domain"
        case unlessDomain = "unless-domain"
        case ifTopURL = "if-top-url"
        case unlessTopURL = "unless-top-url"
        case ifFrameURL = "if-frame-url"
        case unlessFrameURL = "unless-frame-url"

        /// if/unless-domain are top-URL conditions in WebKit (their domains become top-URL regexes).
        public var conditionFlags: UInt32 {
            switch self {
            case .ifDomain, .ifTopURL: return ConditionFlags.ifTopURL
            case .unlessDomain, .unlessTopURL: return ConditionFlags.unlessTopURL
            case .ifFrameURL: return ConditionFlags.ifFrameURL
            case .unlessFrameURL: return ConditionFlags.unlessFrameURL
            }
        }
        public var isDomainList: Bool { self == .ifDomain || self == .unlessDomain }
        public var isFrameURL: Bool { self == .ifFrameURL || self == .unlessFrameURL }
        public var isInclusive: Bool { self == .ifDomain || self == .ifTopURL || self == .ifFrameURL }
    }
    public var kind: Kind
    public var values: [String]

    public init(_ kind: Kind, _ values: [String]) {
        self.kind = kind
        self.values = values
    }

    /// The top-URL regexes WebKit derives from the condition (domains are transformed; URLs are regexes already).
    public var regexes: [String] {
        kind.isDomainList ? values.map(TriggerCondition.domainRegex) : values
    }

    /// The end of a URL's host: its port or its path. WebKit's if-domain transformation ends a domain with it, and
    /// so does every host-anchored url-filter radarblock writes.
    public static let hostEnd = "[:/]"

    /// WebKit's if-domain/unless-domain transformation: `*d` covers d and its subdomains; the result is unanchored,
    /// so it also holds when `scheme://d/` appears later in the top URL (in a query, say).
    public static func domainRegex(_ domain: String) -> String {
        let (subdomains, escaped) = webKitEscapedEntry(domain)
        return "[a-z][a-z+.-]*:\\/\\/" + (subdomains ? "([^/]*\\.)*" : "") + escaped + hostEnd
    }

    /// The same domain entry as a top-URL regex anchored at the URL's start, so that only the top URL's own host is
    /// judged: WebKit's if-domain language less the matches that begin later in the URL, for any scheme (WebKit's
    /// scheme class `[a-z][a-z+.-]*` leaves out schemes with digits).
    public static func anchoredDomainRegex(_ domain: String) -> String {
        let (subdomains, escaped) = webKitEscapedEntry(domain)
        return "^[^:]+://" + (subdomains ? "([^/]*\\.)?" : "") + escaped + hostEnd
    }

    /// `*d` -> (true, d) with WebKit's escapes for a domain entry (ContentExtensionParser.cpp's escape table).
    private static func webKitEscapedEntry(_ domain: String) -> (subdomains: Bool, escaped: String) {
        var d = Substring(domain)
        let subdomains = d.hasPrefix("*")
        if subdomains { d = d.dropFirst() }
        var escaped = ""
        for ch in d {
            switch ch {
            case "\\": escaped += "\\\\"
            case "{", "}", "[", ".", "?", "*", "$": escaped += "\\" + String(ch)
            default: escaped.append(ch)
            }
        }
        return (subdomains, escaped)
    }
}

public enum Action: Sendable, Hashable {
    case block
    case blockCookies
    case ignorePreviousRules
    case ignoreFollowingRules
    case makeHTTPS
    case cssDisplayNone(selector: String)
    case notify(notification: String)
    /// The validated `redirect` member, kept as JSON so that canonical output is lossless.
    case redirect(JSONObject)
    /// The validated action object minus `type` (request-headers, response-headers, priority).
    case modifyHeaders(JSONObject)

    public var typeName: String {
        switch self {
        case .block: return "block"
        case .blockCookies: return "block-cookies"
        case .ignorePreviousRules: return "ignore-previous-rules"
        case .ignoreFollowingRules: return "ignore-following-rules"
        case .makeHTTPS: return "make-https"
        case .cssDisplayNone: return "css-display-none"
        case .notify: return "notify"
        case .redirect: return "redirect"
        case .modifyHeaders: return "modify-headers"
        }
    }
}

/// WebKit ResourceType bits (ResourceLoadInfo.h) and the JSON names that map to them.
public enum ResourceTypeName {
    public static let topDocument: UInt32 = 0x0001
    public static let childDocument: UInt32 = 0x0002
    public static let image: UInt32 = 0x0004
    public static let styleSheet: UInt32 = 0x0008
    public static let script: UInt32 = 0x0010
    public static let font: UInt32 = 0x0020
    public static let svgDocument: UInt32 = 0x0040
    public static let media: UInt32 = 0x0080
    public static let popup: UInt32 = 0x0100
    public static let ping: UInt32 = 0x0200
    public static let fetch: UInt32 = 0x0400
    public static let webSocket: UInt32 = 0x0800
    public static let cspReport: UInt32 = 0x1000
    public static let other: UInt32 = 0x2000
    public static let mask: UInt32 = 0x3FFF

    /// Trigger names accepted by WebKit's parser, in the order WebKit documents them.
    public static let names: [(String, UInt32)] = [
        ("document", topDocument | childDocument), ("top-document", topDocument), ("child-document", childDocument),
        ("image", image), ("style-sheet", styleSheet), ("script", script), ("font", font),
        ("raw", fetch | webSocket | other | ping),
        ("svg-document", svgDocument), ("media", media), ("popup", popup), ("ping", ping), ("fetch", fetch),
        ("websocket", webSocket), ("other", other | ping | cspReport), ("csp-report", cspReport),
    ]
    private static let table: [String: UInt32] = Dictionary(uniqueKeysWithValues: names)
    public static func flags(of name: String) -> UInt32? { table[name] }
}

public enum LoadTypeName {
    public static let firstParty: UInt32 = 0x4000
    public static let thirdParty: UInt32 = 0x8000
    public static let mask: UInt32 = 0xC000
    public static func flags(of name: String) -> UInt32? {
        switch name {
        case "first-party": return firstParty
        case "third-party": return thirdParty
        default: return nil
        }
    }
}

public enum LoadContextName {
    public static let topFrame: UInt32 = 0x10000
    public static let childFrame: UInt32 = 0x20000
    public static let mask: UInt32 = 0x30000
    public static func flags(of name: String) -> UInt32? {
        switch name {
        case "top-frame": return topFrame
        case "child-frame": return childFrame
        default: return nil
        }
    }
}

public enum ConditionFlags {
    public static let ifTopURL: UInt32 = 0x40000
    public static let unlessTopURL: UInt32 = 0x80000
    public static let ifFrameURL: UInt32 = 0x140000
    public static let unlessFrameURL: UInt32 = 0x180000
    public static let mask: UInt32 = 0x1C0000
}

/// Request methods are an enumerated value in bits 21-24, not a bit set.
public enum RequestMethodName {
    public static let all = ["get", "head", "options", "trace", "put", "delete", "post", "patch", "connect"]
    public static let mask: UInt32 = 0x1E00000
    /// WebKit's RequestMethod::Get and ::Post, the methods requests name most.
    public static let get = flags(at: 0)
    public static let post = flags(at: all.firstIndex(of: "post")!)
    public static func flags(of name: String) -> UInt32? {
        guard let i = all.firstIndex(of: name.lowercased()) else { return nil }
        return flags(at: i)
    }
    /// The value of `all[index]` in the method field (0 is RequestMethod::None).
    public static func flags(at index: Int) -> UInt32 { UInt32(index + 1) << 21 }
}

/// WebKit's AllResourceFlags (ResourceLoadInfo.h): every resource-type, load-type, load-context and condition
/// bit and the whole method field. The top-URL and frame-URL automata are run with it, and its method field
/// equals no single method, so a method-restricted rule never passes a condition test.
public let allResourceFlags: UInt32 =
    ResourceTypeName.mask | LoadTypeName.mask | LoadContextName.mask | ConditionFlags.mask | RequestMethodName.mask
