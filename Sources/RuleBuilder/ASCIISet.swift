// ASCIISet: a set of ASCII characters, the alphabet of the translator (RegexTranslator.swift) that rewrites a TDS
// regex (ContentRules' JSRegex tree) into WebKit's url-filter subset. Canonical URLs are ASCII: a character outside
// it never matches one.

import ContentRules

struct ASCIISet: Hashable {
    var low: UInt64 = 0 // 0...63
    var high: UInt64 = 0 // 64...127

    static let all = ASCIISet(low: ~0, high: ~0)
    /// What `.` matches in JavaScript, restricted to ASCII: everything but \n and \r.
    static let dot: ASCIISet = {
        var s = ASCIISet.all; s.remove(0x0A); s.remove(0x0D); return s
    }()

    init(low: UInt64 = 0, high: UInt64 = 0) { self.low = low; self.high = high }
    init(_ bytes: [UInt8]) { for b in bytes { insert(b) } }

    func contains(_ b: UInt8) -> Bool {
        b < 64 ? (low >> UInt64(b)) & 1 != 0 : b < 128 ? (high >> UInt64(b - 64)) & 1 != 0 : false
    }
    mutating func insert(_ b: UInt8) {
        if b < 64 { low |= 1 << UInt64(b) } else if b < 128 { high |= 1 << UInt64(b - 64) }
    }
    mutating func remove(_ b: UInt8) {
        if b < 64 { low &= ~(1 << UInt64(b)) } else if b < 128 { high &= ~(1 << UInt64(b - 64)) }
    }
    mutating func formUnion(_ o: ASCIISet) { low |= o.low; high |= o.high }
    var isEmpty: Bool { low == 0 && high == 0 }
    var count: Int { low.nonzeroBitCount + high.nonzeroBitCount }
    var members: [UInt8] {
        var out: [UInt8] = []
        var l = low, h = high
        while l != 0 { out.append(UInt8(l.trailingZeroBitCount)); l &= l - 1 }
        while h != 0 { out.append(UInt8(64 + h.trailingZeroBitCount)); h &= h - 1 }
        return out
    }

    /// The ASCII members of a predefined class.
    init(_ escape: JSClassEscape) { self.init((UInt8(0)..<128).filter { escape.matches(ascii: $0) }) }
    /// The ASCII members of a class.
    init(_ characterClass: JSCharacterClass) {
        self.init((UInt8(0)..<128).filter { characterClass.matches(ascii: $0) })
    }
}
