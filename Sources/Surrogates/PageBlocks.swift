// The page's tables in blocks, each a back-reference compression of its lines (PageScript.js, inflate), so that
// the bundle carries the TDS in about half the bytes and the page still decodes only what a request reads: one
// block at its first use, never a whole table at start-up.
//
// Compressed text: the table's own text, except that "#" + 3 digits (LZ_DIGITS, base 64) is a copy: digits 1-2
// the distance back in the decoded text (1 to 4,095 UTF-16 units), digit 3 the length minus 5 (5 to 68). The
// tables escape "#" in every dataset string (PageTable.escape), so a "#" is always a copy. Copies cover only
// ASCII, so a block never splits a surrogate pair. Greedy, with a bounded candidate list: deterministic.
//
// A blocked table is {"blocks": [compressed...], and "firsts": [the unescaped key of each block's first line]
// (hosts: a lookup searches the firsts, then one block) or "starts": [the decoded offset of each block]
// (entities: a reference is an offset in the whole text)}.

import StrictJSON

enum PageBlocks {
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_".utf16)
    static let marker = UInt16(UInt8(ascii: "#"))
    static let minLength = 5, maxLength = 68, maxDistance = 4095, candidates = 48
    /// Decoded UTF-16 units per block (at line ends): larger compresses better, smaller decodes less per lookup.
    static let blockUnits = 8192

    /// `text` (which has no "#") with repeats written as copies.
    static func deflate(_ text: String) -> String {
        let u = Array(text.utf16)
        precondition(!u.contains(marker), "PageBlocks: a table's text has a raw #")
        var out: [UInt16] = [], recent: [UInt64: [Int]] = [:], i = 0
        func key(_ p: Int) -> UInt64? {
            guard p + 4 <= u.count, u[p..<(p + 4)].allSatisfy({ $0 < 0x80 }) else { return nil }
            return u[p..<(p + 4)].reduce(0) { $0 << 16 | UInt64($1) }
        }
        func remember(_ p: Int) { if let k = key(p) { recent[k, default: []].append(p) } }
        while i < u.count {
            let (length, distance) = longestMatch(u, at: i, among: key(i).flatMap { recent[$0] } ?? [])
            if length >= minLength {
                out += [marker, digits[distance / 64], digits[distance % 64], digits[length - minLength]]
                for p in i..<(i + length) { remember(p) }
                i += length
            } else {
                out.append(u[i])
                remember(i)
                i += 1
            }
        }
        return String(decoding: out, as: UTF16.self)
    }

    static func longestMatch(_ u: [UInt16], at i: Int, among positions: [Int]) -> (length: Int, distance: Int) {
        var best = (length: 0, distance: 0)
        for p in positions.reversed().prefix(candidates) where i - p <= maxDistance {
            var n = 0
            while n < maxLength, i + n < u.count, u[i + n] < 0x80, u[p + n] == u[i + n] { n += 1 }
            if n > best.length { best = (n, i - p) }
        }
        return best
    }

    /// "|"-ended lines cut into blocks of about blockUnits units, at line ends: the lines of each block.
    static func cut(_ lines: [String]) -> [Range<Int>] {
        var blocks: [Range<Int>] = [], first = 0, units = 0
        for (i, line) in lines.enumerated() {
            units += line.utf16.count
            if units >= blockUnits || i == lines.count - 1 {
                blocks.append(first..<(i + 1))
                (first, units) = (i + 1, 0)
            }
        }
        return blocks
    }

    /// A table searched by key: its blocks and the key of each block's first line.
    static func keyed(_ lines: [(key: String, line: String)]) -> JSONValue {
        let blocks = cut(lines.map(\.line))
        return .object(
            JSONObject([
                ("blocks", .array(blocks.map { r in .string(deflate(lines[r].map(\.line).joined())) })),
                ("firsts", .array(blocks.map { .string(lines[$0.lowerBound].key) })),
            ]))
    }

    /// A table read at offsets in its whole text: its blocks and the offset of each.
    static func offset(_ text: String) -> JSONValue {
        // By UTF-16 units, not Characters: a "|" and a combining mark after it are one Character.
        let lines = text.utf16.split(separator: UInt16(UInt8(ascii: "|"))).map {
            String(decoding: $0, as: UTF16.self) + "|"
        }
        let blocks = cut(lines)
        var starts: [JSONValue] = [], start = 0
        for r in blocks {
            starts.append(.number(Double(start)))
            start += lines[r].reduce(0) { $0 + $1.utf16.count }
        }
        return .object(
            JSONObject([
                ("blocks", .array(blocks.map { .string(deflate(lines[$0].joined())) })),
                ("starts", .array(starts)),
            ]))
    }
}
