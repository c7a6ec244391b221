// Inputs come from files or http(s) URLs. For URLs we keep a cache directory so that nightly runs make
// conditional requests (If-None-Match / If-Modified-Since) and a 304 reuses the cached body; ETag and
// Last-Modified are recorded in the manifest. Timeouts and retries with backoff make a flaky server a
// clear error naming the URL and the HTTP status, never a hang. A download is bounded in time (the timeout
// covers the whole body, not only the wait for the first byte) and in size (the cap counts the decoded
// bytes, so a gzip bomb stops at the cap too): an endless or huge body is an error, not a dead machine.

import Foundation
import CHTTPFetch
import Digest
import FileIO

public struct FetchedInput: Sendable {
    /// What the user gave: a path or a URL.
    public let source: String
    public let bytes: [UInt8]
    public let etag: String?
    public let lastModified: String?
    public let sha256: String
    /// True when the server answered 304 Not Modified and the cached copy was used.
    public let notModified: Bool
}

public struct FetchError: Error, CustomStringConvertible {
    public let source: String
    public let reason: String
    public var description: String { "\(source): \(reason)" }
}

public struct FetchOptions: Sendable {
    public var cacheDirectory: String?
    public var timeout: TimeInterval = 30
    public var retries: Int = 3
    /// Delay before the first retry; doubles each time.
    public var backoff: TimeInterval = 0.5
    /// Largest body accepted, in bytes after content decoding.
    public var maxBytes: Int = FetchOptions.defaultMaxBytes
    /// 64 MiB: DuckDuckGo's largest TDS is a few MB, so this leaves room for growth but not for a runaway server.
    public static let defaultMaxBytes = 64 << 20
    public init(
        cacheDirectory: String? = nil, timeout: TimeInterval = 30, retries: Int = 3, backoff: TimeInterval = 0.5,
        maxBytes: Int = FetchOptions.defaultMaxBytes
    ) {
        self.cacheDirectory = cacheDirectory
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.maxBytes = maxBytes
    }
}

public enum InputFetcher {
    public static func isURL(_ source: String) -> Bool {
        source.hasPrefix("http://") || source.hasPrefix("https://")
    }

    public static func fetch(_ source: String, options: FetchOptions = FetchOptions()) throws -> FetchedInput {
        guard isURL(source) else {
            let bytes = try FileIO.read(source)
            return FetchedInput(
                source: source, bytes: bytes, etag: nil, lastModified: nil,
                sha256: Digest.hex(.sha256, bytes), notModified: false)
        }
        guard let url = URL(string: source) else { throw FetchError(source: source, reason: "not a valid URL") }
        let cache = options.cacheDirectory.map { CacheEntry(directory: $0, url: source) }
        let cached = cache?.load()

        var attempt = 0
        var delay = options.backoff
        while true {
            attempt += 1
            let outcome = perform(
                url.absoluteString, ifNoneMatch: cached?.etag, ifModifiedSince: cached?.lastModified,
                timeout: options.timeout, maxBytes: options.maxBytes)
            switch outcome {
            case .tooLarge(let limit):
                // The same server sends the same body again: retrying only wastes the night.
                throw FetchError(
                    source: source,
                    reason: "the body exceeds the download size cap of \(limit) bytes (--max-download-size)")
            case .response(let status, let headers, let body):
                if status == 304, let cached {
                    return FetchedInput(
                        source: source, bytes: cached.body, etag: cached.etag, lastModified: cached.lastModified,
                        sha256: Digest.hex(.sha256, cached.body), notModified: true)
                }
                if (200..<300).contains(status) {
                    let etag = headers["etag"]
                    let lastModified = headers["last-modified"]
                    try cache?.store(body: body, etag: etag, lastModified: lastModified)
                    return FetchedInput(
                        source: source, bytes: body, etag: etag, lastModified: lastModified,
                        sha256: Digest.hex(.sha256, body), notModified: false)
                }
                // Client errors will not get better by retrying.
                if (400..<500).contains(status) && status != 408 && status != 429 {
                    throw FetchError(source: source, reason: "HTTP \(status) \(statusText(status))")
                }
                if attempt > options.retries {
                    throw FetchError(
                        source: source, reason: "HTTP \(status) \(statusText(status)) after \(attempt) attempts")
                }
            case .failure(let reason):
                if attempt > options.retries {
                    throw FetchError(source: source, reason: "\(reason) after \(attempt) attempts")
                }
            }
            Thread.sleep(forTimeInterval: delay)
            delay *= 2
        }
    }

    /// The reason phrase of common statuses, for messages.
    static func statusText(_ status: Int) -> String {
        let known: [Int: String] = [
            400: "bad request", 401: "unauthorized", 403: "forbidden", 404: "not found",
            408: "request timeout", 410: "gone", 429: "too many requests",
            500: "internal server error", 502: "bad gateway", 503: "service unavailable",
            504: "gateway timeout",
        ]
        return known[status] ?? (status >= 500 ? "server error" : "error")
    }

    private enum Outcome {
        case response(status: Int, headers: [String: String], body: [UInt8])
        case failure(String)
        case tooLarge(Int)
    }

    /// One GET through libcurl (CHTTPFetch): URLSession on Linux buffers a fast body far beyond any cap before
    /// a delegate can cancel it (an endless body reached 450 MB and a 1 GB gzip bomb 1.1 GB with a 64 MB cap),
    /// while curl's write callback stops the transfer at the cap itself.
    private static func perform(
        _ url: String, ifNoneMatch: String?, ifModifiedSince: String?,
        timeout: TimeInterval, maxBytes: Int
    ) -> Outcome {
        var result = rb_fetch_result()
        defer { rb_fetch_free(&result) }
        let code = rb_fetch(url, ifNoneMatch, ifModifiedSince, Int(max(timeout * 1000, 1)), maxBytes, &result)
        switch Int(code) {
        case Int(RB_FETCH_OK.rawValue):
            var headers: [String: String] = [:]
            if let etag = result.etag { headers["etag"] = String(cString: etag) }
            if let lm = result.last_modified { headers["last-modified"] = String(cString: lm) }
            let body = result.length == 0 ? [] : Array(UnsafeBufferPointer(start: result.body, count: result.length))
            return .response(status: result.status, headers: headers, body: body)
        case Int(RB_FETCH_TOO_LARGE.rawValue):
            return .tooLarge(maxBytes)
        case Int(RB_FETCH_TIMED_OUT.rawValue):
            return .failure("timed out after \(Int(timeout)) s (the timeout covers the whole body)")
        default:
            let message = withUnsafeBytes(of: result.error) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            return .failure(message)
        }
    }
}

/// One cached download: body plus validators, stored under a name derived from the URL.
private struct CacheEntry {
    let bodyPath: String
    let metaPath: String

    init(directory: String, url: String) {
        let key = String(Digest.hex(.sha256, url).prefix(32))
        bodyPath = directory + "/" + key + ".body"
        metaPath = directory + "/" + key + ".json"
    }

    struct Loaded { let body: [UInt8]; let etag: String?; let lastModified: String? }

    func load() -> Loaded? {
        guard let body = try? FileIO.read(bodyPath), let meta = try? FileIO.read(metaPath),
            let obj = try? JSONSerialization.jsonObject(with: Data(meta)) as? [String: Any],
            obj["sha256"] as? String == Digest.hex(.sha256, body)
        else { return nil } // a damaged cache entry is simply not used
        return Loaded(body: body, etag: obj["etag"] as? String, lastModified: obj["lastModified"] as? String)
    }

    func store(body: [UInt8], etag: String?, lastModified: String?) throws {
        let dir = (bodyPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var meta: [String: Any] = ["sha256": Digest.hex(.sha256, body)]
        if let etag { meta["etag"] = etag }
        if let lastModified { meta["lastModified"] = lastModified }
        try FileIO.write(body, to: bodyPath)
        try FileIO.write(Array(try JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys])), to: metaPath)
    }
}
