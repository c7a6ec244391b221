// UTS #46 ToASCII as WebKit's URLParser::domainToASCII does it (ICU with WebKit's options and tolerated errors,
// through the CWebKitIDNA shim; at most 2048 UTF-16 units, WebKit's buffer), for WHATWGHost's domains: the host
// parser of both the redirect-URL check and the request canonicaliser (RuleEngine's CanonicalURL).

import CWebKitIDNA

public enum WebKitIDNA {
    /// The ASCII form of `domain`'s UTF-16 units, nil when ICU reports an error WebKit does not tolerate.
    public static func toASCII(_ domain: String) -> [UInt16]? {
        let source = Array(domain.utf16)
        var out = [UInt16](repeating: 0, count: 2048)
        let n = source.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                radarblock_idna_to_ascii(src.baseAddress, Int32(src.count), dst.baseAddress, Int32(dst.count))
            }
        }
        guard n > 0, n <= out.count else { return nil }
        return Array(out[0..<Int(n)])
    }
}
