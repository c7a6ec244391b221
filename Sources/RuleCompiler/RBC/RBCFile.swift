// The .rbc container: a compiled rule list on disk.
//
//   offset size  field (all integers little-endian)
//   0      8     magic 89 52 42 43 0D 0A 1A 0A ("\x89RBC\r\n\x1A\n": catches text-mode and truncation damage)
//   8      4     format version (RBCFile.formatVersion)
//   12     4     section count (9, one per tag below)
//   16     8     file size in bytes
//   24     32    SHA-256 of the source rule-list JSON
//   56     32    checksum: SHA-256 of the whole file with these 32 bytes set to zero
//   88     8     reserved, zero
//   96     24×n  section table: 4-byte ASCII tag, u32 zero, u64 offset, u64 size
//   ...          sections in table order, each starting at a multiple of 16 (zero padding in between);
//                the file ends with the last section
//
// Sections (all of them, in this order):
//   META  key/value strings: u32 count, then per entry u32 length + UTF-8 key, u32 length + UTF-8 value
//         (identifier, name, dataset, tool-version, source-rules, skipped-rules)
//   ACTN  actions blob (ActionSerialization.swift)
//   RULE  per compiled rule: u32 JSON index, u32 action location, u32 trigger flags
//   UNIV  u32 action locations: the universal actions in WebKit's order (stylesheet selectors removed)
//   STYL  the global display:none stylesheet, UTF-8
//   MURL  url-filter automaton (Matcher serialization); its ids, and MTOP's and MFRM's, are
//         (trigger flags << 32) | index into RULE (the rule-index table), which names a rule where an
//         action location would not. The automata are in their execution form (MatcherBytecode), so a
//         load validates and copies them (docs/matching.md, "Loading the .rbc")
//   MTOP  top-URL automaton (if/unless-domain, if/unless-top-url)
//   MFRM  frame-URL automaton (if/unless-frame-url)
//   SRCE  the source rule-list JSON, verbatim, or empty when it was not embedded
//
// Nothing is JSON-parsed on load; sections are aligned so a reader can use them in place (mmap).
// Loading checks magic, version, size, checksum, section table, source digest and identifier, and
// decodes every section with bounds checks: a damaged file is refused with a message, never a crash.
// Any change to this layout or to the Matcher serialization must bump `formatVersion` (the golden-file
// test in Tests/RuleCompilerTests enforces it).

import ContentRules
import Digest
import Parallel

public enum RBCFile {
    public static let formatVersion: UInt32 = 6
    public static let magic: [UInt8] = [0x89, 0x52, 0x42, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
    static let headerSize = 96
    static let sectionEntrySize = 24
    static let alignment = 16
    static let sectionTags = ["META", "ACTN", "RULE", "UNIV", "STYL", "MURL", "MTOP", "MFRM", "SRCE"]

    // MARK: Writing

    public static func bytes(_ list: CompiledRuleList) -> [UInt8] {
        var meta = ByteWriter()
        let entries: [(String, String)] = [
            ("identifier", list.identifier), ("name", list.name), ("dataset", list.dataset ?? ""),
            ("tool-version", list.toolVersion), ("source-rules", String(list.sourceRuleCount)),
            ("skipped-rules", String(list.skippedRuleCount)),
        ]
        meta.u32(UInt32(entries.count))
        for (k, v) in entries {
            meta.string(k)
            meta.string(v)
        }
        var rules = ByteWriter()
        for r in list.rules {
            rules.u32(r.sourceIndex)
            rules.u32(r.actionLocation)
            rules.u32(r.flags)
        }
        var universal = ByteWriter()
        for u in list.universalActions { universal.u32(u) }

        let sections: [[UInt8]] = [
            meta.bytes, list.actions, rules.bytes, universal.bytes, Array(list.stylesheet.utf8),
            list.urlMatcher.serialized(), list.topURLMatcher.serialized(), list.frameURLMatcher.serialized(),
            list.source,
        ]
        var offsets: [Int] = []
        var position = headerSize + sectionEntrySize * sections.count
        for s in sections {
            position = align(position)
            offsets.append(position)
            position += s.count
        }
        var out = ByteWriter()
        out.bytes.reserveCapacity(position)
        out.bytes.append(contentsOf: magic)
        out.u32(formatVersion)
        out.u32(UInt32(sections.count))
        out.u64(UInt64(position))
        out.bytes.append(contentsOf: list.sourceSHA256)
        out.bytes.append(contentsOf: [UInt8](repeating: 0, count: 32)) // checksum, filled below
        out.u64(0)
        for (i, s) in sections.enumerated() {
            out.bytes.append(contentsOf: Array(sectionTags[i].utf8))
            out.u32(0)
            out.u64(UInt64(offsets[i]))
            out.u64(UInt64(s.count))
        }
        for (i, s) in sections.enumerated() {
            out.bytes.append(contentsOf: [UInt8](repeating: 0, count: offsets[i] - out.bytes.count))
            out.bytes.append(contentsOf: s)
        }
        return sealed(out.bytes)
    }

    /// Writes the checksum of `bytes` into its header.
    static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        guard b.count >= headerSize else { return b }
        b.replaceSubrange(56..<88, with: [UInt8](repeating: 0, count: 32))
        b.replaceSubrange(56..<88, with: Digest.hash(.sha256, b))
        return b
    }

    static func align(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    // MARK: Reading

    /// The format version a file's header gives, when it starts as a compiled rule list does (nil otherwise): a
    /// reader can tell a list an older radarblock wrote, which `load` refuses, from a damaged one. Read as `load`
    /// reads it.
    public static func formatVersion(of data: [UInt8]) -> UInt32? {
        guard data.count >= headerSize, data.prefix(8).elementsEqual(magic) else { return nil }
        return data.withUnsafeBytes { bytes in
            var header = ByteReader(bytes, range: 0..<headerSize)
            header.position = 8
            return try? header.u32()
        }
    }

    /// Loads and fully checks an .rbc file's bytes. `path` only names the file in errors.
    public static func load(_ data: [UInt8], path: String = "<rbc>") throws -> CompiledRuleList {
        try data.withUnsafeBytes { try load(buffer: $0, path: path) }
    }

    public static func load(buffer data: UnsafeRawBufferPointer, path: String = "<rbc>") throws -> CompiledRuleList {
        do {
            return try checkedLoad(data, path: path)
        } catch is ByteReader.Truncated {
            throw RBCError(path: path, reason: "a section ends before its data does: the file is damaged")
        }
    }

    /// The load, step by step in file order; every check names the part of the file it refuses.
    private static func checkedLoad(_ data: UnsafeRawBufferPointer, path: String) throws -> CompiledRuleList {
        let file = RBCReader(data: data, path: path)
        let header = try file.header()
        // The checksum reads the whole file (and its first use starts libcrypto): made beside the checks of the
        // parts, which read the same bytes. A file that fails it is refused for that, whatever its parts say.
        let checksum = Parallel.Background { file.checksumMatches() }
        let parts = Result { try checkedParts(file, header) }
        guard checksum.join() else { throw file.fail("checksum mismatch: the file is corrupted") }
        return try parts.get()
    }

    private static func checkedParts(_ file: RBCReader, _ header: RBCReader.Header) throws -> CompiledRuleList {
        let sections = try file.sections(count: header.sectionCount)
        let meta = try file.meta(sections[0])
        let source = Array(sections[8])
        try file.checkIdentifier(meta, source: source, sourceDigest: header.sourceDigest, formatVersion: header.version)
        let starts = try file.actionStarts(sections[1])
        let rules = try file.rules(sections[2], actionStarts: starts, sourceRules: meta.sourceRules)
        let universal = try file.universalActions(sections[3], actionStarts: starts)
        guard let stylesheet = String(validating: sections[4], as: UTF8.self) else {
            throw file.fail("STYL is not UTF-8")
        }
        let matchers = try [(5, "MURL"), (6, "MTOP"), (7, "MFRM")].map { i, tag in
            try file.automaton(sections[i], tag: tag, rules: rules)
        }
        return CompiledRuleList(
            identifier: meta.identifier, name: meta.name, dataset: meta.dataset, toolVersion: meta.toolVersion,
            sourceSHA256: header.sourceDigest, source: source, sourceRuleCount: meta.sourceRules,
            skippedRuleCount: meta.skippedRules, actions: Array(sections[1]), rules: rules, universalActions: universal,
            stylesheet: stylesheet, urlMatcher: matchers[0], topURLMatcher: matchers[1], frameURLMatcher: matchers[2])
    }

    /// Section sizes of a well-formed file (for `inspect`), without the other checks.
    public static func sectionSizes(_ data: [UInt8]) -> [(tag: String, offset: Int, size: Int)] {
        guard data.count >= headerSize + sectionEntrySize * sectionTags.count else { return [] }
        return data.withUnsafeBytes { buf in
            var r = ByteReader(buf, range: headerSize..<(headerSize + sectionEntrySize * sectionTags.count))
            var out: [(String, Int, Int)] = []
            for _ in sectionTags {
                guard let tag = try? r.take(4), (try? r.u32()) != nil, let o = try? r.u64(), let s = try? r.u64() else {
                    break
                }
                out.append((String(decoding: tag, as: UTF8.self), Int(o), Int(s)))
            }
            return out
        }
    }
}

/// The checks of `RBCFile.load`, one per part of the file; each refusal names `path`.
private struct RBCReader {
    let data: UnsafeRawBufferPointer
    let path: String

    struct Header {
        var version: UInt32
        var sectionCount: Int
        var sourceDigest: [UInt8]
    }

    struct Meta {
        var identifier: String, name: String, dataset: String?, toolVersion: String
        var sourceRules: Int, skippedRules: Int
    }

    func fail(_ reason: String) -> RBCError { RBCError(path: path, reason: reason) }

    /// Magic, format version, file size and checksum.
    func header() throws -> Header {
        let looksLikeJSON = data.first == UInt8(ascii: "[") || data.first == UInt8(ascii: "{")
        guard data.count >= RBCFile.headerSize, data.prefix(8).elementsEqual(RBCFile.magic) else {
            if looksLikeJSON {
                let name = path.split(separator: "/").last.map(String.init) ?? path
                let rbc = (name.hasSuffix(".json") ? String(name.dropLast(5)) : name) + ".rbc"
                throw fail(
                    "this is JSON, not a compiled rule list (.rbc): `radarblock compile \(name) -o \(rbc)` compiles "
                        + "rule-list JSON, `radarblock validate \(name)` checks it"
                )
            }
            if data.count < RBCFile.headerSize {
                throw fail(
                    "too short to be a compiled rule list (\(data.count) bytes, the header alone is "
                        + "\(RBCFile.headerSize))"
                )
            }
            throw fail("not a radarblock compiled rule list (wrong magic number)")
        }
        var header = ByteReader(data, range: 0..<RBCFile.headerSize)
        header.position = 8
        let version = try header.u32()
        guard version == RBCFile.formatVersion else {
            throw fail(
                "format version \(version), but this radarblock (\(ToolVersion.current)) reads version "
                    + "\(RBCFile.formatVersion): recompile the rule list with `radarblock compile`"
            )
        }
        let sectionCount = Int(try header.u32())
        let fileSize = try header.u64()
        guard fileSize == UInt64(data.count) else {
            throw fail("the header says \(fileSize) bytes but the file has \(data.count): truncated or damaged")
        }
        return Header(version: version, sectionCount: sectionCount, sourceDigest: Array(data[24..<56]))
    }

    /// Whether the SHA-256 of the file, with its own checksum field zeroed, is that field (the header was read).
    func checksumMatches() -> Bool {
        let digest = Digest(.sha256)
        digest.update(UnsafeRawBufferPointer(rebasing: data[0..<56]))
        digest.update([UInt8](repeating: 0, count: 32))
        digest.update(UnsafeRawBufferPointer(rebasing: data[88...]))
        return digest.finalize().elementsEqual(data[56..<88])
    }

    /// The section table: every tag in order, aligned, in bounds, not overlapping, ending with the file.
    func sections(count sectionCount: Int) throws -> [UnsafeRawBufferPointer] {
        let tags = RBCFile.sectionTags
        guard sectionCount == tags.count else { throw fail("\(sectionCount) sections, expected \(tags.count)") }
        let tableEnd = RBCFile.headerSize + RBCFile.sectionEntrySize * sectionCount
        guard tableEnd <= data.count else { throw fail("the section table runs past the end of the file") }
        var table = ByteReader(data, range: RBCFile.headerSize..<tableEnd)
        var sections: [UnsafeRawBufferPointer] = []
        var previousEnd = tableEnd
        for tag in tags {
            let tagBytes = try table.take(4)
            guard tagBytes.elementsEqual(tag.utf8) else {
                throw fail(
                    "section \(sections.count) is \"\(String(decoding: tagBytes, as: UTF8.self))\", expected \"\(tag)\""
                )
            }
            _ = try table.u32()
            let offset = try table.u64(), size = try table.u64()
            guard offset % UInt64(RBCFile.alignment) == 0, offset >= UInt64(previousEnd), offset <= UInt64(data.count),
                size <= UInt64(data.count) - offset
            else {
                throw fail("section \(tag) (offset \(offset), \(size) bytes) lies outside the file or overlaps another")
            }
            sections.append(UnsafeRawBufferPointer(rebasing: data[Int(offset)..<Int(offset + size)]))
            previousEnd = Int(offset + size)
        }
        guard previousEnd == data.count else {
            throw fail("\(data.count - previousEnd) unexpected bytes after the last section")
        }
        return sections
    }

    /// META: the key/value strings, every key the loader needs present.
    func meta(_ section: UnsafeRawBufferPointer) throws -> Meta {
        var reader = ByteReader(section, range: 0..<section.count)
        var fields: [String: String] = [:]
        let n = try reader.u32()
        guard n <= 1000 else { throw fail("META: \(n) entries") }
        for _ in 0..<n {
            let k = try reader.string(), v = try reader.string()
            fields[k] = v
        }
        func field(_ k: String) throws -> String {
            guard let v = fields[k] else { throw fail("META: missing \"\(k)\"") }
            return v
        }
        let identifier = try field("identifier"), name = try field("name"), dataset = try field("dataset")
        let toolVersion = try field("tool-version")
        guard let sourceRules = Int(try field("source-rules")), let skippedRules = Int(try field("skipped-rules"))
        else {
            throw fail("META: rule counts are not numbers")
        }
        return Meta(
            identifier: identifier, name: name, dataset: dataset.isEmpty ? nil : dataset, toolVersion: toolVersion,
            sourceRules: sourceRules, skippedRules: skippedRules)
    }

    /// SRCE and the identifier: an embedded source must match its digest and the identifier made from it;
    /// without one, the identifier must at least agree with META's name and versions.
    func checkIdentifier(_ meta: Meta, source: [UInt8], sourceDigest: [UInt8], formatVersion: UInt32) throws {
        if !source.isEmpty {
            guard Digest.hash(.sha256, source) == sourceDigest else {
                throw fail("the embedded source does not match its SHA-256")
            }
            let expected = try? RuleListIdentifier.make(
                name: meta.name, dataset: meta.dataset, formatVersion: formatVersion,
                toolVersion: meta.toolVersion, source: source)
            guard expected?.string == meta.identifier else {
                throw fail("the identifier \"\(meta.identifier)\" does not match the file's name, versions and source")
            }
        } else {
            guard let parts = RuleListIdentifier.parse(meta.identifier), parts.name == meta.name,
                parts.dataset == meta.dataset,
                parts.formatVersion == formatVersion, parts.toolVersion == meta.toolVersion
            else { throw fail("the identifier \"\(meta.identifier)\" does not match the file's name and versions") }
        }
    }

    /// ACTN: the locations where actions start (what RULE and UNIV may point at).
    func actionStarts(_ section: UnsafeRawBufferPointer) throws -> Set<UInt32> {
        do {
            return Set(try ActionBlob.all(section).map(\.location))
        } catch let e as ActionBlobError {
            throw fail("actions: \(e.description)")
        }
    }

    /// RULE: 12 bytes a rule, each pointing at an action and into the source.
    func rules(_ section: UnsafeRawBufferPointer, actionStarts starts: Set<UInt32>, sourceRules: Int) throws
        -> [CompiledRuleInfo]
    {
        guard section.count % 12 == 0 else { throw fail("RULE: size \(section.count) is not a multiple of 12") }
        var reader = ByteReader(section, range: 0..<section.count)
        var rules: [CompiledRuleInfo] = []
        rules.reserveCapacity(section.count / 12)
        for _ in 0..<(section.count / 12) {
            let info = CompiledRuleInfo(
                sourceIndex: try reader.u32(), actionLocation: try reader.u32(), flags: try reader.u32())
            guard starts.contains(info.actionLocation), Int(info.sourceIndex) < sourceRules else {
                throw fail("RULE: rule \(rules.count) points outside the actions or the source")
            }
            rules.append(info)
        }
        return rules
    }

    /// UNIV: action locations, each the start of an action.
    func universalActions(_ section: UnsafeRawBufferPointer, actionStarts starts: Set<UInt32>) throws -> [UInt32] {
        guard section.count % 4 == 0 else { throw fail("UNIV: size \(section.count) is not a multiple of 4") }
        var reader = ByteReader(section, range: 0..<section.count)
        var universal: [UInt32] = []
        for _ in 0..<(section.count / 4) {
            let u = try reader.u32()
            guard starts.contains(u) else { throw fail("UNIV: location \(u) is not an action") }
            universal.append(u)
        }
        return universal
    }

    /// MURL/MTOP/MFRM: Matcher checks its own serialization; every id must name a rule of RULE, with its flags.
    func automaton(_ section: UnsafeRawBufferPointer, tag: String, rules: [CompiledRuleInfo]) throws -> Matcher {
        let matcher: Matcher
        do {
            matcher = try Matcher(serialized: section)
        } catch {
            throw fail("\(tag): \(error)")
        }
        for id in matcher.allIDs {
            let rule = Int(UInt32(truncatingIfNeeded: id))
            guard rule < rules.count, rules[rule].flags == UInt32(truncatingIfNeeded: id >> 32) else {
                throw fail("\(tag): id \(id) names no rule of the RULE table (or not with that rule's flags)")
            }
        }
        return matcher
    }
}

public struct RBCError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}
