// The privacy-configuration build stamps every feature with `hash = md5(JSON.stringify(feature))` (computed
// before `hash` is added). Apps use `trackerAllowlist.hash` as the allowlist part of the rule-list identifier,
// so a config edited without updating the hash would silently keep stale compiled rules. We recompute it with
// JavaScript's exact serialisation (key order as in the file, ECMAScript number formatting, minimal escaping).

import Digest
import StrictJSON

extension PrivacyConfig {
    /// md5 (hex) of `JSON.stringify(features[name] without "hash")`, or nil when the feature is absent.
    public func computedFeatureHash(_ name: String) -> String? {
        guard case .object(var feature)? = raw["features"]?[name] else { return nil }
        feature["hash"] = nil
        var out: [UInt8] = []
        JavaScriptJSON.write(.object(feature), into: &out)
        return Digest.hex(.md5, out)
    }
}

/// `JSON.stringify` output (no indentation) for a JSONValue.
enum JavaScriptJSON {
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let d): out += Array(number(d).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, k) in o.keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(k, into: &out)
                out.append(UInt8(ascii: ":"))
                write(o[k]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += [0x5C, b]
            case UInt8(ascii: "\\"): out += [0x5C, b]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// ECMAScript Number::toString(10): the shortest round-trip digits (which Swift's description also
    /// produces), laid out in decimal for 1e-7 <= |x| < 1e21 and in exponent form otherwise.
    static func number(_ d: Double) -> String {
        if d.isNaN || d.isInfinite { return "null" }
        if d == 0 { return "0" }
        let sign = d < 0 ? "-" : ""
        let swift = "\(abs(d))" // e.g. "123.456", "1e-05", "1.37e-05", "1e+16"
        let parts = swift.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let exponent = parts.count > 1 ? Int(parts[1])! : 0
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let intPart = String(pieces[0])
        let fracPart = pieces.count > 1 ? String(pieces[1]) : ""
        var digits = Array(intPart + fracPart)
        var n = intPart.count + exponent // value = 0.digits × 10^n
        while digits.first == "0" { digits.removeFirst(); n -= 1 }
        while digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let ds = String(digits)
        if k <= n && n <= 21 { return sign + ds + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 { return sign + String(digits[0..<n]) + "." + String(digits[n...]) }
        if -6 < n && n <= 0 { return sign + "0." + String(repeating: "0", count: -n) + ds }
        let e = n - 1
        let expText = (e < 0 ? "-" : "+") + String(abs(e))
        if k == 1 { return sign + ds + "e" + expText }
        return sign + String(digits[0]) + "." + String(digits[1...]) + "e" + expText
    }
}
