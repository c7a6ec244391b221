// The requests a decision diff reads, a chunk at a time, and the two simplest sources of them.

import RuleEngine

/// A corpus read in chunks: a JSONL file larger than memory, an array, or the derived corpus (`DerivedRequests`).
public protocol RequestStream: AnyObject {
    /// Appends up to `limit` requests to `chunk`; returns false once the stream is exhausted.
    func next(_ limit: Int, into chunk: inout [MatchRequest]) throws -> Bool
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
        while let first = streams.first {
            let before = chunk.count
            let more = try first.next(limit, into: &chunk)
            if !more { streams.removeFirst() }
            if chunk.count > before || streams.isEmpty { return !streams.isEmpty }
        }
        return false
    }
}
