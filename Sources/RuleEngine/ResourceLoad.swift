// A request mapped to WebKit's ResourceLoadInfo
// (ResourceLoadInfo.cpp, ContentExtensionsBackend::processContentRuleListsForLoad).

import ContentRules

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
                    ResourceLoad(
                        url: url, rawURL: u, topURL: t, frameURL: f, names: names, requestMethod: request.requestMethod,
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
    init(
        url: CanonicalURL?, rawURL: UnsafeBufferPointer<UInt8>, topURL: UnsafeBufferPointer<UInt8>,
        top resolved: URLResolver.Top? = nil,
        frameURL: UnsafeBufferPointer<UInt8>?, names: LoadNames, requestMethod: String?, resolver: URLResolver
    ) {
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
        self.flags =
            type | (thirdParty ? LoadTypeName.thirdParty : LoadTypeName.firstParty)
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
                throw RequestError(
                    "unknown loadContext \"\(String(decoding: c, as: UTF8.self))\" (expected \"top-frame\" or "
                        + "\"child-frame\")"
                )
            }
        } else {
            topFrameContext = nil
        }
        guard let bits = ResourceTypeMapping.unresolvedTypeBit(utf8: resourceType) else {
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
        case "get", "GET": return RequestMethodName.get
        case "post", "POST": return RequestMethodName.post
        default:
            // ASCII case-insensitive only (no Unicode case mapping).
            for (i, m) in RequestMethodName.all.enumerated() where m.utf8.count == name.utf8.count {
                if zip(m.utf8, name.utf8).allSatisfy({ a, b in a == ((b >= 0x41 && b <= 0x5A) ? b | 0x20 : b) }) {
                    return RequestMethodName.flags(at: i)
                }
            }
            return 0
        }
    }
}
