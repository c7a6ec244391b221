// The one Adblock Plus / uBlock Origin syntax parser: a list's bytes -> FilterList (network filters, cosmetic
// filters, headers, and an issue for every line that is not a filter). One pass over the bytes, each line looked at
// a bounded number of times, so a hostile list costs time linear in its size; a line longer than
// FilterListLimits.lineBytes and a line that is not UTF-8 are reported, not read. Filter lists (FilterLists) and
// the TDS's cookie pop-up list (TrackerData's CosmeticFilters.swift) are both read here; a list that only hides
// elements keeps its network lines unread (`Reading.cosmeticOnly`).

public struct FilterListError: Error, CustomStringConvertible {
    public var description: String
}

public enum FilterListParser {
    /// What a list is read for.
    public enum Reading: Sendable {
        /// Every filter: network filters parsed with their options.
        case all
        /// A cosmetic list (the cookie pop-up list): network lines are kept as written in
        /// `FilterList.unreadNetwork`, for the caller to report, and their options are not read.
        case cosmeticOnly
    }

    /// Parses a whole list; throws only when the list as a whole cannot be one (more lines than the limit).
    public static func parse(_ bytes: [UInt8], name: String, reading: Reading = .all) throws -> FilterList {
        let whole = try pieces(bytes, name: name, size: .max)
        return FilterList(joining: whole.map { parse(bytes, piece: $0, name: name, reading: reading) }, name: name)
    }

    /// Whole lines of a list, read apart from the others (a line's meaning owes nothing to the lines before it).
    public struct Piece: Sendable, Equatable {
        /// Its bytes in the list: whole lines, the last one's "\n" included.
        public var bytes: Range<Int>
        /// The number of its first line in the list, from 1.
        public var firstLine: Int
    }

    /// The list cut into pieces of whole lines, each ending at the first line end at least `size` bytes after its
    /// start (the last piece at the end of the list), so that pieces of several lists can be parsed on every core
    /// and joined (`FilterList(joining:name:)`) into what `parse` makes of each list. Throws as `parse` does for
    /// a list of more lines than the limit.
    public static func pieces(_ bytes: [UInt8], name: String, size: Int) throws -> [Piece] {
        var out: [Piece] = []
        // `lines`: the line ends seen; `first`: the number of the line at `start`.
        var start = 0, lines = 0, first = 1
        bytes.withUnsafeBufferPointer { b in
            for i in b.indices where b[i] == 10 {
                lines += 1
                if i + 1 - start >= size {
                    out.append(Piece(bytes: start..<(i + 1), firstLine: first))
                    (start, first) = (i + 1, lines + 1)
                }
            }
        }
        if start < bytes.count {
            out.append(Piece(bytes: start..<bytes.count, firstLine: first))
            // An unterminated last line is a line.
            if bytes.last != 10 { lines += 1 }
        }
        if lines > FilterListLimits.lines {
            throw FilterListError(
                description: "\(name): more than \(FilterListLimits.lines) lines: not a filter list this tool reads")
        }
        return out
    }

    /// The lines of one piece of a list, numbered from the piece's first line (`lines` counts the piece's lines).
    public static func parse(_ bytes: [UInt8], piece: Piece, name: String, reading: Reading = .all) -> FilterList {
        var list = FilterList(name: name)
        var start = piece.bytes.lowerBound
        var number = piece.firstLine - 1
        while start < piece.bytes.upperBound {
            var end = start
            while end < piece.bytes.upperBound && bytes[end] != 10 { end += 1 }
            number += 1
            read(bytes[start..<end], number: number, reading: reading, into: &list)
            start = end + 1
        }
        list.lines = number - (piece.firstLine - 1)
        return list
    }

    static func read(_ raw: ArraySlice<UInt8>, number: Int, reading: Reading, into list: inout FilterList) {
        var line = raw
        if line.last == 13 { line = line.dropLast() }
        if line.count > FilterListLimits.lineBytes {
            let head = String(decoding: line.prefix(80), as: UTF8.self)
            list.issues.append(
                FilterLineIssue(
                    line: number, text: head, kind: .malformed,
                    reason: "a line of \(line.count) bytes, longer than \(FilterListLimits.lineBytes): not read"))
            return
        }
        guard let decoded = String(validating: line, as: UTF8.self) else {
            list.issues.append(
                FilterLineIssue(
                    line: number, text: String(decoding: line, as: UTF8.self), kind: .malformed,
                    reason: "the line is not UTF-8"))
            return
        }
        let text = trimmed(decoded)
        if text.isEmpty {
            list.blank += 1
            return
        }
        switch classify(text) {
        case .comment:
            list.comments += 1
        case .header(let key, let value):
            list.headers.append((key, value))
        case .cosmetic(let kind, let domains, let body):
            readCosmetic(text, number: number, kind: kind, domains: domains, body: body, into: &list)
        case .network where reading == .cosmeticOnly:
            list.unreadNetwork.append(FilterLine(line: number, text: text))
        case .network:
            switch NetworkFilterParser.parse(text, line: number) {
            case .success(let filter): list.network.append(filter)
            case .failure(let issue): list.issues.append(issue)
            }
        }
    }

    enum LineKind {
        case comment
        case header(String, String)
        case cosmetic(CosmeticFilter.Kind, Substring, Substring)
        case network
    }

    static func classify(_ text: String) -> LineKind {
        if text.hasPrefix("[") && text.hasSuffix("]") { return .header("format", String(text.dropFirst().dropLast())) }
        if text.hasPrefix("!") {
            let rest = text.dropFirst().drop { $0 == " " }
            if let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy({ $0.isLetter || $0 == " " }),
                !rest[..<colon].isEmpty, rest[..<colon].count <= 20
            {
                return .header(String(rest[..<colon]), trimmed(String(rest[rest.index(after: colon)...])))
            }
            return .comment
        }
        // uBO's comment form; `##` at the start is a generic cosmetic filter.
        if text.hasPrefix("# ") || text == "#" { return .comment }
        if let (kind, range) = cosmeticSeparator(text) {
            return .cosmetic(kind, text[..<range.lowerBound], text[range.upperBound...])
        }
        return .network
    }

    /// The first cosmetic separator whose domain part could be a domain list (ABP: no `/`, `|`, `@`, `"`, `!`
    /// before it), longest separators first at each position.
    static func cosmeticSeparator(_ text: String) -> (CosmeticFilter.Kind, Range<String.Index>)? {
        text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiCosmeticSeparator(text) : characterCosmeticSeparator(text)
    }

    /// `cosmeticSeparator` character by character, as ABP reads it.
    static func characterCosmeticSeparator(_ text: String) -> (CosmeticFilter.Kind, Range<String.Index>)? {
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if "/|@\"!$".contains(c) { return nil }
            if c == "#" {
                let rest = text[i...]
                for kind in separatorKinds where rest.hasPrefix(kind.rawValue) {
                    return (kind, i..<text.index(i, offsetBy: kind.rawValue.count))
                }
            }
            i = text.index(after: i)
        }
        return nil
    }

    static let separatorKinds: [CosmeticFilter.Kind] = [
        .extendedException, .styleException, .scriptException, .hideException, .extended, .style, .script, .hide,
    ]

    /// `cosmeticSeparator` of an ASCII line in its UTF-8 bytes, where each character is one byte (a line has no
    /// "\r\n", the one pair of ASCII characters that is one Character): the same answer without Character
    /// iteration, which cost a twentieth of `convert --filter-list`'s CPU.
    static func asciiCosmeticSeparator(_ text: String) -> (CosmeticFilter.Kind, Range<String.Index>)? {
        let utf8 = text.utf8
        var i = utf8.startIndex
        while i < utf8.endIndex {
            switch utf8[i] {
            case UInt8(ascii: "/"), UInt8(ascii: "|"), UInt8(ascii: "@"), UInt8(ascii: "\""), UInt8(ascii: "!"),
                UInt8(ascii: "$"):
                return nil
            case UInt8(ascii: "#"):
                let rest = utf8[i...]
                for kind in separatorKinds where rest.starts(with: kind.rawValue.utf8) {
                    return (kind, i..<utf8.index(i, offsetBy: kind.rawValue.utf8.count))
                }
            default: break
            }
            i = utf8.index(after: i)
        }
        return nil
    }

    static func readCosmetic(
        _ text: String, number: Int, kind: CosmeticFilter.Kind, domains: Substring, body: Substring,
        into list: inout FilterList
    ) {
        guard !body.isEmpty else {
            list.issues.append(
                FilterLineIssue(
                    line: number, text: text, kind: .malformed, reason: "a cosmetic filter with no selector"))
            return
        }
        var entries: [DomainEntry] = []
        if !domains.isEmpty {
            for part in domains.split(separator: ",", omittingEmptySubsequences: false) {
                switch DomainEntry.parse(part) {
                case .success(let e): entries.append(e)
                case .failure(let why):
                    list.issues.append(FilterLineIssue(line: number, text: text, kind: .malformed, reason: why.message))
                    return
                }
            }
        }
        list.cosmetic.append(
            CosmeticFilter(line: number, text: text, kind: kind, domains: entries, body: String(body)))
    }

    static func trimmed(_ s: String) -> String {
        // Neither end a space or tab byte: no " " or "\t" character at either end (each is its byte alone, and
        // no character ends with another's bytes but a space after a prepended mark, which goes the long way). The
        // line as it is, without a second string per line.
        if let first = s.utf8.first, let last = s.utf8.last, first != 0x20, first != 0x09, last != 0x20, last != 0x09 {
            return s
        }
        return characterTrimmed(s)
    }

    /// `trimmed` character by character.
    static func characterTrimmed(_ s: String) -> String {
        var t = Substring(s)
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return String(t)
    }
}

/// Why a piece of a filter cannot be read.
public struct FilterSyntaxError: Error, Sendable, Hashable {
    public var message: String

    public init(message: String) { self.message = message }
}

extension DomainEntry {
    /// `a.com` or `~a.com`, lowercased; uBO's entity form `a.*` is kept as written (the converter reports it), and
    /// so are IP literals (`127.0.0.1`, `[::1]`).
    static func parse(_ part: Substring) -> Result<DomainEntry, FilterSyntaxError> {
        let excluded = part.hasPrefix("~")
        let name = (excluded ? part.dropFirst() : part).lowercased()
        guard !name.isEmpty else { return .failure(FilterSyntaxError(message: "an empty domain entry")) }
        let allowed = name.unicodeScalars.allSatisfy {
            $0.value >= 0x80 || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                || "-._*[]:".unicodeScalars.contains($0)
        }
        guard allowed else {
            return .failure(FilterSyntaxError(message: "domain entry \"\(part)\" is not a domain name"))
        }
        return .success(DomainEntry(domain: name, excluded: excluded))
    }
}
