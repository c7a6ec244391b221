// MatcherHostTable: the `||host^` patterns of a family, `^[^:]+://+([^/]+\.)?HOST[:/]`, looked up by host
// instead of walked as DFAs.
//
// The filter lists have tens of thousands of them; as DFAs they are tries of hosts that every URL walks, and in a
// MatcherProduct every distinct host would be a new tuple (docs/filter-lists.md). What the pattern matches, read
// from its terms (WebKit's symbols: a URL byte 0 is the end-of-string symbol, which no negated class holds):
//   `^[^:]+:`   the URL's first `:`, after at least one byte and no byte 0;
//   `//+`       two or more `/`, and the host part starts after all of them (neither the group nor HOST begins
//               with `/`), at S;
//   `([^/]+\.)?HOST[:/]`  a match starts at S or right after a `.` at p > S, with no `/` or byte 0 in S..<p; HOST
//               holds no `:` or `/`, so from a start the only candidate is the text up to the next `:` or `/`
//               (which must exist), compared ASCII case-insensitively. A byte 0 there ends every match.
// So every candidate ends at a `:` or `/` of the host part, and those ending at one are the suffixes of its segment
// (the bytes since S or the last `:`) that start at S or after a `.`. A DFA reports its accepting state once per
// match end: the table reports a host's action list once per candidate equal to it.
//
// The table is an open-addressing hash (linear probing) over the lower-cased keys, hashed from their last byte to
// their first, so the suffixes of a segment are hashed in one pass from its end.
//
// Gates. A pattern that starts as a host pattern and goes on (`||host/path`, `||host^*.js`: HOST followed by a
// term of `:` and `/` only, then more) is still a DFA, but one that matches only where HOST is a candidate: up to
// that term it is the host pattern, so HOST ends at a `:` or `/` of the host part and the table sees it there. The
// builder puts such patterns in DFAs of their own, a group of hosts each (`gate`, 1...64), and gives each of their
// hosts an entry naming its group. A gated DFA whose group no candidate of the URL opened reports nothing, so
// MatcherProduct does not walk it: as tries of hosts these DFAs were most of what a new host cost, and every URL
// walked them (docs/matching.md).

import CSystem
import ContentRules

/// A class, not a struct: a prefix's making and resuming read the table through an optional, and each `if let` of
/// a struct this large copied it, with a retain for each of its five tables.
final class MatcherHostTable: Sendable, Equatable {
    /// The longest key: a candidate that is longer matches nothing, so a prefix carries at most this many bytes.
    let maxKeyLength: Int
    /// Per slot 0 (empty) or an entry's index + 1; a power of two, at least one of them empty.
    let slots: [UInt32]
    /// Per entry (`entryWords` each): where its key starts in `keys`, its length, its action list (`noList`: none),
    /// its gate (0: none, else the group 1...`maximumGates` of gated DFAs its host opens).
    let entries: [UInt32]
    let keys: [UInt8]
    /// Per slot what a lookup reads: its entry's offset in `records` + 1 in the low 32 bits (0: empty), its key's
    /// hash in the high 32. Made from the others at load, not stored: a probe that is not the key then costs one load
    /// from memory (most candidates are no key), and one that is costs two, the probe and the record.
    let probes: [UInt64]
    /// Per entry, back to back: its key's length, its action list, its gate word, then the key's bytes, four a word
    /// (zero-padded). Made at load: in `entries` and `keys` a key's entry and bytes lie apart, one more load from
    /// memory for every candidate that is a key (a new host's are in no core's cache).
    let records: [UInt32]
    static let recordHeaderWords = 3

    /// Keys are at most this long, so that a prefix's pending bytes stay few (a host name is at most 253).
    static let keyLengthLimit = 1024
    static let entryWords = 4
    static let noList = UInt32.max
    /// Gates are bits of a word: a URL's open gates are one mask.
    static let maximumGates = 64

    var count: Int { entries.count / Self.entryWords }

    /// What the section takes in a file.
    var byteCount: Int { 16 + 4 * slots.count + 4 * entries.count + (keys.count + 3) / 4 * 4 }

    // MARK: recognizing a pattern

    /// The terms every host pattern starts with and ends with, read from WebKit's parse of one. A value made per
    /// build, not a process-wide static: a once-initialized global of enum payloads reads as a leak to
    /// LeakSanitizer, which the fuzz targets run under.
    struct PatternShape {
        /// The heads a host pattern may start with (HostPattern). Both need `://` after the scheme, and a URL WebKit
        /// serializes with that holds no `<` (CanonicalURLLessThanTests), so on every URL the matcher reads they match
        /// the same and the table reads both alike.
        let heads: [[URLFilterTerm]]
        let tail: URLFilterTerm

        static let headSpellings = [HostPattern.subdomainHead, HostPattern.onlyHostHead]

        init() {
            let parsed = Self.headSpellings.map { URLFilter.parse($0 + "a[:/]", caseSensitive: false).terms }
            precondition(parsed[0].count == 7, "the host pattern's terms changed")
            tail = parsed[0][6]
            heads = parsed.map { terms in
                precondition(terms.count > 2 && terms.last == parsed[0][6], "the host pattern's terms changed")
                return Array(terms.dropLast(2))
            }
        }

        /// What a host pattern names: HOST (lower-cased) and whether its letters match one case only.
        struct Host: Hashable {
            var key: [UInt8]
            var caseSensitive: Bool
        }

        /// HOST when `filter` is a head then HOST then `[:/]`, with HOST a literal of ASCII bytes other than `:` and
        /// `/` whose letters all match both cases, or all match the lower case only (`caseSensitive`); nil otherwise.
        func host(of filter: URLFilter) -> Host? {
            guard filter.status == .ok, filter.terms.last == tail, let (host, end, _) = leadingHost(filter.terms),
                end == filter.terms.count - 1
            else { return nil }
            return host
        }

        /// HOST when `filter` starts as a host pattern of the first head with letters matching both cases, the head
        /// then HOST then a term of one byte out of `:` and `/` (and of nothing else), and goes on past it: a pattern
        /// that can match only where HOST ends at a `:` or `/` of the host part, a candidate the table sees (see the
        /// top of the file). Nil otherwise, and for a host pattern itself. Not the second head: its DFA stays alive
        /// past the host part's `/` (for a `<`), so a shut gate would stop a DFA that has not stopped.
        func gatingHost(of filter: URLFilter) -> [UInt8]? {
            guard filter.status == .ok, let (host, end, head) = leadingHost(filter.terms), head == 0,
                !host.caseSensitive,
                end < filter.terms.count - 1, case .characterSet(let set, .one) = filter.terms[end],
                Self.holdsOnlyColonOrSlash(set)
            else { return nil }
            return host.key
        }

        /// The literal host after a head (lower-cased), the index of the first term past it and which head, when
        /// there is one, its letters are all of one kind and a term follows it.
        private func leadingHost(_ terms: [URLFilterTerm]) -> (host: Host, end: Int, head: Int)? {
            guard terms.count > 6, let index = heads.firstIndex(where: { terms.starts(with: $0) }) else { return nil }
            let head = heads[index]
            var key: [UInt8] = []
            var cases: Set<Bool> = []
            var end = head.count
            while end < terms.count, case .characterSet(let set, .one) = terms[end],
                let (byte, oneCase) = MatcherHostTable.literal(set)
            {
                key.append(byte)
                if let oneCase { cases.insert(oneCase) }
                end += 1
            }
            guard !key.isEmpty, key.count <= MatcherHostTable.keyLengthLimit, end < terms.count, cases.count <= 1
            else { return nil }
            return (Host(key: key, caseSensitive: cases.first ?? false), end, index)
        }

        private static func holdsOnlyColonOrSlash(_ set: URLFilterCharacterSet) -> Bool {
            let members = (0..<128).filter { set.contains(symbol: $0) }
            return !set.nonASCII && !members.isEmpty
                && members.allSatisfy { $0 == Int(UInt8(ascii: ":")) || $0 == Int(UInt8(ascii: "/")) }
        }
    }

    /// The byte a set of one literal character holds (lower-cased), when it holds a letter in both cases
    /// (`oneCase` false), a lower-case letter alone (true), or another character alone (nil); nil for any other
    /// set, an upper-case letter alone, `:`, `/` and the end-of-string symbol.
    fileprivate static func literal(_ set: URLFilterCharacterSet) -> (byte: UInt8, oneCase: Bool?)? {
        guard !set.nonASCII else { return nil }
        let members = (1..<128).filter { set.contains(symbol: $0) }
        guard let first = members.first else { return nil }
        let byte = lower(UInt8(first))
        guard byte != UInt8(ascii: ":"), byte != UInt8(ascii: "/"), !set.contains(symbol: 0) else { return nil }
        guard byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") else {
            return members == [Int(byte)] ? (byte, nil) : nil
        }
        if members == [Int(byte - 32), Int(byte)] { return (byte, false) }
        return members == [Int(byte)] ? (byte, true) : nil
    }

    // MARK: building and looking up

    /// One host's entry: its action list (`noList`: none), whether the list's patterns match the host's letters in
    /// the lower case only, and its gate (0: none; a gate opens on either case, as its DFAs match).
    struct Entry {
        var key: [UInt8]
        var list: UInt32
        var gate: UInt32
        var caseSensitive = false
    }

    /// The entry's gate word: the gate in the low bits, this bit when the list is case-sensitive.
    static let caseSensitiveList: UInt32 = 1 << 31

    /// A table of `hosts` (distinct lower-cased keys), laid out the same for the same input.
    convenience init(hosts: [Entry]) {
        let sorted = hosts.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        var size = 4
        while size < 2 * sorted.count + 1 { size *= 2 }
        var slots = [UInt32](repeating: 0, count: size)
        var entries: [UInt32] = [], keys: [UInt8] = []
        for (e, host) in sorted.enumerated() {
            let gateWord = host.gate | (host.caseSensitive ? Self.caseSensitiveList : 0)
            entries += [UInt32(keys.count), UInt32(host.key.count), host.list, gateWord]
            keys += host.key
            var slot = Int(Self.hash(host.key.reversed())) & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = UInt32(e + 1)
        }
        self.init(
            maxKeyLength: sorted.map(\.key.count).max() ?? 0, slots: slots, entries: entries, keys: keys)
    }

    /// A table of validated parts (every entry's key within `keys`).
    init(maxKeyLength: Int, slots: [UInt32], entries: [UInt32], keys: [UInt8]) {
        (self.maxKeyLength, self.slots, self.entries, self.keys) = (maxKeyLength, slots, entries, keys)
        // Made once per load of a list, over every key: through buffers, without an array per entry.
        let n = entries.count / Self.entryWords
        var recordOf = [UInt32](repeating: 0, count: n), hashOf = [UInt32](repeating: 0, count: n)
        var records: [UInt32] = []
        records.reserveCapacity(n * Self.recordHeaderWords + keys.count / 4 + n)
        keys.withUnsafeBufferPointer { keys in
            for e in 0..<n {
                let (start, count) = (Int(entries[Self.entryWords * e]), Int(entries[Self.entryWords * e + 1]))
                recordOf[e] = UInt32(records.count)
                records.append(UInt32(count))
                records.append(entries[Self.entryWords * e + 2])
                records.append(entries[Self.entryWords * e + 3])
                let key = UnsafeBufferPointer(rebasing: keys[start..<(start + count)])
                hashOf[e] = Self.hash(key.reversed())
                Self.appendPacked(key, to: &records)
            }
        }
        self.records = records
        probes = slots.map { e in
            e == 0 ? 0 : UInt64(recordOf[Int(e - 1)] + 1) | UInt64(hashOf[Int(e - 1)]) << 32
        }
    }

    /// Equal when made of equal parts (`probes` and `records` are made from them).
    static func == (a: MatcherHostTable, b: MatcherHostTable) -> Bool {
        (a.maxKeyLength, a.slots, a.entries, a.keys) == (b.maxKeyLength, b.slots, b.entries, b.keys)
    }

    /// `bytes` four a word, the first in the low byte, the last word zero-padded: a record's key, a prefix's carried
    /// bytes.
    static func appendPacked<C: Collection<UInt8>, W: FixedWidthInteger>(_ bytes: C, to words: inout [W]) {
        var w: UInt32 = 0
        for (i, b) in bytes.enumerated() {
            w |= UInt32(b) << (8 * UInt32(i & 3))
            if i & 3 == 3 {
                words.append(W(truncatingIfNeeded: w))
                w = 0
            }
        }
        if bytes.count & 3 != 0 { words.append(W(truncatingIfNeeded: w)) }
    }

    /// What `candidate`, equal to the key of the entry whose record starts at `r` in either case, gives: its action
    /// list (when the list is case-sensitive, only if the candidate has no upper-case letter: the key has none), its
    /// gate.
    @inline(__always)
    func report(record r: Int, candidate: UnsafeBufferPointer<UInt8>, gates: inout UInt64, reached: (UInt32) -> Void) {
        records.withUnsafeBufferPointer { records in
            let (list, word) = (records[r &+ 1], records[r &+ 2])
            let gate = word & ~Self.caseSensitiveList
            if list != Self.noList && (word & Self.caseSensitiveList == 0 || !Self.hasUpperCase(candidate)) {
                reached(list)
            }
            if gate != 0 { gates |= 1 &<< UInt64(gate &- 1) }
        }
    }

    private static func hasUpperCase(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.contains { lower($0) != $0 }
    }

    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 { WHATWGHost.lowercased(b) }

    static let hashSeed: UInt32 = 0x811C_9DC5

    /// FNV-1a of the lower-cased bytes, in the order given (the table hashes a key from its last byte).
    static func hash<S: Sequence<UInt8>>(_ bytes: S) -> UInt32 {
        bytes.reduce(hashSeed) { step($0, $1) }
    }

    @inline(__always)
    static func step(_ h: UInt32, _ b: UInt8) -> UInt32 { (h ^ UInt32(lower(b))) &* 0x0100_0193 }

    /// Starts loading the first slot a key of hash `h` would be in, without waiting for it.
    @inline(__always)
    func prefetchProbe(_ h: UInt32) {
        probes.withUnsafeBufferPointer { rb_prefetch($0.baseAddress! + (Int(h) & ($0.count &- 1))) }
    }

    /// The probe of the first slot a key of hash `h` would be in: `record` starts there.
    @inline(__always)
    func firstProbe(_ h: UInt32) -> UInt64 {
        probes.withUnsafeBufferPointer { $0[Int(h) & ($0.count &- 1)] }
    }

    /// The record (its first word's index) of the key equal (ASCII case-insensitively) to `text`, whose reversed
    /// hash is `h` and first slot's probe `firstProbe`. The table was validated at load (an empty slot, entries and
    /// keys in bounds), and its records and probes made from it: no bounds checks.
    @inline(__always)
    func record(hash h: UInt32, firstProbe: UInt64, _ text: UnsafeBufferPointer<UInt8>) -> Int? {
        probes.withUnsafeBufferPointer { probes in
            records.withUnsafeBufferPointer { records in
                let mask = probes.count &- 1
                var (slot, probe) = (Int(h) & mask, firstProbe)
                while probe != 0 {
                    let r = Int(UInt32(truncatingIfNeeded: probe)) &- 1
                    if UInt32(truncatingIfNeeded: probe >> 32) == h && Int(records[r]) == text.count
                        && Self.keyEquals(records, from: r &+ Self.recordHeaderWords, text)
                    {
                        return r
                    }
                    slot = (slot &+ 1) & mask
                    probe = probes[slot]
                }
                return nil
            }
        }
    }

    /// Whether the key packed in `records` from word `at` is `text` lower-cased (its length is `text`'s).
    @inline(__always)
    private static func keyEquals(
        _ records: UnsafeBufferPointer<UInt32>, from at: Int, _ text: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var i = 0
        while i < text.count {
            if UInt8(truncatingIfNeeded: records[at &+ i &>> 2] &>> (8 &* UInt32(i & 3))) != lower(text[i]) {
                return false
            }
            i &+= 1
        }
        return true
    }
}

/// Where a URL's reading by a host table stands: what a MatcherPrefix carries for it, so that resuming on the rest
/// of the URL reports what reading the whole URL does.
struct HostScan: Equatable {
    enum Phase: UInt8 {
        /// Before the first byte; in the scheme; after its `:`; after `:/`; in the slashes; in the host part;
        /// no more matches (a byte 0, no `://`, or the host part's `/`).
        case start, scheme, colon, colonSlash, slashes, host, done
    }

    var phase = Phase.start
    /// The current segment (host part bytes since S or the last `:`) started at S.
    var firstSegment = false
    /// The segment's length so far, clamped to the table's longest key + 2 (see `candidates`).
    var segmentLength = 0
    /// The segment's last bytes read before the current input, at most the longest key + 1.
    var carried: [UInt8] = []

    static let done = HostScan(phase: .done)

    /// Reads `input`, calling `reached` with the action list of every candidate that is a key, and setting in
    /// `gates` the bit (gate - 1) of every gate a candidate opens. With `found`: only starts loading the slots of
    /// the candidates and keeps them there (`lookUp` then reports them), reporting nothing.
    mutating func read(
        _ input: UnsafeBufferPointer<UInt8>, _ table: MatcherHostTable, gates: inout UInt64,
        found: UnsafeMutablePointer<[FoundCandidate]>? = nil, reached: (UInt32) -> Void
    ) {
        var i = 0
        let n = input.count
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        while i < n {
            let b = input[i]
            switch phase {
            case .start, .scheme:
                if b == 0 || (b == colon && phase == .start) { return self = .done }
                phase = b == colon ? .colon : .scheme
            case .colon, .colonSlash:
                guard b == slash else { return self = .done }
                phase = phase == .colon ? .colonSlash : .slashes
            case .slashes:
                if b != slash {
                    (phase, firstSegment, segmentLength, carried) = (.host, true, 0, [])
                    continue
                }
            case .host:
                i = readHost(input, from: i, table, gates: &gates, found: found, reached: reached)
                continue
            case .done:
                return
            }
            i += 1
        }
    }

    /// The host part from `i`: returns where the input ends, or where it stops (`done`).
    private mutating func readHost(
        _ input: UnsafeBufferPointer<UInt8>, from i: Int, _ table: MatcherHostTable, gates: inout UInt64,
        found: UnsafeMutablePointer<[FoundCandidate]>?, reached: (UInt32) -> Void
    ) -> Int {
        let limit = table.maxKeyLength + 2
        var start = i, i = i
        while i < input.count {
            let b = input[i]
            if b == UInt8(ascii: ":") || b == UInt8(ascii: "/") {
                candidates(input, start..<i, table, gates: &gates, found: found, reached: reached)
                if b == UInt8(ascii: "/") {
                    self = .done
                    return input.count
                }
                (firstSegment, segmentLength, carried) = (false, 0, [])
                start = i + 1
            } else if b == 0 {
                self = .done
                return input.count
            } else if segmentLength < limit {
                segmentLength += 1
            }
            i += 1
        }
        let kept = table.maxKeyLength + 1
        carried = Array((carried + input[start..<input.count]).suffix(kept))
        return i
    }

    /// Reports the keys among the suffixes of the segment that ends at a `:` or `/`: `carried` then `input[range]`.
    private func candidates(
        _ input: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ table: MatcherHostTable, gates: inout UInt64,
        found: UnsafeMutablePointer<[FoundCandidate]>?, reached: (UInt32) -> Void
    ) {
        if let found {
            // Kept by their place in `input`. Only a scan read from the start keeps them (`prefetchHosts`), and it
            // carries bytes only once its input has ended, after its last candidates.
            precondition(carried.isEmpty, "a scan that keeps its candidates is read from the start")
            forEachCandidate(UnsafeBufferPointer(rebasing: input[range]), table) { start, h in
                table.prefetchProbe(h)
                found.pointee.append(
                    FoundCandidate(start: Int32(range.lowerBound + start), end: Int32(range.upperBound), hash: h))
            }
        } else if carried.isEmpty {
            candidates(UnsafeBufferPointer(rebasing: input[range]), table, gates: &gates, reached: reached)
        } else {
            (carried + input[range]).withUnsafeBufferPointer {
                candidates($0, table, gates: &gates, reached: reached)
            }
        }
    }

    /// Reports the candidates `read` kept in `found` for the same `input`, as `read` without them would have.
    static func lookUp(
        _ found: [FoundCandidate], _ input: UnsafeBufferPointer<UInt8>, _ table: MatcherHostTable, gates: inout UInt64,
        reached: (UInt32) -> Void
    ) {
        for c in found {
            let candidate = UnsafeBufferPointer(rebasing: input[Int(c.start)..<Int(c.end)])
            if let r = table.record(hash: c.hash, firstProbe: table.firstProbe(c.hash), candidate) {
                table.report(record: r, candidate: candidate, gates: &gates, reached: reached)
            }
        }
    }

    /// The same over the segment's bytes at hand (its last ones, if not all), in two passes: first every
    /// candidate's hash and first probe, loads independent of each other, so that their misses overlap (a new
    /// host's slots are in no core's cache); then the lookups, from those probes.
    private func candidates(
        _ segment: UnsafeBufferPointer<UInt8>, _ table: MatcherHostTable, gates: inout UInt64,
        reached: (UInt32) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: Candidate.self, capacity: min(segment.count, table.maxKeyLength + 1)) {
            found in
            var n = 0
            forEachCandidate(segment, table) { start, h in
                found.initializeElement(at: n, to: Candidate(start: start, hash: h, probe: table.firstProbe(h)))
                n += 1
            }
            let end = segment.count
            for c in found[..<n] {
                let candidate = UnsafeBufferPointer(rebasing: segment[c.start..<end])
                if let r = table.record(hash: c.hash, firstProbe: c.probe, candidate) {
                    table.report(record: r, candidate: candidate, gates: &gates, reached: reached)
                }
            }
        }
    }

    /// Each candidate among the suffixes of the segment's bytes at hand, longest last: its start in `segment`
    /// and its hash. A suffix of length at most the longest key starts at index k of the window (the last bytes,
    /// at most the longest key + 1), and at segment index j = segmentLength - window + k (segmentLength is exact up
    /// to the longest key + 1, and past it j > 1 for every k > 0, which is all that is asked of j).
    @inline(__always)
    private func forEachCandidate(
        _ segment: UnsafeBufferPointer<UInt8>, _ table: MatcherHostTable, _ body: (Int, UInt32) -> Void
    ) {
        let window = min(segment.count, table.maxKeyLength + 1)
        guard let bytes = segment.baseAddress.map({ $0 + (segment.count - window) }) else { return }
        var h = MatcherHostTable.hashSeed
        var k = window - 1
        while k >= 0 && window - k <= table.maxKeyLength {
            h = MatcherHostTable.step(h, bytes[k])
            let j = segmentLength - window + k
            if j == 0 ? firstSegment : bytes[k - 1] == UInt8(ascii: ".") && !(firstSegment && j == 1) {
                body(segment.count - window + k, h)
            }
            k -= 1
        }
    }

    private struct Candidate {
        var start: Int, hash: UInt32, probe: UInt64
    }

    /// A candidate that a read kept (in the order it would have looked it up): its bytes' place in the input read,
    /// and its hash.
    struct FoundCandidate {
        var start: Int32, end: Int32, hash: UInt32
    }

    // MARK: in a prefix

    /// The words a prefix carries: phase, first-segment flag and segment length in the first, the number of carried
    /// bytes in the second, then those bytes, four a word.
    var words: [Int32] {
        let first = UInt32(phase.rawValue) | (firstSegment ? 0x100 : 0) | UInt32(segmentLength) << 16
        var out = [Int32(bitPattern: first), Int32(carried.count)]
        MatcherHostTable.appendPacked(carried, to: &out)
        return out
    }

    /// How many words of `words` from `at` a scan takes (the first two say).
    static func wordCount(_ words: UnsafeBufferPointer<Int32>, at: Int) -> Int { 2 + (Int(words[at + 1]) + 3) / 4 }

    init(phase: Phase = .start) { self.phase = phase }

    /// The scan a prefix carries from `at` (written by `words`).
    init(_ words: UnsafeBufferPointer<Int32>, at: Int) {
        let first = UInt32(bitPattern: words[at])
        phase = Phase(rawValue: UInt8(truncatingIfNeeded: first)) ?? .done
        firstSegment = first & 0x100 != 0
        segmentLength = Int(first >> 16)
        let count = Int(words[at + 1])
        carried = (0..<count).map {
            UInt8(truncatingIfNeeded: UInt32(bitPattern: words[at + 2 + $0 / 4]) >> (8 * UInt32($0 % 4)))
        }
    }
}
