// Request corpora as JSONL files: reading `diff --requests` (the format of `match --requests`) and
// writing `diff --save-corpus`.

import FileIO
import RuleEngine
import StrictJSON

/// JSONL requests read in chunks; a bad line is an error naming the line (a diff must not silently check
/// fewer requests). Blank lines are skipped. A regular file is mapped (`MappedLines`), so that its flat lines
/// can be given in place (`StreamedRequest.line`); anything else is read (`LineReader`).
public final class JSONLRequests: RequestStream {
    public let path: String
    private var mapped: MappedLines?
    private var reader: LineReader?
    /// Where the chunk given last starts in the mapped file: a stream is read a chunk ahead of its use.
    private var given = 0

    /// `shrinkStatus`: the exit status when the file shrinks while it is mapped (`MappedLines.open`).
    public init(path: String, shrinkStatus: Int32 = 1) throws {
        self.path = path
        mapped = try MappedLines.open(path: path, shrinkStatus: shrinkStatus)
        if mapped == nil { reader = try LineReader(path: path) }
    }

    /// Unmaps or closes the file: no line given in place may be used after.
    public func close() {
        mapped?.close()
        reader?.close()
    }

    public func next(_ limit: Int, into chunk: inout [MatchRequest]) throws -> Bool {
        try next(limit, inPlace: false) { chunk.append($0.request) }
    }

    /// Flat lines of a mapped file are given in place. The lines before the chunk given last leave memory
    /// (`MappedLines.release`): a decision diff has answered them; were one read again, the kernel reads it back.
    public func next(_ limit: Int, into chunk: inout [StreamedRequest]) throws -> Bool {
        if mapped != nil {
            mapped!.release(before: given)
            given = mapped!.offset
        }
        return try next(limit, inPlace: mapped != nil) { chunk.append($0) }
    }

    /// Gives up to `limit` requests to `add`; false once the file is exhausted.
    private func next(_ limit: Int, inPlace: Bool, _ add: (StreamedRequest) -> Void) throws -> Bool {
        var taken = 0
        while taken < limit {
            let request: StreamedRequest?
            if mapped != nil {
                guard let line = mapped!.next() else { return false }
                request = try self.request(line.bytes, number: line.number, tooLong: line.tooLong, inPlace: inPlace)
            } else {
                guard let line = try reader!.next() else { return false }
                request = try line.bytes.withUnsafeBufferPointer {
                    try self.request($0, number: line.number, tooLong: line.tooLong, inPlace: false)
                }
            }
            guard let request else { continue }
            add(request)
            taken += 1
        }
        return true
    }

    /// The request of one line (nil: a blank line), in place when asked and the line is flat.
    private func request(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, tooLong: Bool, inPlace: Bool) throws
        -> StreamedRequest?
    {
        if tooLong { throw FileError(path: path, reason: "line \(number): the line is too long") }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        if inPlace, let scanned = ScannedRequestLine(bytes) { return .line(bytes, scanned) }
        do {
            return .request(try MatchRequest.decode(line: UnsafeRawBufferPointer(bytes)))
        } catch let e as RequestError {
            throw FileError(path: path, reason: "line \(number): \(e.message)")
        }
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
