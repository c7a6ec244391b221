// MatcherBytecode: the serialized form of a Matcher (one pattern family), embedded in .rbc files.
// Changing anything below is a format change: bump `MatcherBytecode.formatVersion` (and RBCFile's).
//
// A file holds the execution form itself (MatcherProgram, MatcherInterpreter.swift): a load validates it and
// copies it, and plans nothing (docs/matching.md, "Loading the .rbc"). The compact form (`encode`, below) is
// only the compiler's step between a DFA and its layout (MatcherLayout.swift).
//
// All integers little-endian. Offsets are byte offsets. The blob is position independent.
//
//   Header (48 bytes)
//     0  u8[4]  magic "RBMX"
//     4  u32    format version (= MatcherBytecode.formatVersion)
//     8  u32    U0: number of universal flag-free ids
//    12  u32    U1: number of universal ids with flags
//    16  u32    L:  number of action lists
//    20  u32    I:  number of action ids (all lists concatenated)
//    24  u32    D:  number of DFAs
//    28  u32    total length of the blob in bytes
//    32  u32    build statistics (informational, for `radarblock inspect`): distinct patterns,
//    36  u32      NFA count, 40 u32 NFA nodes, 44 u32 DFA states before minimization
//   Body
//     U0 x u64  universal flag-free ids (sorted, distinct): Matcher.universalFlagFree
//     U1 x u64  universal ids with flags (sorted, distinct): tested against the request flags on every match
//     (L+1) x u32  action list starts: list k = ids[start[k] ..< start[k+1]] (non-decreasing, last = I)
//     I x u64   action ids (each list sorted, distinct); id = (trigger flags << 32) | rule index
//     D x DFA header (280 bytes each), in DFA order:
//        0 u32  first word: the DFA's root (the DFAs' words follow one another, in DFA order)
//        4 u32  number of words (at least one state)
//        8 u32  first row byte (the DFAs' rows follow one another, in DFA order)
//       12 u32  number of rows (K bytes each)
//       16 u32  number of states
//       20 u8   K: number of symbol classes (1...129)
//       21 u8   class of the end-of-string symbol (the virtual byte after the URL)
//       22 u8   gate: 0, or the group (1...64) of host table entries whose hosts open it (MatcherHostTable.swift):
//               the DFA reports nothing on a URL none of whose host candidates opens its gate
//       23 u8   0
//       24 u8[256] class of each URL byte (bytes >= 0x80 all share the class of symbol 128)
//     rows      every DFA's rows: K bytes each, the index into a state's targets by class
//     u8[0-3]   zero padding to a multiple of 4
//     W x u32   words: per state (a state is its word index),
//                 header  (first row byte << 1) | has actions
//                 [action list index]   if it has actions
//                 targets: T words, where T = 1 + the largest index in its row; each the word index of a
//                          state of the same DFA, none (0xFFFFFFFF): the DFA stops, or, in any state but the
//                          DFA's first (its root), root (0xFFFFFFFE): the root's target for the same class
//   A state's size follows from its header, so validation walks the states of each DFA in order, checks that
//   they tile its words exactly, then that every target is one of them.
//   Host table (MatcherHostTable.swift), only when the family has `||host^` patterns or gated DFAs (then K >= 1):
//     u32 K: keys, u32 M: slots (a power of two, at least one of them empty), u32 L: longest key (1...1024),
//     u32 B: key bytes
//     M x u32   slots: 0 (empty) or an entry's index + 1
//     K x 4 u32 entries: key start in the key bytes, key length (1...L), action list index or 0xFFFFFFFF (none),
//               gate (0: none, else 1...64, the gate of a DFA) with bit 31 set when the list is case-sensitive
//               (reported only for a candidate without upper-case letters); an entry has a list or a gate or both
//     B bytes   keys (lower-cased), then zero padding to a multiple of 4
//
// Matching (MatcherInterpreter): for each DFA, start at its root with input index i = 0; at each state
// first report its actions (ids pass the WebKit flags test, see matcherFlagsTestPasses), stop if
// i > len, read class = classMap[url[i]] (or the end-of-string class when i == len), follow the
// transition or stop, i += 1. Reporting actions whenever a state is reached, with the leading `.*` of
// unanchored patterns, gives substring-search semantics; `$` is a transition on the end-of-string class.
//
// The compact form of one DFA (`encode`; the layout's input, never written to a file):
//     0  u32    byte length of this DFA (header + class map + states)
//     4  u32    number of states
//     8  u8     K, 9 u8 W: target width in bytes (2, 3 or 4), 10 u8 end-of-string class, 11 u8 0
//    12  u8[256] class of each URL byte
//   268  states; a state is identified by its offset from the start of the state area (the root is 0):
//     u8 header:  bits 0-1 kind (0 = no transitions, 1 = sparse, 2 = dense)
//                 bits 2-6 (sparse only) n: number of exception ranges (0...31)
//                 bit 7    the state has actions
//     [u32 action list index]                      if bit 7
//     sparse: n x (u8 lowClass, u8 highClass)      disjoint, ascending
//             n x target (W bytes)                 target of each exception range
//             target (W bytes)                     default target for every other class
//     dense:  K x target (W bytes)                 target per class
//   A target is a state offset; all-ones (2^(8W)-1) means "no transition", all-ones less one "the root's target for
//   this class" (a sparse state's exceptions are then the classes where it differs from the root: an automaton of
//   unanchored literals, whose states all share the root's many transitions, is a tenth of its dense size; see
//   `CompactState`). The encoder writes 4 bytes of zero padding after the last DFA, so a 32-bit load at any target
//   is in bounds.

import Parallel

enum MatcherBytecode {
    static let magic: [UInt8] = Array("RBMX".utf8)
    static let formatVersion: UInt32 = 5
    static let headerSize = 48
    /// The header of a DFA in a file.
    static let fileDFAHeaderSize = 280
    /// The header of a DFA in the compact form.
    static let dfaHeaderSize = 268
    static let padding = 4
    static let maximumSparseExceptions = 8

    static func append32(_ v: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    static func append64(_ v: UInt64, to out: inout [UInt8]) {
        append32(UInt32(truncatingIfNeeded: v), to: &out)
        append32(UInt32(truncatingIfNeeded: v >> 32), to: &out)
    }

    static func appendTarget(_ v: UInt32, width: Int, to out: inout [UInt8]) {
        for k in 0..<width { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
    }

    /// The 48-byte header, its length field still 0 (`serialize` fills it in).
    static func header(
        universalFlagFree: Int, universalWithFlags: Int, actionLists: [[UInt64]], dfaCount: Int,
        statistics: MatcherStatistics
    ) -> [UInt8] {
        var header: [UInt8] = magic
        append32(formatVersion, to: &header)
        append32(UInt32(universalFlagFree), to: &header)
        append32(UInt32(universalWithFlags), to: &header)
        append32(UInt32(actionLists.count), to: &header)
        append32(UInt32(actionLists.reduce(0) { $0 + $1.count }), to: &header)
        append32(UInt32(dfaCount), to: &header)
        append32(0, to: &header)
        append32(UInt32(clamping: statistics.patterns), to: &header)
        append32(UInt32(clamping: statistics.nfaCount), to: &header)
        append32(UInt32(clamping: statistics.nfaNodes), to: &header)
        append32(UInt32(clamping: statistics.dfaStatesBeforeMinimization), to: &header)
        return header
    }

    /// Encodes one DFA (minimized, root = state 0).
    static func encode(_ dfa: DFA, into out: inout [UInt8]) {
        let root = CompactState.targets(dfa, state: 0)
        let layouts = (0..<dfa.stateCount).map { CompactState(dfa, state: $0, root: $0 == 0 ? nil : root) }
        let placement = CompactPlacement(dfa, layouts)
        let start = out.count
        append32(UInt32(dfaHeaderSize + placement.total), to: &out)
        append32(UInt32(dfa.stateCount), to: &out)
        out.append(UInt8(dfa.classCount))
        out.append(UInt8(placement.width))
        out.append(dfa.classOfSymbol[0])
        out.append(0)
        for b in 0..<256 { out.append(dfa.classOfSymbol[b < 128 ? b : 128]) }
        for s in 0..<dfa.stateCount {
            appendState(layouts[s], action: dfa.actions[s], classCount: dfa.classCount, placement, to: &out)
        }
        precondition(out.count - start == dfaHeaderSize + placement.total)
    }

    /// One state in the compact form: header, action list, then its sparse or dense targets.
    private static func appendState(
        _ l: CompactState, action: Int32, classCount k: Int, _ placement: CompactPlacement,
        to out: inout [UInt8]
    ) {
        let width = placement.width
        var header: UInt8 = action >= 0 ? 0x80 : 0
        if l.hasTransitions { header |= l.dense ? 2 : (1 | UInt8(l.runs.count) << 2) }
        out.append(header)
        if action >= 0 { append32(UInt32(action), to: &out) }
        guard l.hasTransitions else { return }
        let defaultTarget = placement.target(l.defaultTarget)
        if l.dense {
            var c = 0
            for r in l.runs {
                while c < Int(r.0) { appendTarget(defaultTarget, width: width, to: &out); c += 1 }
                while c <= Int(r.1) { appendTarget(placement.target(r.2), width: width, to: &out); c += 1 }
            }
            while c < k { appendTarget(defaultTarget, width: width, to: &out); c += 1 }
        } else {
            for r in l.runs {
                out.append(r.0)
                out.append(r.1)
            }
            for r in l.runs { appendTarget(placement.target(r.2), width: width, to: &out) }
            appendTarget(defaultTarget, width: width, to: &out)
        }
    }

    // MARK: writing a file's form

    /// The serialized matcher: `header` (the first 48 bytes, its length field still 0), then `program`.
    static func serialize(
        header: [UInt8], universalFlagFree: [UInt64], universalWithFlags: [UInt64], program p: MatcherProgram
    ) -> [UInt8] {
        precondition(header.count == headerSize)
        var out = header
        for id in universalFlagFree { append64(id, to: &out) }
        for id in universalWithFlags { append64(id, to: &out) }
        for start in p.listStarts { append32(start, to: &out) }
        for id in p.ids { append64(id, to: &out) }
        for d in p.roots.indices {
            let shape = p.shapes[d]
            append32(UInt32(p.roots[d]), to: &out)
            append32(UInt32((d + 1 < p.roots.count ? p.roots[d + 1] : p.words.count) - p.roots[d]), to: &out)
            append32(UInt32(shape.firstRow), to: &out)
            append32(UInt32(shape.rowCount), to: &out)
            append32(UInt32(shape.stateCount), to: &out)
            out.append(UInt8(shape.classCount))
            out.append(UInt8(p.eosClasses[d]))
            out += [UInt8(shape.gate), 0]
            out += p.classMaps[(256 * d)..<(256 * d + 256)]
        }
        out += p.rows
        out += [UInt8](repeating: 0, count: (4 - out.count % 4) % 4)
        for w in p.words { append32(w, to: &out) }
        if let h = p.hosts { appendHostTable(h, to: &out) }
        let total = UInt32(out.count)
        for k in 0..<4 { out[28 + k] = UInt8(truncatingIfNeeded: total >> (8 * UInt32(k))) }
        return out
    }

    private static func appendHostTable(_ h: MatcherHostTable, to out: inout [UInt8]) {
        for v in [h.count, h.slots.count, h.maxKeyLength, h.keys.count] { append32(UInt32(v), to: &out) }
        for v in h.slots + h.entries { append32(v, to: &out) }
        out += h.keys
        out += [UInt8](repeating: 0, count: (4 - h.keys.count % 4) % 4)
    }

    /// The host table section from `o` to the end of the blob, every index in it checked.
    private static func readHostTable(_ b: UnsafeRawBufferPointer, at o: Int, listCount: Int, gates: Set<Int>) throws
        -> MatcherHostTable
    {
        func fail(_ why: String) -> MatcherError { .corrupt("host table: \(why)") }
        guard b.count - o >= 16 else { throw fail("too short") }
        let k = Int(read32(b, o)), m = Int(read32(b, o + 4)), l = Int(read32(b, o + 8))
        let keyBytes = Int(read32(b, o + 12))
        guard k >= 1, m > k, m & (m - 1) == 0, l >= 1, l <= MatcherHostTable.keyLengthLimit else {
            throw fail("counts")
        }
        let padded = (keyBytes + 3) / 4 * 4
        let n = MatcherHostTable.entryWords
        guard 4 * (m + n * k) + padded == b.count - o - 16 else { throw fail("length") }
        let words = (0..<(m + n * k)).map { read32(b, o + 16 + 4 * $0) }
        let slots = Array(words[..<m]), entries = Array(words[m...])
        guard slots.contains(0), slots.allSatisfy({ Int($0) <= k }) else { throw fail("slots") }
        // The keys lie back to back in entry order, as the builder writes them: what a load makes per entry (its
        // record, MatcherHostTable.records) is then bounded by the file's bytes, whatever the entries say.
        var keysEnd = 0
        for e in 0..<k {
            let start = Int(entries[n * e]), length = Int(entries[n * e + 1])
            guard start == keysEnd else { throw fail("keys") }
            keysEnd += length
            let list = entries[n * e + 2], word = entries[n * e + 3]
            let gate = Int(word & ~MatcherHostTable.caseSensitiveList)
            let caseSensitive = word & MatcherHostTable.caseSensitiveList != 0
            guard length >= 1, length <= l, start <= keyBytes - length,
                list == MatcherHostTable.noList ? gate != 0 && !caseSensitive : Int(list) < listCount,
                gate == 0 || gates.contains(gate)
            else {
                throw fail("entry")
            }
        }
        guard keysEnd == keyBytes else { throw fail("keys") }
        let keysAt = b.count - padded
        for x in (keysAt + keyBytes)..<b.count where b[x] != 0 { throw fail("padding") }
        return MatcherHostTable(
            maxKeyLength: l, slots: slots, entries: entries, keys: Array(b[keysAt..<(keysAt + keyBytes)]))
    }

    // MARK: validation

    /// Where a validated blob's parts are, and its counts.
    struct Layout {
        var universalFlagFree: Range<Int>
        var universalWithFlags: Range<Int>
        var listStarts: Int
        var listCount: Int
        var ids: Int
        var idCount: Int
        var dfas: [FileDFA]
        var rows: Range<Int>
        var words: Range<Int>
        var hosts: MatcherHostTable?
        var dfaStates: Int
        var patterns: Int
        var nfaCount: Int
        var nfaNodes: Int
        var statesBeforeMinimization: Int
    }

    /// A DFA's header in a file.
    struct FileDFA {
        var firstWord: Int, wordCount: Int
        var firstRow: Int, rowCount: Int
        var stateCount: Int
        var classCount: Int, eosClass: Int
        /// 0, or the host table's group that opens it.
        var gate: Int
        /// Where its class map is in the blob.
        var classMap: Int
    }

    static func read32(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        b.loadUnaligned(fromByteOffset: o, as: UInt32.self).littleEndian
    }

    /// Checks every count, offset, class, row and target so the interpreter can run without bounds checks.
    static func validate(_ b: UnsafeRawBufferPointer) throws -> Layout {
        func fail(_ why: String) -> MatcherError { .corrupt(why) }
        guard b.count >= headerSize else { throw fail("too short") }
        guard b[0] == magic[0], b[1] == magic[1], b[2] == magic[2], b[3] == magic[3] else { throw fail("bad magic") }
        guard read32(b, 4) == formatVersion else { throw fail("unsupported matcher format version \(read32(b, 4))") }
        let u0 = Int(read32(b, 8)), u1 = Int(read32(b, 12)), l = Int(read32(b, 16)), ic = Int(read32(b, 20)),
            d = Int(read32(b, 24))
        guard Int(read32(b, 28)) == b.count else { throw fail("length mismatch") }
        var o = headerSize
        func take(_ count: Int, of size: Int) throws -> Int {
            let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow, bytes <= b.count - o else { throw fail("section out of bounds") }
            let at = o
            o += bytes
            return at
        }
        let uf = try take(u0, of: 8)
        let uw = try take(u1, of: 8)
        let ls = try take(l + 1, of: 4)
        let ids = try take(ic, of: 8)
        try checkListStarts(b, at: ls, listCount: l, idCount: ic)
        let (dfas, wordCount, rowBytes, states) = try readDFAHeaders(
            b, at: try take(d, of: fileDFAHeaderSize), count: d)
        let rows = try take(rowBytes, of: 1)
        let pad = try take((4 - o % 4) % 4, of: 1)
        for k in pad..<o where b[k] != 0 { throw fail("bad padding") }
        let words = try take(wordCount, of: 4)
        let wordsEnd = o
        let gates = Set(dfas.map(\.gate).filter { $0 != 0 })
        let rowsBuffer = UnsafeRawBufferPointer(rebasing: b[rows..<(rows + rowBytes)])
        // The host table and the DFAs are checked at once, each DFA on whichever core is free: the table is one
        // long item (it makes the records the lookups read), the walks are bound by reading the words from memory.
        let (table, refusals) = Parallel.alongside(
            { () -> Result<MatcherHostTable?, Error> in
                Result { o == b.count ? nil : try readHostTable(b, at: o, listCount: l, gates: gates) }
            },
            dfas.count
        ) { x -> MatcherError? in
            do {
                let targets = rowTargets(rowsBuffer, dfas[x])
                let isState = try walkStates(b, words: words, dfas[x], targets: targets, listCount: l)
                try checkTargets(b, words: words, dfas[x], targets: targets, isState: isState)
                return nil
            } catch {
                return error as? MatcherError ?? .corrupt("\(error)")
            }
        }
        let hosts = try table.get()
        guard hosts != nil || gates.isEmpty else { throw fail("gated DFAs without a host table") }
        if let refused = refusals.lazy.compactMap({ $0 }).first { throw refused }
        return Layout(
            universalFlagFree: uf..<uf + 8 * u0, universalWithFlags: uw..<uw + 8 * u1, listStarts: ls,
            listCount: l, ids: ids, idCount: ic, dfas: dfas, rows: rows..<(rows + rowBytes), words: words..<wordsEnd,
            hosts: hosts,
            dfaStates: states, patterns: Int(read32(b, 32)), nfaCount: Int(read32(b, 36)), nfaNodes: Int(read32(b, 40)),
            statesBeforeMinimization: Int(read32(b, 44)))
    }

    /// The action lists' starts: ascending, within the ids, the last one at their end.
    private static func checkListStarts(_ b: UnsafeRawBufferPointer, at ls: Int, listCount l: Int, idCount ic: Int)
        throws
    {
        var previous: UInt32 = 0
        for k in 0...l {
            let s = read32(b, ls + 4 * k)
            guard s >= previous, Int(s) <= ic else { throw MatcherError.corrupt("bad action list start") }
            previous = s
        }
        guard Int(previous) == ic else { throw MatcherError.corrupt("bad action list end") }
    }

    /// The DFA headers, each checked, with the words, row bytes and states they take in all.
    private static func readDFAHeaders(_ b: UnsafeRawBufferPointer, at headers: Int, count d: Int) throws
        -> (dfas: [FileDFA], wordCount: Int, rowBytes: Int, states: Int)
    {
        func fail(_ why: String) -> MatcherError { .corrupt(why) }
        var dfas: [FileDFA] = []
        var wordCount = 0, rowBytes = 0, states = 0
        for x in 0..<d {
            let h = headers + fileDFAHeaderSize * x
            let dfa = FileDFA(
                firstWord: Int(read32(b, h)), wordCount: Int(read32(b, h + 4)), firstRow: Int(read32(b, h + 8)),
                rowCount: Int(read32(b, h + 12)), stateCount: Int(read32(b, h + 16)), classCount: Int(b[h + 20]),
                eosClass: Int(b[h + 21]), gate: Int(b[h + 22]), classMap: h + 24)
            guard dfa.classCount >= 1, dfa.classCount <= 129, dfa.eosClass < dfa.classCount,
                dfa.gate <= MatcherHostTable.maximumGates, b[h + 23] == 0
            else {
                throw fail("DFA parameters")
            }
            for c in 0..<256 where Int(b[dfa.classMap + c]) >= dfa.classCount { throw fail("class map") }
            guard dfa.firstWord == wordCount, dfa.wordCount >= 1, dfa.firstRow == rowBytes, dfa.rowCount >= 1 else {
                throw fail("DFA ranges")
            }
            wordCount += dfa.wordCount
            rowBytes += dfa.rowCount * dfa.classCount
            guard wordCount < Int(Int32.max), rowBytes < Int(Int32.max) else { throw fail("DFA ranges") }
            states += dfa.stateCount
            dfas.append(dfa)
        }
        return (dfas, wordCount, rowBytes, states)
    }

    /// Per row byte of `dfa` (from its first row): at a row start, how many targets a state using that row has
    /// (one more than the row's largest index); 0 elsewhere. A lookup, not a division, per state.
    private static func rowTargets(_ rows: UnsafeRawBufferPointer, _ dfa: FileDFA) -> [UInt16] {
        var targets = [UInt16](repeating: 0, count: dfa.rowCount * dfa.classCount)
        for r in 0..<dfa.rowCount {
            let row = r * dfa.classCount
            targets[row] = UInt16(rows[(dfa.firstRow + row)..<(dfa.firstRow + row + dfa.classCount)].max()!) + 1
        }
        return targets
    }

    /// The size of the state whose header is `header`, or nil when its row is not one of `dfa`'s.
    @inline(__always)
    private static func stateSize(_ header: UInt32, _ dfa: FileDFA, _ targets: [UInt16]) -> (size: Int, targets: Int)? {
        let row = Int(header >> 1) &- dfa.firstRow
        guard row >= 0, row < targets.count else { return nil }
        let t = Int(targets[row])
        guard t > 0 else { return nil }
        return (1 + Int(header & 1) + t, t)
    }

    /// Pass 1: the states tile the DFA's words exactly, each with a row of its DFA and an action list that exists.
    /// Returns where states start, a bit per word of the DFA (from its first word).
    private static func walkStates(
        _ b: UnsafeRawBufferPointer, words: Int, _ dfa: FileDFA, targets: [UInt16], listCount: Int
    ) throws -> [UInt64] {
        var isState = [UInt64](repeating: 0, count: (dfa.wordCount + 63) / 64)
        var p = dfa.firstWord, count = 0
        let end = dfa.firstWord + dfa.wordCount
        while p < end {
            let header = read32(b, words + 4 * p)
            guard let (size, _) = stateSize(header, dfa, targets), size <= end - p else {
                throw MatcherError.corrupt("state out of bounds")
            }
            if header & 1 != 0, Int(read32(b, words + 4 * (p + 1))) >= listCount {
                throw MatcherError.corrupt("action list index")
            }
            let bit = p - dfa.firstWord
            isState[bit >> 6] |= 1 << UInt64(bit & 63)
            count += 1
            p += size
        }
        guard count == dfa.stateCount else { throw MatcherError.corrupt("state count") }
        return isState
    }

    /// Pass 2: every target is a state of the same DFA, none, or (outside the root) the root's target.
    private static func checkTargets(
        _ b: UnsafeRawBufferPointer, words: Int, _ dfa: FileDFA, targets: [UInt16], isState: [UInt64]
    ) throws {
        var p = dfa.firstWord
        let end = dfa.firstWord + dfa.wordCount
        while p < end {
            let header = read32(b, words + 4 * p)
            let (size, count) = stateSize(header, dfa, targets)!
            let first = p + size - count
            for q in first..<(p + size) {
                let t = read32(b, words + 4 * q)
                if t == MatcherProgram.none || (t == MatcherProgram.rootTarget && p != dfa.firstWord) { continue }
                let v = Int(t)
                let bit = v &- dfa.firstWord
                guard bit >= 0, v < end, isState[bit >> 6] & (1 << UInt64(bit & 63)) != 0 else {
                    throw MatcherError.corrupt("bad target")
                }
            }
            p += size
        }
    }
}

/// A state of the compact form before placement: its default target (the most frequent, -1 = none, or
/// `CompactState.root`) and the runs of classes, in class order, whose target differs from it (transitions and gaps).
private struct CompactState {
    var hasTransitions: Bool
    var defaultTarget: Int32
    var runs: [(UInt8, UInt8, Int32)]
    var dense: Bool

    /// A default target that is the root's target for each class not in a run.
    static let root: Int32 = -2

    /// The state's runs against the root's targets (`root`: per class, -1 = none) when they are fewer than its own
    /// (or it is dense), and few enough for a sparse state: the states of an automaton of many unanchored literals
    /// all go where the root goes on the literals' first bytes, and differ from it in a class or two.
    init(_ dfa: DFA, state s: Int, root: [Int32]?) {
        self.init(dfa, state: s)
        guard hasTransitions, let root else { return }
        let own = Self.targets(dfa, state: s)
        var runs: [(UInt8, UInt8, Int32)] = []
        for c in 0..<dfa.classCount where own[c] != root[c] {
            if let last = runs.last, Int(last.1) == c - 1, last.2 == own[c] {
                runs[runs.count - 1].1 = UInt8(c)
            } else {
                guard runs.count < MatcherBytecode.maximumSparseExceptions else { return }
                runs.append((UInt8(c), UInt8(c), own[c]))
            }
        }
        guard dense || runs.count < self.runs.count else { return }
        (defaultTarget, self.runs, dense) = (Self.root, runs, false)
    }

    /// Per class the state's target, -1 for none.
    static func targets(_ dfa: DFA, state s: Int) -> [Int32] {
        var targets = [Int32](repeating: -1, count: dfa.classCount)
        for t in Int(dfa.transitionStart[s])..<Int(dfa.transitionStart[s + 1]) {
            for c in Int(dfa.transitionLow[t])...Int(dfa.transitionHigh[t]) { targets[c] = dfa.transitionTarget[t] }
        }
        return targets
    }

    init(_ dfa: DFA, state s: Int) {
        let k = dfa.classCount
        let from = Int(dfa.transitionStart[s]), to = Int(dfa.transitionStart[s + 1])
        hasTransitions = from != to
        guard hasTransitions else {
            (defaultTarget, runs, dense) = (-1, [], false)
            return
        }
        let best = CompactState.mostFrequentTarget(dfa, from..<to)
        var runs: [(UInt8, UInt8, Int32)] = []
        var next = 0
        for t in from..<to {
            let lo = Int(dfa.transitionLow[t]), hi = Int(dfa.transitionHigh[t])
            if lo > next && best != -1 { runs.append((UInt8(next), UInt8(lo - 1), -1)) }
            if dfa.transitionTarget[t] != best { runs.append((UInt8(lo), UInt8(hi), dfa.transitionTarget[t])) }
            next = hi + 1
        }
        if next < k && best != -1 { runs.append((UInt8(next), UInt8(k - 1), -1)) }
        self.defaultTarget = best
        self.runs = runs
        self.dense = runs.count > MatcherBytecode.maximumSparseExceptions
    }

    /// The target (-1 = none) of the most classes among `transitions`; ties go to the smallest target
    /// (deterministic).
    private static func mostFrequentTarget(_ dfa: DFA, _ transitions: Range<Int>) -> Int32 {
        // Candidate targets with their class counts (a handful per state).
        var candidates: [(target: Int32, count: Int)] = []
        var covered = 0
        for t in transitions {
            let width = Int(dfa.transitionHigh[t]) - Int(dfa.transitionLow[t]) + 1
            covered += width
            if let i = candidates.firstIndex(where: { $0.target == dfa.transitionTarget[t] }) {
                candidates[i].count += width
            } else {
                candidates.append((dfa.transitionTarget[t], width))
            }
        }
        if covered < dfa.classCount { candidates.append((-1, dfa.classCount - covered)) }
        var best: Int32 = -1, bestCount = -1
        for (target, count) in candidates where count > bestCount || (count == bestCount && target < best) {
            best = target
            bestCount = count
        }
        return best
    }
}

/// Where the states of the compact form go: the smallest target width (2, 3 or 4 bytes) whose offsets
/// fit, each state's offset, and the state area's size.
private struct CompactPlacement {
    var width: Int
    var offsets: [Int]
    var total: Int

    init(_ dfa: DFA, _ layouts: [CompactState]) {
        width = 2
        (offsets, total) = CompactPlacement.sizes(dfa, layouts, width: 2)
        if total >= 0xFFFF {
            width = 3
            (offsets, total) = CompactPlacement.sizes(dfa, layouts, width: 3)
            if total >= 0xFF_FFFF {
                width = 4
                (offsets, total) = CompactPlacement.sizes(dfa, layouts, width: 4)
            }
        }
    }

    private static func sizes(_ dfa: DFA, _ layouts: [CompactState], width: Int) -> (offsets: [Int], total: Int) {
        var offsets: [Int] = []
        offsets.reserveCapacity(layouts.count)
        var o = 0
        for (s, l) in layouts.enumerated() {
            offsets.append(o)
            o += 1 + (dfa.actions[s] >= 0 ? 4 : 0)
            guard l.hasTransitions else { continue }
            o += l.dense ? dfa.classCount * width : l.runs.count * (2 + width) + width
        }
        return (offsets, o)
    }

    /// A state's offset as a target; all ones for none, all ones less one for the root's target.
    func target(_ t: Int32) -> UInt32 {
        let none = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
        return t == CompactState.root ? none - 1 : t < 0 ? none : UInt32(offsets[Int(t)])
    }
}
