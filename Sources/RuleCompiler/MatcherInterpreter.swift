// MatcherInterpreter: Matcher, a compiled pattern family, and its matching loop over the bytecode
// described in MatcherBytecode.swift.

import ContentRules

public struct Matcher: Sendable {
    /// The serialized form (validated); the interpreter runs directly on it.
    let bytes: [UInt8]
    let layout: MatcherBytecode.Layout

    init(validated bytes: [UInt8]) throws {
        self.bytes = bytes
        self.layout = try bytes.withUnsafeBytes { try MatcherBytecode.validate($0) }
    }

    /// Loads a serialized matcher; every offset and target is validated, so corrupted input throws
    /// MatcherError.corrupt and can never make the interpreter read out of bounds.
    public init(serialized: UnsafeRawBufferPointer) throws {
        try self.init(validated: Array(serialized))
    }

    public func serialized() -> [UInt8] { bytes }

    private func ids(_ range: Range<Int>) -> [UInt64] {
        bytes.withUnsafeBytes { b in
            stride(from: range.lowerBound, to: range.upperBound, by: 8).map { b.loadUnaligned(fromByteOffset: $0, as: UInt64.self).littleEndian }
        }
    }

    /// Ids whose pattern matches everything and whose flags are 0 (WebKit's actionsMatchingEverything()).
    public var universalFlagFree: [UInt64] { ids(layout.universalFlagFree) }

    /// Ids whose pattern matches everything and that carry flags (reported by `match` when the flags test passes).
    public var universalWithFlags: [UInt64] { ids(layout.universalWithFlags) }

    public var statistics: MatcherStatistics {
        var s = MatcherStatistics()
        s.patterns = layout.patterns
        s.universalIds = layout.universalFlagFree.count / 8 + layout.universalWithFlags.count / 8
        s.nfaCount = layout.nfaCount
        s.nfaNodes = layout.nfaNodes
        s.dfaCount = layout.dfaOffsets.count
        s.dfaStates = layout.dfaStates
        s.dfaStatesBeforeMinimization = layout.statesBeforeMinimization
        s.actionLists = layout.listCount
        s.actionIds = layout.idCount
        s.bytes = bytes.count
        return s
    }

    /// All ids whose pattern matches `url` (see the API contract in PatternSetCompiler.swift).
    public func match(_ url: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64]) {
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            var o = layout.universalWithFlags.lowerBound
            while o < layout.universalWithFlags.upperBound {
                let id = base.loadUnaligned(fromByteOffset: o, as: UInt64.self).littleEndian
                if matcherFlagsTestPasses(ruleFlags: UInt32(truncatingIfNeeded: id >> 32), requestFlags: requestFlags) {
                    result.append(id)
                }
                o += 8
            }
            let listStarts = base + layout.listStarts
            let idBase = base + layout.ids
            let length = url.count
            let input = url.baseAddress
            for dfaStart in layout.dfaOffsets {
                let dfa = base + dfaStart
                let width = Int(dfa.load(fromByteOffset: 9, as: UInt8.self))
                let eosClass = Int(dfa.load(fromByteOffset: 10, as: UInt8.self))
                let classMap = dfa + 12
                let states = dfa + MatcherBytecode.dfaHeaderSize
                let mask: UInt32 = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
                let classCount = Int(dfa.load(fromByteOffset: 8, as: UInt8.self))
                _ = classCount
                var state = 0
                var i = 0
                while true {
                    let header = states.load(fromByteOffset: state, as: UInt8.self)
                    var p = state + 1
                    if header & 0x80 != 0 {
                        let list = Int(states.loadUnaligned(fromByteOffset: p, as: UInt32.self).littleEndian)
                        p += 4
                        let from = Int(listStarts.loadUnaligned(fromByteOffset: 4 * list, as: UInt32.self).littleEndian)
                        let to = Int(listStarts.loadUnaligned(fromByteOffset: 4 * list + 4, as: UInt32.self).littleEndian)
                        var k = from
                        while k < to {
                            let id = idBase.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self).littleEndian
                            let flags = UInt32(truncatingIfNeeded: id >> 32)
                            if flags == 0 || matcherFlagsTestPasses(ruleFlags: flags, requestFlags: requestFlags) {
                                result.append(id)
                            }
                            k += 1
                        }
                    }
                    if i > length { break }
                    let c = i < length ? Int(classMap.load(fromByteOffset: Int(input![i]), as: UInt8.self)) : eosClass
                    let target: UInt32
                    switch header & 3 {
                    case 1:
                        let n = Int((header >> 2) & 31)
                        var r = 0
                        while r < n {
                            let lo = Int(states.load(fromByteOffset: p + 2 * r, as: UInt8.self))
                            if c < lo { r = n; break }
                            if c <= Int(states.load(fromByteOffset: p + 2 * r + 1, as: UInt8.self)) { break }
                            r += 1
                        }
                        let at = p + 2 * n + width * r
                        target = states.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian & mask
                    case 2:
                        target = states.loadUnaligned(fromByteOffset: p + width * c, as: UInt32.self).littleEndian & mask
                    default:
                        target = mask
                    }
                    if target == mask { break }
                    state = Int(target)
                    i += 1
                }
            }
        }
    }

    public func match(_ url: [UInt8], requestFlags: UInt32) -> [UInt64] {
        var result: [UInt64] = []
        url.withUnsafeBufferPointer { match($0, requestFlags: requestFlags, into: &result) }
        return result
    }
}
