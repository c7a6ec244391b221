// How a value from an input file is shown inside a message: as a JSON string literal, so invisible and
// line-breaking characters (controls, DEL, U+2028/U+2029) cannot make a message ambiguous or split a log
// line, and a hostile 200 MB value does not become a 200 MB message.

/// `s` as a JSON string literal; past 100 characters, its start and its length only.
public func quoted(_ s: String) -> String {
    let shownLimit = 100
    var out = "\""
    var shown = 0
    for u in s.unicodeScalars {
        shown += 1
        if shown > shownLimit {
            return out + "\"… (\(s.utf8.count) bytes in all)"
        }
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if u.value < 0x20 || u.value == 0x7F || u.value == 0x2028 || u.value == 0x2029 {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}
