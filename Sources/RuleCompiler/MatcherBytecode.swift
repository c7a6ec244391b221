// MatcherBytecode: the serialized form of a Matcher (one pattern family), embedded in .rbc files.
// Changing anything below is a format change: bump `MatcherBytecode.formatVersion`.
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
//    28  u32    total length of the blob in bytes (including the trailing padding)
//    32  u32    build statistics (informational, for `radarblock inspect`): distinct patterns,
//    36  u32      NFA count, 40 u32 NFA nodes, 44 u32 DFA states before minimization
//   Body
//     U0 x u64  universal flag-free ids (sorted, distinct): Matcher.universalFlagFree
//     U1 x u64  universal ids with flags (sorted, distinct): tested against the request flags on every match
//     (L+1) x u32  action list starts: list k = ids[start[k] ..< start[k+1]] (non-decreasing, last = I)
//     I x u64   action ids (each list sorted, distinct); id = (trigger flags << 32) | action location
//     D x DFA   (each DFA is applied to the whole URL; results are the union)
//     u8[4]     zero padding (lets the interpreter read targets with one unaligned 32-bit load)
//
//   DFA
//     0  u32    byte length of this DFA (header + class map + states)
//     4  u32    number of states
//     8  u8     K: number of symbol classes (1...129)
//     9  u8     W: target width in bytes (2, 3 or 4)
//    10  u8     class of the end-of-string symbol (the virtual byte 0 after the URL)
//    11  u8     0
//    12  u8[256] class of each URL byte (bytes >= 0x80 all share the class of symbol 128)
//   268  states; a state is identified by its offset from the start of the state area (the root is 0)
//
//   State
//     u8 header:  bits 0-1 kind (0 = no transitions, 1 = sparse, 2 = dense)
//                 bits 2-6 (sparse only) n: number of exception ranges (0...31)
//                 bit 7    the state has actions
//     [u32 action list index]                      if bit 7
//     sparse: n x (u8 lowClass, u8 highClass)      disjoint, ascending
//             n x target (W bytes)                 target of each exception range
//             target (W bytes)                     default target for every other class
//     dense:  K x target (W bytes)                 target per class
//   A target is a state offset; all-ones (2^(8W)-1) means "no transition" (the DFA stops).
//
// Matching (MatcherInterpreter runs these semantics on MatcherProgram, an execution form it derives
// from this layout at load; files hold only this layout): for each DFA, start at the root with input
// index i = 0; at each state
// first report its actions (ids pass the WebKit flags test, see matcherFlagsTestPasses), stop if
// i > len, read class = classMap[url[i]] (or the end-of-string class when i == len), follow the
// transition or stop, i += 1. Reporting actions whenever a state is reached, with the leading `.*` of
// unanchored patterns, gives substring-search semantics; `$` is a transition on the end-of-string class.

enum MatcherBytecode {
    static let magic: [UInt8] = Array("RBMX".utf8)
    static let formatVersion: UInt32 = 1
    static let headerSize = 48
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

    /// Encodes one DFA (minimized, root = state 0).
    static func encode(_ dfa: DFA, into out: inout [UInt8]) {
        let k = dfa.classCount
        let n = dfa.stateCount
        // Per state: target per class (-1 = none), default, exception runs.
        struct Layout { var defaultTarget: Int32; var runs: [(UInt8, UInt8, Int32)]; var dense: Bool }
        var layouts: [Layout] = []
        layouts.reserveCapacity(n)
        // Candidate targets with their class counts (a handful per state).
        var candidates: [(target: Int32, count: Int)] = []
        for s in 0..<n {
            let from = Int(dfa.transitionStart[s]), to = Int(dfa.transitionStart[s + 1])
            if from == to {
                layouts.append(Layout(defaultTarget: -1, runs: [], dense: false))
                continue
            }
            candidates.removeAll(keepingCapacity: true)
            var covered = 0
            for t in from..<to {
                let width = Int(dfa.transitionHigh[t]) - Int(dfa.transitionLow[t]) + 1
                covered += width
                if let i = candidates.firstIndex(where: { $0.target == dfa.transitionTarget[t] }) {
                    candidates[i].count += width
                } else {
                    candidates.append((dfa.transitionTarget[t], width))
                }
            }
            if covered < k { candidates.append((-1, k - covered)) }
            // Most frequent target; ties go to the smallest target (deterministic).
            var best: Int32 = -1, bestCount = -1
            for (target, count) in candidates where count > bestCount || (count == bestCount && target < best) {
                best = target
                bestCount = count
            }
            // Runs (in class order) whose target differs from the default: transitions and gaps.
            var runs: [(UInt8, UInt8, Int32)] = []
            var next = 0
            for t in from..<to {
                let lo = Int(dfa.transitionLow[t]), hi = Int(dfa.transitionHigh[t])
                if lo > next && best != -1 { runs.append((UInt8(next), UInt8(lo - 1), -1)) }
                if dfa.transitionTarget[t] != best { runs.append((UInt8(lo), UInt8(hi), dfa.transitionTarget[t])) }
                next = hi + 1
            }
            if next < k && best != -1 { runs.append((UInt8(next), UInt8(k - 1), -1)) }
            layouts.append(Layout(defaultTarget: best, runs: runs, dense: runs.count > maximumSparseExceptions))
        }
        // Offsets: pick the smallest width that fits.
        func sizes(width: Int) -> (offsets: [Int], total: Int) {
            var offsets: [Int] = []
            offsets.reserveCapacity(n)
            var o = 0
            for s in 0..<n {
                offsets.append(o)
                let l = layouts[s]
                o += 1 + (dfa.actions[s] >= 0 ? 4 : 0)
                if dfa.transitionStart[s] == dfa.transitionStart[s + 1] { continue }
                o += l.dense ? k * width : l.runs.count * (2 + width) + width
            }
            return (offsets, o)
        }
        var width = 2
        var (offsets, total) = sizes(width: 2)
        if total >= 0xFFFF {
            width = 3
            (offsets, total) = sizes(width: 3)
            if total >= 0xFF_FFFF {
                width = 4
                (offsets, total) = sizes(width: 4)
            }
        }
        let none = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
        func target(_ t: Int32) -> UInt32 { t < 0 ? none : UInt32(offsets[Int(t)]) }

        let start = out.count
        append32(UInt32(dfaHeaderSize + total), to: &out)
        append32(UInt32(n), to: &out)
        out.append(UInt8(k))
        out.append(UInt8(width))
        out.append(dfa.classOfSymbol[0])
        out.append(0)
        for b in 0..<256 { out.append(dfa.classOfSymbol[b < 128 ? b : 128]) }
        for s in 0..<n {
            let l = layouts[s]
            let hasTransitions = dfa.transitionStart[s] != dfa.transitionStart[s + 1]
            var header: UInt8 = dfa.actions[s] >= 0 ? 0x80 : 0
            if hasTransitions { header |= l.dense ? 2 : (1 | UInt8(l.runs.count) << 2) }
            out.append(header)
            if dfa.actions[s] >= 0 { append32(UInt32(dfa.actions[s]), to: &out) }
            guard hasTransitions else { continue }
            if l.dense {
                var c = 0
                for r in l.runs {
                    while c < Int(r.0) { appendTarget(target(l.defaultTarget), width: width, to: &out); c += 1 }
                    while c <= Int(r.1) { appendTarget(target(r.2), width: width, to: &out); c += 1 }
                }
                while c < k { appendTarget(target(l.defaultTarget), width: width, to: &out); c += 1 }
            } else {
                for r in l.runs {
                    out.append(r.0)
                    out.append(r.1)
                }
                for r in l.runs { appendTarget(target(r.2), width: width, to: &out) }
                appendTarget(target(l.defaultTarget), width: width, to: &out)
            }
        }
        precondition(out.count - start == dfaHeaderSize + total)
    }

    // MARK: validation

    struct Layout {
        var universalFlagFree: Range<Int>
        var universalWithFlags: Range<Int>
        var listStarts: Int
        var listCount: Int
        var ids: Int
        var idCount: Int
        var dfaOffsets: [Int]
        var dfaStates: Int
        var patterns: Int
        var nfaCount: Int
        var nfaNodes: Int
        var statesBeforeMinimization: Int
    }

    static func read32(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        b.loadUnaligned(fromByteOffset: o, as: UInt32.self).littleEndian
    }

    /// Checks every size, offset, class and target so the interpreter can run without bounds checks.
    static func validate(_ b: UnsafeRawBufferPointer) throws -> Layout {
        func fail(_ why: String) -> MatcherError { .corrupt(why) }
        guard b.count >= headerSize + padding else { throw fail("too short") }
        guard b[0] == magic[0], b[1] == magic[1], b[2] == magic[2], b[3] == magic[3] else { throw fail("bad magic") }
        guard read32(b, 4) == formatVersion else { throw fail("unsupported matcher format version \(read32(b, 4))") }
        let u0 = Int(read32(b, 8)), u1 = Int(read32(b, 12)), l = Int(read32(b, 16)), ic = Int(read32(b, 20)), d = Int(read32(b, 24))
        guard Int(read32(b, 28)) == b.count else { throw fail("length mismatch") }
        let end = b.count - padding
        for k in 0..<padding where b[end + k] != 0 { throw fail("bad padding") }
        var o = headerSize
        func take(_ bytes: Int) throws -> Int {
            guard bytes >= 0, bytes <= end - o else { throw fail("section out of bounds") }
            let at = o
            o += bytes
            return at
        }
        let uf = try take(u0.multipliedReportingOverflow(by: 8).overflow ? -1 : u0 * 8)
        let uw = try take(u1.multipliedReportingOverflow(by: 8).overflow ? -1 : u1 * 8)
        let ls = try take((l + 1).multipliedReportingOverflow(by: 4).overflow ? -1 : (l + 1) * 4)
        let ids = try take(ic.multipliedReportingOverflow(by: 8).overflow ? -1 : ic * 8)
        var previous: UInt32 = 0
        for k in 0...l {
            let s = read32(b, ls + 4 * k)
            guard s >= previous, Int(s) <= ic else { throw fail("bad action list start") }
            previous = s
        }
        guard Int(previous) == ic else { throw fail("bad action list end") }
        var dfaOffsets: [Int] = []
        var totalStates = 0
        for _ in 0..<d {
            guard end - o >= dfaHeaderSize else { throw fail("DFA header out of bounds") }
            let dfaStart = o
            let length = Int(read32(b, o))
            guard length >= dfaHeaderSize, length <= end - o else { throw fail("DFA length") }
            let states = Int(read32(b, o + 4))
            let k = Int(b[o + 8]), w = Int(b[o + 9]), eos = Int(b[o + 10])
            guard k >= 1, k <= 129, (2...4).contains(w), eos < k, b[o + 11] == 0 else { throw fail("DFA parameters") }
            for x in 0..<256 where Int(b[o + 12 + x]) >= k { throw fail("class map") }
            let area = o + dfaHeaderSize
            let areaEnd = dfaStart + length
            guard area < areaEnd else { throw fail("DFA without states") }
            // Pass 1: state boundaries.
            var isState = [Bool](repeating: false, count: areaEnd - area)
            var p = area
            var count = 0
            while p < areaEnd {
                isState[p - area] = true
                count += 1
                let h = b[p]
                p += 1
                if h & 0x80 != 0 {
                    guard areaEnd - p >= 4 else { throw fail("state out of bounds") }
                    guard Int(read32(b, p)) < l else { throw fail("action list index") }
                    p += 4
                }
                switch h & 3 {
                case 0:
                    guard h & 0x7C == 0 else { throw fail("state header") }
                case 1:
                    let nx = Int((h >> 2) & 31)
                    let size = nx * (2 + w) + w
                    guard areaEnd - p >= size else { throw fail("state out of bounds") }
                    var previousHigh = -1
                    for r in 0..<nx {
                        let lo = Int(b[p + 2 * r]), hi = Int(b[p + 2 * r + 1])
                        guard lo > previousHigh, lo <= hi, hi < k else { throw fail("exception ranges") }
                        previousHigh = hi
                    }
                    p += size
                case 2:
                    guard h & 0x7C == 0 else { throw fail("state header") }
                    guard areaEnd - p >= k * w else { throw fail("state out of bounds") }
                    p += k * w
                default:
                    throw fail("state kind")
                }
            }
            guard count == states else { throw fail("state count") }
            // Pass 2: every target is a state or "none".
            let none = w == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(w))) - 1
            func checkTarget(_ at: Int) throws {
                // In bounds: a target ends at most at `end`, and 4 bytes of padding follow.
                let v = read32(b, at) & none
                if v == none { return }
                guard Int(v) < areaEnd - area, isState[Int(v)] else { throw fail("bad target") }
            }
            p = area
            while p < areaEnd {
                let h = b[p]
                p += 1 + (h & 0x80 != 0 ? 4 : 0)
                switch h & 3 {
                case 1:
                    let nx = Int((h >> 2) & 31)
                    p += 2 * nx
                    for _ in 0...nx {
                        try checkTarget(p)
                        p += w
                    }
                case 2:
                    for _ in 0..<k {
                        try checkTarget(p)
                        p += w
                    }
                default:
                    break
                }
            }
            dfaOffsets.append(dfaStart)
            totalStates += states
            o = areaEnd
        }
        guard o == end else { throw fail("trailing bytes") }
        return Layout(universalFlagFree: uf..<uf + 8 * u0, universalWithFlags: uw..<uw + 8 * u1, listStarts: ls,
                      listCount: l, ids: ids, idCount: ic, dfaOffsets: dfaOffsets, dfaStates: totalStates,
                      patterns: Int(read32(b, 32)), nfaCount: Int(read32(b, 36)), nfaNodes: Int(read32(b, 40)),
                      statesBeforeMinimization: Int(read32(b, 44)))
    }
}
