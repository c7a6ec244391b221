// The request model of `radarblock match` and its mapping to WebKit's ResourceLoadInfo
// (ResourceLoadInfo.cpp, ContentExtensionsBackend::processContentRuleListsForLoad).

import ContentRules
import Domains
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

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

    /// The WebKit ResourceType bit for a request's type name; "document" needs the load context.
    public static func resourceType(_ name: String, mainFrameContext: Bool) -> UInt32? {
        var name = name
        return name.withUTF8 { resourceType(utf8: $0, mainFrameContext: mainFrameContext) }
    }

    /// As `resourceType(_:mainFrameContext:)`, for the name's UTF-8 bytes (a request line's, read in place).
    /// Bytes compare as String's `==` does here: every name is ASCII without K, `;` or `` ` ``, the only ASCII
    /// characters that another character is canonically equivalent to.
    public static func resourceType(utf8 name: UnsafeBufferPointer<UInt8>, mainFrameContext: Bool) -> UInt32? {
        bitOrDocument(utf8: name).map { resolve($0, mainFrameContext: mainFrameContext) }
    }

    /// The bit of a known name, 0 for "document".
    static func bitOrDocument(utf8 name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard let key = PackedName(name) else { return nil }
        for (packed, bits) in packedBits where packed == key { return bits }
        return nil
    }

    /// The bit of a `bitOrDocument` answer in a load context.
    static func resolve(_ bitOrDocument: UInt32, mainFrameContext: Bool) -> UInt32 {
        bitOrDocument != 0 ? bitOrDocument : (mainFrameContext ? ResourceTypeName.topDocument : ResourceTypeName.childDocument)
    }

    /// The table's names packed, with their bits (0: "document"), the most common first.
    private static let packedBits: [(PackedName, UInt32)] = {
        let first = ["script", "image", "xmlhttprequest", "fetch", "style-sheet", "stylesheet"]
        let rows = table.sorted { (first.firstIndex(of: $0.name) ?? first.count) < (first.firstIndex(of: $1.name) ?? first.count) }
        return rows.map { (PackedName($0.name)!, $0.webKit.contains("|") ? 0 : webKitTypes[$0.webKit]!) }
    }()

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

/// A name of up to 16 bytes as two words (and its length), compared without a loop: request names are short.
struct PackedName: Equatable {
    var low: UInt64 = 0, high: UInt64 = 0, count: Int

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= 16 else { return nil }
        count = bytes.count
        for (i, b) in bytes.enumerated() {
            if i < 8 { low |= UInt64(b) << (8 * UInt64(i)) } else { high |= UInt64(b) << (8 * UInt64(i - 8)) }
        }
    }

    init?(_ s: String) {
        var s = s
        guard let p = s.withUTF8({ PackedName($0) }) else { return nil }
        self = p
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
    /// Where the host of the main document URL and of the frame URL ends (0: an invalid URL, or no host):
    /// the condition automata cache what they read up to there.
    public let mainDocumentHostEnd: Int
    public let frameHostEnd: Int
    /// Request flags without the condition bits: type | load type | load context | method.
    public let flags: UInt32
    public let isData: Bool

    public init(_ request: MatchRequest, resolver: URLResolver? = nil) throws {
        try self.init(request, url: CanonicalURL.parse(request.url), resolver: resolver)
    }

    /// As `init(_:resolver:)`, with the request's URL already parsed (`url` is `CanonicalURL.parse(request.url)`).
    public init(_ request: MatchRequest, url: CanonicalURL?, resolver: URLResolver? = nil) throws {
        var (u, t, f) = (request.url, request.topURL, request.frameURL)
        let names = try LoadNames(resourceType: request.resourceType, loadContext: request.loadContext)
        self = u.withUTF8 { u in
            t.withUTF8 { t in
                func load(_ f: UnsafeBufferPointer<UInt8>?) -> ResourceLoad {
                    ResourceLoad(url: url, rawURL: u, topURL: t, frameURL: f, names: names, requestMethod: request.requestMethod,
                                 resolver: resolver ?? URLResolver())
                }
                if f == nil { return load(nil) }
                return f!.withUTF8 { load($0) }
            }
        }
    }

    /// A request given as its fields' UTF-8 bytes, with its URL already parsed (`url`, from `rawURL`) and its
    /// names checked: the path of `match --requests`, which builds no String for the URLs.
    /// `top` is `resolver.top(utf8: topURL)` when the caller resolved it already.
    init(url: CanonicalURL?, rawURL: UnsafeBufferPointer<UInt8>, topURL: UnsafeBufferPointer<UInt8>, top resolved: URLResolver.Top? = nil,
         frameURL: UnsafeBufferPointer<UInt8>?, names: LoadNames, requestMethod: String?, resolver: URLResolver)
    {
        let top = resolved ?? resolver.top(utf8: topURL)
        let frame = frameURL.map { resolver.frame(utf8: $0) } ?? top.url

        let mainFrameContext: Bool
        if let context = names.topFrameContext {
            mainFrameContext = context
        } else if let f = frameURL {
            mainFrameContext = (frame?.bytes ?? Array(f)) == (top.url?.bytes ?? Array(topURL))
        } else {
            mainFrameContext = true
        }
        let type = ResourceTypeMapping.resolve(names.typeBits, mainFrameContext: mainFrameContext)
        let method = requestMethod.map(Self.methodFlags) ?? 0

        // Evaluated with the URLs as given, whatever the type: WebKit's backend (actionsForResourceLoad) takes the
        // main document URL from its ResourceLoadInfo. A browser's own top-document load always has topURL == url
        // (the loader passes the navigation's URL as both); a request with another topURL is an artificial load,
        // and WebKit's tests (ContentExtensions.cpp, TopURL and DomainTriggers) evaluate those as given too.
        let mainDocumentString = top.url?.bytes ?? Array(topURL)
        // The frame URL is the initiating frame's document URL when valid, else the request URL.
        let frameString: [UInt8] = frame?.bytes ?? url?.bytes ?? Array(rawURL)
        self.mainDocumentHostEnd = top.url?.hostRange.upperBound ?? 0
        self.frameHostEnd = (frame ?? url)?.hostRange.upperBound ?? 0
        let thirdParty = resolver.isThirdParty(url, on: top)

        self.url = url
        self.mainDocumentURL = mainDocumentString
        self.frameURL = frameString
        self.isData = url?.isData ?? false
        self.flags = type | (thirdParty ? LoadTypeName.thirdParty : LoadTypeName.firstParty)
            | (mainFrameContext ? LoadContextName.topFrame : LoadContextName.childFrame) | method
    }

    /// The request errors that do not depend on the URLs: an unknown load context, then an unknown resource type.
    public static func checkNames(resourceType: String, loadContext: String?) throws {
        _ = try LoadNames(resourceType: resourceType, loadContext: loadContext)
    }
}

/// A request's resourceType and loadContext, checked (the request errors that do not depend on the URLs).
struct LoadNames {
    /// The WebKit ResourceType bit, 0 for "document" (the load context decides).
    let typeBits: UInt32
    /// "top-frame": true, "child-frame": false, not given: nil.
    let topFrameContext: Bool?

    /// Throws for an unknown load context, then for an unknown resource type.
    init(resourceType: UnsafeBufferPointer<UInt8>, loadContext: UnsafeBufferPointer<UInt8>?) throws {
        if let c = loadContext {
            switch PackedName(c) {
            case Self.topFrame: topFrameContext = true
            case Self.childFrame: topFrameContext = false
            default:
                throw RequestError("unknown loadContext \"\(String(decoding: c, as: UTF8.self))\" (expected \"top-frame\" or \"child-frame\")")
            }
        } else {
            topFrameContext = nil
        }
        guard let bits = ResourceTypeMapping.bitOrDocument(utf8: resourceType) else {
            throw RequestError("unknown resourceType \"\(String(decoding: resourceType, as: UTF8.self))\"")
        }
        typeBits = bits
    }

    init(resourceType: String, loadContext: String?) throws {
        var (type, context) = (resourceType, loadContext)
        self = try type.withUTF8 { type in
            if context == nil { return try LoadNames(resourceType: type, loadContext: nil) }
            return try context!.withUTF8 { try LoadNames(resourceType: type, loadContext: $0) }
        }
    }

    private static let topFrame = PackedName("top-frame")!, childFrame = PackedName("child-frame")!
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
    static func matches(domain: ArraySlice<UInt8>, url: CanonicalURL?) -> Bool {
        guard let url, !url.hostRange.isEmpty else { return domain.elementsEqual(nullOrigin) }
        let h = url.hostRange
        let n = domain.count
        guard h.count >= n else { return false }
        var i = 0
        let start = h.upperBound - n
        while i < n {
            if url.bytes[start + i] != domain[domain.startIndex + i] { return false }
            i += 1
        }
        return h.count == n || url.bytes[start - 1] == UInt8(ascii: ".")
    }

    /// True when `url`'s host lies outside every registrable domain that `top`'s host could have, so that the
    /// load is third party whatever the public-suffix list says. WebKit's registrable domain of a host is a
    /// suffix of it made of whole labels, and of at least two of them when the host has two: eTLD+1, or the
    /// host itself (a public suffix, localhost, an IP address). A URL whose host shares fewer whole trailing
    /// labels with the site's host than that is outside: a tracker on another top-level domain, most often.
    /// Only for a site host with no empty label (WebKit drops leading dots before the lookup).
    static func outsideEveryRegistrableDomain(of top: CanonicalURL, _ url: CanonicalURL) -> Bool {
        top.bytes.withUnsafeBufferPointer { t in
            url.bytes.withUnsafeBufferPointer { u in
                let (th, uh) = (top.hostRange, url.hostRange)
                guard !th.isEmpty, !uh.isEmpty else { return false }
                // Back over the common end, counting the labels it completes.
                var (i, j, labels) = (th.upperBound, uh.upperBound, 0)
                while i > th.lowerBound, j > uh.lowerBound, t[i - 1] == u[j - 1] {
                    i -= 1
                    j -= 1
                    if t[i] == UInt8(ascii: ".") { labels += 1 }
                }
                // One host is all of the common end, and the other has it as whole labels.
                if (i == th.lowerBound || t[i - 1] == UInt8(ascii: ".")) && (j == uh.lowerBound || u[j - 1] == UInt8(ascii: ".")) {
                    labels += 1
                }
                guard labels < 2 else { return false }
                // Two labels are required of the registrable domain when the site's host has them; with one,
                // only no common label at all rules the URL out. And no empty label anywhere in the site's host.
                var dots = 0, previous = UInt8(ascii: ".")
                for b in t[th] {
                    if b == UInt8(ascii: ".") {
                        if previous == UInt8(ascii: ".") { return false }
                        dots += 1
                    }
                    previous = b
                }
                guard previous != UInt8(ascii: ".") else { return false }
                return labels < min(2, dots + 1)
            }
        }
    }
}

/// Parses top and frame URLs once per run of equal values (requests of one page share them) and remembers
/// the registrable domains of their hosts (public-suffix lookups are the expensive part).
public final class URLResolver {
    public struct Top {
        public var url: CanonicalURL?
    }
    // Per thread, as LoadedRuleList's caches are (each engine copy has its own resolver): unchecked for the same reason.
    @exclusivity(unchecked) private var lastTopRaw: [UInt8]? = nil
    @exclusivity(unchecked) private var lastTop = Top(url: nil)
    @exclusivity(unchecked) private var lastFrameRaw: [UInt8]? = nil
    @exclusivity(unchecked) private var lastFrame: CanonicalURL? = nil
    /// Registrable domains by host: sites repeat across a corpus, and a corpus can name a great many.
    @exclusivity(unchecked) private var domains = ByteKeyCache<Int>(slots: 1 << 17)

    public init() {}

    public func top(_ raw: String) -> Top {
        var raw = raw
        return raw.withUTF8 { top(utf8: $0) }
    }

    public func top(utf8 raw: UnsafeBufferPointer<UInt8>) -> Top {
        top(utf8: raw) { CanonicalURL.parse(utf8: raw) }
    }

    /// As `top(utf8:)`, given `CanonicalURL.plainHost(raw)` (a caller that read it already).
    func top(utf8 raw: UnsafeBufferPointer<UInt8>, plainHost: CanonicalURL.PlainHost?) -> Top {
        top(utf8: raw) { CanonicalURL.parse(utf8: raw, plainHost: plainHost) }
    }

    private func top(utf8 raw: UnsafeBufferPointer<UInt8>, parsing parse: () -> CanonicalURL?) -> Top {
        if let l = lastTopRaw, Self.equal(l, raw) { return lastTop }
        let url = parse()
        lastTop = Top(url: url)
        Self.remember(raw, in: &lastTopRaw)
        return lastTop
    }

    public func frame(_ raw: String) -> CanonicalURL? {
        var raw = raw
        return raw.withUTF8 { frame(utf8: $0) }
    }

    public func frame(utf8 raw: UnsafeBufferPointer<UInt8>) -> CanonicalURL? {
        if let l = lastFrameRaw, Self.equal(l, raw) { return lastFrame }
        lastFrame = CanonicalURL.parse(utf8: raw)
        Self.remember(raw, in: &lastFrameRaw)
        return lastFrame
    }

    private static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { a in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }

    /// Keeps a copy of the last raw URL in storage that is reused.
    private static func remember(_ raw: UnsafeBufferPointer<UInt8>, in storage: inout [UInt8]?) {
        if storage == nil { storage = [] }
        storage!.removeAll(keepingCapacity: true)
        storage!.append(contentsOf: raw)
    }

    /// RegistrableDomain of the URL: eTLD+1, the host itself, or "nullOrigin" without a host.
    public func registrableDomain(of url: CanonicalURL?) -> ArraySlice<UInt8> {
        guard let url, let start = registrableDomainStart(of: url) else { return RegistrableDomainMatch.nullOrigin[...] }
        return url.bytes[start..<url.hostRange.upperBound]
    }

    /// WebKit's !RegistrableDomain(mainDocumentURL).matches(url): a load of `url` is third party on the site.
    /// Most tracker loads are ruled out by their hosts alone, without a public-suffix lookup (whose cache spans
    /// megabytes, and which costs thousands of instructions for each new site).
    public func isThirdParty(_ url: CanonicalURL?, on top: Top) -> Bool {
        if let site = top.url, let url, RegistrableDomainMatch.outsideEveryRegistrableDomain(of: site, url) { return true }
        return isThirdPartyByLookup(url, on: top)
    }

    /// The same answer, always from the public-suffix list (tests compare the two).
    func isThirdPartyByLookup(_ url: CanonicalURL?, on top: Top) -> Bool {
        !RegistrableDomainMatch.matches(domain: registrableDomain(of: top.url), url: url)
    }

    /// Where RegistrableDomain of the URL's host starts in `url.bytes` (nil: no host). WebKit's registrable
    /// domain is always a suffix of the host, so the cache keeps its offset in the host, not its bytes.
    func registrableDomainStart(of url: CanonicalURL) -> Int? {
        if url.hostRange.isEmpty { return nil }
        let h = url.hostRange
        return url.bytes.withUnsafeBufferPointer { b in
            let host = UnsafeBufferPointer(rebasing: b[h])
            if let offset = domains.get(host) { return h.lowerBound + Int(offset) }
            let domain = PublicSuffixLookup.webKitRegistrableDomain(url.host).utf8
            let offset = h.count - domain.count
            precondition(offset >= 0 && host[offset...].elementsEqual(domain), "a registrable domain is a suffix of its host")
            domains.put(host, offset) // a cached host is shorter than ByteKeyCache.keyWidth
            return h.lowerBound + offset
        }
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
