// The fast path of MatchRequest.decode(line:). Request lines are almost always a flat JSON object of
// plain strings; building a general JSONValue tree (a dictionary-backed JSONObject per line) for them
// cost several times more than matching the request. The scanner reads such a line directly and
// answers nil for anything else (escapes, numbers, nesting, a byte-order mark, a missing or null
// required key, invalid UTF-8, malformed JSON), so the general parser still decides every other
// line, with its exact errors. Duplicate keys: the last one wins, as in JSONObject.

import CSystem
#if canImport(Glibc)
    import Glibc
#endif

enum RequestLineScanner {
    /// The byte ranges of a scanned line's values (valid UTF-8, no escapes); nil: absent or null.
    struct Fields {
        var url: Range<Int>
        var topURL: Range<Int>
        var resourceType: Range<Int>
        var frameURL: Range<Int>?
        var loadContext: Range<Int>?
        var requestMethod: Range<Int>?

        /// The request these fields of `line` give, with a String per value.
        func request(in line: UnsafeRawBufferPointer) -> MatchRequest {
            func string(_ r: Range<Int>) -> String {
                String(decoding: UnsafeRawBufferPointer(rebasing: line[r]), as: UTF8.self)
            }
            return MatchRequest(
                url: string(url), topURL: string(topURL), frameURL: frameURL.map(string),
                resourceType: string(resourceType),
                loadContext: loadContext.map(string), requestMethod: requestMethod.map(string))
        }
    }

    static func decode(_ line: UnsafeRawBufferPointer) -> MatchRequest? {
        scan(line)?.request(in: line)
    }

    /// Where a plain string's bytes end in `bytes` (after its opening quote): the offset of the first '"', '\\'
    /// or control byte (the count when there is none), and whether a byte of 0x80 or above comes before it.
    @inline(__always) static func stringEnd(_ bytes: UnsafeRawBufferPointer) -> (end: Int, high: Bool) {
        guard let p = bytes.baseAddress else { return (0, false) }
        var high: Int32 = 0
        let end = rb_json_string_end(p.assumingMemoryBound(to: UInt8.self), bytes.count, &high)
        return (end, high != 0)
    }

    static func scan(_ line: UnsafeRawBufferPointer) -> Fields? {
        guard var c = Cursor(line) else { return nil }
        var values = FoundValues()
        c.skipWhitespace()
        guard c.take(UInt8(ascii: "{")) else { return nil }
        c.skipWhitespace()
        if c.at(UInt8(ascii: "}")) { return nil } // {}: the general path reports the missing key
        while true {
            // A non-ASCII key must still be valid UTF-8 (the general parser rejects the line otherwise).
            guard let key = c.plainString(), c.lastStringIsValid(key) else { return nil }
            c.skipWhitespace()
            guard c.take(UInt8(ascii: ":")) else { return nil }
            c.skipWhitespace()
            var value: Range<Int>? = nil
            if let r = c.plainString() {
                guard c.lastStringIsValid(r) else { return nil }
                value = r
            } else if !c.takeNull() {
                return nil
            }
            values.assign(value, to: key, in: c.base)
            c.skipWhitespace()
            if c.take(UInt8(ascii: ",")) {
                c.skipWhitespace()
                continue
            }
            guard c.take(UInt8(ascii: "}")) else { return nil }
            break
        }
        c.skipWhitespace()
        guard c.atEnd, let url = values.url, let top = values.topURL, let type = values.resourceType else { return nil }
        return Fields(
            url: url, topURL: top, resourceType: type, frameURL: values.frameURL,
            loadContext: values.loadContext, requestMethod: values.requestMethod)
    }

    /// The values of the six request keys met so far (nil: absent or null; the last of duplicate keys wins).
    struct FoundValues {
        var url: Range<Int>? = nil, topURL: Range<Int>? = nil, resourceType: Range<Int>? = nil
        var frameURL: Range<Int>? = nil, loadContext: Range<Int>? = nil, requestMethod: Range<Int>? = nil

        /// Keeps `value` when `key` (a range of the line at `base`) is a request key.
        @inline(__always) mutating func assign(_ value: Range<Int>?, to key: Range<Int>, in base: UnsafePointer<UInt8>)
        {
            // Static strings: no array, and no lazy global to check on every key.
            func equals(_ name: StaticString) -> Bool { memcmp(base + key.lowerBound, name.utf8Start, key.count) == 0 }
            // The six keys have six lengths: one comparison per key.
            switch key.count {
            case 3: if equals("url") { url = value }
            case 6: if equals("topURL") { topURL = value }
            case 12: if equals("resourceType") { resourceType = value }
            case 8: if equals("frameURL") { frameURL = value }
            case 11: if equals("loadContext") { loadContext = value }
            case 13: if equals("requestMethod") { requestMethod = value }
            default: break
            }
        }
    }

    /// A read position in a line.
    struct Cursor {
        let line: UnsafeRawBufferPointer
        let base: UnsafePointer<UInt8>
        let n: Int
        var i = 0
        /// Whether the last plain string read was all ASCII.
        var ascii = true

        @inline(__always) init?(_ line: UnsafeRawBufferPointer) {
            guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            self.line = line
            self.base = base
            n = line.count
        }

        @inline(__always) var atEnd: Bool { i == n }
        @inline(__always) func at(_ byte: UInt8) -> Bool { i < n && line[i] == byte }

        /// Consumes `byte` when it is next.
        @inline(__always) mutating func take(_ byte: UInt8) -> Bool {
            guard at(byte) else { return false }
            i += 1
            return true
        }

        @inline(__always) mutating func skipWhitespace() {
            while i < n {
                switch line[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        /// At an opening quote: the range of the string's bytes (the quote after it is consumed), or nil
        /// when the string has an escape or a control character or does not end.
        @inline(__always) mutating func plainString() -> Range<Int>? {
            guard at(UInt8(ascii: "\"")) else { return nil }
            let start = i + 1
            let (end, high) = stringEnd(UnsafeRawBufferPointer(rebasing: line[start...]))
            guard start + end < n, line[start + end] == UInt8(ascii: "\"") else { return nil }
            i = start + end + 1
            ascii = !high
            return start..<(start + end)
        }

        /// The last plain string read, `r`, is valid UTF-8 (ASCII: nothing to validate).
        @inline(__always) func lastStringIsValid(_ r: Range<Int>) -> Bool {
            ascii || String(validating: UnsafeRawBufferPointer(rebasing: line[r]), as: UTF8.self) != nil
        }

        /// Consumes a `null` literal when it is next.
        @inline(__always) mutating func takeNull() -> Bool {
            guard n - i >= 4, line[i] == UInt8(ascii: "n"), line[i + 1] == UInt8(ascii: "u"),
                line[i + 2] == UInt8(ascii: "l"), line[i + 3] == UInt8(ascii: "l")
            else { return false }
            i += 4
            return true
        }
    }
}

/// A request line read in place (`RequestLineScanner`: a flat object of plain strings; any other line is
/// `MatchRequest.decode(line:)`'s, whose request it equals), for a caller that answers from the line's bytes and
/// builds Strings only for the few requests it keeps: a diff's flips. Offsets only: each call is given the line.
public struct ScannedRequestLine: Sendable {
    let fields: RequestLineScanner.Fields

    /// Nil when the line is not a flat object of plain strings with the required keys.
    public init?(_ line: UnsafeBufferPointer<UInt8>) {
        guard let f = RequestLineScanner.scan(UnsafeRawBufferPointer(line)) else { return nil }
        fields = f
    }

    /// `MatchRequest.decode(line:)` of the line.
    public func request(in line: UnsafeBufferPointer<UInt8>) -> MatchRequest {
        fields.request(in: UnsafeRawBufferPointer(line))
    }

    /// The bytes of the request's URL.
    public func url(in line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: line[fields.url])
    }

    /// `ResourceLoad.checkNames` of the request: throws for an unknown load context or resource type.
    public func checkNames(in line: UnsafeBufferPointer<UInt8>) throws {
        _ = try names(in: line)
    }

    private func names(in line: UnsafeBufferPointer<UInt8>) throws -> LoadNames {
        try LoadNames(
            resourceType: UnsafeBufferPointer(rebasing: line[fields.resourceType]),
            loadContext: fields.loadContext.map { UnsafeBufferPointer(rebasing: line[$0]) })
    }

    /// `ResourceLoad(request(in: line), url: url, resolver: resolver)`, without the request's Strings.
    public func load(in line: UnsafeBufferPointer<UInt8>, url: CanonicalURL?, resolver: URLResolver) throws
        -> ResourceLoad
    {
        func bytes(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: line[r]) }
        return ResourceLoad(
            url: url, rawURL: bytes(fields.url), topURL: bytes(fields.topURL), frameURL: fields.frameURL.map(bytes),
            names: try names(in: line),
            requestMethod: fields.requestMethod.map { String(decoding: bytes($0), as: UTF8.self) },
            resolver: resolver)
    }
}
