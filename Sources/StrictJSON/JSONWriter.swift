// Deterministic JSON output: the same value always gives the same bytes.
// `scriptSafe` escapes everything that could end or confuse an enclosing <script> or JS string
// (<, >, &, U+2028, U+2029), so dataset strings can be embedded in generated JavaScript as data.

public struct JSONWriter {
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Object keys in byte order instead of insertion order.
        public static let sortedKeys = Options(rawValue: 1)
        /// Escape <, >, &, U+2028 and U+2029 (for embedding in HTML or JavaScript).
        public static let scriptSafe = Options(rawValue: 2)
    }

    public static func string(_ value: JSONValue, options: Options = []) -> String {
        var out: [UInt8] = []
        write(value, into: &out, options: options)
        return String(decoding: out, as: UTF8.self)
    }

    public static func bytes(_ value: JSONValue, options: Options = []) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, options: options)
        return out
    }

    /// A JSON array with one element per line (`[`, elements separated by `,` newline, `]`, newline):
    /// the form of rule lists and provenance files, so that they diff well line by line.
    public static func linesArray<S: Sequence>(
        _ elements: S, options: Options = [], _ element: (S.Element) -> JSONValue
    ) -> [UInt8] {
        linesArray(elements) { e, out in write(element(e), into: &out, options: options) }
    }

    /// As `linesArray(_:options:_:)`, with each element written by `writing`.
    public static func linesArray<S: Sequence>(_ elements: S, writing: (S.Element, inout [UInt8]) -> Void) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for e in elements {
            out.append(contentsOf: first ? [0x0A] : [UInt8(ascii: ","), 0x0A])
            first = false
            writing(e, &out)
        }
        out.append(contentsOf: first ? [UInt8(ascii: "]"), 0x0A] : [0x0A, UInt8(ascii: "]"), 0x0A])
        return out
    }

    /// The `linesArray` of a sequence, from the `linesArray`s of its consecutive parts (written on cores of their
    /// own), in order: the same bytes as the whole written at once.
    public static func joinedLinesArrays(_ parts: [[UInt8]]) -> [UInt8] {
        // A part is "[]\n", or "[\n", its elements, "\n]\n".
        let elements = parts.filter { $0.count > 3 }.map { $0[2..<($0.count - 3)] }
        if elements.isEmpty { return Array("[]\n".utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(elements.reduce(3) { $0 + $1.count + 2 })
        out.append(contentsOf: "[\n".utf8)
        for (i, part) in elements.enumerated() {
            if i > 0 { out.append(contentsOf: ",\n".utf8) }
            out.append(contentsOf: part)
        }
        out.append(contentsOf: "\n]\n".utf8)
        return out
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8], options: Options = []) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let d): writeNumber(d, into: &out)
        case .string(let s): writeString(s, into: &out, options: options)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(v, into: &out, options: options)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            func member(_ p: Int, first: Bool) {
                if !first { out.append(UInt8(ascii: ",")) }
                writeString(o.keys[p], into: &out, options: options)
                out.append(UInt8(ascii: ":"))
                write(o.values[p], into: &out, options: options)
            }
            if options.contains(.sortedKeys) {
                let order = o.keys.indices.sorted { o.keys[$0].utf8.lexicographicallyPrecedes(o.keys[$1].utf8) }
                for (i, p) in order.enumerated() { member(p, first: i == 0) }
            } else {
                for p in o.keys.indices { member(p, first: p == 0) }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Integers print without a fraction; other finite doubles in Swift's shortest round-trip form.
    public static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        if d.isNaN || d.isInfinite {
            out.append(contentsOf: "null".utf8) // JSON has no NaN/Infinity.
        } else if d == d.rounded(), abs(d) < 9_007_199_254_740_992 {
            out.append(contentsOf: String(Int64(d)).utf8)
        } else {
            out.append(contentsOf: String(d).utf8)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Runs of bytes that need no escape are copied whole: a diff report is mostly URLs and rules, and the
    /// scalar-at-a-time loop this replaced was a fifth of writing one.
    public static func writeString(_ s: String, into out: inout [UInt8], options: Options = []) {
        let safe = options.contains(.scriptSafe)
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            var start = 0, i = 0
            func escape(_ v: UInt32, length: Int) {
                if i > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i])) }
                switch v {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
                default: appendUnicodeEscape(v, into: &out) // other controls, DEL, script-unsafe < > &, U+2028/9
                }
                i += length
                start = i
            }
            while i < u.count {
                // Eight bytes at a time while none of them can need an escape (the common case: URLs, rules).
                if i + 8 <= u.count {
                    let word = UnsafeRawPointer(u.baseAddress! + i).loadUnaligned(as: UInt64.self)
                    if !mayNeedEscape(word, safe) {
                        i += 8
                        continue
                    }
                }
                let b = u[i]
                switch b {
                case 0x00..<0x20, 0x22, 0x5C, 0x7F: escape(UInt32(b), length: 1)
                case 0x3C, 0x3E, 0x26:
                    if safe { escape(UInt32(b), length: 1) } else { i += 1 }
                // U+2028 and U+2029 (E2 80 A8/A9) are valid JSON, but not valid in older JavaScript strings.
                case 0xE2 where i + 2 < u.count && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                    escape(u[i + 2] == 0xA8 ? 0x2028 : 0x2029, length: 3)
                default: i += 1
                }
            }
            if u.count > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start...])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `w` is one the byte loop escapes or looks at: a control byte, `"`, `\\`,
    /// DEL, a byte of a multi-byte character (U+2028 and U+2029), or, script-safe, `<`, `>` and `&`. Exact: each
    /// test is "some byte is zero" (or below 0x20) over the whole word, which has no false negatives.
    @inline(__always)
    static func mayNeedEscape(_ w: UInt64, _ scriptSafe: Bool) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        if w & highs != 0 || (w &- 0x20 &* ones) & ~w & highs != 0 { return true }
        if hasZero(w ^ (0x22 &* ones)) || hasZero(w ^ (0x5C &* ones)) || hasZero(w ^ (0x7F &* ones)) { return true }
        return scriptSafe && (hasZero(w ^ (0x3C &* ones)) || hasZero(w ^ (0x3E &* ones)) || hasZero(w ^ (0x26 &* ones)))
    }

    private static func appendUnicodeEscape(_ v: UInt32, into out: inout [UInt8]) {
        out.append(contentsOf: [
            0x5C, UInt8(ascii: "u"),
            hex[Int(v >> 12 & 0xF)], hex[Int(v >> 8 & 0xF)], hex[Int(v >> 4 & 0xF)], hex[Int(v & 0xF)],
        ])
    }
}
