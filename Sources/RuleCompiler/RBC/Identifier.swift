// The identifier of a compiled rule list:
//
//     <name>[@<dataset>]_v<format version>_<tool version>_<16 hex digits>
//     e.g.  ios-tds@74c0900c783d6ad1c8217aaa3ae5aa87_v1_0.1.0_3f9a0c1b2d4e5f60
//
// * name: what the list is (`--name`, default the input file's name without extension);
// * dataset: optional version of the data it was made from (for TDS-derived lists the TDS ETag, without
//   its quotes and weak prefix), so two releases of the same list are told apart at a glance;
// * format version and tool version: a new radarblock or a new .rbc layout never reuses an identifier;
// * the digest: the first 16 hex digits of SHA-256 over every input that affects behaviour, each field
//   length-prefixed (no separator ambiguity: ["ab","c"] and ["a","bc"] hash differently), the source
//   rule-list bytes last.
//
// Components are restricted to [A-Za-z0-9.-] (name, dataset) and "_" separates them, so the identifier
// splits unambiguously, is a safe file name (nothing that WebKit's encodeForFileName escapes, no "/"),
// and a valid WebKit rule-list identifier.

import Digest

public struct RuleListIdentifier: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let dataset: String?
    public let formatVersion: UInt32
    public let toolVersion: String
    public let digest: String

    public var description: String { string }
    public var string: String {
        name + (dataset.map { "@" + $0 } ?? "") + "_v\(formatVersion)_" + toolVersion + "_" + digest
    }

    public static func make(
        name: String, dataset: String? = nil, formatVersion: UInt32, toolVersion: String,
        source: [UInt8]
    ) throws -> RuleListIdentifier {
        try validateComponent(name, what: "name")
        if let d = dataset { try validateComponent(d, what: "dataset version") }
        try validateComponent(toolVersion, what: "tool version")
        let d = Digest(.sha256)
        func field(_ bytes: [UInt8]) {
            var n = UInt64(bytes.count)
            var prefix: [UInt8] = []
            for _ in 0..<8 { prefix.append(UInt8(truncatingIfNeeded: n)); n >>= 8 }
            d.update(prefix)
            d.update(bytes)
        }
        field(Array("radarblock rule list".utf8))
        field(Array(String(formatVersion).utf8))
        field(Array(toolVersion.utf8))
        field(Array(name.utf8))
        field(Array((dataset ?? "").utf8))
        field(source)
        let hex = hexString(d.finalize())
        return RuleListIdentifier(
            name: name, dataset: dataset, formatVersion: formatVersion, toolVersion: toolVersion,
            digest: String(hex.prefix(16)))
    }

    /// Splits an identifier string back into its components (nil if it is not one of ours).
    public static func parse(_ s: String) -> (
        name: String, dataset: String?, formatVersion: UInt32, toolVersion: String, digest: String
    )? {
        let parts = s.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[1].hasPrefix("v"), let version = UInt32(parts[1].dropFirst()),
            parts[3].count == 16, parts[3].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else { return nil }
        let nameParts = parts[0].split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        return (nameParts[0], nameParts.count > 1 ? nameParts[1] : nil, version, parts[2], parts[3])
    }

    public static func isValidComponent(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 100
            && s.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
            }
    }

    static func validateComponent(_ s: String, what: String) throws {
        guard isValidComponent(s) else {
            throw IdentifierError("invalid \(what) \"\(s)\": use 1 to 100 characters from A-Z a-z 0-9 . -")
        }
    }

    /// A name derived from a file path: the file name without its extension, with characters outside
    /// [A-Za-z0-9.-] replaced by "-" ("rules" if nothing is left).
    public static func defaultName(forPath path: String) -> String {
        var base = Substring(path.split(separator: "/").last ?? "")
        for ext in [".json.gz", ".json", ".rbc"] where base.hasSuffix(ext) { base = base.dropLast(ext.count); break }
        var out = ""
        for ch in base.unicodeScalars.prefix(100) {
            let ok = ch.isASCII && (ch.properties.isAlphabetic || ("0"..."9").contains(ch) || ch == "." || ch == "-")
            out.unicodeScalars.append(ok ? ch : "-")
        }
        while out.hasPrefix(".") { out.removeFirst() }
        return out.isEmpty || path == "-" ? "rules" : out
    }

    /// A dataset version from an HTTP ETag: quotes and the weak prefix dropped, other characters outside
    /// [A-Za-z0-9.-] replaced by "-".
    public static func datasetVersion(fromETag etag: String) -> String? {
        var s = Substring(etag.trimmingCharacters(in: " \t"))
        if s.hasPrefix("W/") { s = s.dropFirst(2) }
        s = s.drop(while: { $0 == "\"" })
        while s.hasSuffix("\"") { s = s.dropLast() }
        var out = ""
        for ch in s.unicodeScalars.prefix(100) {
            let ok = ch.isASCII && (ch.properties.isAlphabetic || ("0"..."9").contains(ch) || ch == "." || ch == "-")
            out.unicodeScalars.append(ok ? ch : "-")
        }
        return out.isEmpty ? nil : out
    }
}

public struct IdentifierError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ d: String) { description = d }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
