// MatcherInterpreter: Matcher, a compiled pattern family, and its matching loop.
//
// Every step of the execution form (MatcherProgram) is three dependent loads and no search:
// classMap[byte] -> rows[row + class] -> words[targets + index]. The compiler lays each DFA out in it
// (MatcherLayout.swift), files hold it (MatcherBytecode.swift), and a load validates and copies it.

import ContentRules

/// A class, not a struct: a list's matchers are read on every request, and a call on a struct this large (its
/// program's many tables) copied all of it to the stack first, with a retain for each table.
public final class Matcher: Sendable, Equatable {
    /// The serialization's first 48 bytes (counts, length, build statistics): with `program` and the universal
    /// ids, all that `serialized()` needs, so a load copies nothing but the program.
    let header: [UInt8]
    /// Ids whose pattern matches everything and whose flags are 0 (WebKit's actionsMatchingEverything()).
    public let universalFlagFree: [UInt64]
    /// Ids whose pattern matches everything and that carry flags (reported by `match` when the flags test passes).
    public let universalWithFlags: [UInt64]
    public let statistics: MatcherStatistics
    /// What `match` runs.
    let program: MatcherProgram

    /// Loads a serialized matcher; every offset and target is validated, so corrupted input throws
    /// MatcherError.corrupt and can never make the interpreter read out of bounds.
    public init(serialized b: UnsafeRawBufferPointer) throws {
        let layout = try MatcherBytecode.validate(b)
        func ids(_ range: Range<Int>) -> [UInt64] {
            stride(from: range.lowerBound, to: range.upperBound, by: 8).map {
                b.loadUnaligned(fromByteOffset: $0, as: UInt64.self).littleEndian
            }
        }
        header = Array(b[..<MatcherBytecode.headerSize])
        universalFlagFree = ids(layout.universalFlagFree)
        universalWithFlags = ids(layout.universalWithFlags)
        var s = MatcherStatistics()
        s.patterns = layout.patterns
        s.universalIds = universalFlagFree.count + universalWithFlags.count
        s.nfaCount = layout.nfaCount
        s.nfaNodes = layout.nfaNodes
        s.dfaCount = layout.dfas.count
        s.dfaStates = layout.dfaStates
        s.dfaStatesBeforeMinimization = layout.statesBeforeMinimization
        s.actionLists = layout.listCount
        s.actionIds = layout.idCount
        s.bytes = b.count
        s.hostKeys = layout.hosts?.count ?? 0
        s.hostTableBytes = layout.hosts?.byteCount ?? 0
        s.gatedDFAs = layout.dfas.filter { $0.gate != 0 }.count
        statistics = s
        program = MatcherProgram(validated: b, layout: layout)
    }

    public convenience init(serialized bytes: [UInt8]) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        defer { copy.deallocate() }
        copy.copyBytes(from: bytes)
        try self.init(serialized: UnsafeRawBufferPointer(copy))
    }

    /// The serialization this matcher was loaded from (the form is canonical: a valid blob is the only one
    /// that gives its matcher).
    public func serialized() -> [UInt8] {
        MatcherBytecode.serialize(
            header: header, universalFlagFree: universalFlagFree, universalWithFlags: universalWithFlags,
            program: program)
    }

    public static func == (a: Matcher, b: Matcher) -> Bool { a.serialized() == b.serialized() }

    /// Every id the matcher can report (action lists and universal sets), so that a container can check them
    /// against its own tables.
    public var allIDs: [UInt64] { program.ids + universalFlagFree + universalWithFlags }

    /// True when some pattern matches everything and carries flags (see universalWithFlags).
    public var hasUniversalWithFlags: Bool { !universalWithFlags.isEmpty }

    /// All ids whose pattern matches `url` (see the API contract in MatcherBuilder.swift).
    /// Appends to `result` and allocates nothing else; everything read was validated at load, so the
    /// loop reads through raw pointers without bounds checks.
    public func match(_ url: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64]) {
        appendUniversalWithFlags(requestFlags, into: &result)
        program.run(url, requestFlags: requestFlags, into: &result)
    }

    private func appendUniversalWithFlags(_ requestFlags: UInt32, into result: inout [UInt64]) {
        for id in universalWithFlags
        where matcherFlagsTestPasses(ruleFlags: UInt32(truncatingIfNeeded: id >> 32), requestFlags: requestFlags) {
            result.append(id)
        }
    }

    /// Where the DFAs stand after `prefix` (see MatcherPrefix).
    public func prefix(_ prefix: UnsafeBufferPointer<UInt8>) -> MatcherPrefix { program.prefix(prefix) }

    /// The prefix of every head after which the DFAs report nothing (`reportsNothing`), as a new object: a
    /// cache can store one per thread instead of one per head.
    public func nothingPrefix() -> MatcherPrefix {
        MatcherPrefix(
            words: MatcherPrefix.noProduct + [0] + (program.hasHosts ? HostScan.done.words : [])
                + [MatcherPrefix.ReachedForm.ids.rawValue])
    }

    /// True when every DFA stopped within the prefix, and the host table has no more to find: the rest of the URL
    /// cannot add an id.
    public func isFinal(_ p: MatcherPrefix) -> Bool {
        p.base.isEmpty
            && p.withWords { $0[MatcherPrefix.productWords] == 0 && program.hostScan($0)?.phase ?? .done == .done }
    }

    /// True when no URL with this prefix gets an id from the DFAs, whatever the request flags: all stopped,
    /// having reached no action list.
    public func reportsNothing(_ p: MatcherPrefix) -> Bool {
        p.withWords { $0.count == program.reachedStart($0) + 1 } && isFinal(p)
    }

    /// All ids whose pattern matches prefix + `rest`, where `prefix` is what `prefix(_:)` returned for the
    /// URL's first bytes: the same ids as `match` on the whole URL.
    public func match(
        resuming prefix: MatcherPrefix, rest: UnsafeBufferPointer<UInt8>, requestFlags: UInt32,
        into result: inout [UInt64]
    ) {
        appendUniversalWithFlags(requestFlags, into: &result)
        program.resume(prefix, rest, requestFlags: requestFlags, into: &result)
    }

    /// As `prefix(_:)`, run by `product` (made of this matcher): the same prefix.
    public func prefix(_ prefix: UnsafeBufferPointer<UInt8>, product: MatcherProduct) -> MatcherPrefix {
        product.prefix(prefix)
    }

    /// As `match(resuming:rest:requestFlags:into:)`, run by `product` (made of this matcher): the same ids.
    public func match(
        resuming prefix: MatcherPrefix, rest: UnsafeBufferPointer<UInt8>, requestFlags: UInt32,
        into result: inout [UInt64], product: MatcherProduct
    ) {
        appendUniversalWithFlags(requestFlags, into: &result)
        program.resume(prefix, rest, requestFlags: requestFlags, into: &result, product: product)
    }

    /// As `match(_:requestFlags:into:)`, run by `product` (made of this matcher): the same ids.
    public func match(
        _ url: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64], product: MatcherProduct
    ) {
        appendUniversalWithFlags(requestFlags, into: &result)
        program.run(url, requestFlags: requestFlags, into: &result, product: product)
    }

    public func match(_ url: [UInt8], requestFlags: UInt32) -> [UInt64] {
        var result: [UInt64] = []
        url.withUnsafeBufferPointer { match($0, requestFlags: requestFlags, into: &result) }
        return result
    }
}

/// The execution form of a matcher's DFAs (see the top of this file). Built by the layout or from a
/// validated file, so every row, target and action list it holds is in bounds.
///
///   words: per state (a state is its word index; DFA d's root is roots[d])
///     header  (row << 1) | hasActions: row = offset in `rows` of the state's class -> index row
///     [action list index]                       if hasActions
///     targets: a sparse state's exception targets then its default, a dense state's target per
///              class, as word indices of states (none = UInt32.max; `rootTarget`: the root's target for
///              the class, read from `rootTargets`); a state without transitions has one target, none, and
///              the all-zero row
///   States are laid out depth first from each root (DFALayoutPlan), not in the compact form's order.
///   rows: K bytes per row (K = the DFA's class count): index into the state's targets by class.
///         Rows are shared: a dense state uses the identity row, sparse states with the same
///         exception ranges share one.
///   classMaps: 256 bytes per DFA, then its end-of-string class in eosClasses.
struct MatcherProgram: Sendable {
    static let none = UInt32.max
    static let rootTarget = UInt32.max - 1
    var words: [UInt32] = []
    var rows: [UInt8] = []
    var classMaps: [UInt8] = []
    var roots: [Int] = []
    var eosClasses: [Int] = []
    var listStarts: [UInt32] = []
    var ids: [UInt64] = []
    /// Per DFA from `rootTargetStarts[d]`, its root's target per class (made at load, not stored).
    var rootTargets: [UInt32] = []
    var rootTargetStarts: [Int] = []
    /// Per DFA what the file records beside its words: its rows, classes and states.
    var shapes: [DFAShape] = []
    /// The `||host^` patterns, when the family has them (MatcherHostTable.swift).
    var hosts: MatcherHostTable? { didSet { hasHosts = hosts != nil } }
    /// Whether `hosts` is set: the hot paths ask it per URL, and `hosts == nil` copied the table (three retains).
    var hasHosts = false

    struct DFAShape: Sendable {
        var firstRow: Int, rowCount: Int, classCount: Int, stateCount: Int
        /// 0, or the gate that host table entries open (MatcherHostTable.swift).
        var gate: Int
    }

    func run(_ url: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64]) {
        withTables(requestFlags) { t in
            for d in 0..<roots.count {
                let state = walk(t, d, from: roots[d], url) { t.actions.report($0, into: &result) }
                if state >= 0 { finish(t, d, state, into: &result) }
            }
            _ = readHosts(HostScan(), url) { t.actions.report($0, into: &result) }
        }
    }

    /// The host table's reading of `input` from `scan`, reporting each list it finds and setting the bits of the
    /// gates it opens in `gates`: where it stands after it.
    func readHosts(
        _ scan: HostScan, _ input: UnsafeBufferPointer<UInt8>, gates: inout UInt64, reached: (UInt32) -> Void
    ) -> HostScan {
        guard scan.phase != .done, let hosts else { return scan }
        var scan = scan
        scan.read(input, hosts, gates: &gates, reached: reached)
        return scan
    }

    /// Starts loading the host table's slots for the candidates in `input`, read from the start, without waiting for
    /// them, and keeps the candidates in `found`: a caller with other work to do before `lookUpHosts`
    /// (MatcherProduct.prefix walks the product) then waits for memory once, not twice, and hashes each candidate
    /// once. Returns where the scan stands after `input`, as `readHosts(HostScan(), input, ...)` does.
    func prefetchHosts(_ input: UnsafeBufferPointer<UInt8>, found: inout [HostScan.FoundCandidate]) -> HostScan {
        found.emptyKeepingCapacity()
        guard let hosts else { return HostScan() }
        var (scan, gates) = (HostScan(), UInt64(0))
        withUnsafeMutablePointer(to: &found) { scan.read(input, hosts, gates: &gates, found: $0) { _ in } }
        return scan
    }

    /// Reports the candidates `prefetchHosts` kept for `input`: what `readHosts(HostScan(), input, ...)` reports.
    func lookUpHosts(
        _ found: [HostScan.FoundCandidate], _ input: UnsafeBufferPointer<UInt8>, gates: inout UInt64,
        reached: (UInt32) -> Void
    ) {
        guard let hosts else { return }
        HostScan.lookUp(found, input, hosts, gates: &gates, reached: reached)
    }

    /// As above, where no DFA is skipped for its gate (every DFA is walked: the gates cannot change an answer).
    func readHosts(_ scan: HostScan, _ input: UnsafeBufferPointer<UInt8>, reached: (UInt32) -> Void) -> HostScan {
        var gates: UInt64 = 0
        return readHosts(scan, input, gates: &gates, reached: reached)
    }

    /// The host table's scan a prefix carries (after the DFAs' states and the product's words), nil without a table.
    func hostScan(_ words: UnsafeBufferPointer<Int32>) -> HostScan? {
        hasHosts ? HostScan(words, at: MatcherPrefix.afterOwnStates(words)) : nil
    }

    /// Where what a prefix reached starts in its words: the word that says how (`MatcherPrefix.ReachedForm`), then
    /// the lists or their ids.
    func reachedStart(_ words: UnsafeBufferPointer<Int32>) -> Int {
        let n = MatcherPrefix.afterOwnStates(words)
        return hasHosts ? n + HostScan.wordCount(words, at: n) : n
    }

    /// A prefix (see MatcherPrefix) of product state `s` and `generation`, the DFAs `dfas` (nil: every DFA) that
    /// stand in a state (`states` per DFA of `dfas`, -1 when stopped, left out), the host table's scan, the lists
    /// reached (or their ids), and `base`.
    func makePrefix(
        product s: Int32, generation: UInt32, dfas: [Int]?, states: [Int32], scan: HostScan, reached: [Int32],
        base: [Int32] = []
    ) -> MatcherPrefix {
        // Written in place: a prefix is made for every new host, and each array made on the way was an allocation.
        let scanWords = hasHosts ? scan.words : []
        let live = states.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) }
        // The ids, not the lists, when they are few: a cached prefix is resumed by many requests, and a list's ids
        // are two loads away from its number (its start, then the ids), in tables too large to stay in a core's
        // cache. Not when they are many: a list of thousands of rules reached at every byte of a head would make
        // each cached prefix that many times larger.
        let idCount = reached.reduce(0) { $0 + Int(listStarts[Int($1) + 1] - listStarts[Int($1)]) }
        let form: MatcherPrefix.ReachedForm = idCount <= MatcherPrefix.idsLimit ? .ids : .lists
        let tail = form == .ids ? 2 * idCount : reached.count
        let count = MatcherPrefix.productWords + 1 + 2 * live + scanWords.count + 1 + tail
        return MatcherPrefix(count: count, base: base) { w in
            (w[0], w[1], w[2]) = (s, Int32(bitPattern: generation), Int32(live))
            var at = MatcherPrefix.productWords + 1
            for (k, state) in states.enumerated() where state >= 0 {
                (w[at], w[at + 1]) = (Int32(dfas?[k] ?? k), state)
                at += 2
            }
            for x in scanWords {
                w[at] = x
                at += 1
            }
            w[at] = form.rawValue
            at += 1
            for list in reached {
                guard form == .ids else {
                    w[at] = list
                    at += 1
                    continue
                }
                for id in ids[Int(listStarts[Int(list)])..<Int(listStarts[Int(list) + 1])] {
                    (w[at], w[at + 1]) = (Int32(truncatingIfNeeded: id), Int32(truncatingIfNeeded: id >> 32))
                    at += 2
                }
            }
        }
    }

    /// Runs every DFA over `prefix` alone: where each one stands after it, and the action lists it
    /// reached on the way (their ids are tested against the request flags only when resumed).
    func prefix(_ prefix: UnsafeBufferPointer<UInt8>) -> MatcherPrefix {
        var states = [Int32](repeating: -1, count: roots.count), reached: [Int32] = []
        withTables(0) { t in
            for d in 0..<roots.count {
                states[d] = Int32(walk(t, d, from: roots[d], prefix) { reached.append(Int32(bitPattern: $0)) })
            }
        }
        let scan = readHosts(HostScan(), prefix) { reached.append(Int32(bitPattern: $0)) }
        return makePrefix(product: -1, generation: 0, dfas: nil, states: states, scan: scan, reached: reached)
    }

    /// Continues the DFAs from `prefix` over the rest of the URL: the same ids as `run` on prefix + rest.
    func resume(
        _ prefix: MatcherPrefix, _ rest: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64]
    ) {
        withTables(requestFlags) { t in
            prefix.withWords { w in
                t.actions.report(reached: w[reachedStart(w)...], into: &result)
                for k in 0..<Int(w[MatcherPrefix.productWords]) {
                    let at = MatcherPrefix.productWords + 1 + 2 * k
                    let d = Int(w[at])
                    let state = walk(t, d, from: Int(w[at + 1]), rest) { t.actions.report($0, into: &result) }
                    if state >= 0 { finish(t, d, state, into: &result) }
                }
                if let scan = hostScan(w) {
                    _ = readHosts(scan, rest) { t.actions.report($0, into: &result) }
                }
            }
            prefix.base.withUnsafeBufferPointer { base in
                for d in base.indices where base[d] >= 0 {
                    let state = walk(t, d, from: Int(base[d]), rest) { t.actions.report($0, into: &result) }
                    if state >= 0 { finish(t, d, state, into: &result) }
                }
            }
        }
    }

    func run(
        _ url: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64], product: MatcherProduct
    ) {
        withActionLists(requestFlags) { actions in product.run(url) { actions.report($0, into: &result) } }
    }

    func resume(
        _ prefix: MatcherPrefix, _ rest: UnsafeBufferPointer<UInt8>, requestFlags: UInt32, into result: inout [UInt64],
        product: MatcherProduct
    ) {
        withActionLists(requestFlags) { actions in
            prefix.withWords { w in actions.report(reached: w[reachedStart(w)...], into: &result) }
            product.resume(prefix, rest) { actions.report($0, into: &result) }
        }
    }

    /// The DFAs `dfas` from `states` (-1: stopped) over `input`, byte by byte together, calling `reached` with each
    /// list they report: `states` ends as each stands after the input, or -1. Together, not one after the other:
    /// the large DFAs' steps miss the cache, and independent steps let the core wait for several misses at once.
    func walk(_ dfas: [Int], from states: inout [Int32], _ input: UnsafeBufferPointer<UInt8>, reached: (UInt32) -> Void)
    {
        guard !dfas.isEmpty, let bytes = input.baseAddress, dfas.count == states.count else { return }
        withTables(0) { t in
            dfas.withUnsafeBufferPointer { dfas in
                states.withUnsafeMutableBufferPointer { states in
                    var live = states.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) }
                    var i = 0
                    while i < input.count && live > 0 {
                        let byte = Int(bytes[i])
                        for k in 0..<dfas.count where states[k] >= 0 {
                            let c = Int(t.classMaps[256 &* dfas[k] &+ byte])
                            let next = Self.step(t.words, t.rows, t.root(dfas[k]), Int(states[k]), c, reached)
                            states[k] = next == MatcherProgram.none ? -1 : Int32(next)
                            if next == MatcherProgram.none { live -= 1 }
                        }
                        i &+= 1
                    }
                }
            }
        }
    }

    /// The DFAs `dfas` from `states` over the rest of a URL together (as `walk`), then the end of each one that has
    /// not stopped, calling `reached` with each list.
    func walkToTheEnd(
        _ dfas: [Int], from states: inout [Int32], _ rest: UnsafeBufferPointer<UInt8>, reached: (UInt32) -> Void
    ) {
        guard !dfas.isEmpty else { return }
        walk(dfas, from: &states, rest, reached: reached)
        withTables(0) { t in
            for (k, d) in dfas.enumerated() where states[k] >= 0 { finish(t, d, Int(states[k]), reached: reached) }
        }
    }

    /// The action list `state` reports when left, if any.
    func actionList(ofState state: Int) -> UInt32? {
        words[state] & 1 != 0 ? words[state + 1] : nil
    }

    /// Per k, the target of `states[k]` (of DFA `dfas[k]`, -1: stopped) for that DFA's class `classes[k]`, -1 when
    /// there is none, into `targets[k]`: a product's new tuple, in one pass through raw pointers (a call per DFA
    /// checked every index it read).
    func targets(
        _ dfas: UnsafeBufferPointer<Int>, from states: UnsafePointer<Int32>, classes: UnsafePointer<UInt8>,
        into targets: UnsafeMutablePointer<Int32>
    ) {
        withTables(0) { t in
            for k in 0..<dfas.count {
                let state = Int(states[k])
                guard state >= 0 else {
                    targets[k] = -1
                    continue
                }
                let next = Self.step(t.words, t.rows, t.root(dfas[k]), state, Int(classes[k])) { _ in }
                targets[k] = next == MatcherProgram.none ? -1 : Int32(truncatingIfNeeded: next)
            }
        }
    }

    /// Calls `body` with the action list of each of `states` (-1: stopped) that reports one, in order.
    func actionLists(ofStates states: UnsafeBufferPointer<Int32>, _ body: (UInt32) -> Void) {
        words.withUnsafeBufferPointer { words in
            for state in states where state >= 0 {
                let s = Int(state)
                if words[s] & 1 != 0 { body(words[s &+ 1]) }
            }
        }
    }

    /// The target of `state` (of DFA `d`) for its DFA's class `c`, -1 when there is none.
    func target(ofState state: Int, dfa d: Int, dfaClass c: Int) -> Int32 {
        let header = words[state]
        let targets = state + 1 + Int(header & 1)
        var next = words[targets + Int(rows[Int(header >> 1) + c])]
        if next == MatcherProgram.rootTarget { next = rootTargets[rootTargetStarts[d] + c] }
        return next == MatcherProgram.none ? -1 : Int32(next)
    }

    /// The tables of the program as raw pointers (validated at load: no bounds checks in the loop).
    private struct Tables {
        let words: UnsafePointer<UInt32>
        let rows: UnsafePointer<UInt8>
        let classMaps: UnsafePointer<UInt8>
        let rootTargets: UnsafePointer<UInt32>
        let rootTargetStarts: UnsafePointer<Int>
        let actions: ActionLists

        /// DFA `d`'s root targets by class.
        @inline(__always)
        func root(_ d: Int) -> UnsafePointer<UInt32> { rootTargets + rootTargetStarts[d] }
    }

    private func withTables(_ requestFlags: UInt32, _ body: (Tables) -> Void) {
        withActionLists(requestFlags) { actions in
            words.withUnsafeBufferPointer { wordBuffer in
                rows.withUnsafeBufferPointer { rowBuffer in
                    classMaps.withUnsafeBufferPointer { classMapBuffer in
                        rootTargets.withUnsafeBufferPointer { rootTargets in
                            rootTargetStarts.withUnsafeBufferPointer { rootTargetStarts in
                                guard let words = wordBuffer.baseAddress, let rows = rowBuffer.baseAddress,
                                    let classMaps = classMapBuffer.baseAddress,
                                    let roots = rootTargets.baseAddress, let starts = rootTargetStarts.baseAddress
                                else { return }
                                body(
                                    Tables(
                                        words: words, rows: rows, classMaps: classMaps, rootTargets: roots,
                                        rootTargetStarts: starts, actions: actions))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The action lists alone: what a product's caller reads (the product walks its own tables), without a retain
    /// and a release for each of the DFAs' tables on every request.
    private func withActionLists(_ requestFlags: UInt32, _ body: (ActionLists) -> Void) {
        listStarts.withUnsafeBufferPointer { listStarts in
            ids.withUnsafeBufferPointer { ids in
                body(ActionLists(listStarts: listStarts.baseAddress!, ids: ids.baseAddress, requestFlags: requestFlags))
            }
        }
    }

    /// DFA `d` from `state` over `input`, calling `reached` with each action list it reports: the state
    /// it stands in after the input (its own actions not yet reported), or -1 when it stopped.
    @inline(__always)
    private func walk(
        _ t: Tables, _ d: Int, from state: Int, _ input: UnsafeBufferPointer<UInt8>, reached: (UInt32) -> Void
    ) -> Int {
        let classMap = t.classMaps + 256 * d
        let root = t.root(d)
        var state = state
        guard let bytes = input.baseAddress else { return state }
        let length = input.count
        var i = 0
        while i < length {
            let next = Self.step(t.words, t.rows, root, state, Int(classMap[Int(bytes[i])]), reached)
            if next == MatcherProgram.none { return -1 }
            state = Int(next)
            i &+= 1
        }
        return state
    }

    /// The end-of-string symbol from `state`, then the actions of the state it leads to.
    @inline(__always)
    private func finish(_ t: Tables, _ d: Int, _ state: Int, into result: inout [UInt64]) {
        finish(t, d, state) { t.actions.report($0, into: &result) }
    }

    @inline(__always)
    private func finish(_ t: Tables, _ d: Int, _ state: Int, reached: (UInt32) -> Void) {
        let next = Self.step(t.words, t.rows, t.root(d), state, eosClasses[d], reached)
        if next != MatcherProgram.none, t.words[Int(next)] & 1 != 0 { reached(t.words[Int(next) + 1]) }
    }

    /// Reports the actions of `state`, then returns its target for class `c` (none when there is none); `root` is
    /// its DFA's root targets.
    @inline(__always)
    private static func step(
        _ words: UnsafePointer<UInt32>, _ rows: UnsafePointer<UInt8>, _ root: UnsafePointer<UInt32>, _ state: Int,
        _ c: Int, _ reached: (UInt32) -> Void
    ) -> UInt32 {
        let header = words[state]
        var targets = state &+ 1
        if header & 1 != 0 {
            reached(words[targets])
            targets &+= 1
        }
        let next = words[targets &+ Int(rows[Int(header >> 1) &+ c])]
        return next == MatcherProgram.rootTarget ? root[c] : next
    }
}

/// Where a matcher's DFAs stand after a prefix of a URL (`Matcher.prefix`): resumed over the rest of
/// the URL, the same ids as a whole run. Pure data, so a cache can hold it for every URL sharing the prefix.
public struct MatcherPrefix: Sendable {
    /// The MatcherProduct state the prefix stands in and that product's generation (-1 and 0 when no product made
    /// it: a product resumes from its own state without looking the DFAs' states up); then the number of the
    /// prefix's own states and per own state its DFA and state (the DFAs not in `base` that have not stopped);
    /// then, when the matcher has a host table, where its scan stands (`HostScan`); then how it holds what it reached
    /// (`ReachedForm`) and the action lists reached within the prefix, or their ids, two words each, low then high
    /// (not yet tested against request flags).
    // Immutable once made: safe to share across threads (a ManagedBuffer subclass cannot be declared Sendable).
    nonisolated(unsafe) private let storage: Storage
    /// Per DFA its state (-1: stopped, or one of the prefix's own), or empty: every DFA's state is in `words`.
    /// A product's prefix shares its tuple's (made once per product state): a prefix is made for every new host,
    /// and copying every DFA's state into each one cost its making and its freeing (docs/matching.md). Never all -1.
    var base: [Int32] { storage.header.base }

    /// The words and the base in one object: a cached prefix is one reference (a cache slot holds a word), and one
    /// allocation when a product shares the base.
    final class Storage: ManagedBuffer<Header, Int32> {}
    struct Header {
        let base: [Int32]
        let count: Int
    }

    /// A prefix of `count` words, which `fill` writes.
    init(count: Int, base: [Int32], fill: (UnsafeMutablePointer<Int32>) -> Void) {
        let storage = Storage.create(minimumCapacity: count) { _ in Header(base: base, count: count) }
        self.storage = unsafeDowncast(storage, to: Storage.self)
        self.storage.withUnsafeMutablePointerToElements { fill($0) }
    }

    init(words: [Int32], base: [Int32] = []) {
        self.init(count: words.count, base: base) { e in
            words.withUnsafeBufferPointer { e.initialize(from: $0.baseAddress!, count: $0.count) }
        }
    }

    func withWords<R>(_ body: (UnsafeBufferPointer<Int32>) -> R) -> R {
        storage.withUnsafeMutablePointers { h, e in body(UnsafeBufferPointer(start: e, count: h.pointee.count)) }
    }

    /// The words as an array (for tests).
    var words: [Int32] { withWords { Array($0) } }

    static let productWords = 2

    /// How a prefix holds the action lists it reached: their numbers, or their ids (at most `idsLimit` of them).
    enum ReachedForm: Int32 {
        case lists = 0, ids = 1
    }

    static let idsLimit = 64
    static let noProduct: [Int32] = [-1, 0]

    /// Where what follows the own states starts in a prefix's words.
    static func afterOwnStates(_ words: UnsafeBufferPointer<Int32>) -> Int {
        productWords + 1 + 2 * Int(words[productWords])
    }

    /// Every DFA's state (`count` DFAs), -1 when it stopped.
    func states(count: Int) -> [Int32] {
        var states = base.isEmpty ? [Int32](repeating: -1, count: count) : base
        withWords { words in
            for k in 0..<Int(words[Self.productWords]) {
                states[Int(words[Self.productWords + 1 + 2 * k])] = words[Self.productWords + 2 + 2 * k]
            }
        }
        return states
    }
}

/// The action lists of a matcher, and the request flags their ids are tested against.
private struct ActionLists {
    let listStarts: UnsafePointer<UInt32>
    let ids: UnsafePointer<UInt64>?
    let requestFlags: UInt32

    @inline(never)
    func report(_ list: UInt32, into result: inout [UInt64]) {
        var k = Int(listStarts[Int(list)])
        let to = Int(listStarts[Int(list) + 1])
        guard let ids else { return }
        while k < to {
            let id = ids[k]
            let flags = UInt32(truncatingIfNeeded: id >> 32)
            if flags == 0 || matcherFlagsTestPasses(ruleFlags: flags, requestFlags: requestFlags) {
                result.append(id)
            }
            k += 1
        }
    }

    /// What a prefix reached (its form's word, then the lists or the ids), the ids whose flags pass.
    @inline(__always)
    func report(reached words: Slice<UnsafeBufferPointer<Int32>>, into result: inout [UInt64]) {
        guard words[words.startIndex] == MatcherPrefix.ReachedForm.ids.rawValue else {
            for list in words.dropFirst() { report(UInt32(bitPattern: list), into: &result) }
            return
        }
        var k = words.startIndex + 1
        while k < words.endIndex {
            let id = UInt64(UInt32(bitPattern: words[k])) | UInt64(UInt32(bitPattern: words[k + 1])) << 32
            let flags = UInt32(truncatingIfNeeded: id >> 32)
            if flags == 0 || matcherFlagsTestPasses(ruleFlags: flags, requestFlags: requestFlags) {
                result.append(id)
            }
            k += 2
        }
    }
}
