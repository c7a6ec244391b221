// Strings as set members and dictionary keys by their bytes (`sameBytes`), where a String key is canonical
// equivalence: rules that are equal Strings but not the same bytes are two rules, and such URLs two URLs.

import TrackerData

/// A String as a set member or dictionary key that equals only the same bytes.
struct ExactString: Hashable {
    let string: String

    static func == (a: ExactString, b: ExactString) -> Bool { sameBytes(a.string, b.string) }

    func hash(into h: inout Hasher) {
        var s = string
        s.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
