// The request model of `radarblock match` and its mapping to WebKit's ResourceLoadInfo
// (ResourceLoadInfo.cpp, ContentExtensionsBackend::processContentRuleListsForLoad).

import ContentRules
import Domains
import StrictJSON

/// One load as the caller describes it (DESIGN.md: the `match --requests` line).
public struct MatchRequest: Sendable, Hashable {
    public var url: String
    public var topURL: String
    /// The URL of the frame that issues the load; nil means the top URL.
    public var frameURL: String?
    /// A WebKit or browser-extension resource type name (see `ResourceTypeMapping`).
    public var resourceType: String
    /// "top-frame" or "child-frame"; nil means: top-frame when the frame URL is the top URL, else child-frame.
    public var loadContext: String?
    /// An HTTP method name; nil or an unknown method means WebKit's RequestMethod::None.
    public var requestMethod: String?

    public init(url: String, topURL: String, frameURL: String? = nil, resourceType: String,
                loadContext: String? = nil, requestMethod: String? = nil)
    {
        self.url = url
        self.topURL = topURL
        self.frameURL = frameURL
        self.resourceType = resourceType
        self.loadContext = loadContext
        self.requestMethod = requestMethod
    }
}

extension MatchRequest {
    /// The request as a `match --requests` line's object (absent members left out).
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["url"] = .string(url)
        o["topURL"] = .string(topURL)
        if let f = frameURL { o["frameURL"] = .string(f) }
        o["resourceType"] = .string(resourceType)
        if let c = loadContext { o["loadContext"] = .string(c) }
        if let m = requestMethod { o["requestMethod"] = .string(m) }
        return .object(o)
    }
}

public struct RequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Resource type names accepted in requests, and the single WebKit ResourceType bit each becomes.
/// WebKit classifies every load as exactly one type (ResourceLoadInfo.cpp `toResourceType` and the
/// separately issued checks for pings, CSP reports, WebSockets and popups). There is no "object" or
/// "object_subrequest": WebKit types <object>/<embed> loads by what they load (document, image, media...),
/// as the TDS conversion also decides (RuleBuilder's TDSResourceTypes), so a request names that type instead.
public enum ResourceTypeMapping {
    /// (request name, WebKit type name it maps to, why). "document" is resolved by load context.
    public static let table: [(name: String, webKit: String, note: String)] = [
        ("top-document", "top-document", "main-frame document"),
        ("child-document", "child-document", "document in a frame"),
        ("image", "image", ""),
        ("style-sheet", "style-sheet", ""),
        ("script", "script", ""),
        ("font", "font", ""),
        ("svg-document", "svg-document", "SVG document resource"),
        ("media", "media", "audio, video, text tracks"),
        ("popup", "popup", "window.open"),
        ("ping", "ping", "<a ping>, hyperlink auditing"),
        ("fetch", "fetch", "fetch(), XMLHttpRequest"),
        ("websocket", "websocket", "WebSocket handshake"),
        ("csp-report", "csp-report", "CSP/COOP violation report"),
        ("other", "other", "everything else"),
        ("document", "top-document|child-document", "top-document in the top frame, else child-document"),
        ("main_frame", "top-document", ""),
        ("sub_frame", "child-document", ""),
        ("subdocument", "child-document", ""),
        ("stylesheet", "style-sheet", ""),
        ("xslt", "style-sheet", "XSL style sheets load as style sheets"),
        ("xmlhttprequest", "fetch", "raw loads by XHR/fetch are Fetch"),
        ("imageset", "image", ""),
        ("beacon", "other", "navigator.sendBeacon is a Beacon resource: Other"),
        ("csp_report", "csp-report", ""),
        ("manifest", "other", "application manifests"),
        ("icon", "other", "favicons"),
        ("eventsource", "other", "raw loads not issued by XHR/fetch"),
    ]

    /// WebKit's single ResourceType bits by name (a trigger's "other" also covers ping and csp-report; a load's does not).
    static let webKitTypes: [String: UInt32] = [
        "top-document": ResourceTypeName.topDocument, "child-document": ResourceTypeName.childDocument,
        "image": ResourceTypeName.image, "style-sheet": ResourceTypeName.styleSheet, "script": ResourceTypeName.script,
        "font": ResourceTypeName.font, "svg-document": ResourceTypeName.svgDocument, "media": ResourceTypeName.media,
        "popup": ResourceTypeName.popup, "ping": ResourceTypeName.ping, "fetch": ResourceTypeName.fetch,
        "websocket": ResourceTypeName.webSocket, "csp-report": ResourceTypeName.cspReport, "other": ResourceTypeName.other,
    ]

    private static let bits: [String: UInt32] = {
        var d: [String: UInt32] = [:]
        for (name, webKit, _) in table where !webKit.contains("|") { d[name] = webKitTypes[webKit]! }
        return d
    }()

    /// The WebKit ResourceType bit for a request's type name; "document" needs the load context.
    public static func resourceType(_ name: String, mainFrameContext: Bool) -> UInt32? {
        // The common names without hashing (this runs once per request).
        switch name {
        case "script": return ResourceTypeName.script
        case "image": return ResourceTypeName.image
        case "style-sheet", "stylesheet": return ResourceTypeName.styleSheet
        case "xmlhttprequest", "fetch": return ResourceTypeName.fetch
        case "sub_frame", "subdocument", "child-document": return ResourceTypeName.childDocument
        case "main_frame", "top-document": return ResourceTypeName.topDocument
        case "document": return mainFrameContext ? ResourceTypeName.topDocument : ResourceTypeName.childDocument
        default: return bits[name]
        }
    }

    /// The help text's table.
    public static var helpTable: String {
        var s = ""
        for (name, webKit, note) in table {
            let left = "  " + name + String(repeating: " ", count: max(1, 18 - name.count))
            s += left + "-> " + webKit + (note.isEmpty ? "" : "  (" + note + ")") + "\n"
        }
        return s
    }
}

/// WebKit's AllResourceFlags (ResourceLoadInfo.h): what the top-URL and frame-URL automata are run with.
public let webKitAllResourceFlags: UInt32 = 0x3FFF | 0xC000 | 0x30000 | 0x1C0000 | 0x1E00000

/// A request resolved into what WebKit's backend looks at (ResourceLoadInfo).
public struct ResourceLoad: Sendable {
    /// nil when the URL is invalid: WebKit then reports no actions at all.
    public let url: CanonicalURL?
    /// `URL::string()` of the main document URL (the input itself when it is not a valid URL).
    public let mainDocumentURL: [UInt8]
    public let frameURL: [UInt8]
    /// Request flags without the condition bits: type | load type | load context | method.
    public let flags: UInt32
    public let isData: Bool

    public init(_ request: MatchRequest, resolver: URLResolver? = nil) throws {
        let resolver = resolver ?? URLResolver()
        let url = CanonicalURL.parse(request.url)
        let top = resolver.top(request.topURL)
        let frame = request.frameURL.map { resolver.frame($0) } ?? top.url

        let mainFrameContext: Bool
        switch request.loadContext {
        case nil:
            if let f = request.frameURL {
                mainFrameContext = (frame?.bytes ?? Array(f.utf8)) == (top.url?.bytes ?? Array(request.topURL.utf8))
            } else {
                mainFrameContext = true
            }
        case "top-frame": mainFrameContext = true
        case "child-frame": mainFrameContext = false
        case let other?: throw RequestError("unknown loadContext \"\(other)\" (expected \"top-frame\" or \"child-frame\")")
        }
        guard let type = ResourceTypeMapping.resourceType(request.resourceType, mainFrameContext: mainFrameContext) else {
            throw RequestError("unknown resourceType \"\(request.resourceType)\"")
        }
        let method = request.requestMethod.map(Self.methodFlags) ?? 0

        // Evaluated with the URLs as given, whatever the type: WebKit's backend (actionsForResourceLoad) takes the
        // main document URL from its ResourceLoadInfo. A browser's own top-document load always has topURL == url
        // (the loader passes the navigation's URL as both); a request with another topURL is an artificial load,
        // and WebKit's tests (ContentExtensions.cpp, TopURL and DomainTriggers) evaluate those as given too.
        let mainDocumentString = top.url?.bytes ?? Array(request.topURL.utf8)
        let mainDomain = top.registrableDomain
        // The frame URL is the initiating frame's document URL when valid, else the request URL.
        let frameString: [UInt8] = frame?.bytes ?? url?.bytes ?? Array(request.url.utf8)
        let thirdParty = !RegistrableDomainMatch.matches(domain: mainDomain, url: url)

        self.url = url
        self.mainDocumentURL = mainDocumentString
        self.frameURL = frameString
        self.isData = url?.isData ?? false
        self.flags = type | (thirdParty ? LoadTypeName.thirdParty : LoadTypeName.firstParty)
            | (mainFrameContext ? LoadContextName.topFrame : LoadContextName.childFrame) | method
    }
}

extension ResourceLoad {
    /// WebKit's readRequestMethod (ASCII case-insensitive); any other method is RequestMethod::None.
    static func methodFlags(_ name: String) -> UInt32 {
        switch name {
        case "get", "GET": return 0x200000
        case "post", "POST": return 0xE00000
        default:
            // ASCII case-insensitive only (no Unicode case mapping).
            for (i, m) in RequestMethodName.all.enumerated() where m.utf8.count == name.utf8.count {
                if zip(m.utf8, name.utf8).allSatisfy({ a, b in a == ((b >= 0x41 && b <= 0x5A) ? b | 0x20 : b) }) { return UInt32(i + 1) << 21 }
            }
            return 0
        }
    }
}

/// WebKit's RegistrableDomain(mainDocumentURL).matches(resourceURL) on canonical bytes.
enum RegistrableDomainMatch {
    static let nullOrigin = Array("nullOrigin".utf8)

    /// True when the URL's host is the registrable domain or a subdomain of it (first party).
    static func matches(domain: [UInt8], url: CanonicalURL?) -> Bool {
        guard let url, !url.hostRange.isEmpty else { return domain == nullOrigin }
        let h = url.hostRange
        let n = domain.count
        guard h.count >= n else { return false }
        var i = 0
        let start = h.upperBound - n
        while i < n {
            if url.bytes[start + i] != domain[i] { return false }
            i += 1
        }
        return h.count == n || url.bytes[start - 1] == UInt8(ascii: ".")
    }
}

/// Parses top and frame URLs once per distinct value (requests of one page share them) and remembers
/// their registrable domains (public-suffix lookups are the expensive part).
public final class URLResolver {
    public struct Top {
        public var url: CanonicalURL?
        /// RegistrableDomain of the URL: eTLD+1, the host itself, or "nullOrigin" without a host.
        public var registrableDomain: [UInt8]
    }
    private var lastTopRaw: String? = nil
    private var lastTop = Top(url: nil, registrableDomain: RegistrableDomainMatch.nullOrigin)
    private var lastFrameRaw: String? = nil
    private var lastFrame: CanonicalURL? = nil
    private var domains: [String: [UInt8]] = [:]
    private var tops: [String: Top] = [:]

    public init() {}

    public func top(_ raw: String) -> Top {
        if let l = lastTopRaw, l == raw { return lastTop }
        if let t = tops[raw] {
            lastTop = t
        } else {
            let url = CanonicalURL.parse(raw)
            lastTop = Top(url: url, registrableDomain: url.map(registrableDomain(of:)) ?? RegistrableDomainMatch.nullOrigin)
            if tops.count >= 256 { tops.removeAll(keepingCapacity: true) }
            tops[raw] = lastTop
        }
        lastTopRaw = raw
        return lastTop
    }

    public func frame(_ raw: String) -> CanonicalURL? {
        if let l = lastFrameRaw, l == raw { return lastFrame }
        lastFrame = CanonicalURL.parse(raw)
        lastFrameRaw = raw
        return lastFrame
    }

    public func registrableDomain(of url: CanonicalURL) -> [UInt8] {
        if url.hostRange.isEmpty { return RegistrableDomainMatch.nullOrigin }
        let host = url.host
        if let d = domains[host] { return d }
        let d = Array(PublicSuffixLookup.webKitRegistrableDomain(host).utf8)
        // Sites repeat across a corpus; public-suffix lookups are the costly part of resolving a request.
        if domains.count >= 1 << 16 { domains.removeAll(keepingCapacity: true) }
        domains[host] = d
        return d
    }
}

enum PublicSuffixLookup {
    /// PublicSuffixStore::topPrivatelyControlledDomain as RegistrableDomain uses it: localhost and IP
    /// addresses are themselves; a host that is a public suffix or a single label is itself.
    static func webKitRegistrableDomain(_ host: String) -> String {
        if host == "localhost" { return host }
        var h = Substring(host)
        while h.hasPrefix(".") { h = h.dropFirst() }
        if h.isEmpty { return host }
        return PublicSuffixList.shared.webKitRegistrableDomain(host: String(h))
    }
}

// MARK: - JSONL decoding

extension MatchRequest {
    /// Decodes one `match --requests` line.
    public static func decode(line: UnsafeRawBufferPointer) throws -> MatchRequest {
        if let request = RequestLineScanner.decode(line) { return request } // the common flat line, without a JSONValue
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes: line, maximumDepth: 16)
        } catch let e as JSONParseError {
            throw RequestError("invalid JSON: \(e.message) at column \(e.column)")
        }
        return try decode(value)
    }

    public static func decode(_ value: JSONValue) throws -> MatchRequest {
        guard case .object(let o) = value else { throw RequestError("a request must be a JSON object, not \(value.typeName)") }
        func string(_ key: String, required: Bool) throws -> String? {
            guard let v = o[key] else {
                if required { throw RequestError("missing \"\(key)\"") }
                return nil
            }
            if case .null = v, !required { return nil }
            guard case .string(let s) = v else { throw RequestError("\"\(key)\" must be a string, not \(v.typeName)") }
            return s
        }
        return MatchRequest(
            url: try string("url", required: true)!,
            topURL: try string("topURL", required: true)!,
            frameURL: try string("frameURL", required: false),
            resourceType: try string("resourceType", required: true)!,
            loadContext: try string("loadContext", required: false),
            requestMethod: try string("requestMethod", required: false))
    }
}
