// Which names lie at or above a rule of the public suffix list: the question libpsl cannot answer, since it does not
// enumerate its rules. Every process that builds a faithful list asks it, so the index is made in one pass over the
// list's bytes without a String per name: each label suffix of each rule is kept as a 64-bit hash with the first
// rule that has it, and a hit is confirmed against that rule (against all of them when two names share a hash),
// so a collision can never change an answer.

import Foundation

struct PublicSuffixRuleIndex {
    /// The list's bytes, ASCII lowercased, and after them the punycode form of each non-ASCII rule.
    private let bytes: [UInt8]
    /// The list's rules within `bytes`, "*." and "!" taken off.
    private let rules: [Range<Int>]
    /// Each label suffix's hash, with the first rule that has the suffix.
    private let firstRuleBySuffix: [UInt64: Int]

    init(listText text: [UInt8]) {
        var bytes = text.map(Self.lowercaseASCII)
        var rules: [Range<Int>] = []
        var i = 0
        while i < text.count {
            var end = i
            while end < text.count, !Self.isLineBreak(text[end]) { end += 1 }
            if let rule = Self.rule(in: i..<end, of: &bytes) { rules.append(rule) }
            i = end + 1
        }
        var firstRuleBySuffix = [UInt64: Int](minimumCapacity: rules.count * 2)
        for (n, rule) in rules.enumerated() {
            Self.forEachSuffixHash(of: bytes[rule]) { h in if firstRuleBySuffix[h] == nil { firstRuleBySuffix[h] = n } }
        }
        self.bytes = bytes
        self.rules = rules
        self.firstRuleBySuffix = firstRuleBySuffix
    }

    /// True when `name` is a rule of the list or a label suffix of one (as amazonaws.com is of s3.amazonaws.com).
    func containsRuleAtOrUnder(_ name: String) -> Bool {
        let name = Array(name.utf8)
        guard !name.isEmpty, let first = firstRuleBySuffix[Self.hash(name[...])] else { return false }
        return hasLabelSuffix(rules[first], name) || rules.contains { hasLabelSuffix($0, name) }
    }

    private func hasLabelSuffix(_ rule: Range<Int>, _ name: [UInt8]) -> Bool {
        rule.count >= name.count && bytes[rule.upperBound - name.count..<rule.upperBound].elementsEqual(name)
            && (rule.count == name.count || bytes[rule.upperBound - name.count - 1] == UInt8(ascii: "."))
    }

    /// The rule a line of the list holds: its first word, without "!" or "*."; nil for comments and blank lines.
    /// A non-ASCII rule is appended to `bytes` in punycode.
    private static func rule(in line: Range<Int>, of bytes: inout [UInt8]) -> Range<Int>? {
        var start = line.lowerBound
        var stop = start
        while stop < line.upperBound, bytes[stop] != UInt8(ascii: " "), bytes[stop] != UInt8(ascii: "\t") { stop += 1 }
        guard stop > start,
            !(stop - start >= 2 && bytes[start] == UInt8(ascii: "/") && bytes[start + 1] == UInt8(ascii: "/"))
        else { return nil }
        if bytes[start] == UInt8(ascii: "!") { start += 1 }
        if stop - start >= 2, bytes[start] == UInt8(ascii: "*"), bytes[start + 1] == UInt8(ascii: ".") { start += 2 }
        guard bytes[start..<stop].contains(where: { $0 >= 0x80 }) else { return start..<stop }
        // A rule the normaliser refuses names nothing a normalised host can be, so it is left out.
        guard let ascii = try? DomainNormalizer.normalize(String(decoding: bytes[start..<stop], as: UTF8.self)) else {
            return nil
        }
        bytes.append(contentsOf: ascii.utf8)
        return bytes.count - ascii.utf8.count..<bytes.count
    }

    /// FNV-1a over the bytes from the last to the first, so that every label suffix's hash is a prefix of the walk.
    private static func forEachSuffixHash(of rule: ArraySlice<UInt8>, _ body: (UInt64) -> Void) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var i = rule.endIndex
        while i > rule.startIndex {
            i -= 1
            if rule[i] == UInt8(ascii: "."), i + 1 < rule.endIndex { body(h) }
            h = (h ^ UInt64(rule[i])) &* 0x0000_0100_0000_01b3
        }
        body(h)
    }

    private static func hash(_ name: ArraySlice<UInt8>) -> UInt64 {
        var last: UInt64 = 0
        forEachSuffixHash(of: name) { last = $0 }
        return last
    }

    private static func lowercaseASCII(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
    }

    /// The ASCII line ends Character.isNewline knows (LF, VT, FF, CR); the list has no other.
    private static func isLineBreak(_ b: UInt8) -> Bool { b >= 0x0A && b <= 0x0D }
}
