// MatcherProduct: the DFAs of a matcher run as one automaton, built lazily as URLs are read.
//
// A filter list compiles to a couple of hundred DFAs (WebKit's own cut of the patterns: one automaton of them all
// would have too many states), and MatcherProgram walks every one of them along every URL. A state of the product
// is the tuple of the DFAs' states: one table lookup per byte, whatever the number of DFAs. Only the tuples that
// URLs reach are built, on the first step that reaches them (RE2's lazy DFA does the same for its alternations),
// so a product never holds more than the URLs read made; past `stateLimit` it starts over empty.
//
// Large DFAs stay out of the product: every distinct host a URL names would be a new tuple of a trie of hosts
// (docs/filter-lists.md). They are walked beside it, together byte by byte (MatcherProgram.walk). The `||host^`
// filters' are no DFAs at all but a host table (MatcherHostTable.swift), which the product reads beside its walk.
// Gated DFAs (`||host/path` and the like, MatcherHostTable.swift) stay out too, and are walked only on URLs whose
// host candidates open their gate: the table is read first, then the DFAs it leaves open.
//
// It reports exactly what MatcherProgram reports, the same action lists as often: leaving a state reports the
// lists of its DFAs' states that have actions (`step` in MatcherInterpreter.swift), and the end of the URL those
// again and those of the end-of-string targets (`finish`). Callers sort the ids, so only the multiset matters.
//
// Mutable: one per thread (RuleEngine keeps one per copy of a loaded list).

import Synchronization

/// Generations are numbered across every product of the process: a prefix names a state of the one product that
/// made it, and any other product looks its tuple up.
private let generations = Atomic<UInt32>(0)

public final class MatcherProduct {
    /// What a product is made of and may hold.
    public struct Limits: Sendable {
        /// The product is worth its tables from this many small DFAs on (below, MatcherProgram's walk is as fast).
        public var minimumDFAs = 8
        /// A DFA of more states is walked alone (see the top of the file). With the host tries in the host table and
        /// in gated DFAs, what is this large is the automaton of a list's unanchored literals, whose state follows
        /// the last few bytes: in the product it costs fewer new tuples than its walk costs alone (docs/matching.md).
        public var largeDFAStates = 65_536
        /// At most about this many bytes of tables; then the product starts over (32 MB hold about 30,000 states
        /// of 250 DFAs: 200,000 requests of the filter lists' corpus reach 33,000 per thread).
        public var tableBytes = 32 << 20

        public init() {}
    }

    private let program: MatcherProgram
    /// The DFAs in the product, and those walked alone (large or gated).
    private let members: [Int], alone: [Int]
    /// The DFAs walked alone that have no gate, and per gate (bit) the DFAs it opens.
    private let ungated: [Int], gated: [[Int]]
    private let dfaCount: Int
    /// The product's byte classes: bytes that every DFA puts in one class are one class here.
    private let classOfByte: [UInt8]
    private let classCount: Int
    /// Per product class, each DFA's class (classCount x dfaCount).
    private let dfaClass: [UInt8]
    private let stateLimit: Int

    /// Per state its DFAs' states (-1: stopped), dfaCount words each.
    @exclusivity(unchecked) private var tuples: [Int32] = []
    /// The index of the tuples: per slot a state + 1, or 0 (empty); open addressing, linear probing, at most half
    /// full. Not a Dictionary of arrays: new hosts still reach new tuples, and hashing one with Hasher and making an
    /// array of it to look it up cost as much as building its target (docs/matching.md).
    @exclusivity(unchecked) private var slots: [Int32]
    /// Per state and class its target; `unbuilt` not built yet. Two bytes a target, so at most 65,535 states: the
    /// table every step of every URL reads is half the size, and more of it stays in the cores' caches.
    @exclusivity(unchecked) private var targets: [UInt16] = []
    private static let unbuilt = UInt16.max
    /// Per state the action lists its DFAs' states report when left: lists[listStart[s] ..< listStart[s + 1]].
    @exclusivity(unchecked) private var listStart: [Int32] = [0]
    @exclusivity(unchecked) private var lists: [UInt32] = []
    /// Per state the lists the end of the URL reports there (built on first use), as ranges of `endLists`.
    @exclusivity(unchecked) private var endRange: [Range<Int32>?] = []
    @exclusivity(unchecked) private var endLists: [UInt32] = []
    /// Per state the `MatcherPrefix.base` of the prefixes that end there, made with the first one (empty until then).
    @exclusivity(unchecked) private var bases: [[Int32]] = []
    /// New whenever the product starts over: a state number from another generation means nothing here.
    private(set) var generation: UInt32 = 0
    /// How many generations the product has had (1 until it first starts over).
    private(set) var restarts = 0
    @exclusivity(unchecked) private var scratch: [Int32]
    /// The DFAs walked alone on the URL at hand and where they stand (scratch space: an array per URL cost an
    /// allocation).
    @exclusivity(unchecked) private var liveAlone: [Int] = []
    @exclusivity(unchecked) private var liveStates: [Int32] = []
    /// The lists reached within a prefix being made (scratch space: an array per new host cost an allocation).
    @exclusivity(unchecked) private var reached: [Int32] = []
    /// The host table's candidates in a prefix being made, from their loads' start (before the walk) to their
    /// lookups (after it): hashed once (scratch space).
    @exclusivity(unchecked) private var hostCandidates: [HostScan.FoundCandidate] = []
    /// Per DFA of the matcher whether it is walked alone.
    private let isAlone: [Bool]

    /// The state every DFA stopped in, and the roots' tuple (state numbers of the current generation).
    static let dead: Int32 = 0
    private var root: Int32 = 1

    /// A product of the matcher's small DFAs; nil when they are too few to pay.
    public init?(_ matcher: Matcher, limits: Limits = Limits()) {
        let program = matcher.program
        let all = program.roots.indices
        let isAlone = all.map { program.shapes[$0].stateCount > limits.largeDFAStates || program.shapes[$0].gate != 0 }
        let members = all.filter { !isAlone[$0] }
        guard members.count >= limits.minimumDFAs else { return nil }
        let dfaCount = members.count
        (self.program, self.dfaCount, self.members, self.isAlone) = (program, dfaCount, members, isAlone)
        alone = all.filter { isAlone[$0] }
        ungated = alone.filter { program.shapes[$0].gate == 0 }
        var gated = [[Int]](repeating: [], count: MatcherHostTable.maximumGates)
        for d in alone where program.shapes[d].gate != 0 { gated[program.shapes[d].gate - 1].append(d) }
        self.gated = gated
        var classOfByte = [UInt8](repeating: 0, count: 256)
        var classes: [[UInt8]: Int] = [:]
        var dfaClass: [UInt8] = []
        for byte in 0..<256 {
            let key = members.map { program.classMaps[256 * $0 + byte] }
            if let c = classes[key] {
                classOfByte[byte] = UInt8(c)
            } else {
                classOfByte[byte] = UInt8(classes.count)
                classes[key] = classes.count
                dfaClass += key
            }
        }
        self.classOfByte = classOfByte
        self.dfaClass = dfaClass
        classCount = classes.count
        stateLimit = min(Int(Self.unbuilt), max(4, limits.tableBytes / (4 * dfaCount + 2 * classCount + 64)))
        var slotCount = 4
        while slotCount < 2 * (stateLimit + 2) { slotCount *= 2 }
        slots = [Int32](repeating: 0, count: slotCount)
        scratch = [Int32](repeating: -1, count: dfaCount)
        liveAlone.reserveCapacity(alone.count)
        liveStates.reserveCapacity(alone.count)
        // Room for as many states as the tables may hold, asked for once: grown by doubling, the tables were copied
        // into fresh pages again and again, each zeroed by the kernel first. Only the pages written are ever used.
        tuples.reserveCapacity(stateLimit * dfaCount)
        targets.reserveCapacity(stateLimit * classCount)
        listStart.reserveCapacity(stateLimit + 1)
        endRange.reserveCapacity(stateLimit)
        bases.reserveCapacity(stateLimit)
        startOver()
    }

    private func startOver() {
        tuples.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        targets.removeAll(keepingCapacity: true)
        listStart.removeAll(keepingCapacity: true)
        listStart.append(0)
        lists.removeAll(keepingCapacity: true)
        endRange.removeAll(keepingCapacity: true)
        endLists.removeAll(keepingCapacity: true)
        bases.removeAll(keepingCapacity: true)
        repeat {
            generation = generations.add(1, ordering: .relaxed).newValue
        } while generation == 0 // 0: no product's (MatcherPrefix.noProduct)
        restarts += 1
        _ = intern([Int32](repeating: -1, count: dfaCount))
        root = intern(members.map { Int32(program.roots[$0]) })
    }

    /// How many states the product holds.
    private var stateCount: Int { endRange.count }

    /// The state of `tuple` if the product holds it, and the slot where it is or would go.
    private func lookup(_ tuple: [Int32]) -> (state: Int32?, slot: Int) {
        tuple.withUnsafeBufferPointer { key in
            tuples.withUnsafeBufferPointer { tuples in
                slots.withUnsafeBufferPointer { slots in
                    let (mask, n) = (slots.count &- 1, key.count)
                    // FNV-1a over the words, its high bits folded into the low ones the mask keeps.
                    var h: UInt64 = 0xCBF2_9CE4_8422_2325
                    for x in key { h = (h ^ UInt64(UInt32(bitPattern: x))) &* 0x100_0000_01B3 }
                    var slot = Int(truncatingIfNeeded: h ^ (h >> 29)) & mask
                    while true {
                        let e = Int(slots[slot])
                        if e == 0 { return (nil, slot) }
                        let base = (e &- 1) &* n
                        var k = 0
                        while k < n && tuples[base &+ k] == key[k] { k &+= 1 }
                        if k == n { return (Int32(e &- 1), slot) }
                        slot = (slot &+ 1) & mask
                    }
                }
            }
        }
    }

    /// The state of a tuple, added when new; when the product is full, it starts over first (the state is then one
    /// of the new generation).
    private func intern(_ tuple: [Int32]) -> Int32 {
        let (found, slot) = lookup(tuple)
        if let found { return found }
        if stateCount >= stateLimit {
            startOver()
            return intern(tuple)
        }
        let s = Int32(stateCount)
        slots[slot] = s + 1
        tuples += tuple
        targets += repeatElement(Self.unbuilt, count: classCount)
        tuple.withUnsafeBufferPointer { program.actionLists(ofStates: $0) { lists.append($0) } }
        listStart.append(Int32(lists.count))
        endRange.append(nil)
        bases.append([])
        return s
    }

    /// The target of state `s` for product class `c`, built when new (the product may start over first: the
    /// target is then a state of the new generation).
    private func target(_ s: Int32, _ c: Int) -> Int32 {
        tuples.withUnsafeBufferPointer { tuples in
            dfaClass.withUnsafeBufferPointer { dfaClass in
                members.withUnsafeBufferPointer { members in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        program.targets(
                            members, from: tuples.baseAddress! + Int(s) * dfaCount,
                            classes: dfaClass.baseAddress! + c * dfaCount, into: scratch.baseAddress!)
                    }
                }
            }
        }
        let before = generation
        let t = intern(scratch)
        if generation == before { targets[Int(s) * classCount + c] = UInt16(t) }
        return t
    }

    /// The lists the end of the URL reports in state `s`: those its states report when left, then those of each
    /// DFA's end-of-string target.
    private func endListRange(_ s: Int32) -> Range<Int32> {
        if let r = endRange[Int(s)] { return r }
        let from = Int32(endLists.count)
        endLists += lists[Int(listStart[Int(s)])..<Int(listStart[Int(s) + 1])]
        let base = Int(s) * dfaCount
        for d in 0..<dfaCount where tuples[base + d] >= 0 {
            let t = program.target(
                ofState: Int(tuples[base + d]), dfa: members[d], dfaClass: program.eosClasses[members[d]])
            if t >= 0, let list = program.actionList(ofState: Int(t)) { endLists.append(list) }
        }
        let r = from..<Int32(endLists.count)
        endRange[Int(s)] = r
        return r
    }

    /// The state after `input` from `s`, calling `reached` with every list reported on the way.
    @inline(__always)
    func walk(from s: Int32, _ input: UnsafeBufferPointer<UInt8>, reached: (UInt32) -> Void) -> Int32 {
        var (s, i) = (s, 0)
        while i < input.count && s != Self.dead {
            // Along built targets without a check; a target not built yet ends the run and is built here.
            (s, i) = walkBuilt(from: s, input, at: i, reached: reached)
            if i < input.count && s != Self.dead {
                s = target(s, Int(classOfByte[Int(input[i])]))
                i += 1
            }
        }
        return s
    }

    /// From byte `i` on along built targets: the state and position where the input ends, the product dies, or a
    /// target is not built yet (the lists of that state are reported: building its target reports nothing).
    @inline(__always)
    private func walkBuilt(
        from s: Int32, _ input: UnsafeBufferPointer<UInt8>, at i: Int, reached: (UInt32) -> Void
    ) -> (Int32, Int) {
        targets.withUnsafeBufferPointer { targets in
            listStart.withUnsafeBufferPointer { listStart in
                lists.withUnsafeBufferPointer { lists in
                    classOfByte.withUnsafeBufferPointer { classOfByte in
                        var (s, i) = (s, i)
                        let classCount = self.classCount
                        while i < input.count && s != Self.dead {
                            var k = Int(listStart[Int(s)])
                            let to = Int(listStart[Int(s) &+ 1])
                            while k < to {
                                reached(lists[k])
                                k &+= 1
                            }
                            let t = targets[Int(s) &* classCount &+ Int(classOfByte[Int(input[i])])]
                            if t == Self.unbuilt { return (s, i) }
                            (s, i) = (Int32(t), i &+ 1)
                        }
                        return (s, i)
                    }
                }
            }
        }
    }

    /// Where the DFAs stand after `prefix` from the roots, as a MatcherProduct.prefix gives it, carrying the
    /// product's state (the lists reached are the same, in another order: callers sort the ids).
    func prefix(_ prefix: UnsafeBufferPointer<UInt8>) -> MatcherPrefix {
        reached.emptyKeepingCapacity()
        let scan = program.prefetchHosts(prefix, found: &hostCandidates)
        let s = walk(from: root, prefix) { reached.append(Int32(bitPattern: $0)) }
        var gates: UInt64 = 0
        program.lookUpHosts(hostCandidates, prefix, gates: &gates) { reached.append(Int32(bitPattern: $0)) }
        // Until the host part has ended, a later candidate may still open any gate.
        startAlone(gates: scan.phase == .done ? gates : ~0)
        program.walk(liveAlone, from: &liveStates, prefix) { reached.append(Int32(bitPattern: $0)) }
        return program.makePrefix(
            product: s, generation: generation, dfas: liveAlone, states: liveStates, scan: scan, reached: reached,
            base: base(of: s))
    }

    /// The DFAs walked alone that `gates` leaves open, at their roots, into `liveAlone` and `liveStates`.
    private func startAlone(gates: UInt64) {
        liveAlone.emptyKeepingCapacity()
        liveStates.emptyKeepingCapacity()
        func add(_ d: Int) {
            liveAlone.append(d)
            liveStates.append(Int32(program.roots[d]))
        }
        for d in ungated { add(d) }
        var open = gates
        while open != 0 {
            for d in gated[open.trailingZeroBitCount] { add(d) }
            open &= open &- 1
        }
    }

    /// The prefix base of state `s`: per DFA of the matcher its state in the tuple, -1 for those walked alone (and
    /// empty for the dead state, where every DFA stopped).
    private func base(of s: Int32) -> [Int32] {
        if s == Self.dead || !bases[Int(s)].isEmpty { return bases[Int(s)] }
        var base = [Int32](repeating: -1, count: program.roots.count)
        let from = Int(s) * dfaCount
        for (k, d) in members.enumerated() { base[d] = tuples[from + k] }
        bases[Int(s)] = base
        return base
    }

    /// The state a prefix stands in: its own when it was made by this product in this generation, else its tuple's.
    private func state(of prefix: MatcherPrefix) -> Int32 {
        let (s, made) = prefix.withWords { ($0[0], UInt32(bitPattern: $0[1])) }
        if made == generation && s >= 0 && Int(s) < stateCount { return s }
        let states = prefix.states(count: program.roots.count)
        return intern(members.map { states[$0] })
    }

    /// As MatcherProgram.resume, but for the ids the prefix carries (its caller reports them): the lists of the rest
    /// of the URL, those of its end.
    func resume(_ prefix: MatcherPrefix, _ rest: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        let scan = prefix.withWords { program.hostScan($0) }
        finish(walk(from: state(of: prefix), rest, reached: report), report: report)
        setAloneStates(prefix)
        program.walkToTheEnd(liveAlone, from: &liveStates, rest, reached: report)
        if let scan { _ = program.readHosts(scan, rest, reached: report) }
    }

    /// The DFAs walked alone that stand in a state in `prefix`, and those states, into `liveAlone` and `liveStates`.
    private func setAloneStates(_ prefix: MatcherPrefix) {
        liveAlone.emptyKeepingCapacity()
        liveStates.emptyKeepingCapacity()
        // A base this product made holds no DFA walked alone; another product's may (its limits may differ).
        if prefix.withWords({ UInt32(bitPattern: $0[1]) != generation }) {
            let base = prefix.base
            for d in alone where !base.isEmpty && base[d] >= 0 {
                liveAlone.append(d)
                liveStates.append(base[d])
            }
        }
        prefix.withWords { w in
            for k in 0..<Int(w[MatcherPrefix.productWords]) {
                let at = MatcherPrefix.productWords + 1 + 2 * k
                if isAlone[Int(w[at])] {
                    liveAlone.append(Int(w[at]))
                    liveStates.append(w[at + 1])
                }
            }
        }
    }

    /// As MatcherProgram.run over the whole URL: the table read first, so that the DFAs it leaves shut are not walked
    /// (the gates it opens over the whole URL are all it can open).
    func run(_ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        var gates: UInt64 = 0
        _ = program.readHosts(HostScan(), url, gates: &gates, reached: report)
        finish(walk(from: root, url, reached: report), report: report)
        startAlone(gates: gates)
        program.walkToTheEnd(liveAlone, from: &liveStates, url, reached: report)
    }

    private func finish(_ s: Int32, report: (UInt32) -> Void) {
        for k in endListRange(s) { report(endLists[Int(k)]) }
    }
}
