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
    }

    static func decode(_ line: UnsafeRawBufferPointer) -> MatchRequest? {
        guard let f = scan(line) else { return nil }
        func string(_ r: Range<Int>) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: line[r]), as: UTF8.self) }
        return MatchRequest(url: string(f.url), topURL: string(f.topURL), frameURL: f.frameURL.map(string), resourceType: string(f.resourceType),
                            loadContext: f.loadContext.map(string), requestMethod: f.requestMethod.map(string))
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
        let n = line.count
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var i = 0
        func skipWhitespace() {
            while i < n {
                switch line[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }
        /// At an opening quote: the range of the string's bytes (the quote after it is consumed), or nil
        /// when the string has an escape or a control character or does not end.
        var ascii = true
        func plainString() -> Range<Int>? {
            guard i < n, line[i] == UInt8(ascii: "\"") else { return nil }
            let start = i + 1
            let (end, high) = stringEnd(UnsafeRawBufferPointer(rebasing: line[start...]))
            guard start + end < n, line[start + end] == UInt8(ascii: "\"") else { return nil }
            i = start + end + 1
            ascii = !high
            return start..<(start + end)
        }
        // Static strings: no array, and no lazy global to check on every key.
        func equals(_ r: Range<Int>, _ key: StaticString) -> Bool {
            memcmp(base + r.lowerBound, key.utf8Start, r.count) == 0
        }

        var urlValue: Range<Int>? = nil, topValue: Range<Int>? = nil, typeValue: Range<Int>? = nil
        var frameValue: Range<Int>? = nil, contextValue: Range<Int>? = nil, methodValue: Range<Int>? = nil
        skipWhitespace()
        guard i < n, line[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        skipWhitespace()
        if i < n, line[i] == UInt8(ascii: "}") { return nil } // {}: the general path reports the missing key
        while true {
            guard let key = plainString() else { return nil }
            // A non-ASCII key must still be valid UTF-8 (the general parser rejects the line otherwise).
            if !ascii, String(validating: UnsafeRawBufferPointer(rebasing: line[key]), as: UTF8.self) == nil { return nil }
            skipWhitespace()
            guard i < n, line[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipWhitespace()
            var value: Range<Int>? = nil
            if let r = plainString() {
                // ASCII: nothing to validate.
                if !ascii, String(validating: UnsafeRawBufferPointer(rebasing: line[r]), as: UTF8.self) == nil { return nil }
                value = r
            } else if n - i >= 4, line[i] == UInt8(ascii: "n"), line[i + 1] == UInt8(ascii: "u"),
                      line[i + 2] == UInt8(ascii: "l"), line[i + 3] == UInt8(ascii: "l")
            {
                i += 4
            } else {
                return nil
            }
            // The six keys have six lengths: one comparison per key.
            switch key.count {
            case 3: if equals(key, "url") { urlValue = value }
            case 6: if equals(key, "topURL") { topValue = value }
            case 12: if equals(key, "resourceType") { typeValue = value }
            case 8: if equals(key, "frameURL") { frameValue = value }
            case 11: if equals(key, "loadContext") { contextValue = value }
            case 13: if equals(key, "requestMethod") { methodValue = value }
            default: break
            }
            skipWhitespace()
            guard i < n else { return nil }
            if line[i] == UInt8(ascii: ",") {
                i += 1
                skipWhitespace()
                continue
            }
            guard line[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            break
        }
        skipWhitespace()
        guard i == n, let urlValue, let topValue, let typeValue else { return nil }
        return Fields(url: urlValue, topURL: topValue, resourceType: typeValue, frameURL: frameValue,
                      loadContext: contextValue, requestMethod: methodValue)
    }
}
