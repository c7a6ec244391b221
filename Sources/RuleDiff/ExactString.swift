// Strings compared as their bytes. Swift's `==` on Strings is canonical equivalence: "é" as one scalar and as "e"
// with a combining accent are equal Strings. WebKit compares code units, so they are two URLs (their paths
// percent-encode differently), two selectors, two rules.

import Foundation

/// Whether two strings are the same bytes.
func sameBytes(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) } }
}

/// A String as a set member or dictionary key that equals only the same bytes.
struct ExactString: Hashable {
    let string: String

    static func == (a: ExactString, b: ExactString) -> Bool { sameBytes(a.string, b.string) }

    func hash(into h: inout Hasher) {
        var s = string
        s.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
