// Request corpora as JSONL files: reading `diff --requests` (the format of `match --requests`) and
// writing `diff --save-corpus`.

import FileIO
import RuleEngine
import StrictJSON

/// JSONL requests read in chunks; a bad line is an error naming the line (a diff must not silently check
/// fewer requests). Blank lines are skipped.
public final class JSONLRequests: RequestStream {
    public let path: String
    private var reader: LineReader

    public init(path: String) throws {
        self.path = path
        reader = try LineReader(path: path)
    }

    public func close() { reader.close() }

    public func next(_ limit: Int, into chunk: inout [MatchRequest]) throws -> Bool {
        var taken = 0
        while taken < limit {
            guard let line = try reader.next() else { return false }
            if line.tooLong { throw FileError(path: path, reason: "line \(line.number): the line is too long") }
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                chunk.append(try line.bytes.withUnsafeBytes { try MatchRequest.decode(line: $0) })
            } catch let e as RequestError {
                throw FileError(path: path, reason: "line \(line.number): \(e.message)")
            }
            taken += 1
        }
        return true
    }
}

/// Passes requests through while writing them as JSONL into a temporary beside `path`, renamed at the end.
public final class SavedRequests: RequestStream {
    private let inner: RequestStream
    private let writer: FileIO.StreamWriter
    private var buffer: [UInt8] = []

    public init(_ inner: RequestStream, path: String) throws {
        self.inner = inner
        writer = try FileIO.StreamWriter(path: path)
    }

    public func next(_ limit: Int, into chunk: inout [MatchRequest]) throws -> Bool {
        let start = chunk.count
        let more = try inner.next(limit, into: &chunk)
        buffer.removeAll(keepingCapacity: true)
        for r in chunk[start...] {
            JSONWriter.write(r.jsonValue, into: &buffer)
            buffer.append(0x0A)
        }
        try writer.write(buffer)
        return more
    }

    /// Renames the written file into place once every request went through.
    public func commit() throws { try writer.commit() }
}
