// The requests a decision diff reads, a chunk at a time, and the two simplest sources of them.

import RuleEngine

/// A corpus read in chunks: a JSONL file larger than memory, an array, or the derived corpus (`DerivedRequests`).
public protocol RequestStream: AnyObject {
    /// Appends up to `limit` requests to `chunk`; returns false once the stream is exhausted.
    func next(_ limit: Int, into chunk: inout [MatchRequest]) throws -> Bool

    /// The same requests as `next(_:into:)`, where a stream can give them as lines read in place (a JSONL
    /// file). What a decision diff reads: it builds the Strings of a flip's request only.
    func next(_ limit: Int, into chunk: inout [StreamedRequest]) throws -> Bool
}

/// A request of a stream: built, or a line of a mapped JSONL file (valid until the stream is closed), read in place.
public enum StreamedRequest: @unchecked Sendable {
    case request(MatchRequest)
    case line(UnsafeBufferPointer<UInt8>, ScannedRequestLine)

    /// The request itself (the Strings of a line's fields).
    public var request: MatchRequest {
        switch self {
        case .request(let r): return r
        case .line(let bytes, let scanned): return scanned.request(in: bytes)
        }
    }

    /// `ResourceLoad.checkNames` of the request.
    func checkNames() throws {
        switch self {
        case .request(let r): try ResourceLoad.checkNames(resourceType: r.resourceType, loadContext: r.loadContext)
        case .line(let bytes, let scanned): try scanned.checkNames(in: bytes)
        }
    }

    /// `ResourceLoad(request, url: url, resolver: resolver)`: `url` is the request's URL parsed.
    func load(url: CanonicalURL?, resolver: URLResolver) throws -> ResourceLoad {
        switch self {
        case .request(let r): return try ResourceLoad(r, url: url, resolver: resolver)
        case .line(let bytes, let scanned): return try scanned.load(in: bytes, url: url, resolver: resolver)
        }
    }

    /// `body` with the bytes of the request's URL.
    func withURL<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch self {
        case .request(let r):
            var url = r.url
            return url.withUTF8(body)
        case .line(let bytes, let scanned): return body(scanned.url(in: bytes))
        }
    }
}

extension RequestStream {
    /// Streams that hold built requests give them as they are.
    public func next(_ limit: Int, into chunk: inout [StreamedRequest]) throws -> Bool {
        var requests: [MatchRequest] = []
        let more = try next(limit, into: &requests)
        chunk.append(contentsOf: requests.lazy.map(StreamedRequest.request))
        return more
    }
}

public final class ArrayRequests: RequestStream {
    private let requests: [MatchRequest]
    private var position = 0

    public init(_ requests: [MatchRequest]) { self.requests = requests }

    public func next(_ limit: Int, into chunk: inout [MatchRequest]) -> Bool {
        let end = min(requests.count, position + limit)
        chunk.append(contentsOf: requests[position..<end])
        position = end
        return position < requests.count
    }
}

/// One stream after another (a JSONL file, then saved pages).
public final class ChainedRequests: RequestStream {
    private var streams: [RequestStream]

    public init(_ streams: [RequestStream]) { self.streams = streams }

    public func next(_ limit: Int, into chunk: inout [MatchRequest]) throws -> Bool {
        try next(into: &chunk) { try $0.next(limit, into: &$1) }
    }

    public func next(_ limit: Int, into chunk: inout [StreamedRequest]) throws -> Bool {
        try next(into: &chunk) { try $0.next(limit, into: &$1) }
    }

    /// `read` of the first stream left, or of the next when it gave nothing.
    private func next<T>(into chunk: inout [T], _ read: (RequestStream, inout [T]) throws -> Bool) throws -> Bool {
        while let first = streams.first {
            let before = chunk.count
            let more = try read(first, &chunk)
            if !more { streams.removeFirst() }
            if chunk.count > before || streams.isEmpty { return !streams.isEmpty }
        }
        return false
    }
}
