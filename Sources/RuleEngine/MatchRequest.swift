// The request model of `radarblock match`: one `match --requests` line, its JSON form and its decoding.

import StrictJSON

/// One load as the caller describes it: a `match --requests` line.
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

    public init(
        url: String, topURL: String, frameURL: String? = nil, resourceType: String,
        loadContext: String? = nil, requestMethod: String? = nil
    ) {
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
        guard case .object(let o) = value else {
            throw RequestError("a request must be a JSON object, not \(value.typeName)")
        }
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
