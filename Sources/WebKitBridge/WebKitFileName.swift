// WebKit's file name for a content rule list in a store directory (APIContentRuleListStore.cpp,
// encodeForFileName, and its inverse), both directions in one place: the bridge names the file it compiled,
// the installer finds and prunes lists by it.

import Foundation

public enum WebKitFileName {
    /// What every list file of a store starts with.
    public static let prefix = "ContentRuleList-"

    /// `ContentRuleList-<identifier>`, where 0x00-0x20, `"`, `%`, `*`, `/`, `:`, `<`, `>`, `?`, `\`, `|` and 0x7F
    /// become `%XX` (uppercase hex); an unpaired UTF-16 surrogate would be `%+XXXX` (cannot occur in a Swift
    /// String); anything else stays raw.
    public static func encode(_ identifier: String) -> String {
        var out = prefix
        for scalar in identifier.unicodeScalars {
            let v = scalar.value
            if v <= 0x20 || v == 0x7F || "\"%*/:<>?\\|".unicodeScalars.contains(scalar) {
                out += "%" + String(format: "%02X", v)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The identifier of a store file's name; nil for a name that `encode` does not write.
    public static func decode(_ fileName: String) -> String? {
        guard fileName.hasPrefix(prefix) else { return nil }
        var bytes: [UInt8] = []
        var utf8 = Array(fileName.utf8.dropFirst(prefix.utf8.count))[...]
        while let b = utf8.popFirst() {
            if b == UInt8(ascii: "%") {
                guard utf8.count >= 2, let v = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                    return nil
                }
                bytes.append(v)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
