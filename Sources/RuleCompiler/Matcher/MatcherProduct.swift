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
        /// A DFA of more states is walked alone (see the top of the file).
        public var largeDFAStates = 16_384
        /// At most about this many bytes of tables; then the product starts over (32 MB hold about 30,000 states
        /// of 250 DFAs: 200,000 requests of the filter lists' corpus reach 33,000 per thread).
        public var tableBytes = 32 << 20

        public init() {}
    }

    private let program: MatcherProgram
    /// The DFAs in the product, and those walked alone.
    private let members: [Int], alone: [Int]
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
    /// Per state and class its target; -1 not built yet.
    @exclusivity(unchecked) private var targets: [Int32] = []
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
    /// Where the DFAs walked alone stand, per `alone` (scratch space: an array per URL cost an allocation).
    @exclusivity(unchecked) private var aloneStates: [Int32]
    /// The lists reached within a prefix being made (scratch space: an array per new host cost an allocation).
    @exclusivity(unchecked) private var reached: [Int32] = []
    /// Per DFA of the matcher its index in `alone`, or -1.
    private let aloneIndex: [Int]

    /// The state every DFA stopped in, and the roots' tuple (state numbers of the current generation).
    static let dead: Int32 = 0
    private var root: Int32 = 1

    /// A product of the matcher's small DFAs; nil when they are too few to pay.
    public init?(_ matcher: Matcher, limits: Limits = Limits()) {
        let program = matcher.program
        let all = program.roots.indices
        let members = all.filter { program.shapes[$0].stateCount <= limits.largeDFAStates }
        guard members.count >= limits.minimumDFAs else { return nil }
        let dfaCount = members.count
        (self.program, self.dfaCount, self.members) = (program, dfaCount, members)
        alone = all.filter { program.shapes[$0].stateCount > limits.largeDFAStates }
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
        stateLimit = max(4, limits.tableBytes / (4 * (dfaCount + classCount) + 64))
        var slotCount = 4
        while slotCount < 2 * (stateLimit + 2) { slotCount *= 2 }
        slots = [Int32](repeating: 0, count: slotCount)
        scratch = [Int32](repeating: -1, count: dfaCount)
        aloneStates = [Int32](repeating: -1, count: alone.count)
        var aloneIndex = [Int](repeating: -1, count: program.roots.count)
        for (k, d) in alone.enumerated() { aloneIndex[d] = k }
        self.aloneIndex = aloneIndex
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
        targets += repeatElement(-1, count: classCount)
        for state in tuple where state >= 0 {
            if let list = program.actionList(ofState: Int(state)) { lists.append(list) }
        }
        listStart.append(Int32(lists.count))
        endRange.append(nil)
        bases.append([])
        return s
    }

    /// The target of state `s` for product class `c`, built when new (the product may start over first: the
    /// target is then a state of the new generation).
    private func target(_ s: Int32, _ c: Int) -> Int32 {
        let base = Int(s) * dfaCount
        let classes = c * dfaCount
        for d in 0..<dfaCount {
            let state = tuples[base + d]
            scratch[d] = state < 0 ? -1 : program.target(ofState: Int(state), dfaClass: Int(dfaClass[classes + d]))
        }
        let before = generation
        let t = intern(scratch)
        if generation == before { targets[Int(s) * classCount + c] = t }
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
            let t = program.target(ofState: Int(tuples[base + d]), dfaClass: program.eosClasses[members[d]])
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
                            if t < 0 { return (s, i) }
                            (s, i) = (t, i &+ 1)
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
        reached.removeAll(keepingCapacity: true)
        let s = walk(from: root, prefix) { reached.append(Int32(bitPattern: $0)) }
        for (k, d) in alone.enumerated() { aloneStates[k] = Int32(program.roots[d]) }
        program.walk(alone, from: &aloneStates, prefix) { reached.append(Int32(bitPattern: $0)) }
        let scan = program.readHosts(HostScan(), prefix) { reached.append(Int32(bitPattern: $0)) }
        return program.makePrefix(
            product: s, generation: generation, dfas: alone, states: aloneStates, scan: scan, reached: reached,
            base: base(of: s))
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

    /// As MatcherProgram.resume: the lists the prefix reached, those of the rest of the URL, those of its end.
    func resume(_ prefix: MatcherPrefix, _ rest: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        let scan = prefix.withWords { w in
            for k in program.listsStart(w)..<w.count { report(UInt32(bitPattern: w[k])) }
            return program.hostScan(w)
        }
        finish(walk(from: state(of: prefix), rest, reached: report), report: report)
        setAloneStates(prefix)
        program.walkToTheEnd(alone, from: &aloneStates, rest, reached: report)
        if let scan { _ = program.readHosts(scan, rest, reached: report) }
    }

    /// Where the DFAs walked alone stand in `prefix`, into `aloneStates`.
    private func setAloneStates(_ prefix: MatcherPrefix) {
        for (k, d) in alone.enumerated() { aloneStates[k] = prefix.base.isEmpty ? -1 : prefix.base[d] }
        prefix.withWords { w in
            for k in 0..<Int(w[MatcherPrefix.productWords]) {
                let at = MatcherPrefix.productWords + 1 + 2 * k
                let a = aloneIndex[Int(w[at])]
                if a >= 0 { aloneStates[a] = w[at + 1] }
            }
        }
    }

    /// As MatcherProgram.run over the whole URL.
    func run(_ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        finish(walk(from: root, url, reached: report), report: report)
        for (k, d) in alone.enumerated() { aloneStates[k] = Int32(program.roots[d]) }
        program.walkToTheEnd(alone, from: &aloneStates, url, reached: report)
        _ = program.readHosts(HostScan(), url, reached: report)
    }

    private func finish(_ s: Int32, report: (UInt32) -> Void) {
        for k in endListRange(s) { report(endLists[Int(k)]) }
    }
}
